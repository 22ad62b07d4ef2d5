"""The Mojo frontend's pure parts: which kernels a file names, the generated harness, diagnostics, a missing toolchain.

No compiler is needed here; tests/test_mojo_frontend.py compiles for real.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.errors import ToolchainError
from tools.frontends import detect_frontend, get_frontend
from tools.frontends import mojo as mojofe
from tools.frontends.mojo import MojoKernel, harness_source, kernels_in, parse_diagnostics


def test_header_lines_name_kernels_with_their_parameters():
    text = "# kernelpilot: kernel tiled[64, 4]\n#kernelpilot: kernel  saxpy \ndef saxpy(x: Int32):\n    pass\n"
    assert kernels_in(text) == [MojoKernel("tiled[64, 4]", "tiled"), MojoKernel("saxpy", "saxpy")]
    assert kernels_in(text)[0].label == "tiled_64_4"


def test_without_a_header_every_plain_top_level_def_returning_nothing_is_a_kernel():
    text = (
        "def main() raises:\n    pass\n"  # the program entry, not a kernel
        "def _helper(x: Int32):\n    pass\n"  # private by convention
        "def scale[n: Int](x: Int32):\n    pass\n"  # parametric: needs the header to get concrete parameters
        "def square(\n    x: Float32,\n) -> Float32:\n    return x * x\n"  # returns a value: a device function
        "def add_one(\n    x: Pointer[Float32, MutAnyOrigin],\n    n: Int32,\n):\n    pass\n"
        "    def nested(x: Int32):\n        pass\n"  # not top level
    )
    assert [k.expression for k in kernels_in(text)] == ["add_one"]


def test_the_examples_name_their_kernels_in_the_header():
    examples = Path(__file__).resolve().parents[1] / "examples" / "mojo"
    assert [k.expression for k in kernels_in((examples / "mfma_loop.mojo").read_text())] == ["mfma_loop"]
    prefetched = (examples / "mfma_loop_prefetched.mojo").read_text()
    assert [k.expression for k in kernels_in(prefetched)] == ["mfma_loop_prefetched"]


def test_harness_imports_the_module_and_writes_four_stages_per_kernel(tmp_path):
    text = harness_source("k", [MojoKernel("tiled[64, 4]", "tiled")], "gfx950", tmp_path)
    assert "from k import *" in text
    assert 'comptime _kp_target = get_gpu_target["gfx950"]()' in text
    for kind, name in (("llvm", "01_llvm_ir.ll"), ("llvm-opt", "02_llvm_ir_opt.ll"), ("asm", "03_amdgcn.s")):
        assert f'compile_info[tiled[64, 4], emission_kind="{kind}", target=_kp_target]()' in text
        assert f'.write_text("tiled_64_4/{name}")' in text  # relative to the dump directory, the run's cwd
    nv = harness_source("k", [MojoKernel("f", "f")], "sm_90", tmp_path)
    assert "03_ptx.ptx" in nv and "04_cubin.cubin" in nv


def test_json_diagnostics_keep_file_line_and_a_one_based_column():
    # mojo 1.2.0 --diagnostic-format json; the text format reports the same error at column 31
    out = (
        '{"diagnostic":{"file":"/tmp/bad.mojo","fixIts":[],"location":{"column":30,"line":4},"ranges":[],'
        '"text":"    var i = Int32(global_idx.x"},"kind":"error","message":"expected \')\' in call argument list"}\n'
        '{"kind":"error","message":"failed to parse the provided Mojo source module"}\n'
        "Failed to initialize Crashpad.  Crash reporting will not be available.\n"
    )
    errors, other = parse_diagnostics(out)
    assert (errors[0].file, errors[0].line, errors[0].column) == ("/tmp/bad.mojo", 4, 31)
    assert errors[0].render().startswith("/tmp/bad.mojo:4:31: error: expected ')' in call argument list")
    assert errors[1].message == "failed to parse the provided Mojo source module"
    assert other == []  # the crashpad notice is noise


def test_mojo_files_go_to_the_mojo_frontend():
    assert detect_frontend(Path("kernel.mojo")) == "mojo"
    assert get_frontend("mojo").name == "mojo"


def test_missing_max_core_is_a_toolchain_error_that_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(mojofe, "package_version", lambda dist: None)
    with pytest.raises(ToolchainError) as exc:
        mojofe.find_mojo()
    assert "max-core is not installed" in exc.value.message
    assert "pip install max-core==26.7.0" in exc.value.hint
    assert "Modular Community License" in exc.value.hint
