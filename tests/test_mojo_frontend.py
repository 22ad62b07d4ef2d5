"""dump-ir on Mojo kernels with the real compiler (max-core 26.7.0 / mojo-compiler 1.2.0), for gfx942, gfx950,
gfx90a and sm_90.

Resources are checked against an independent reading of the artifacts: the ISA's own ``.amdgpu_metadata`` YAML
(parsed here with yaml), the code object's ELF header, and on NVIDIA the cubin's EIATTR_REGCOUNT as nvdisasm prints
it. The whole module is skipped, with the reason, where max-core is not installed (it is an optional extra).
"""

from __future__ import annotations

import re
import struct
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES
from tools.dump_ir import dump_ir
from tools.errors import CompileError, InputError
from tools.toolchain import nvidia_tool, package_version

if package_version("max-core") is None:
    pytest.skip(
        "max-core is not installed, so Mojo GPU kernels cannot be compiled (pip install max-core==26.7.0)",
        allow_module_level=True,
    )


MOJO = EXAMPLES / "mojo"
PAIR = ["mfma_loop", "mfma_loop_prefetched"]
# EF_AMDGPU_MACH values from LLVM's ELF.h
AMDGPU_MACH = {"gfx90a": 0x3F, "gfx942": 0x4C, "gfx950": 0x4F}


def yaml_kernel(isa: str) -> dict:
    block = re.search(r"^\s*\.amdgpu_metadata\n(.*?)^\s*\.end_amdgpu_metadata", isa, re.S | re.M).group(1)
    (kernel,) = yaml.safe_load(block)["amdhsa.kernels"]
    return kernel


def assert_stage_files(kernel) -> None:
    for stage in kernel.stages:
        assert Path(stage.path).stat().st_size == stage.bytes > 0, stage.name


@pytest.mark.parametrize("example", PAIR)
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.slow
def test_amd_stages_and_resources_match_the_isa_metadata(arch, example):
    result = dump_ir(MOJO / f"{example}.mojo", arch)
    (k,) = result.kernels
    assert [s.name for s in k.stages] == ["llvm_ir", "llvm_ir_opt", "amdgcn", "hsaco"]
    assert_stage_files(k)
    # Mojo mangles <module>_<function>_<argument signature>_<hash>, shortening long parts
    assert k.name.startswith(f"{example}_mfma_loop_")
    isa = Path(k.final_isa).read_text()
    meta = yaml_kernel(isa)
    assert meta[".name"] == k.name
    r = k.resources
    assert (r.vgpr_count, r.agpr_count, r.sgpr_count) == (meta[".vgpr_count"], meta[".agpr_count"], meta[".sgpr_count"])
    assert (r.vgpr_spill_count, r.sgpr_spill_count) == (meta[".vgpr_spill_count"], meta[".sgpr_spill_count"])
    assert (r.scratch_bytes, r.lds_bytes) == (meta[".private_segment_fixed_size"], meta[".group_segment_fixed_size"])
    assert r.wavefront_size == meta[".wavefront_size"] == 64
    assert r.accum_offset == int(re.search(r"\.amdhsa_accum_offset (\d+)", isa).group(1))
    assert r.waves_per_simd == 8  # 14 VGPRs and 16 SGPRs: nothing limits below the 8-wave cap
    assert f"amdgcn-amd-amdhsa--{arch}" in isa or f"-amd-amdhsa-unknown-{arch}" in isa
    assert "v_mfma_f32_16x16x16_f16" in isa  # max.gpu.compute.mma reached the matrix cores
    assert re.search(rf'\.file\s+\d+ "{MOJO}" "{example}\.mojo"', isa)  # -g1 line tables: .loc names the kernel
    data = Path(k.binary).read_bytes()
    assert data[:4] == b"\x7fELF"
    assert struct.unpack_from("<H", data, 18)[0] == 0xE0  # EM_AMDGPU
    assert struct.unpack_from("<I", data, 48)[0] & 0xFF == AMDGPU_MACH[arch]
    assert "define" in Path(k.stages[0].path).read_text()  # LLVM IR text, not bitcode


@pytest.mark.slow
def test_gfx90a_uses_the_cdna2_mfma():
    (k,) = dump_ir(MOJO / "mfma_loop.mojo", "gfx90a").kernels
    isa = Path(k.final_isa).read_text()
    assert "v_mfma_f32_16x16x16f16" in isa  # gfx90a spells it without the underscore before f16
    assert k.resources.vgpr_count == yaml_kernel(isa)[".vgpr_count"]


@pytest.mark.parametrize("example", PAIR)
@pytest.mark.slow
def test_sm90_ptx_cubin_and_registers_from_the_cubin(example):
    result = dump_ir(MOJO / f"{example}.mojo", "sm_90")
    (k,) = result.kernels
    names = [s.name for s in k.stages]
    assert names[:4] == ["llvm_ir", "llvm_ir_opt", "ptx", "cubin"]
    assert_stage_files(k)
    ptx = Path(k.stages[2].path).read_text()
    assert ".target sm_90a" in ptx  # Mojo's sm_90 is Hopper with extensions
    assert "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32" in ptx
    assert Path(k.binary).read_bytes()[:4] == b"\x7fELF"
    nvdisasm = nvidia_tool("nvdisasm")
    if nvdisasm is None:
        pytest.skip("nvdisasm not found (CUDA toolkit or Triton's wheel): register count not checked")
    assert names[4:] == ["sass"]
    nvinfo = subprocess.run([nvdisasm, k.binary], capture_output=True, text=True, timeout=60).stdout
    regcount = re.search(r"EIATTR_REGCOUNT.*?\.word\s+index@\(\w+\)\s*\n.*?\.word\s+(0x[0-9a-f]+)", nvinfo, re.S)
    assert k.resources.registers_per_thread == int(regcount.group(1), 16)
    assert "HMMA" in Path(k.final_isa).read_text()


@pytest.mark.slow
def test_a_syntax_error_is_a_compile_error_with_the_compilers_file_line_and_column(tmp_path):
    src = tmp_path / "broken.mojo"
    src.write_text(
        "from max.gpu import thread_idx\n\n\n"
        "def broken(x: Pointer[Float32, MutAnyOrigin]):\n"
        "    var i = Int(thread_idx.x\n"  # the closing parenthesis is missing
        "    x[unsafe_offset=i] = 1.0\n"
    )
    with pytest.raises(CompileError) as exc:
        dump_ir(src, "gfx942")
    # line 5, column 29: where the compiler expected ')' (the text format says the same)
    assert exc.value.message == f"{src}:5:29: expected ')' in call argument list"
    assert "var i = Int(thread_idx.x" in exc.value.details


def test_a_header_naming_no_function_of_the_file_is_an_input_error(tmp_path):
    src = tmp_path / "k.mojo"
    src.write_text("# kernelpilot: kernel nothere[4]\ndef k(x: Pointer[Float32, MutAnyOrigin]):\n    pass\n")
    with pytest.raises(InputError) as exc:
        dump_ir(src, "gfx942")
    assert "use of unknown declaration 'nothere'" in exc.value.message


@pytest.mark.slow
def test_a_compile_leaves_nothing_in_the_temporary_folder(tmp_path, monkeypatch):
    # `mojo run` links its harness into TMPDIR as _kernelpilot_harness.mojo0-<hash>.so and never removes it: every
    # compile used to leave one in /tmp; the frontend gives it a folder of its own and removes it
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    result = dump_ir(MOJO / "mfma_loop.mojo", "gfx942", use_cache=False)
    assert Path(result.kernels[0].binary).stat().st_size > 0
    assert list(tmp.iterdir()) == []
