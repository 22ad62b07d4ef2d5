"""The AMDGCN text model: kernels, typed operands, categories and def/use sets."""

from __future__ import annotations

import pytest

from tests.isa_fixtures import BATCHED, SPILL, isa_text
from tools.errors import InputError
from tools.isa.amdgcn import AGPR_BASE, SGPR_BASE, classify, find_kernel, parse_isa, parse_operand


def _one(line: str):
    return parse_isa(f"k:\n\t{line}\n\ts_endpgm\n").kernels[0].instructions[0]


def test_batched_gemm_has_two_kernels_with_metadata():
    isa = parse_isa(isa_text(BATCHED))
    # .type ...,@function names two kernels; shae's table for the first one has 66 lines.
    assert [len(k.instructions) for k in isa.kernels] == [66, 297]
    assert isa.arch == "gfx942"
    assert all(k.metadata and k.metadata.yaml for k in isa.kernels)


def test_spill_kernel_instruction_count_matches_shae_line_count():
    # shae prints 1412 instruction lines (inline-asm lines included, directives and comments not).
    assert len(parse_isa(isa_text(SPILL)).kernels[0].instructions) == 1412


def test_register_range_operands_are_typed():
    op = parse_operand("v[4:7]")
    assert (op.kind, op.first, op.count) == ("v", 4, 4)
    assert (parse_operand("a[0:15]").kind, parse_operand("a[0:15]").count) == ("a", 16)
    assert parse_operand("-|v3|").first == 3
    assert parse_operand("vcc").kind == "special"
    assert parse_operand("0x7fff").kind == "literal"
    assert parse_operand(".LBB0_2").kind == "label"


def test_vop3b_writes_both_destinations():
    i = _one("v_mad_u64_u32 v[2:3], s[2:3], v1, s4, v[16:17]")
    assert i.defs == 0b1100 | (0b1100 << SGPR_BASE)
    assert i.uses == (1 << 1) | (0b11 << 16) | (1 << (SGPR_BASE + 4))


def test_stores_read_every_register():
    i = _one("global_store_short v[2:3], v0, off")
    assert (i.category, i.defs, i.uses) == ("vmem_store", 0, 0b1101)


def test_mfma_reads_src_c_and_writes_dst():
    i = _one("v_mfma_f32_32x32x8_bf16 a[0:15], v[2:3], v[4:5], a[0:15]")
    assert i.category == "mfma"
    assert i.defs == 0xFFFF << AGPR_BASE
    assert i.uses == (0b111100) | (0xFFFF << AGPR_BASE)


def test_fmac_reads_its_destination():
    assert _one("v_fmac_f32_e32 v1, v2, v3").uses == 0b1110


def test_buffer_load_to_lds_defines_no_vgpr():
    i = _one("buffer_load_dword v1, s[4:7], 0 offen lds")
    assert (i.category, i.defs, i.uses & 0xFF) == ("vmem_load_lds", 0, 0b10)


@pytest.mark.parametrize(
    ("mnemonic", "category"),
    [
        ("ds_read_b128", "lds_read"),
        ("ds_load_b128", "lds_read"),
        ("ds_write_b64", "lds_write"),
        ("ds_store_b64", "lds_write"),
        ("global_load_dwordx4", "vmem_load"),
        ("global_load_b128", "vmem_load"),
        ("buffer_load_dword", "vmem_load"),
        ("buffer_load_b32", "vmem_load"),
        ("scratch_load_dword", "scratch_load"),
        ("s_wait_loadcnt", "waitcnt"),
        ("v_wmma_f32_16x16x16_f16", "mfma"),
        ("s_cbranch_scc1", "branch"),
        ("s_load_dwordx2", "smem"),
    ],
)
def test_gfx9_and_gfx11_spellings_classify_alike(mnemonic, category):
    assert classify(mnemonic) == category


def test_buffer_spill_comment_marks_scratch_traffic():
    assert classify("buffer_store_dword", "offset:4", "4-byte Folded Spill") == "scratch_store"


