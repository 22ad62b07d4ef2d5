"""Compiler flags from a ``// kernelpilot:`` comment or the MCP ``flags`` argument go through an allowlist: a flag
that runs a program (``-ccbin``, plugins) is refused and never runs, codegen flags pass, includes stay confined."""

from __future__ import annotations

import shutil

import pytest

from tests.faults.helpers import (
    call,
    error_text,
)
from tools import paths
from tools.cli import main
from tools.dump_ir import dump_ir
from tools.errors import InputError
from tools.frontends.cuda import checked_flags


def test_ccbin_in_a_cu_comment_is_refused_and_never_runs(tmp_path, capsys):
    ran = tmp_path / "prog-ran"
    prog = tmp_path / "prog"
    prog.write_text(f"#!/bin/sh\ntouch {ran}\n")
    prog.chmod(0o755)
    src = tmp_path / "k.cu"
    src.write_text(f"// kernelpilot: -ccbin={prog}\n__global__ void k(float *x) {{ x[0] = 1; }}\n")
    assert main(["dump-ir", str(src), "--arch", "sm_90", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert f"compiler flag '-ccbin={prog}' from the '// kernelpilot:' comment in k.cu is not allowed" in err
    assert "hint:" in err and "Traceback" not in err
    assert not ran.exists()


@pytest.mark.anyio
async def test_mcp_flags_go_through_the_allowlist(project):
    proj, _ = project
    (proj / "k.cu").write_text("__global__ void k(float *x) { x[0] = 1; }\n")
    for bad in (["-Xcompiler", "-fplugin=/tmp/x.so"], ["--compiler-bindir=/tmp"], ["-include", "/etc/passwd"]):
        text = error_text(await call("dump-ir", {"source": "k.cu", "arch": "sm_90", "flags": bad, "use_cache": False}))
        assert "is not allowed" in text, bad


def test_allowlist_accepts_codegen_flags_and_confines_includes(tmp_path):
    src = tmp_path / "k.cu"
    ok = ["-DBLOCK=256", "-O3", "-lineinfo", "-std=c++17", "-maxrregcount=64", "-Xptxas", "-v,-O3", "-Iinc"]
    assert checked_flags(ok, src, "test") == ok
    with paths.confined_to([tmp_path]), pytest.raises(InputError, match="outside"):
        checked_flags(["-I/usr/include"], src, "the flags argument")


@pytest.mark.skipif(not shutil.which("nvcc"), reason="nvcc not installed")
def test_allowed_comment_flags_still_compile(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("// kernelpilot: -DVAL=3 -O3 -Xptxas -v\n__global__ void k(float *x) { x[0] = VAL; }\n")
    result = dump_ir(src, "sm_90", use_cache=False)
    assert [k.name for k in result.kernels] == ["_Z1kPf"]
