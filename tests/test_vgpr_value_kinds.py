"""The kinds of live values vgpr-pressure reports form a closed vocabulary (contracts as types, not free
strings): ``AmdValueKind`` / ``SassValueKind``. AMD used to report the raw instruction category of any defining
instruction outside the named kinds (``vmem_atomic``, ``other``, ...); now a returning atomic is ``other`` and the
LDS lane shuffles of a reduction keep their name, ``lds_other``."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
from pydantic import ValidationError

from tests.isa_fixtures import BATCHED, SPILL, fixtures_dir
from tools.dump_ir import dump_ir
from tools.isa.amdgcn import SGPR_BASE, parse_isa
from tools.isa.pressure import Attributor
from tools.models.vgpr import AmdValueKind, RegisterGroup, SassValueKind, SpilledValue
from tools.vgpr_pressure import analyze_path

AMD_KINDS = set(get_args(AmdValueKind))

# a returning atomic (tl.atomic_add's old values are used) and a scan (tl.cumsum: ds_bpermute lane shuffles on gfx942)
TICKETS = """
import torch
import triton
import triton.language as tl


@triton.jit
def ticket_kernel(counter_ptr, x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    old = tl.atomic_add(counter_ptr + offs % 4, 1)
    row = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.cumsum(row, axis=0).to(tl.int32) + old)


def kernelpilot_entry():
    x = torch.randn(1024)
    return {
        "kernel": ticket_kernel,
        "args": (torch.zeros(4, dtype=torch.int32), x, torch.empty(1024, dtype=torch.int32)),
        "kwargs": {"BLOCK": 256, "num_warps": 4},
        "grid": (4,),
    }
"""


def kinds_of_every_vector_def(isa_path: Path) -> dict[str, set[str]]:
    """kind -> the mnemonics whose VGPR/AGPR results get it, over every kernel of the ISA."""
    out: dict[str, set[str]] = {}
    for kernel in parse_isa(isa_path.read_text()).kernels:
        att = Attributor(kernel)
        for inst in kernel.instructions:
            vector_defs = inst.defs & ((1 << SGPR_BASE) - 1)
            for reg in (b for b in range(SGPR_BASE) if (vector_defs >> b) & 1):
                out.setdefault(att.kind(reg, inst.index + 1).kind, set()).add(inst.mnemonic)
    return out


@pytest.mark.parametrize("isa", [BATCHED, SPILL])
def test_every_value_in_the_fixture_isa_has_a_kind_of_the_vocabulary(isa):
    kinds = kinds_of_every_vector_def(fixtures_dir() / "amdgcn_isa" / isa)
    assert set(kinds) <= AMD_KINDS, set(kinds) - AMD_KINDS


@pytest.fixture(scope="module")
def tickets(tmp_path_factory) -> Path:
    kernel = tmp_path_factory.mktemp("tickets") / "kernel.py"
    kernel.write_text(TICKETS)
    return Path(dump_ir(kernel, "gfx942").kernels[0].final_isa)


@pytest.mark.slow
def test_a_returning_atomic_is_other_and_a_lane_shuffle_is_lds_other(tickets):
    kinds = kinds_of_every_vector_def(tickets)
    assert set(kinds) <= AMD_KINDS
    assert kinds["other"] == {"buffer_atomic_add"}  # was reported as its category, "vmem_atomic"
    assert kinds["lds_other"] == {"ds_bpermute_b32"}


@pytest.mark.slow
def test_the_report_over_that_kernel_validates_against_the_vocabulary(tickets):
    (report,) = analyze_path(tickets).reports
    groups = [g for p in report.critical_points for g in p.by_definition]
    assert groups and {g.kind for g in groups} <= AMD_KINDS


def test_a_group_or_spill_of_a_kind_outside_the_vocabulary_is_refused():
    with pytest.raises(ValidationError):
        RegisterGroup(kind="vmem_atomic", count=1, registers="v3")
    with pytest.raises(ValidationError):
        SpilledValue.model_validate(
            {"reg": "v1", "slot": "scratch+0", "kind": "salu", "store": {"index": 0, "line": 1, "text": "x"}}
            | {"defined_by": None, "in_hot_loop": False}
        )


def test_the_two_vendors_share_only_the_words_that_mean_the_same():
    shared = AMD_KINDS & set(get_args(SassValueKind))
    assert shared == {"global_load", "address", "spill_reload", "kernel_input"}
