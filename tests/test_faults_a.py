"""Fault injection, issue 17 part A: each numbered case reproduced as a hostile or careless user would, and held.

Every test names its case (``test_caseNN_…``). What each one proves: no traceback, no orphan process (pids polled
until gone), no stray directory, no file outside the allowed roots read, no user file deleted, bounded memory.
Kernels are real (Triton compiles for gfx942 on the CPU); the only fake processes are small Python children that
fork, sleep, print or crash, standing in for a misbehaving kernel file.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client

from mcp_server import artifacts, jobs
from mcp_server.server import ALLOW_COMMANDS_ENV, TOKEN_ENV, mcp
from tests.conftest import EXAMPLES, FIXTURES, REPO
from tests.mcp_server.test_server import pid_alive, wait_gone
from tests.trace_fixtures import extract_att
from tools import cache, paths
from tools.cli import main
from tools.dump_ir import OUT_MARKER, dump_ir
from tools.errors import CompileError, InputError
from tools.executors import LOCAL
from tools.frontends.cuda import checked_flags

PY = sys.executable
ISA_FIXTURE = FIXTURES / "amdgcn_isa" / "gfx942_hipcc_batched_gemm.s"
TRACE_FIXTURE = FIXTURES / "rocprofv3" / "gfx950_flash_attn_kernel_trace.csv"
SECRET = "kp-secret-3b1f: this line lives outside the allowed roots"

TRITON_KERNEL = """
import triton
import triton.language as tl


@triton.jit
def add_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)


