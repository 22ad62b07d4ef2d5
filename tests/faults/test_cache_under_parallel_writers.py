"""Parallel compiles of one kernel (CLI processes, MCP jobs) all succeed and publish one cache entry, a later writer
replaces it in one step, and stale staging, failed and job directories are swept by age."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client

from mcp_server.server import mcp
from tests.conftest import EXAMPLES
from tests.faults.helpers import (
    PY,
    cli_env,
    triton_kernel,
)
from tools import cache
from tools.dump_ir import dump_ir


def test_parallel_compiles_of_one_kernel_all_succeed(tmp_path, private_cache):
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
async def test_parallel_mcp_compiles_of_one_kernel_all_succeed(project, private_cache):
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


def test_a_later_writer_of_the_same_entry_replaces_it(tmp_path, private_cache):
    kernel = EXAMPLES / "triton" / "vector_add.py"
    first = dump_ir(kernel, "gfx942", use_cache=False)
    entry = Path(first.out_dir)
    # a second writer finishes the same key and manifest later (--no-cache, or a race): its entry is published over
    # the first in one step (keeping the first one made --no-cache return the old result)
    staging = cache.new_staging_dir(entry.parent.name)
    shutil.copytree(entry, staging, dirs_exist_ok=True)
    (staging / "leftover.txt").write_text("x")
    second = cache.commit(staging, entry.parent.name, first.model_copy(update={"out_dir": str(staging)}))
    assert second.out_dir == first.out_dir and not staging.exists() and (entry / "leftover.txt").exists()
    assert [p.name for p in (private_cache / "dumps").iterdir() if p.name.startswith(".")] == []


def test_stale_staging_failed_and_job_dirs_are_swept_by_age(private_cache):
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


def test_parallel_cached_compiles_of_one_kernel_in_three_folders_compile_it_once(tmp_path, private_cache):
    # three scorings of one baseline at once (each in its own temp folder): the first compiles, the other two wait
    # on the compile lock and take its entry, copied to their own folder (cache_hit), instead of compiling again
    from concurrent.futures import ThreadPoolExecutor

    kernels = []
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        kernels.append(triton_kernel(tmp_path / name / "k.py"))
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda k: dump_ir(k, "gfx942"), kernels))
    assert sorted(r.cache_hit for r in results) == [False, True, True]
    assert [Path(r.source) for r in results] == kernels
    for r, k in zip(results, kernels, strict=True):  # each result's artifacts name its own folder
        ttir = next(s for s in r.kernels[0].stages if s.name == "ttir")
        assert str(k.parent) in Path(ttir.path).read_text()
    assert len(list((private_cache / "locks").iterdir())) == 1


def test_a_held_compile_lock_is_waited_for_given_up_on_and_a_cancelled_waiter_stops(private_cache):
    from tools.errors import Cancelled

    with cache.compile_lock("k" * 24, 5) as held:
        assert held
        t0 = time.monotonic()
        with cache.compile_lock("k" * 24, 0.3) as again:  # held elsewhere: waited for, then given up (compile anyway)
            assert again is False and time.monotonic() - t0 >= 0.3
        with pytest.raises(Cancelled), cache.compile_lock("k" * 24, 60, cancelled=lambda: True):
            pass
        with cache.compile_lock("j" * 24, 0.3) as other:  # another kernel's lock is free
            assert other
    with cache.compile_lock("k" * 24, 0.3) as after:  # released on exit
        assert after
    lock = private_cache / "locks" / ("k" * 24)
    two_days_ago = time.time() - 2 * 24 * 3600
    os.utime(lock, (two_days_ago, two_days_ago))
    assert lock in cache.sweep() and not lock.exists()
