"""Never a stale answer: a cached dump or check input is reused only while every file
the compile read and every environment variable that steers it is unchanged; ``--no-cache`` always publishes its
result; parallel writers of one entry never break a reader.

Every case compiles our own small Triton kernel for gfx942 on the CPU. The observable is the instruction the add or
multiply becomes (``v_add_f32`` / ``v_mul_f32`` on gfx942; float adds and multiplies appear nowhere else in these
kernels: the address arithmetic is integer) and which load Triton emits (``buffer_load_dword`` with
``AMDGCN_USE_BUFFER_OPS=1``, ``global_load_dword`` with ``=0``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import pytest

from tools import cache
from tools.check.compare import check
from tools.dump_ir import dump_ir

REPO = Path(__file__).resolve().parents[1]

# The kernel adds or multiplies two vectors; OP_SOURCE says where the choice comes from (the file under test).
KERNEL = """
import os
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

{op_source}


@triton.jit
def combine(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, MUL: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * y if MUL else x + y, mask=m)


def kernelpilot_entry():
    x = torch.randn(1024)
    args = (x, x.clone(), torch.empty_like(x), 1024)
    return {{"kernel": combine, "args": args, "kwargs": {{"BLOCK": 256, "MUL": OP == "mul"}}, "grid": (4,)}}