def test_loc_attaches_to_following_instructions():
    text = '\t.file 1 "/src" "k.py"\nk:\n\t.loc 1 7 3\n\tv_mov_b32 v0, 0\n\tv_mov_b32 v1, 0\n\ts_endpgm\n'
    insts = parse_isa(text).kernels[0].instructions
    assert [str(i.loc) for i in insts[:2]] == ["k.py:7:3", "k.py:7:3"]


def test_labels_map_to_the_instruction_they_precede():
    k = parse_isa(isa_text(BATCHED)).kernels[0]
    # shae prints line 25 as "label_.LBB0_2: v_ashrrev_i32 v3, 31, v2"
    assert k.labels[".LBB0_2"] == 24
    assert k.instructions[24].mnemonic == "v_ashrrev_i32_e32"


def test_unknown_kernel_lists_the_names():
    with pytest.raises(InputError) as exc:
        find_kernel(parse_isa(isa_text(BATCHED)), "nope")
    assert "_Z35batched_matrix_multiplication_naive" in exc.value.hint


def test_text_without_instructions_is_rejected():
    with pytest.raises(InputError, match="no AMDGCN instructions"):
        parse_isa("hello world\nthis is prose\n")


def test_binary_data_is_rejected():
    with pytest.raises(InputError, match="binary"):
        parse_isa(b"\x7fELF\x02\x01\x01\x00" + bytes(100))


def test_truncated_metadata_keeps_the_code_analysable():
    text = isa_text(BATCHED)
    cut = text[: text.index("amdhsa.kernels:") + 40] + "\n  - .args: [\n.end_amdgpu_metadata\n"
    k = parse_isa(cut).kernels[0]
    assert len(k.instructions) == 66
    assert "metadata unreadable" in k.metadata.notes[0]


def test_mojo_style_local_alias_label_stays_in_the_kernel():
    # Mojo (LLVM dso_local) opens each kernel with its symbol and then a `.L<symbol>$local` alias of it.
    text = """
\t.text
\t.globl\tk_mojo
\t.type\tk_mojo,@function
\t.type\t.Lk_mojo$local,@function
k_mojo:
.Lk_mojo$local:
\tv_mov_b32 v1, 0
\tv_add_f32 v1, v1, v0
\ts_endpgm
.Lfunc_end0:
\t.amdgpu_metadata
---
amdhsa.kernels:
  - .name: k_mojo
    .symbol: k_mojo.kd
    .vgpr_count: 2
    .sgpr_count: 8
    .wavefront_size: 64
amdhsa.target: amdgcn-amd-amdhsa--gfx942
...
\t.end_amdgpu_metadata
"""
    from tools.isa.amdgcn import parse_isa

    isa = parse_isa(text)
    assert [k.name for k in isa.kernels] == ["k_mojo"]
    assert len(isa.kernels[0].instructions) == 3


def test_every_instruction_class_is_one_of_the_registered_classes_and_the_groups_are_the_prefix_families():
    from typing import get_args

    from tools.isa.mnemonics import (
        INSTRUCTION_CLASSES,
        LDS_CLASSES,
        SCRATCH_CLASSES,
        VMEM_CLASSES,
        VMEM_LOAD_CLASSES,
        InstructionClass,
    )

    assert INSTRUCTION_CLASSES == get_args(InstructionClass) and len(set(INSTRUCTION_CLASSES)) == len(
        INSTRUCTION_CLASSES
    )
    # a group is exactly the classes its prefix named where the code compared by prefix
    for group, prefix in [(VMEM_CLASSES, "vmem"), (VMEM_LOAD_CLASSES, "vmem_load"), (LDS_CLASSES, "lds_"),
                          (SCRATCH_CLASSES, "scratch_")]:  # fmt: skip
        assert group == {c for c in INSTRUCTION_CLASSES if c.startswith(prefix)}, prefix
    seen = set()
    for name in (BATCHED, SPILL):
        for kernel in parse_isa(isa_text(name)).kernels:
            seen |= {i.category for i in kernel.instructions}
    assert seen <= set(INSTRUCTION_CLASSES) and {"mfma", "lds_read", "vmem_load", "scratch_store"} <= seen, seen
