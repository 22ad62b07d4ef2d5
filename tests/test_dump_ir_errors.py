"""Bad input gets a clear error naming the problem and the fix, and nothing half-written looks like a success."""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.conftest import EXAMPLES
from tools import cache, toolchain
from tools.cli import main
from tools.dump_ir import dump_ir, dump_ir_command
from tools.errors import CompileError, InputError, ToolchainError


def write(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="kernel file not found"):
        dump_ir(tmp_path / "nope.py", "gfx942")


def test_directory_is_not_a_kernel(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        dump_ir(tmp_path, "gfx942")


def test_binary_file_is_rejected(tmp_path):
    path = tmp_path / "k.py"
    path.write_bytes(b"\x7fELF\x00\x00\x01")
    with pytest.raises(InputError, match="binary file"):
        dump_ir(path, "gfx942")


def test_python_file_that_is_not_a_kernel(tmp_path):
    path = write(tmp_path, "plain.py", "print('hello')\n")
    with pytest.raises(InputError, match="imports neither flydsl nor triton"):
        dump_ir(path, "gfx942")


def test_unknown_arch_lists_the_known_ones():
    with pytest.raises(InputError, match="unknown architecture 'gfx1234'") as info:
        dump_ir(EXAMPLES / "triton" / "vector_add.py", "gfx1234")
    assert "gfx942" in info.value.hint


def test_frontend_that_cannot_target_the_arch():
    with pytest.raises(InputError, match="flydsl frontend cannot target sm_90"):
        dump_ir(EXAMPLES / "flydsl" / "saxpy.py", "sm_90")


@pytest.mark.slow
def test_syntax_error_shows_the_users_line_not_ours(tmp_path):
    path = write(tmp_path, "broken.py", "import triton\n\ndef kernelpilot_entry(:\n    pass\n")
    with pytest.raises(CompileError) as info:
        dump_ir(path, "gfx942")
    assert "broken.py" in info.value.details and "line 3" in info.value.details
    assert "SyntaxError" in info.value.details
    assert "_pyrunner" not in info.value.details


@pytest.mark.slow
def test_missing_entry_point_names_the_convention(tmp_path):
    path = write(tmp_path, "noentry.py", "import triton\n")
    with pytest.raises(InputError, match="kernelpilot_entry"):
        dump_ir(path, "gfx942")


@pytest.mark.slow
def test_dsl_error_keeps_the_compilers_message_and_leaves_no_cache_entry(tmp_path):
    # tl.arange needs a power-of-two range: Triton's own message must reach the user.
    path = write(
        tmp_path,
        "bad_triton.py",
        """
        import triton
        import triton.language as tl

        @triton.jit
        def k(x_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, offs)

        def kernelpilot_entry():
            return {"kernel": k, "signature": {"x_ptr": "*i32", "BLOCK": "constexpr"}, "constexprs": {"BLOCK": 100}}
        """,
    )
    with pytest.raises(CompileError) as info:
        dump_ir(path, "gfx942")
    assert "power of 2" in info.value.details
    assert "_pyrunner" not in info.value.details
    log = info.value.message.split("full log: ")[1].rstrip(")")
    assert ".failed" in log and "power of 2" in open(log).read()
    dumps = cache.cache_root() / "dumps"
    assert not any((d / cache.RESULT_FILE).exists() for d in dumps.iterdir() if ".failed" in d.name)


def test_missing_linker_is_a_toolchain_error(monkeypatch):
    # No ROCm and no ziglang: FlyDSL cannot link its code object, and the user is told what to install.
    monkeypatch.setattr(toolchain, "host_rocm_path", lambda: None)
    monkeypatch.setattr(toolchain, "ziglang_available", lambda: False)
    with pytest.raises(ToolchainError, match="no linker for AMDGPU code objects") as info:
        toolchain.rocm_path_for_flydsl()
    assert "pip install ziglang" in info.value.hint


def test_command_mode_without_a_command():
    with pytest.raises(InputError, match="no command given"):
        dump_ir_command([], "gfx942")


def test_cli_prints_error_and_hint_and_exits_2(capsys, tmp_path):
    assert main(["dump-ir", str(tmp_path / "missing.py"), "--arch", "gfx942"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: kernel file not found")
    assert "hint:" in err and "Traceback" not in err


@pytest.mark.slow
def test_cli_json_is_the_result_model(capsys):
    assert main(["dump-ir", str(EXAMPLES / "triton" / "vector_add.py"), "--arch", "gfx950", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["arch"] == "gfx950" and data["kernels"][0]["name"] == "vector_add_kernel"
    assert data["kernels"][0]["resources"]["wavefront_size"] == 64


@pytest.mark.slow
def test_flydsl_kernel_bug_shows_the_users_frames(tmp_path):
    source = (
        (EXAMPLES / "flydsl" / "saxpy.py").read_text().replace("fx.make_fragment_like(x_src)", "fx.no_such_op(x_src)")
    )
    path = tmp_path / "saxpy_typo.py"
    path.write_text(source)
    with pytest.raises(CompileError) as info:
        dump_ir(path, "gfx942")
    assert "saxpy_typo.py" in info.value.details and "no_such_op" in info.value.details
    assert "_pyrunner" not in info.value.details


def test_child_compiler_keeps_the_callers_pythonpath(tmp_path, monkeypatch):
    # Packages installed with `pip install --target DIR` and PYTHONPATH=DIR must stay importable in the child.
    from tools.frontends.base import python_runner

    site = tmp_path / "site"
    site.mkdir()
    (site / "kp_probe_pkg.py").write_text("VALUE = 41\n")
    kernel = tmp_path / "probe.py"
    kernel.write_text(
        "import triton\nimport kp_probe_pkg\n\ndef kernelpilot_entry():\n    raise SystemExit(kp_probe_pkg.VALUE + 1)\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(site))
    result = python_runner("triton", kernel, "gfx942", tmp_path, {}, timeout=120)
    assert "ModuleNotFoundError" not in result.stderr
    # the runner reports the exit it caught, value included: 41 + 1 came from the --target package
    assert "sys.exit(42)" in json.loads((tmp_path / "runner.json").read_text())["message"]
