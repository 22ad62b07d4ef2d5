"""tools.isa.costs.cost: one instruction's issue cycles and latency, read from the device file's instruction_classes.

Instructions come from the shared gfx942 fixtures (hipcc's batched GEMM, HipKittens' GEMM), parsed by the ISA model.
"""

from __future__ import annotations

import pytest

from tests.isa_fixtures import BATCHED, SPILL, isa_text
from tools.errors import InputError
from tools.isa.amdgcn import parse_isa
from tools.isa.costs import cost
from tools.isa.machines import MACHINE_DIR, MACHINES_ENV, machine, machine_names
from tools.isa.mnemonics import INSTRUCTION_CLASSES
from tools.predict.amd import inst_cost
from tools.prefetch.amd import issue_cycles

AMD = [n for n in machine_names() if machine(n).vendor == "amd"]
NVIDIA = [n for n in machine_names() if machine(n).vendor == "nvidia"]


def _instructions(fixtures_dir):
    return [i for name in (BATCHED, SPILL) for k in parse_isa(isa_text(name)).kernels for i in k.instructions]


def _first(insts, mnemonic_start: str, text_part: str = ""):
    return next(i for i in insts if i.mnemonic.startswith(mnemonic_start) and text_part in i.text)


@pytest.mark.parametrize("device", AMD)
def test_every_instruction_of_the_fixtures_has_a_cost_on_every_amd_device(fixtures_dir, device):
    """Each class the fixtures' instructions fall in (MFMA, VALU, SALU, SMEM, LDS, global and scratch memory, waits,
    branches, barriers, nops) has an entry: a positive issue figure with a source, memory classes a latency."""
    m = machine(device)
    insts = _instructions(fixtures_dir)
    classes = {i.category for i in insts}
    assert {"mfma", "valu", "salu", "smem", "lds_read", "vmem_load", "scratch_store", "waitcnt", "nop"} <= classes
    for inst in insts:
        c = cost(inst, m)
        assert c.issue > 0 and c.source, (device, inst.text)
        memory = inst.category.startswith(("vmem", "scratch", "lds")) or inst.category == "smem"
        assert (c.latency is not None) == memory and (c.latency_source is not None) == memory, (device, inst.text)


def test_mi300x_costs_are_the_figures_of_its_file(fixtures_dir):
    """MI300X: a 32x32 MFMA's 16 passes x 4 = 64 cycles (mfma_cycles), a 16x16 one 32; a VALU op valu_cycles (4); a
    global load issues in 4 and returns after dram_latency_cycles (500); an LDS read after lds_latency_cycles (64);
    ``s_nop N`` N+1 cycles."""
    m = machine("mi300x")
    insts = _instructions(fixtures_dir)
    mfma32 = cost(_first(insts, "v_mfma_f32_32x32x"), m)
    assert (mfma32.issue, mfma32.source) == (64, m.source("mfma_cycles"))
    assert cost(_first(insts, "v_mfma_f32_16x16x"), m).issue == 32
    valu = cost(_first(insts, "v_add_"), m)
    assert (valu.issue, valu.source, valu.latency) == (4, m.source("valu_cycles"), None)
    load = cost(_first(insts, "global_load_dwordx4"), m)
    assert (load.issue, load.latency, load.latency_source) == (4, 500, m.source("dram_latency_cycles"))
    assert cost(_first(insts, "ds_read"), m).latency == 64
    nop = _first(insts, "s_nop")
    assert cost(nop, m).issue == int(nop.modifiers or nop.text.split()[-1]) + 1


def test_an_mfma_costs_what_its_device_file_says_for_its_arch(fixtures_dir):
    """The same 16x16 MFMA: 32 cycles on MI300X and MI250X (8 passes), 16 on MI355X (its file's CDNA4 estimate)."""
    inst = _first(_instructions(fixtures_dir), "v_mfma_f32_16x16x")
    assert {d: cost(inst, machine(d)).issue for d in ("mi300x", "mi250x", "mi355x")} == {
        "mi300x": 32,
        "mi250x": 32,
        "mi355x": 16,
    }


@pytest.mark.parametrize("device", AMD)
def test_prefetch_and_the_timing_model_read_one_mfma_figure(fixtures_dir, device):
    """prefetch-data-load's issue cycles and the timing model's matrix cycles of every MFMA are the same number."""
    m = machine(device)
    mfmas = [i for i in _instructions(fixtures_dir) if i.category == "mfma"]
    assert mfmas
    assert [issue_cycles(i, m) for i in mfmas] == [inst_cost(i, m).matrix for i in mfmas]


@pytest.mark.parametrize("device", NVIDIA)
def test_every_nvidia_device_costs_mma_and_other(device):
    m = machine(device)
    assert {"mma", "other"} <= set(m.instruction_classes)
    assert (m.instruction_classes["mma"].issue, m.instruction_classes["other"].issue) == (16, 2)


@pytest.fixture
def edited_mi300x(tmp_path, monkeypatch):
    """A copy of mi300x.yaml in $KERNELPILOT_MACHINES_DIR: the copy is the MI300X every analysis reads."""
    monkeypatch.setenv(MACHINES_ENV, str(tmp_path))
    return tmp_path / "mi300x.yaml", (MACHINE_DIR / "mi300x.yaml").read_text()


def test_a_class_naming_a_figure_the_file_lacks_is_an_error_naming_file_and_class(edited_mi300x):
    path, text = edited_mi300x
    path.write_text(text.replace("latency: lds_latency_cycles", "latency: lds_latncy_cycles", 1))
    with pytest.raises(InputError) as exc:
        machine("mi300x")
    assert exc.value.message == (
        f"{path}: instruction_classes.lds_read.latency names 'lds_latncy_cycles', which the file does not define"
    )


def test_a_class_missing_from_the_file_is_an_error_when_an_instruction_needs_it(edited_mi300x, fixtures_dir):
    path, text = edited_mi300x
    path.write_text("\n".join(ln for ln in text.splitlines() if not ln.startswith("  waitcnt:")) + "\n")
    wait = _first(_instructions(fixtures_dir), "s_waitcnt")
    with pytest.raises(InputError) as exc:
        cost(wait, machine("mi300x"))
    assert exc.value.message == f"{path}: instruction_classes has no entry for 'waitcnt'"


def test_a_negative_issue_figure_is_an_error_naming_the_class(edited_mi300x):
    path, text = edited_mi300x
    path.write_text(text.replace("  salu: {issue: 1,", "  salu: {issue: -1,", 1))
    with pytest.raises(InputError) as exc:
        machine("mi300x")
    assert "instruction_classes.salu.issue" in exc.value.message, exc.value.message


@pytest.mark.parametrize("device", AMD)
def test_every_amd_device_file_costs_exactly_the_instruction_classes(device):
    """The file's instruction_classes are the classifier's closed set (tools.isa.mnemonics.INSTRUCTION_CLASSES): none
    missing, none the classifier never returns."""
    assert sorted(machine(device).instruction_classes) == sorted(INSTRUCTION_CLASSES)
