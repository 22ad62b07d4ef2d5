"""Occupancy: the minimum of every limit, with the limiting resource named, and launch-time LDS counted.

AMD figures are checked against LLVM's own "; Occupancy: N" comment in every kernel compiled here that carries one;
NVIDIA figures against what the driver's cuOccupancyMaxActiveBlocksPerMultiprocessor returned on an H100
(benchmarks/RESULTS.md, "JIT-faithful Triton compiles").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from tools.dump_ir import dump_ir
from tools.isa import arch as archmod
from tools.isa.metadata import read_resources

DATA = Path(__file__).parent / "data"

# every AMD kernel file the test suite compiles in file mode (examples and our test kernels)
AMD_KERNEL_FILES = [
    EXAMPLES / "triton" / "vector_add.py",
    EXAMPLES / "prefetch" / "triton_dot" / "baseline.py",
    EXAMPLES / "prefetch" / "triton_dot" / "prefetched.py",
    EXAMPLES / "flydsl" / "saxpy.py",
    EXAMPLES / "prefetch" / "flydsl_mfma" / "baseline.py",
    EXAMPLES / "prefetch" / "flydsl_mfma" / "prefetched.py",
    EXAMPLES / "prefetch" / "flydsl_paged_decode" / "baseline.py",
    EXAMPLES / "prefetch" / "flydsl_paged_decode" / "prefetched.py",
    *sorted((DATA / "triton_jit").glob("*.py")),
    *sorted((DATA / "triton_occupancy").glob("*.py")),
]


def test_reserved_vgprs_not_used_vgprs_set_the_occupancy_of_a_waves_per_eu_kernel():
    (k,) = dump_ir(DATA / "triton_jit" / "rms_norm_waves_per_eu.py", "gfx942").kernels
    r = k.resources
    # 25 VGPRs used, but LLVM pads the descriptor to 97 (.amdhsa_next_free_vgpr) to honour waves-per-eu "4,4":
    # 97 → 104 allocated, 512 // 104 = 4 waves/SIMD, as the compiler's "; Occupancy: 4" says (not 8 from 25)
    assert (r.vgpr_count, r.vgpr_reserved) == (25, 97)
    assert r.waves_per_simd == r.compiler_occupancy == 4
    assert r.occupancy_limiter == "waves-per-eu"
    assert r.occupancy_limits["vgpr"] == 4


def test_triton_dot_prefetched_reports_its_launch_lds_on_gfx942():
    (k,) = dump_ir(EXAMPLES / "prefetch" / "triton_dot" / "prefetched.py", "gfx942").kernels
    r = k.resources
    # three 32x32 fp16 A/B tile stages Triton allocates at launch (metadata.shared); the ISA's group segment says 0
    assert (r.lds_bytes, r.static_lds_bytes) == (8192, 0)
    # 64 KiB / 8 KiB = 8 groups of 4 waves over 4 SIMDs = 8: nothing limits below the hardware maximum
    assert r.occupancy_limits["lds"] == 8 and r.waves_per_simd == 8
    assert r.occupancy_limiter == "hardware"


def test_triton_dot_prefetched_reports_its_launch_shared_memory_on_sm90():
    (k,) = dump_ir(EXAMPLES / "prefetch" / "triton_dot" / "prefetched.py", "sm_90").kernels
    r = k.resources
    # cuobjdump's SHARED (1024: the per-block reservation) plus metadata.shared 8192 allocated at launch
    assert (r.lds_bytes, r.static_lds_bytes) == (9216, 1024)
    assert r.occupancy_limiter == "registers"
    assert r.occupancy_warps_per_sm == r.occupancy_limits["registers"] < r.occupancy_limits["smem"]


def test_launch_lds_can_be_the_limit_the_compiler_cannot_see():
    (k,) = dump_ir(DATA / "triton_jit" / "tiled_dot.py", "gfx942").kernels
    r = k.resources
    # 3 stages of 64x32 A and 32x64 B fp16 tiles: 16 KiB per 4-wave workgroup → 4 groups per 64 KiB CU → 4 waves
    assert r.lds_bytes == 16384 and r.static_lds_bytes == 0
    assert (r.waves_per_simd, r.occupancy_limiter) == (4, "lds")
    assert r.compiler_occupancy == 8  # LLVM sees no LDS at compile time


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_occupancy_agrees_with_the_compilers_comment_in_every_kernel_compiled_here(arch):
    compared = 0
    for path in AMD_KERNEL_FILES:
        for k in dump_ir(path, arch).kernels:
            r = k.resources
            if r.compiler_occupancy is None:
                continue  # FlyDSL's ISA carries no "; Occupancy:" comment
            compared += 1
            # LLVM knows every limit but the LDS a Triton launch adds: without it the two agree exactly
            without_launch_lds = min(v for name, v in r.occupancy_limits.items() if name != "lds")
            if r.static_lds_bytes:
                without_launch_lds = min(without_launch_lds, r.occupancy_limits["lds"])
            assert without_launch_lds == r.compiler_occupancy, (path.name, k.name, r.occupancy_reason)
            assert r.waves_per_simd == min(r.occupancy_limits.values())
    assert compared == 12  # the 12 Triton kernels; the 5 FlyDSL kernels carry no comment


def test_hipcc_and_hipkittens_fixtures_agree_with_their_occupancy_comment(fixtures_dir):
    for name in ("gfx942_hipcc_batched_gemm.s", "gfx942_hipkittens_gemm_vgpr_spill94.s"):
        for kernel, r in read_resources((fixtures_dir / "amdgcn_isa" / name).read_text()).items():
            assert r.waves_per_simd == r.compiler_occupancy, (name, kernel)
    spill = read_resources((fixtures_dir / "amdgcn_isa" / "gfx942_hipkittens_gemm_vgpr_spill94.s").read_text())
    (r,) = spill.values()
    assert (r.vgpr_reserved, r.waves_per_simd, r.occupancy_limiter) == (256, 2, "vgpr")  # 512 // 256


def test_nvidia_registers_are_allocated_per_sub_partition():
    # measured on an H100 (Triton 3.6 paged decode, 48 regs, 2-warp blocks): the driver allows 20 blocks = 40 warps.
    # 48 x 32 = 1536 regs per warp; 16384 per sub-partition // 1536 = 10 warps x 4 = 40 (65536 // 1536 would be 42)
    occ = archmod.nvidia_occupancy("sm_90", 48, 1024, 64, 512)
    assert (occ.value, occ.limiter, occ.workgroups_per_cu) == (40, "registers", 20)


def test_nvidia_block_limit_and_shared_memory_reservation():
    # sm_80: static + dynamic + the driver's 1 KiB per block: 48 KiB + 1 KiB → 167936 // 50176 = 3 blocks of 4 warps
    occ = archmod.nvidia_occupancy("sm_80", 32, 0, 128, 49152)
    assert (occ.value, occ.limiter) == (12, "smem")
    # 32-thread blocks: at most 32 blocks per SM, so 32 warps of 64 whatever the registers
    assert archmod.nvidia_occupancy("sm_90", 16, 0, 32).limits["block-size"] == 32


def test_amd_block_size_limit_follows_llvms_workgroups_per_cu():
    # 12-wave workgroups: 32 wave slots // 12 = 2 groups per CU → 24 waves over 4 SIMDs = 6 per SIMD
    occ = archmod.amd_occupancy("gfx942", 32, 20, None, 768)
    assert (occ.value, occ.limiter) == (6, "block-size")


def test_resident_groups_the_launch_needs_per_cu():
    assert archmod.resident_groups_needed(256, "sm_90")[0] == 2  # ceil(256 / 132)
    needed, product = archmod.resident_groups_needed(8192, "gfx942")
    assert (needed, product.compute_units) == (27, 304)  # ceil(8192 / 304), MI300X
    assert archmod.resident_groups_needed(8192, "gfx942", compute_units=80)[0] == 103


def test_every_limiter_the_occupancy_functions_name_is_in_the_one_limiter_set():
    # Occupancy.limiter and Resources.occupancy_limiter are the one OccupancyLimiter set (tools.models.dump)
    from typing import get_args

    from tools.models.dump import OccupancyLimiter

    names = set(get_args(OccupancyLimiter))
    for arch in archmod.AMD_ARCHS:
        for vgprs, sgprs, lds, wg, wpe in [(512, 100, 60000, 1024, 2), (8, 16, 0, 64, None), (128, None, 4096, 256, 8)]:
            occ = archmod.amd_occupancy(arch, vgprs, sgprs, lds, wg, wpe)
            assert occ.limiter in names and set(occ.limits) <= names, (arch, occ)
    for arch in archmod.NVIDIA_ARCHS:
        for regs, smem, threads in [(255, 0, 1024), (16, 100000, 128), (32, 0, 32)]:
            occ = archmod.nvidia_occupancy(arch, regs, smem, threads)
            assert occ.limiter in names and set(occ.limits) <= names, (arch, occ)
