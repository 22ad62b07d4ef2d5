"""Resources read from AMDGCN assembly text, checked against the figures the compiler printed in the same file."""

from __future__ import annotations

import pytest

from tools.errors import InputError
from tools.isa.metadata import detect_arch, read_kernel_metadata, read_resources

BATCHED = "amdgcn_isa/gfx942_hipcc_batched_gemm.s"
SPILL = "amdgcn_isa/gfx942_hipkittens_gemm_vgpr_spill94.s"
MFMA_KERNEL = "_Z49batched_matrix_multiplication_matrix_core_64x64x4ILj64ELj64ELj8EEvjjjjPKDF16bS1_PDF16b4dim3S3_S3_i"


def test_both_kernels_of_a_two_kernel_file_are_found_in_file_order(fixtures_dir):
    names = list(read_kernel_metadata((fixtures_dir / BATCHED).read_text()))
    assert names == ["_Z35batched_matrix_multiplication_naiveiiiiPKDF16bS0_PDF16b", MFMA_KERNEL]


def test_mfma_kernel_unified_vgprs_are_accum_offset_plus_agprs(fixtures_dir):
    # .amdhsa_accum_offset 32, .set ….num_agpr 16 → YAML .vgpr_count 48 (= .amdhsa_next_free_vgpr 48)
    r = read_resources((fixtures_dir / BATCHED).read_text())[MFMA_KERNEL]
    assert (r.vgpr_count, r.agpr_count, r.accum_offset, r.arch_vgpr_count) == (48, 16, 32, 29)
    assert (r.sgpr_count, r.lds_bytes, r.scratch_bytes, r.wavefront_size) == (32, 2048, 0, 64)
    assert r.waves_per_simd == 8  # 48 VGPRs → 512 // 48 = 10, capped at 8 waves per SIMD on gfx942


def test_spill_kernel_matches_the_compilers_own_comment_block(fixtures_dir):
    # the file's .AMDGPU.csdata says: NumVgprs 256, ScratchSize 348, Occupancy 2
    r = read_resources((fixtures_dir / SPILL).read_text())["_Z8micro_tk13micro_globals"]
    assert (r.vgpr_count, r.vgpr_spill_count, r.scratch_bytes) == (256, 94, 348)
    assert r.waves_per_simd == 2


def test_arch_is_read_from_the_target_line(fixtures_dir):
    assert detect_arch((fixtures_dir / SPILL).read_text()) == "gfx942"


def test_set_symbols_alone_are_enough_without_yaml():
    text = """
    .amdhsa_kernel k
        .amdhsa_next_free_vgpr 40
        .amdhsa_next_free_sgpr 20
        .amdhsa_accum_offset 24
    .end_amdhsa_kernel
    .set k.num_vgpr, max(21, callee.num_vgpr)
    .set k.num_agpr, 16
    .set callee.num_vgpr, 7
    """
    r = read_resources(text, "gfx942")["k"]
    assert (r.vgpr_count, r.arch_vgpr_count, r.agpr_count, r.accum_offset) == (40, 21, 16, 24)
    assert any("next_free_vgpr" in n for n in r.notes)


def test_truncated_metadata_is_a_clear_error():
    text = ".amdgpu_metadata\n---\namdhsa.kernels:\n  - .name: [unclosed\n.end_amdgpu_metadata\n"
    with pytest.raises(InputError, match="not valid YAML"):
        read_resources(text)
