"""The compile child (``tools.frontends._pyrunner``) records what failed (the exception's class, text, and for an
import the module not found); the parent classifies the failure from that record, not from text the kernel file
printed on stderr."""

from __future__ import annotations

import pytest

from tools.dump_ir import dump_ir
from tools.errors import CompileError, KernelpilotError
from tools.frontends import base

KERNEL = """
import triton
import triton.language as tl
{extra}


@triton.jit
def k(x):
    tl.store(x, 1.0)


def kernelpilot_entry():
    {entry}
"""


def _compile(tmp_path, extra="", entry="return None"):
    f = tmp_path / "kernel.py"
    f.write_text(KERNEL.format(extra=extra, entry=entry))
    return dump_ir(f, "gfx942", use_cache=False)


def test_a_missing_compiler_package_is_named_from_the_childs_record(tmp_path, monkeypatch):
    # a package the frontends import, absent here: the child's ModuleNotFoundError names it
    monkeypatch.setattr(base, "COMPILER_PACKAGES", (*base.COMPILER_PACKAGES, "kp_absent_compiler"))
    with pytest.raises(KernelpilotError, match="a compiler package is missing: No module named 'kp_absent_compiler'"):
        _compile(tmp_path, extra="import kp_absent_compiler")


def test_a_missing_submodule_of_an_installed_compiler_is_the_files_own_error(tmp_path):
    # triton is installed: importing a module it does not have is the kernel file's mistake, shown with its traceback
    with pytest.raises(CompileError) as raised:
        _compile(tmp_path, extra="import triton.kp_no_such_module")
    assert "compiler package is missing" not in raised.value.message
    assert "kp_no_such_module" in raised.value.details


def test_text_a_kernel_prints_does_not_decide_the_failure(tmp_path):
    # the old stderr grep took this print for a linker failure; the exception is the user's ValueError
    entry = "print('ld.lld: lld invocation failed', file=__import__('sys').stderr); raise ValueError('my own mistake')"
    with pytest.raises(CompileError) as raised:
        _compile(tmp_path, entry=entry)
    assert "could not link" not in raised.value.message and "my own mistake" in raised.value.details