"""


def kernel(path: Path, op_source: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(KERNEL.format(op_source=op_source))
    return path


def ops(final_isa: str) -> set[str]:
    """The float ops and load kinds in a final ISA file, e.g. {'v_add_f32', 'global_load_dword'}."""
    isa = Path(final_isa).read_text()
    found = re.findall(r"\b(v_(?:pk_)?(?:add|mul)_f32)(?:_e32|_e64)?\b|\b((?:buffer|global)_load_dword)\b", isa)
    return {a or b for a, b in found}


def op(result) -> str:
    found = {o for o in ops(result.kernels[0].final_isa) if o.startswith("v_")}
    assert found in ({"v_add_f32"}, {"v_mul_f32"}), found
    return "mul" if found == {"v_mul_f32"} else "add"


@pytest.mark.slow
def test_an_entry_in_a_sub_folder_follows_the_parent_folders_kernel_it_imports(tmp_path):
    # scratch/entry.py importing ../kernel.py kept answering for the kernel as it was before an edit
    parent = tmp_path / "proj"
    kernel(parent / "kernel.py", 'OP = "add"')
    entry = parent / "scratch" / "entry.py"
    entry.parent.mkdir()
    entry.write_text(
        "import sys\nfrom pathlib import Path\n\nsys.path.insert(0, str(Path(__file__).resolve().parents[1]))\n"
        "import triton  # noqa: F401\n\nfrom kernel import kernelpilot_entry  # noqa: F401\n"
    )
    first = dump_ir(entry, "gfx942")
    assert (first.cache_hit, op(first)) == (False, "add")
    assert dump_ir(entry, "gfx942").cache_hit  # nothing changed: a hit
    kernel(parent / "kernel.py", 'OP = "mul"')  # the folder's key is unchanged; the manifest holds ../kernel.py
    edited = dump_ir(entry, "gfx942")
    assert (edited.cache_hit, op(edited)) == (False, "mul")
    kernel(parent / "kernel.py", 'OP = "add"')  # reverted: the first entry (its own variant) holds again
    reverted = dump_ir(entry, "gfx942")
    assert (reverted.cache_hit, op(reverted), reverted.out_dir) == (True, "add", first.out_dir)
    manifest = json.loads((Path(reverted.out_dir) / cache.MANIFEST_FILE).read_text())
    recorded = {f["path"]: f["inside"] for f in manifest["files"]}
    assert recorded[str(parent / "kernel.py")] is False and recorded["entry.py"] is True


@pytest.mark.slow
def test_a_dot_file_the_kernel_reads_is_in_the_manifest(tmp_path):
    # dot-files are outside the folder's key (they are editor and tool state); the one the kernel opens is read
    k = kernel(tmp_path / "k" / "k.py", 'OP = (Path(__file__).parent / ".op").read_text().strip()')
    (tmp_path / "k" / ".op").write_text("add")
    assert op(dump_ir(k, "gfx942")) == "add"
    (tmp_path / "k" / ".op").write_text("mul")
    again = dump_ir(k, "gfx942")
    assert (again.cache_hit, op(again)) == (False, "mul")


@pytest.mark.slow
def test_a_package_loaded_with_import_module_is_in_the_manifest(tmp_path):
    # no import statement names pkg, so the folder's key leaves pkg/ out; the import is recorded when it happens
    k = kernel(tmp_path / "k" / "k.py", 'import importlib\n\nOP = importlib.import_module("pkg.opcfg").OP')
    (tmp_path / "k" / "pkg").mkdir()
    (tmp_path / "k" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "k" / "pkg" / "opcfg.py").write_text('OP = "add"\n')
    assert op(dump_ir(k, "gfx942")) == "add"
    (tmp_path / "k" / "pkg" / "opcfg.py").write_text('OP = "mul"\n')
    again = dump_ir(k, "gfx942")
    assert (again.cache_hit, op(again)) == (False, "mul")
    assert dump_ir(k, "gfx942").cache_hit  # and the new entry is reused while opcfg stays as it is


@pytest.mark.slow
def test_no_cache_publishes_its_result_and_pythonpath_modules_are_in_the_manifest(tmp_path, monkeypatch):
    # with PYTHONPATH=ext, --no-cache after switching ext/extcfg.py to mul still gave v_add_f32
    ext = tmp_path / "ext"
    ext.mkdir()
    (ext / "extcfg.py").write_text('OP = "add"\n')
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ext), os.environ.get("PYTHONPATH", "")]))
    k = kernel(tmp_path / "k" / "k.py", "from extcfg import OP")
    first = dump_ir(k, "gfx942")
    assert op(first) == "add"
    (ext / "extcfg.py").write_text('OP = "mul"\n')
    fresh = dump_ir(k, "gfx942", use_cache=False)
    assert (fresh.cache_hit, op(fresh)) == (False, "mul")
    # the entry under the key is now the --no-cache result: a plain call is a hit on it, not a recompile of a
    # stale entry (which would say cache_hit False)
    cached = dump_ir(k, "gfx942")
    assert (cached.cache_hit, op(cached)) == (True, "mul") and cached.out_dir == fresh.out_dir
    (ext / "extcfg.py").write_text('OP = "add"\n')  # back to add: the first entry's manifest holds again
    back = dump_ir(k, "gfx942")
    assert (back.cache_hit, op(back), back.out_dir) == (True, "add", first.out_dir)


def _cli_dump(kernel: Path, env: dict[str, str], cache_dir: Path) -> dict:
    full = {**os.environ, **env, "KERNELPILOT_CACHE_DIR": str(cache_dir)}
    proc = subprocess.run([sys.executable, "-m", "tools.cli", "dump-ir", str(kernel), "--arch", "gfx942", "--json"],
                          cwd=REPO, env=full, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.slow
def test_parallel_runs_with_different_environments_each_get_their_own_configuration(tmp_path):
    # three parallel dump-ir runs of one entry with different environment variables answered alike.
    # AMDGCN_USE_BUFFER_OPS is read by Triton's C++ (declared by the frontend, in the key); KP_OP by the kernel
    # file through os.environ (recorded by the compile child, in the manifest).
    k = kernel(tmp_path / "k" / "k.py", 'OP = os.environ.get("KP_OP", "add")')
    configs = [
        ({"AMDGCN_USE_BUFFER_OPS": "0", "KP_OP": "add"}, {"global_load_dword", "v_add_f32"}),
        ({"AMDGCN_USE_BUFFER_OPS": "1", "KP_OP": "add"}, {"buffer_load_dword", "v_add_f32"}),
        ({"AMDGCN_USE_BUFFER_OPS": "1", "KP_OP": "mul"}, {"buffer_load_dword", "v_mul_f32"}),
    ]
    cache_dir = tmp_path / "cache"
    for _ in range(2):  # first all compiling at once, then again with the cache filled
        with ThreadPoolExecutor(3) as pool:
            got = list(pool.map(lambda c: _cli_dump(k, c[0], cache_dir), configs))
        assert [ops(g["kernels"][0]["final_isa"]) for g in got] == [want for _, want in configs]
    # AMDGCN_USE_BUFFER_OPS=0 has a key of its own: a hit. The two KP_OP runs share a key (one entry, whose
    # manifest says which KP_OP it was compiled with): the one that published last may hit, the other compiles.
    assert got[0]["cache_hit"]


def test_publish_replaces_an_entry_and_concurrent_readers_never_see_half_of_one(tmp_path, monkeypatch):
    # a reader holding the entry's directory reads both files from one writer; with renameat2's exchange the
    # entry is never absent either (without it, the old entry is moved aside first: a reader may find none)
    monkeypatch.setenv("KERNELPILOT_CACHE_DIR", str(tmp_path / "cache"))
    final = tmp_path / "cache" / cache.CHECK_INPUTS / "k"
    stop = threading.Event()
    seen: list[str] = []

    def publish(tag: str) -> None:
        staging = cache.new_staging_dir("k", cache.CHECK_INPUTS)
        (staging / "a").write_text(tag)
        (staging / "b").write_text(tag)
        cache.publish(staging, final)

    def read_at(fd: int, name: str) -> bytes:
        f = os.open(name, os.O_RDONLY, dir_fd=fd)
        try:
            return os.read(f, 64)
        finally:
            os.close(f)

    def read() -> None:
        while not stop.is_set():
            try:
                fd = os.open(final, os.O_RDONLY | os.O_DIRECTORY)
            except FileNotFoundError:
                seen.append("missing")
                continue
            try:
                seen.append("whole" if read_at(fd, "a") == read_at(fd, "b") else "mixed")
            except FileNotFoundError:
                seen.append("replaced")  # the old entry was deleted after the swap: gone, never half
            finally:
                os.close(fd)

    publish("first")
    readers = [threading.Thread(target=read) for _ in range(2)]
    for t in readers:
        t.start()
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda n: [publish(f"{n}-{i}") for i in range(40)], range(4)))
    stop.set()
    for t in readers:
        t.join()
    assert "mixed" not in seen and "whole" in seen
    x, y = tmp_path / "x", tmp_path / "y"
    x.mkdir(), y.mkdir(), (x / "in-x").touch()
    if cache.exchange(x, y):  # this system swaps in one step (Linux renameat2)
        assert (y / "in-x").exists() and "missing" not in seen
    assert [p.name for p in final.parent.iterdir()] == ["k"]  # no staging or replaced leftovers


# ------------------------------------------------------------------------------------------------ check's inputs
BEFORE = """
import torch
import triton
import triton.language as tl
from cfg import N


