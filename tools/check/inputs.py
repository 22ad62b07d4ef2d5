"""check's inputs: the child that builds each case's launch buffers (``_inputs_child``), run once for all cases of a
side, and the cache of its results (keyed and published like dump-ir's, tools/cache.py)."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from tools.check.errors import CheckTimeout
from tools.childproc import raise_recorded, read_result
from tools.errors import InputError
from tools.executors import LOCAL

RESULT_FILE = "result.json"  # what each child reports (tools.childproc); its exit code is never read


def generate_inputs(
    path: Path,
    frontend: str,
    cases: list[tuple[int, dict]],
    out: Path,
    *,
    interpret=False,
    load: Path | None = None,
    timeout=600,
    use_cache=True,
    call: str | None = None,
):
    """Run the inputs child once for all (seed, shape) cases; per case (description, buffers, outputs or None).
    ``call``: a call spec's JSON (tools.callspec): the host function's tensors are the inputs.

    Inputs alone (not interpreter runs) are cached like dump-ir results (tools/cache.py): keyed by the file, its
    folder, the cases, the frontend's environment variables and the torch version, and reused only while every file
    and variable the child read is unchanged (its manifest). An agent re-checking AFTER against the same BEFORE, or
    the eval oracle checking candidates, skips the child; ``use_cache=False`` runs it and replaces the entry.
    """
    from tools import cache

    key = None if interpret or load else inputs_key(path, frontend, cases, call)
    entry = cache.find_entry(cache.CHECK_INPUTS, key, path.parent) if key and use_cache else None
    if entry is not None:
        out = entry
    else:
        run_inputs_child(path, frontend, cases, out, interpret, load, timeout, call)
        if key is not None:
            cache.store(out, key, cache.manifest_from_reads(child_reads(out), path.parent))
    got = []
    for i in range(len(cases)):
        d = out / f"case{i}"
        desc = json.loads((d / "inputs.json").read_text())
        n = len(desc["buffers"])
        bufs = [(d / f"buf{j}.bin").read_bytes() for j in range(n)]
        outs = [(d / f"out{j}.bin").read_bytes() for j in range(n)] if interpret else None
        got.append((desc, bufs, outs, d))
    return got


def inputs_key(path: Path, frontend: str, cases, call: str | None = None) -> str:
    from tools import __version__, cache
    from tools.frontends import get_frontend
    from tools.toolchain import package_version

    h = hashlib.sha256(cache.source_folder(path).digest.encode())  # the file, its helpers, imported sub-folders
    h.update((Path(__file__).parent / "_inputs_child.py").read_bytes())  # how inputs are described is part of it
    env = cache.keyed_environment(get_frontend(frontend).env_keys)
    h.update(json.dumps([str(path), frontend, cases, env, package_version("torch"), __version__, "manifest 1"]
                        + ([call] if call else []), sort_keys=True).encode())  # fmt: skip
    return h.hexdigest()[:24]


def child_reads(out: Path) -> dict | None:
    from tools import readlog

    try:
        return json.loads((out / readlog.READS_FILE).read_text())
    except (OSError, ValueError):
        return None


def run_inputs_child(path, frontend, cases, out, interpret, load, timeout, call=None) -> None:
    root = str(Path(__file__).resolve().parents[2])
    argv = [sys.executable, "-m", "tools.check._inputs_child", *(["--call", call] if call else [])]
    argv += [str(path), frontend, json.dumps(cases), str(out)]
    argv += (["interpret"] if interpret else []) + ([str(load)] if load else [])
    user_path = os.environ.get("PYTHONPATH")  # the user's modules (PYTHONPATH=ext) load as they do for dump-ir
    env = {"PYTHONPATH": root + (os.pathsep + user_path if user_path else "")}
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    Path(out).mkdir(parents=True, exist_ok=True)
    result = LOCAL.run(argv, timeout=timeout, env=env, cwd=path.parent)
    outcome = read_result(Path(out) / RESULT_FILE)  # the child's word; its exit code is the user's to choose
    if outcome is not None and outcome["status"] == "ok":
        return
    tail = "\n".join(result.stderr.strip().splitlines()[-30:])
    doing = "running under the interpreter" if interpret else "building inputs"
    if result.timed_out:
        raise CheckTimeout(
            f"check's --timeout ran out while {doing} for {path.name} ({timeout:.0f}s of it were left)",
            hint="use smaller shapes (`kernelpilot check … --shape KEY=VALUE`) or raise its --timeout",
        )
    if outcome is None:
        how = f"was killed by {result.signal_name}" if result.signal_name else f"exited with {result.returncode}"
        raise InputError(
            f"the process {doing} for {path.name} {how} before it reported",
            hint="the kernel file ended the interpreter (os._exit, a crash); run it with python to see",
            details=tail,
        )
    if outcome["status"] == "convention":
        raise InputError(
            f"{path.name}: {outcome['message']}",
            hint="define kernelpilot_inputs(seed, **shape) returning the launch arguments, or kernelpilot_entry() "
            "in the example-argument form (see the README, 'check')",
        )
    if outcome["status"] == "error":
        raise_recorded(outcome)
    raise InputError(
        f"{path.name} failed while {doing}: {outcome['message']}",
        hint="fix the error below (it is your file's own)",
        details=outcome.get("traceback") or tail,
    )
