"""A symlink in anything a tool reads (a trace directory, an ATT folder, an ISA folder, a kernel file, an artifact)
never leads outside the directories the MCP server may read; the CLI reads what its user names."""

from __future__ import annotations

import shutil

import pytest
from mcp import Client

from mcp_server.server import ALLOW_COMMANDS_ENV
from tests.conftest import REPO
from tests.faults.helpers import (
    GEMM_ISA,
    PY,
    SECRET,
    call,
    cli_env,
    error_text,
    triton_kernel,
)
from tests.trace_fixtures import extract_att
from tools import paths
from tools.errors import InputError


@pytest.mark.anyio
async def test_symlink_in_trace_dir_refused(project):
    proj, outside = project
    secret_csv = outside / "kernel_trace.csv"
    secret_csv.write_text(SECRET + "\n")
    (proj / "d2").mkdir()
    (proj / "d2" / "kernel_trace.csv").symlink_to(secret_csv)
    text = error_text(await call("kernel-trace", {"trace": "d2"}))
    assert "outside the directories this server may read" in text and "symlink" in text
    assert SECRET not in text


@pytest.mark.anyio
async def test_nested_symlinks_in_trace_dir_refused(project):
    # a symlinked file two levels down, and a symlinked directory: neither leads out
    proj, outside = project
    (outside / "kernel_trace.csv").write_text(SECRET + "\n")
    nested = proj / "run" / "host" / "1234"
    nested.mkdir(parents=True)
    (nested / "x_kernel_trace.csv").symlink_to(outside / "kernel_trace.csv")
    text = error_text(await call("kernel-trace", {"trace": "run"}))
    assert "outside" in text and SECRET not in text
    (proj / "run2").mkdir()
    (proj / "run2" / "linked").symlink_to(outside, target_is_directory=True)
    text = error_text(await call("kernel-trace", {"trace": "run2"}))
    assert SECRET not in text


@pytest.mark.anyio
async def test_symlink_inside_att_dir_refused(project):
    proj, outside = project
    att = extract_att("rmsnorm", proj)
    code = att / "code.json"
    shutil.move(code, outside / "code.json")
    code.symlink_to(outside / "code.json")
    text = error_text(await call("kernel-trace", {"trace": str(att.relative_to(proj))}))
    assert "outside" in text and "code.json" in text
    text = error_text(await call("kernel-trace", {"trace": str(code.relative_to(proj))}))
    assert "outside" in text


@pytest.mark.anyio
async def test_symlink_in_isa_dir_refused_by_vgpr_pressure(project, private_cache):
    proj, outside = project
    shutil.copy(GEMM_ISA, outside / "k.s")
    (proj / "d1").mkdir()
    (proj / "d1" / "final_isa.s").symlink_to(outside / "k.s")
    text = error_text(await call("vgpr-pressure", {"isa": "d1"}))
    assert "outside" in text
    # nothing was analysed, so no per-instruction artifact copies the outside file's lines into the cache
    assert not list(private_cache.glob("artifacts/*/liveness.tsv"))


@pytest.mark.anyio
async def test_symlinks_refused_by_read_artifact_and_prefetch(project):
    proj, outside = project
    shutil.copy(GEMM_ISA, outside / "k.s")
    (proj / "sub").mkdir()
    (proj / "sub" / "linkdir").symlink_to(outside, target_is_directory=True)
    text = error_text(await call("read-artifact", {"path": "sub/linkdir/k.s"}))
    assert "outside" in text
    (proj / "d1").mkdir()
    (proj / "d1" / "final_isa.s").symlink_to(outside / "k.s")
    text = error_text(await call("prefetch-data-load", {"source": "d1"}))
    assert "outside" in text


@pytest.mark.anyio
async def test_symlinked_kernel_file_refused_by_dump_ir(project):
    proj, outside = project
    triton_kernel(outside / "k.py")
    (proj / "k.py").symlink_to(outside / "k.py")
    text = error_text(await call("dump-ir", {"source": "k.py"}))
    assert "outside" in text


@pytest.mark.anyio
async def test_symlink_and_command_mode_refusals_hold_over_stdio(project, tmp_path):
    # the server as hosts run it: a stdio subprocess with its own environment
    from mcp import StdioServerParameters

    proj, outside = project
    (outside / "kernel_trace.csv").write_text(SECRET + "\n")
    (proj / "d2").mkdir()
    (proj / "d2" / "kernel_trace.csv").symlink_to(outside / "kernel_trace.csv")
    env = cli_env(KERNELPILOT_PROJECT_DIR=str(proj), KERNELPILOT_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("KERNELPILOT_ALLOWED_ROOTS", None)
    env.pop(ALLOW_COMMANDS_ENV, None)
    params = StdioServerParameters(command=PY, args=["-m", "mcp_server.server"], env=env, cwd=REPO)
    async with Client(params) as c:
        text = error_text(await c.call_tool("kernel-trace", {"trace": "d2"}))
        assert "outside" in text and SECRET not in text
        text = error_text(await c.call_tool("dump-ir", {"command": ["sh", "-c", "head -2 /etc/passwd >&2; exit 1"]}))
        assert "command mode is off on this server" in text and "root:" not in text


def test_engine_guard_is_off_for_the_cli_and_on_when_confined(tmp_path):
    # The CLI reads what its user names; a confined call (the MCP server) checks every file it opens.
    (tmp_path / "in").mkdir()
    link = tmp_path / "in" / "final_isa.s"
    link.symlink_to(GEMM_ISA)
    assert paths.guard(link) == link
    with paths.confined_to([tmp_path / "in"]), pytest.raises(InputError, match="symlink to"):
        paths.guard(link)
