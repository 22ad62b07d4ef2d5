"""dump-ir's frontend detection follows the modules an entry imports: a wrapper (``scratch/entry.py``) importing
the kernel's module is that kernel's language, as agents write wrappers, and it compiles."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.errors import InputError
from tools.frontends import detect_frontend

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def add_one(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1.0)


def kernelpilot_entry():
    import torch

    return {"kernel": add_one, "args": (torch.empty(256),), "kwargs": {"BLOCK": 256}, "grid": (1,)}
"""


WRAPPER = """
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import kernel  # noqa: E402


def kernelpilot_entry():
    return kernel.kernelpilot_entry()
"""


def _scratch(tmp: Path) -> Path:
    """kernel.py and scratch/entry.py that imports it (not triton) — the way agents write wrappers."""
    (tmp / "kernel.py").write_text(KERNEL)
    (tmp / "scratch").mkdir()
    entry = tmp / "scratch" / "entry.py"
    entry.write_text(WRAPPER)
    return entry


def test_an_entry_importing_the_kernel_module_is_triton(tmp_path):
    # Before: "entry.py imports neither flydsl nor triton" unless --frontend triton.
    assert detect_frontend(_scratch(tmp_path)) == "triton"


def test_a_file_importing_no_kernel_language_is_still_refused(tmp_path):
    (tmp_path / "helper.py").write_text("import math\n")
    entry = tmp_path / "entry.py"
    entry.write_text("import helper\nimport json\n")
    with pytest.raises(InputError, match="imports neither flydsl nor triton"):
        detect_frontend(entry)


@pytest.mark.slow
def test_dump_ir_compiles_the_wrapped_kernel(tmp_path):
    from tools.dump_ir import dump_ir

    result = dump_ir(_scratch(tmp_path), "gfx942")
    assert [k.name for k in result.kernels] == ["add_one"]