def kernelpilot_entry():
    ENTRY_BODY
    return {
        "kernel": add_one,
        "signature": {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        "constexprs": {"BLOCK": 256},
    }
"""


def triton_kernel(path: Path, *, prelude: str = "", entry: str = "pass") -> Path:
    """A real Triton kernel file; ``prelude`` runs at import, ``entry`` at the start of kernelpilot_entry()."""
    body = TRITON_KERNEL.replace("ENTRY_BODY", entry)
    path.write_text("import os, sys, time, signal\n" + textwrap.dedent(prelude) + body)
    return path


def forked_sleeper(pid_file: Path, *, close_pipes: bool = False) -> str:
    """Kernel-file prelude: fork a child that writes its pid and sleeps ~forever, holding (or closing) the output
    pipes; the parent goes on only once the pid is on disk, so the test always knows whom to look for."""
    close = "os.close(1); os.close(2)" if close_pipes else "pass"
    return f"""
    if os.fork() == 0:
        {close}
        open({str(pid_file)!r} + ".tmp", "w").write(str(os.getpid()))
        os.rename({str(pid_file)!r} + ".tmp", {str(pid_file)!r})
        time.sleep(100000)
    _end = time.time() + 30
    while not os.path.exists({str(pid_file)!r}) and time.time() < _end:
        time.sleep(0.01)
    """


def wait_for(predicate, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    pytest.fail(f"condition not met within {seconds} s")


def kill_if_alive(pid: int) -> None:
    """Test hygiene only: a failing assertion must not leave our own sleeper behind."""
    if pid_alive(pid):
        os.kill(pid, signal.SIGKILL)


def maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cli_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return {**env, **extra}


@pytest.fixture
def private_cache(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "kp-cache"
    monkeypatch.setenv("KERNELPILOT_CACHE_DIR", str(root))
    return root


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An MCP project directory, and beside it (outside every root) a directory holding secrets."""
    proj, outside = tmp_path / "proj", tmp_path / "outside"
    proj.mkdir()
    outside.mkdir()
    monkeypatch.setenv("KERNELPILOT_PROJECT_DIR", str(proj))
    monkeypatch.delenv("KERNELPILOT_ALLOWED_ROOTS", raising=False)
    monkeypatch.setenv("KERNELPILOT_MCP_HEARTBEAT_S", "0.2")
    return proj, outside


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def call(tool: str, args: dict):
    async with Client(mcp) as c:
        return await c.call_tool(tool, args)


def error_text(result) -> str:
    assert result.is_error, result.structured_content
    text = result.content[0].text
    assert "Traceback" not in text
    return text


# ------------------------------------------------------------------------------------------- 1. symlinks escape


@pytest.mark.anyio
async def test_case01_symlink_in_trace_dir_refused(project):
    proj, outside = project
    secret_csv = outside / "kernel_trace.csv"
    secret_csv.write_text(SECRET + "\n")
    (proj / "d2").mkdir()
    (proj / "d2" / "kernel_trace.csv").symlink_to(secret_csv)
    text = error_text(await call("kernel-trace", {"trace": "d2"}))
    assert "outside the directories this server may read" in text and "symlink" in text
    assert SECRET not in text


@pytest.mark.anyio
async def test_case01_nested_symlinks_in_trace_dir_refused(project):
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
async def test_case01_symlink_inside_att_dir_refused(project):
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
async def test_case01_symlink_in_isa_dir_refused_by_vgpr_pressure(project, private_cache):
    proj, outside = project
    shutil.copy(ISA_FIXTURE, outside / "k.s")
    (proj / "d1").mkdir()
    (proj / "d1" / "final_isa.s").symlink_to(outside / "k.s")
    text = error_text(await call("vgpr-pressure", {"isa": "d1"}))
    assert "outside" in text
    # nothing was analysed, so no per-instruction artifact copies the outside file's lines into the cache
    assert not list(private_cache.glob("artifacts/*/liveness.tsv"))


@pytest.mark.anyio
async def test_case01_symlinks_refused_by_read_artifact_and_prefetch(project):
    proj, outside = project
    shutil.copy(ISA_FIXTURE, outside / "k.s")
    (proj / "sub").mkdir()
    (proj / "sub" / "linkdir").symlink_to(outside, target_is_directory=True)
    text = error_text(await call("read-artifact", {"path": "sub/linkdir/k.s"}))
    assert "outside" in text
    (proj / "d1").mkdir()
    (proj / "d1" / "final_isa.s").symlink_to(outside / "k.s")
    text = error_text(await call("prefetch-data-load", {"source": "d1"}))
    assert "outside" in text


@pytest.mark.anyio
async def test_case01_symlinked_kernel_file_refused_by_dump_ir(project):
    proj, outside = project
    triton_kernel(outside / "k.py")
    (proj / "k.py").symlink_to(outside / "k.py")
    text = error_text(await call("dump-ir", {"source": "k.py"}))
    assert "outside" in text


@pytest.mark.anyio
async def test_case01_and_case03_hold_over_stdio(project, tmp_path):
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


def test_case01_engine_guard_is_off_for_the_cli_and_on_when_confined(tmp_path):
    # The CLI reads what its user names; a confined call (the MCP server) checks every file it opens.
    (tmp_path / "in").mkdir()
    link = tmp_path / "in" / "final_isa.s"
    link.symlink_to(ISA_FIXTURE)
    assert paths.guard(link) == link
    with paths.confined_to([tmp_path / "in"]), pytest.raises(InputError, match="symlink to"):
        paths.guard(link)


# ------------------------------------------------------------------------------------- 2. flags that run programs


def test_case02_ccbin_in_a_cu_comment_is_refused_and_never_runs(tmp_path, capsys):
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
async def test_case02_mcp_flags_go_through_the_allowlist(project):
    proj, _ = project
    (proj / "k.cu").write_text("__global__ void k(float *x) { x[0] = 1; }\n")
    for bad in (["-Xcompiler", "-fplugin=/tmp/x.so"], ["--compiler-bindir=/tmp"], ["-include", "/etc/passwd"]):
        text = error_text(await call("dump-ir", {"source": "k.cu", "arch": "sm_90", "flags": bad, "use_cache": False}))
        assert "is not allowed" in text, bad


def test_case02_allowlist_accepts_codegen_flags_and_confines_includes(tmp_path):
    src = tmp_path / "k.cu"
    ok = ["-DBLOCK=256", "-O3", "-lineinfo", "-std=c++17", "-maxrregcount=64", "-Xptxas", "-v,-O3", "-Iinc"]
    assert checked_flags(ok, src, "test") == ok
    with paths.confined_to([tmp_path]), pytest.raises(InputError, match="outside"):
        checked_flags(["-I/usr/include"], src, "the flags argument")


@pytest.mark.skipif(not shutil.which("nvcc"), reason="nvcc not installed")
def test_case02_allowed_comment_flags_still_compile(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("// kernelpilot: -DVAL=3 -O3 -Xptxas -v\n__global__ void k(float *x) { x[0] = VAL; }\n")
    result = dump_ir(src, "sm_90", use_cache=False)
    assert [k.name for k in result.kernels] == ["_Z1kPf"]


# --------------------------------------------------------------------------- 3. command mode and HTTP without token


@pytest.mark.anyio
async def test_case03_command_mode_is_off_unless_the_server_allows_it(project, monkeypatch):
    proj, _ = project
    monkeypatch.delenv(ALLOW_COMMANDS_ENV, raising=False)
    ran = proj / "ran"
    argv = [PY, "-c", f"open({str(ran)!r}, 'w').write('x')"]
    for tool in ("dump-ir", "kernel-trace"):
        text = error_text(await call(tool, {"command": argv}))
        assert "command mode is off on this server" in text and f"{ALLOW_COMMANDS_ENV}=1" in text
    assert not ran.exists()


def _http_server(env: dict[str, str]):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [PY, "-m", "mcp_server.server", "--http", "--port", str(port)],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    pytest.fail("HTTP server did not start within 30 s")


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
HEADERS = [("accept", "application/json, text/event-stream"), ("content-type", "application/json")]


@pytest.mark.parametrize("token_env", [None, ""], ids=["unset", "empty"])
def test_case03_http_on_loopback_always_requires_a_token(token_env):
    import httpx2

    env = cli_env()
    env.pop(TOKEN_ENV, None)
    if token_env is not None:
        env[TOKEN_ENV] = token_env
    proc, port = _http_server(env)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        found = None
        for _ in range(50):  # printed before the port opens, so it is already there (maybe after warnings)
            found = re.search(r"this run's token is (\S+)", proc.stderr.readline())
            if found:
                break
        assert found, "the server printed no token"
        token = found.group(1)
        with httpx2.Client(timeout=10) as http:
            assert http.post(url, json=INIT, headers=dict(HEADERS)).status_code == 401
            wrong_then_right = [*HEADERS, ("authorization", "Bearer nope"), ("authorization", f"Bearer {token}")]
            assert http.post(url, json=INIT, headers=wrong_then_right).status_code == 401  # never "the last wins"
            ok = http.post(url, json=INIT, headers=[*HEADERS, ("authorization", f"Bearer {token}")])
            assert ok.status_code == 200, ok.text
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# ------------------------------------------------------------------------------------ 4. --out deletes user files


def test_case04_out_dir_with_user_files_is_refused_and_kept(tmp_path, capsys):
    v = tmp_path / "v"
    (v / "src").mkdir(parents=True)
    (v / "result.json").write_text("{}")
    (v / "src" / "main.cu").write_text("code")
    kernel = EXAMPLES / "triton" / "vector_add.py"
    assert main(["dump-ir", str(kernel), "--arch", "gfx942", "--out", str(v)]) == 2
    err = capsys.readouterr().err
    assert "was not written by kernelpilot" in err and "Traceback" not in err
    assert (v / "src" / "main.cu").read_text() == "code"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v"]  # no temporary directory left beside it


def test_case04_own_out_dir_is_replaced_but_added_files_are_not_deleted(tmp_path):
    kernel = EXAMPLES / "triton" / "vector_add.py"
    out = tmp_path / "dump"
    dump_ir(kernel, "gfx942", out=out)
    assert json.loads((out / OUT_MARKER).read_text())["files"]
    dump_ir(kernel, "gfx942", out=out)  # its own earlier output: replaced
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="holds files kernelpilot did not write: notes.txt"):
        dump_ir(kernel, "gfx942", out=out)
    assert (out / "notes.txt").read_text() == "mine"
    with pytest.raises(InputError, match="is a file, not a directory"):
        dump_ir(kernel, "gfx942", out=out / "notes.txt")


# ------------------------------------------------------------------------- 5. a forked child keeps the pipes open


def test_case05_forked_child_cannot_outlive_timeout(tmp_path):
    pids = tmp_path / "pids"
    kernel = triton_kernel(
        tmp_path / "k.py",
        prelude=forked_sleeper(pids),
        entry="time.sleep(100000)",
    )
    t0 = time.monotonic()
    with pytest.raises(CompileError, match="was stopped"):
        dump_ir(kernel, "gfx942", use_cache=False, timeout=8)
    assert time.monotonic() - t0 < 30  # 8 s, plus the kill's grace, never forever
    child = int(pids.read_text())
    assert wait_gone(child), f"forked child {child} survived"


def test_case05_successful_compile_with_a_lingering_child_is_a_success(tmp_path):
    pids = tmp_path / "pids"
    kernel = triton_kernel(
        tmp_path / "k.py",
        prelude=forked_sleeper(pids),
    )
    result = dump_ir(kernel, "gfx942", use_cache=False, timeout=120)
    assert [k.name for k in result.kernels] == ["add_one"]
    child = int(pids.read_text())
    assert wait_gone(child), f"forked child {child} survived the compile"


@pytest.mark.anyio
async def test_case05_mcp_timeout_is_the_callers_and_kills_the_child(project, tmp_path):
    proj, _ = project
    pids = tmp_path / "pids"
    triton_kernel(
        proj / "k.py",
        prelude=forked_sleeper(pids),
        entry="time.sleep(100000)",
    )
    t0 = time.monotonic()
    text = error_text(await call("dump-ir", {"source": "k.py", "timeout": 8, "use_cache": False, "wait_seconds": 90}))
    assert "was stopped" in text
    assert time.monotonic() - t0 < 35  # the caller's 8 s (+ worker start and the kill's grace), not 8 + 30
    assert wait_gone(int(pids.read_text()))


def test_case05_runner_deadline_bounds_pipe_draining():
    code = "import os, time\nif os.fork() == 0:\n    time.sleep(100000)\nprint('done')"
    t0 = time.monotonic()
    res = LOCAL.run([PY, "-c", code], timeout=30)
    assert res.ok and res.stdout == "done\n"
    assert time.monotonic() - t0 < 10  # not the 100000 s the child holds stdout for


# --------------------------------------------------------------------------------- 6. parallel compiles of one kernel


def test_case06_parallel_compiles_of_one_kernel_all_succeed(tmp_path, private_cache):
    kernel = triton_kernel(tmp_path / "k.py")
    procs = [
        subprocess.Popen(
            [PY, "-m", "tools.cli", "dump-ir", str(kernel), "--arch", "gfx942", "--no-cache"],
            env=cli_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
        assert "Traceback" not in err and "add_one" in out
    dumps = private_cache / "dumps"
    assert len([p for p in dumps.iterdir() if not p.name.startswith(".")]) == 1
    assert [p.name for p in dumps.iterdir() if p.name.startswith(".")] == []  # no staging, no .failed


@pytest.mark.anyio
async def test_case06_parallel_mcp_compiles_of_one_kernel_all_succeed(project, private_cache):
    proj, _ = project
    triton_kernel(proj / "k.py")
    results = []

    async def one(c):
        results.append(await c.call_tool("dump-ir", {"source": "k.py", "use_cache": False, "wait_seconds": 240}))

    async with Client(mcp) as c, anyio.create_task_group() as tg:
        for _ in range(3):
            tg.start_soon(one, c)
    assert [r.is_error for r in results] == [False, False, False], [r.content[0].text for r in results]
    assert {r.structured_content["report"]["out_dir"] for r in results} == {
        str(next(private_cache.glob("dumps/[!.]*/[!.]*")))  # one key, one variant: the same files were read
    }
    assert [p.name for p in (private_cache / "dumps").iterdir() if p.name.startswith(".")] == []


def test_case06_a_later_writer_of_the_same_entry_replaces_it(tmp_path, private_cache):
    kernel = EXAMPLES / "triton" / "vector_add.py"
    first = dump_ir(kernel, "gfx942", use_cache=False)
    entry = Path(first.out_dir)
    # a second writer finishes the same key and manifest later (--no-cache, or a race): its entry is published over
    # the first in one step (issue 23: keeping the first one made --no-cache return the old result)
    staging = cache.new_staging_dir(entry.parent.name)
    shutil.copytree(entry, staging, dirs_exist_ok=True)
    (staging / "leftover.txt").write_text("x")
    second = cache.commit(staging, entry.parent.name, first.model_copy(update={"out_dir": str(staging)}))
    assert second.out_dir == first.out_dir and not staging.exists() and (entry / "leftover.txt").exists()
    assert [p.name for p in (private_cache / "dumps").iterdir() if p.name.startswith(".")] == []


# ------------------------------------------------------------------------ 7. user exit codes and crashes in the child


@pytest.mark.parametrize(
    ("prelude", "entry", "message"),
    [
        ("sys.exit(0)", "pass", "called sys.exit(0) while it was being imported"),
        ("", "sys.exit(4)", "called sys.exit(4) inside kernelpilot_entry()"),
        ("", "os._exit(0)", "ended with exit code 0 before it reported a result"),
        ("", "os.kill(os.getpid(), signal.SIGSEGV)", "crashed: SIGSEGV (segmentation fault)"),
    ],
    ids=["sys.exit(0)", "sys.exit(4)", "os._exit(0)", "segfault"],
)
def test_case07_kernel_exits_and_crashes_get_specific_messages(tmp_path, capsys, prelude, entry, message):
    kernel = triton_kernel(tmp_path / "k.py", prelude=prelude, entry=entry)
    assert main(["dump-ir", str(kernel), "--arch", "gfx942", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert "Traceback" not in err and "runner.json" not in err and "file-mode convention" not in err


# ------------------------------------------------------------------------------------------ 11. unbounded resources


def test_case11_kernel_printing_200mb_is_capped_in_memory_log_and_cache(tmp_path, private_cache):
    kernel = triton_kernel(
        tmp_path / "k.py", prelude="chunk = 'x' * 1023 + '\\n'\nfor _ in range(200 * 1024):\n    print(chunk, end='')\n"
    )
    before = maxrss_mb()
    result = dump_ir(kernel, "gfx942", use_cache=False, timeout=300)
    assert maxrss_mb() - before < 100  # 200 MB went through the pipe; at most ~1 MiB was kept
    log = Path(result.log).read_text()
    assert "bytes of output left out of 209715200" in log
    entry_bytes = sum(p.stat().st_size for p in Path(result.out_dir).rglob("*") if p.is_file())
    assert entry_bytes < 4 * 1024 * 1024


@pytest.mark.anyio
async def test_case11_read_artifact_limit_is_honoured_while_reading(project):
    proj, _ = project
    big = proj / "big.txt"
    with open(big, "w") as f:
        for _ in range(200):
            f.write(("y" * 1023 + "\n") * 1024)
    before = maxrss_mb()
    r = await call("read-artifact", {"path": "big.txt", "limit": 1})
    assert maxrss_mb() - before < 50  # the old reader held the whole 200 MB file (and its lines) in memory
    page = r.structured_content
    assert page["lines"] == 1 and page["total_lines"] == 200 * 1024 and page["next_offset"] == 1


@pytest.mark.anyio
async def test_case11_fifo_and_devices_are_refused(project, monkeypatch):
    proj, _ = project
    os.mkfifo(proj / "pipe")
    with anyio.fail_after(10):  # a reader that opens a FIFO blocks until a writer comes: never
        text = error_text(await call("read-artifact", {"path": "pipe"}))
    assert "is a FIFO, not a regular file" in text
    monkeypatch.setenv("KERNELPILOT_ALLOWED_ROOTS", "/dev")
    text = error_text(await call("read-artifact", {"path": "/dev/zero"}))
    assert "is a device or socket, not a regular file" in text


@pytest.mark.parametrize("tool", ["vgpr-pressure", "prefetch-data-load", "dump-ir"])
def test_case11_dev_zero_as_cli_input_is_refused_not_read(tool, capsys):
    argv = [tool, "/dev/zero"] + (["--arch", "gfx942"] if tool == "dump-ir" else [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "/dev/zero is a device or socket, not a regular file" in err and "hint:" in err


@pytest.mark.anyio
async def test_case11_backtracking_pattern_is_stopped_within_its_budget(project, monkeypatch):
    proj, _ = project
    monkeypatch.setenv(artifacts.PATTERN_TIMEOUT_ENV, "1")
    (proj / "a.txt").write_text("a" * 40 + "b\n")
    t0 = time.monotonic()
    text = error_text(await call("read-artifact", {"path": "a.txt", "pattern": "(a+)+$"}))
    assert "ran longer than 1 s" in text and time.monotonic() - t0 < 10
    # a plain pattern still works, with line numbers (a budget a loaded machine can start Python within)
    monkeypatch.setenv(artifacts.PATTERN_TIMEOUT_ENV, "60")
    (proj / "b.txt").write_text("one\ntwo\nthree\n")
    r = await call("read-artifact", {"path": "b.txt", "pattern": "^t"})
    assert r.structured_content["text"] == "1: two\n2: three"


@pytest.mark.anyio
async def test_case11_concurrent_mcp_jobs_are_capped(project, monkeypatch, tmp_path):
    proj, _ = project
    monkeypatch.setenv(jobs.MAX_RUNNING_ENV, "1")
    pid_file = tmp_path / "pid"
    triton_kernel(proj / "k.py", entry=f"open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(600)")
    async with Client(mcp) as c:
        first = await c.call_tool("dump-ir", {"source": "k.py", "use_cache": False, "wait_seconds": 0})
        assert first.structured_content["status"] == "running"
        second = await c.call_tool("dump-ir", {"source": "k.py", "use_cache": False, "wait_seconds": 0})
        text = error_text(second)
        assert "1 jobs are already running on this server" in text and first.structured_content["job_id"] in text
        job = jobs.JOBS[first.structured_content["job_id"]]
        await jobs.kill(job, "cancelled")
    assert wait_gone(job.pid)
    if pid_file.exists():
        assert wait_gone(int(pid_file.read_text()))


# ------------------------------------------------------------------------------- 12. signals, stragglers, clean-up


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["SIGTERM", "SIGHUP"])
def test_case12_sigterm_and_sighup_clean_up_like_ctrl_c(tmp_path, private_cache, sig, code):
    pid_file = tmp_path / "pid"
    kernel = triton_kernel(
        tmp_path / "k.py", entry=f"open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(600)"
    )
    proc = subprocess.Popen(
        [PY, "-m", "tools.cli", "dump-ir", str(kernel), "--arch", "gfx942", "--no-cache"],
        env=cli_env(KERNELPILOT_CACHE_DIR=str(private_cache)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: pid_file.exists() and pid_file.read_text(), 120)
        compiler = int(pid_file.read_text())
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code
    assert f"terminated by {sig.name}" in err and "Traceback" not in err
    assert wait_gone(compiler), f"compiler {compiler} outlived the CLI"
    assert not [p for p in (private_cache / "dumps").iterdir() if ".tmp" in p.name]  # staging renamed .failed


def test_case12_child_that_closes_its_pipes_does_not_survive_success(tmp_path):
    pids = tmp_path / "pids"
    kernel = triton_kernel(
        tmp_path / "k.py",
        prelude=forked_sleeper(pids, close_pipes=True),
    )
    dump_ir(kernel, "gfx942", use_cache=False, timeout=120)
    child = int(pids.read_text())
    try:
        assert wait_gone(child), f"child {child} outlived a successful compile"
    finally:
        kill_if_alive(child)


def test_case12_stale_staging_failed_and_job_dirs_are_swept_by_age(private_cache):
    dumps, job_dirs = private_cache / "dumps", private_cache / "mcp-jobs"
    names = [".k1.tmp11-aa", ".k2.failed12-bb", ".cmd-1700000000000.tmp13-cc", "k3"]
    for name in names:
        (dumps / name).mkdir(parents=True)
    (job_dirs / "0123abcd").mkdir(parents=True)
    fresh = dumps / ".k4.tmp14-dd"
    fresh.mkdir()
    two_days_ago = time.time() - 2 * 24 * 3600
    for p in [*(dumps / n for n in names), job_dirs / "0123abcd"]:
        os.utime(p, (two_days_ago, two_days_ago))
    removed = {p.name for p in cache.sweep()}
    assert removed == {".k1.tmp11-aa", ".k2.failed12-bb", ".cmd-1700000000000.tmp13-cc", "0123abcd"}
    assert (dumps / "k3").is_dir() and fresh.is_dir()  # a cache entry, and a staging dir that may be in use


def test_case12_closed_stdout_is_not_a_traceback():
    proc = subprocess.Popen(
        [PY, "-m", "tools.cli", "vgpr-pressure", str(ISA_FIXTURE)],
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    proc.stdout.close()  # `| head -0`: the reader is gone before the first line
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert proc.returncode == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_case12_worker_threads_cannot_install_signal_handlers_but_cli_main_still_runs(capsys):
    # main() is called from threads by the eval harness: no signal.signal() there (it would raise ValueError)
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("rc", main(["vgpr-pressure", str(ISA_FIXTURE)])))
    t.start()
    t.join(60)
    assert out["rc"] == 0