@triton.jit
def copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs{mask}), mask=offs < n)


def kernelpilot_entry():
    x = torch.randn(N)
    return {{"kernel": copy, "args": (x, torch.empty_like(x), N), "kwargs": {{"BLOCK": 4096}}, "grid": (1,)}}
"""


def copy_pair(folder: Path, n: int) -> tuple[Path, Path]:
    """before.py masks its loads at n; after.py loads all 4096 elements: the same while N is 4096."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cfg.py").write_text(f"N = {n}\n")
    (folder / "before.py").write_text(BEFORE.format(mask=", mask=offs < n"))
    (folder / "after.py").write_text(BEFORE.format(mask=""))
    return folder / "before.py", folder / "after.py"


@pytest.mark.slow
def test_check_inputs_follow_the_size_a_helper_module_sets(tmp_path):
    # N from 4096 to 4000 in cfg.py still answered SAME on 4096 elements from the cached inputs
    before, after = copy_pair(tmp_path / "k", 4096)
    same = check(before, after)
    assert same.verdict == "same" and same.cases[0].buffers[0].elements == 4096
    (tmp_path / "k" / "cfg.py").write_text("N = 4000\n")
    diff = check(before, after)
    # 4000 float32 = 16000 B: after's unmasked load of lanes 4000..4003 (a 16 B dwordx4) is past the allocation
    assert diff.verdict == "different", diff.reason
    event = next(e for e in diff.cases[0].events if e.kind == "past-allocation")
    assert (event.access, event.bytes, event.offset) == ("load", 16, 16000)


def _cli_check(args: list[str], cache_dir: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "KERNELPILOT_CACHE_DIR": str(cache_dir)}
    return subprocess.run([sys.executable, "-m", "tools.cli", "check", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip


@pytest.mark.slow
def test_sixteen_parallel_checks_of_one_file_all_succeed_and_no_cache_replaces_the_inputs(tmp_path):
    # 1 of 16 parallel runs failed with "Directory not empty" publishing the inputs
    before, after = copy_pair(tmp_path / "k", 4096)
    cache_dir = tmp_path / "cache"
    assert _cli_check([str(before), str(after)], cache_dir).returncode == 0  # compiles both once
    inputs = cache_dir / cache.CHECK_INPUTS
    shutil.rmtree(inputs)  # the compiles stay cached; every run below builds the inputs and publishes them at once
    with ThreadPoolExecutor(16) as pool:
        runs = list(pool.map(lambda _: _cli_check([str(before), str(after)], cache_dir), range(16)))
    assert [r.returncode for r in runs] == [0] * 16, [r.stderr[-500:] for r in runs if r.returncode]
    assert all("check: SAME" in r.stdout for r in runs)
    (entry,) = inputs.glob("[!.]*/[!.]*")  # one key, one variant (the same files were read): the inputs entry
    inode = entry.stat().st_ino
    assert _cli_check([str(before), str(after)], cache_dir).returncode == 0
    assert entry.stat().st_ino == inode  # a hit leaves the entry alone
    fresh = _cli_check([str(before), str(after), "--no-cache"], cache_dir)
    assert fresh.returncode == 0 and "check: SAME" in fresh.stdout
    assert entry.stat().st_ino != inode  # --no-cache built the inputs again and published them


@pytest.mark.slow
def test_four_concurrent_mcp_checks_of_one_file_end_without_a_traceback(tmp_path, monkeypatch):
    # through MCP: 1 of 4 concurrent jobs ended with a raw traceback
    from mcp import Client

    from mcp_server.server import mcp

    before, after = copy_pair(tmp_path / "k", 4096)
    monkeypatch.setenv("KERNELPILOT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KERNELPILOT_PROJECT_DIR", str(tmp_path))
    args = {"before": str(before), "after": str(after), "wait_seconds": 500}

    async def main() -> list:
        results = []
        async with Client(mcp) as c:

            async def one(extra: dict) -> None:
                results.append(await c.call_tool("check", {**args, **extra}))

            async with anyio.create_task_group() as tg:
                for _ in range(4):
                    tg.start_soon(one, {})
            await one({"use_cache": False})
        return results

    results = anyio.run(main)
    texts = [r.content[0].text for r in results]
    assert [r.is_error for r in results] == [False] * 5, texts
    assert all(r.structured_content["report"]["verdict"] == "same" for r in results)
    assert not any("Traceback" in t for t in texts)
