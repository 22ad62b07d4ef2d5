"""dump-ir end to end with the real compilers: FlyDSL and Triton for gfx942/gfx950, Triton and nvcc for sm_90.

Resources are checked against an independent reading of the artifacts: the ISA's own YAML (parsed here with yaml),
the code object's ELF header, and for NVIDIA the cubin's EIATTR_REGCOUNT as nvdisasm prints it.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES
from tools.dump_ir import dump_ir
from tools.toolchain import nvidia_tool

# EF_AMDGPU_MACH values from LLVM's ELF.h
AMDGPU_MACH = {"gfx90a": 0x3F, "gfx942": 0x4C, "gfx950": 0x4F}


def yaml_kernel(isa: str) -> dict:
    block = re.search(r"^\s*\.amdgpu_metadata\n(.*?)^\s*\.end_amdgpu_metadata", isa, re.S | re.M).group(1)
    return yaml.safe_load(block)["amdhsa.kernels"][0]


def assert_amd_code_object(path: str, arch: str) -> None:
    data = Path(path).read_bytes()
    assert data[:4] == b"\x7fELF"
    (machine,) = struct.unpack_from("<H", data, 18)
    (flags,) = struct.unpack_from("<I", data, 48)
    assert machine == 0xE0  # EM_AMDGPU
    assert flags & 0xFF == AMDGPU_MACH[arch]


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.slow
def test_flydsl_example_keeps_every_stage_isa_and_hsaco(arch):
    result = dump_ir(EXAMPLES / "flydsl" / "saxpy.py", arch)
    (k,) = result.kernels
    names = [s.name for s in k.stages]
    # first and last MLIR stages, the LLVM IR, the final ISA and the code object, in compile order
    for stage in ("origin", "convert_fly_to_rocdl", "gpu_module_to_binary", "llvm_ir", "final_isa"):
        assert stage in names
    assert names.index("origin") < names.index("llvm_ir") < names.index("final_isa")
    assert all(Path(s.path).stat().st_size == s.bytes > 0 for s in k.stages)
    assert_amd_code_object(k.binary, arch)
    isa = Path(k.final_isa).read_text()
    meta = yaml_kernel(isa)
    r = k.resources
    assert meta[".name"] == k.name == "saxpy_kernel_0"
    assert (r.vgpr_count, r.agpr_count, r.sgpr_count) == (meta[".vgpr_count"], meta[".agpr_count"], meta[".sgpr_count"])
    assert (r.vgpr_spill_count, r.sgpr_spill_count) == (meta[".vgpr_spill_count"], meta[".sgpr_spill_count"])
    assert (r.scratch_bytes, r.lds_bytes) == (meta[".private_segment_fixed_size"], meta[".group_segment_fixed_size"])
    assert r.wavefront_size == meta[".wavefront_size"] == 64
    assert r.accum_offset == int(re.search(r"\.amdhsa_accum_offset (\d+)", isa).group(1))
    assert r.arch_vgpr_count == int(re.search(r"\.set \.Lsaxpy_kernel_0\.num_vgpr, (\d+)", isa).group(1))
    assert r.waves_per_simd == 8  # 10 VGPRs, 24 SGPRs: nothing limits below the 8-wave cap
    assert ".loc\t1 " in isa  # debug info on by default: source lines for attribution


@pytest.mark.parametrize("arch", ["gfx942", "gfx950", "gfx90a"])
@pytest.mark.slow
def test_triton_amd_stages_and_resources(arch):
    result = dump_ir(EXAMPLES / "triton" / "vector_add.py", arch)
    (k,) = result.kernels
    assert [s.name for s in k.stages] == ["ttir", "ttgir", "llir", "amdgcn", "hsaco"]
    assert_amd_code_object(k.binary, arch)
    meta = yaml_kernel(Path(k.final_isa).read_text())
    assert k.resources.vgpr_count == meta[".vgpr_count"]
    assert k.resources.sgpr_count == meta[".sgpr_count"]
    assert k.resources.lds_bytes == meta[".group_segment_fixed_size"]


@pytest.mark.slow
def test_triton_sm90_registers_match_the_cubins_regcount_attribute():
    result = dump_ir(EXAMPLES / "triton" / "vector_add.py", "sm_90")
    (k,) = result.kernels
    assert [s.name for s in k.stages] == ["ttir", "ttgir", "llir", "ptx", "cubin", "sass"]
    assert Path(k.binary).read_bytes()[:4] == b"\x7fELF"
    nvinfo = subprocess.run([nvidia_tool("nvdisasm"), k.binary], capture_output=True, text=True).stdout
    regcount = re.search(r"EIATTR_REGCOUNT.*?\.word\s+index@\(\w+\)\s*\n.*?\.word\s+(0x[0-9a-f]+)", nvinfo, re.S)
    assert k.resources.registers_per_thread == int(regcount.group(1), 16)
    assert k.resources.occupancy_warps_per_sm is not None
    assert "LDG" in Path(k.final_isa).read_text()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (CUDA toolkit) is not installed here")
@pytest.mark.slow
def test_cuda_sm90_ptxas_registers_and_sass():
    result = dump_ir(EXAMPLES / "cuda" / "vector_add.cu", "sm_90")
    (k,) = result.kernels
    assert k.name == "vector_add"
    assert [s.name for s in k.stages] == ["ptx", "cubin", "sass"]
    log = Path(result.log).read_text()
    used = int(re.search(r"Used (\d+) registers", log).group(1))
    assert k.resources.registers_per_thread == used
    assert k.resources.spill_store_bytes == 0


def test_second_dump_is_a_cache_hit_with_the_same_artifacts():
    first = dump_ir(EXAMPLES / "triton" / "vector_add.py", "gfx942")
    second = dump_ir(EXAMPLES / "triton" / "vector_add.py", "gfx942")
    assert second.cache_hit
    assert [s.path for s in second.kernels[0].stages] == [s.path for s in first.kernels[0].stages]


@pytest.mark.slow
def test_out_copies_the_dump_and_rewrites_paths(tmp_path):
    result = dump_ir(EXAMPLES / "triton" / "vector_add.py", "gfx950", out=tmp_path / "dump")
    assert result.out_dir == str(tmp_path / "dump")
    assert all(s.path.startswith(str(tmp_path / "dump")) for s in result.kernels[0].stages)
    assert Path(result.kernels[0].final_isa).exists()


@pytest.mark.slow
def test_identical_source_in_another_file_is_compiled_for_that_file(tmp_path):
    # The ISA's .file/.loc lines name the source: a copy with the same bytes must not reuse the first dump.
    copy = tmp_path / "renamed_saxpy.py"
    copy.write_text((EXAMPLES / "flydsl" / "saxpy.py").read_text())
    original = dump_ir(EXAMPLES / "flydsl" / "saxpy.py", "gfx942")
    renamed = dump_ir(copy, "gfx942")
    assert not renamed.cache_hit
    assert original.out_dir != renamed.out_dir
    assert '"renamed_saxpy.py"' in Path(renamed.kernels[0].final_isa).read_text()
