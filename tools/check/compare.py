"""check: run BEFORE and AFTER on the same generated inputs and compare every buffer they write.

Two engines. ``llvm`` compiles both files (dump-ir, file mode), takes each kernel's LLVM IR stage and executes it on
the CPU lane by lane (tools.check.engine), so it sees what the GPU would run, including out-of-bounds accesses and
uninitialised LDS reads. ``interpreter`` (Triton) runs both through Triton's interpreter in a child process.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tools.errors import InputError, KernelpilotError
from tools.executors import LOCAL
from tools.models.check import BufferVerdict, CaseResult, CheckReport, MemoryEvent, Mismatch

MAX_MISMATCHES = 10
ERROR_KINDS = ("past-allocation", "lds-out-of-range", "private-out-of-range", "lds-uninitialised", "lds-race")

LLVM_LIMITS = [
    "all waves of a launch run in lock step: a missing barrier shows as an lds-race when one wave reads or overwrites "
    "LDS another wave wrote since the last barrier; a write after another wave's read (WAR) is not seen",
    "an async LDS DMA's bytes land at the wait.asyncmark that retires its group, a synchronous one's at once; a "
    "read between issue and that wait sees the old bytes (on a GPU: either)",
    "loads past a tensor return 0 here; on a GPU they return whatever memory holds there",
    "floating-point math is numpy's (IEEE, round to nearest); MFMA accumulates in float64 then rounds to f32",
]
INTERPRETER_LIMITS = [
    "Triton's interpreter runs the kernel's Python semantics: it ignores layouts, num_warps and num_stages, "
    "and cannot see races, register spills or what the AMD compiler emits",
    "out-of-bounds accesses are not reported (masked loads are honoured; unmasked ones read host memory)",
]


# ------------------------------------------------------------------------------------------------------- inputs
def generate_inputs(
    path: Path,
    frontend: str,
    cases: list[tuple[int, dict]],
    out: Path,
    *,
    interpret=False,
    load: Path | None = None,
    timeout=600,
):
    """Run the inputs child once for all (seed, shape) cases; per case (description, buffers, outputs or None).

    Inputs alone (not interpreter runs) are cached by the file's bytes, the torch version and the cases: an agent
    re-checking AFTER against the same BEFORE, or the eval oracle checking candidates, skips the child.
    """
    cached = None if interpret or load else _inputs_cache(path, frontend, cases)
    if cached is not None and (cached / "done").exists():
        out = cached
    else:
        _run_inputs_child(path, frontend, cases, out, interpret, load, timeout)
        if cached is not None:
            tmp = cached.with_name(cached.name + f".tmp{os.getpid()}")
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.copytree(out, tmp)
            (tmp / "done").write_text("")
            shutil.rmtree(cached, ignore_errors=True)
            tmp.rename(cached)
    got = []
    for i in range(len(cases)):
        d = out / f"case{i}"
        desc = json.loads((d / "inputs.json").read_text())
        n = len(desc["buffers"])
        bufs = [(d / f"buf{j}.bin").read_bytes() for j in range(n)]
        outs = [(d / f"out{j}.bin").read_bytes() for j in range(n)] if interpret else None
        got.append((desc, bufs, outs))
    return got


def _inputs_cache(path: Path, frontend: str, cases) -> Path | None:
    from tools import __version__
    from tools.toolchain import cache_root, package_version

    h = hashlib.sha256(path.read_bytes())
    h.update((Path(__file__).parent / "_inputs_child.py").read_bytes())  # how inputs are described is part of it
    h.update(json.dumps([str(path), frontend, cases, package_version("torch"), __version__], sort_keys=True).encode())
    return cache_root() / "check-inputs" / h.hexdigest()[:24]


def _run_inputs_child(path, frontend, cases, out, interpret, load, timeout) -> None:
    root = str(Path(__file__).resolve().parents[2])
    argv = [sys.executable, "-m", "tools.check._inputs_child", str(path), frontend, json.dumps(cases), str(out)]
    argv += (["interpret"] if interpret else []) + ([str(load)] if load else [])
    env = {"PYTHONPATH": root}
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    result = LOCAL.run(argv, timeout=timeout, env=env, cwd=path.parent)
    if not result.ok:
        tail = "\n".join(result.stderr.strip().splitlines()[-30:])
        if result.timed_out:
            raise KernelpilotError(
                f"building inputs for {path.name} took over {timeout:.0f}s",
                hint="use smaller shapes (--shape) or raise --timeout",
            )
        if result.returncode == 4:
            raise InputError(
                f"{path.name}: {tail}",
                hint="define kernelpilot_inputs(seed, **shape) returning the launch arguments, or kernelpilot_entry() "
                "in the example-argument form (see the README, 'check')",
            )
        raise InputError(
            f"{path.name} failed while {'running under the interpreter' if interpret else 'building inputs'}",
            hint="fix the error above (it is your file's own)",
            details=tail,
        )


# ------------------------------------------------------------------------------------------------------- compare
def _typed(data: bytes, dtype: str) -> np.ndarray:
    raw = np.frombuffer(data, dtype=np.uint8)
    if dtype == "bfloat16":
        return (raw.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)
    if dtype.startswith("float8"):
        from tools.check import xlane

        fmt = ("bf8" if "e5m2" in dtype else "fp8") + ("_fnuz" if "fnuz" in dtype else "_ocp")
        return xlane.fp8_decode(raw, fmt)
    np_name = {"bool": "bool"}.get(dtype, dtype)
    try:
        return raw.view(np.dtype(np_name))
    except TypeError:
        return raw  # an exotic dtype: compare bytes


def _index(flat: int, buf_index: int, desc: dict) -> list[int]:
    for launch in desc["launches"]:
        for a in launch["args"] + launch["kwargs"]:
            if a.get("tensor") == buf_index and a["offset"] == 0 and a["shape"]:
                dense = np.prod(a["shape"]) * 1 == desc_elems(desc, buf_index)
                contiguous = list(np.cumprod([1, *a["shape"][::-1]])[:-1][::-1]) == a["strides"]
                if dense and contiguous:
                    return [int(i) for i in np.unravel_index(flat, a["shape"])]
    return [flat]


def desc_elems(desc: dict, i: int) -> int:
    b = desc["buffers"][i]
    return b["nbytes"] // b["element_size"]


def compare_buffers(desc, before: list[bytes], after: list[bytes], written: dict[int, list[str]], atol, rtol):
    verdicts, mismatches = [], []
    for i in sorted(written):
        b = desc["buffers"][i]
        x, y = _typed(before[i], b["dtype"]), _typed(after[i], b["dtype"])
        same_bits = np.frombuffer(before[i], np.uint8) == np.frombuffer(after[i], np.uint8)
        esize = len(before[i]) // max(len(x), 1) if len(x) else 1
        equal = same_bits.reshape(-1, esize).all(axis=1) if len(x) else np.ones(0, bool)
        diff = None
        if x.dtype.kind == "f":
            xf, yf = x.astype(np.float64), y.astype(np.float64)
            if atol or rtol:
                equal = equal | np.isclose(xf, yf, atol=atol, rtol=rtol, equal_nan=True)
            finite = np.isfinite(xf) & np.isfinite(yf)
            diff = float(np.max(np.abs(xf - yf)[finite])) if finite.any() else None
        elif x.dtype.kind in "iu":
            d = np.abs(x.astype(np.int64) - y.astype(np.int64))
            diff = float(d.max()) if len(d) else None
        bad = np.nonzero(~equal)[0]
        verdicts.append(BufferVerdict(name=b["name"], dtype=b["dtype"], elements=len(x), written_by=written[i],
                                      mismatches=len(bad), max_abs_diff=diff,
                                      verdict="different" if len(bad) else "same"))  # fmt: skip
        for j in bad[: max(0, MAX_MISMATCHES - len(mismatches))]:
            mismatches.append(Mismatch(buffer=b["name"], index=_index(int(j), i, desc), before=repr(x[j].item()),
                                       after=repr(y[j].item())))  # fmt: skip
    return verdicts, mismatches


def judge(case: CaseResult) -> CaseResult:
    """A case's verdict from its buffers and memory events (the numbers beside the verdict say the same)."""
    after_bad = [e for e in case.events if e.kernel == "after" and e.kind in ERROR_KINDS]
    before_bad = [e for e in case.events if e.kernel == "before" and e.kind in ERROR_KINDS]
    diff = [b for b in case.buffers if b.verdict == "different"]
    if diff:
        first = case.mismatches[0] if case.mismatches else None
        where = f"; first at {first.buffer}{first.index}: {first.before} → {first.after}" if first else ""
        case.verdict, case.reason = (
            "different",
            (f"{sum(b.mismatches for b in diff)} element(s) differ in {', '.join(b.name for b in diff)}{where}"),
        )
    elif after_bad:
        e = after_bad[0]
        case.verdict = "different"
        case.reason = f"AFTER: {e.kind} {e.access} of {e.bytes} B at offset {e.offset} of {e.buffer} ({e.user_line})"
    elif before_bad:
        e = before_bad[0]
        case.verdict = "undetermined"
        case.reason = (
            f"BEFORE itself makes a {e.kind} {e.access} ({e.user_line}); outputs agree but prove nothing there"
        )
    elif not case.buffers:
        case.verdict, case.reason = "undetermined", "neither kernel wrote any buffer"
    else:
        n = sum(b.elements for b in case.buffers)
        case.verdict, case.reason = "same", f"{n} element(s) in {len(case.buffers)} written buffer(s) agree"
    return case


# ------------------------------------------------------------------------------------------------------- llvm engine
def _llvm_kernels(path: Path, arch: str, timeout: float):
    from tools.dump_ir import dump_ir

    result = dump_ir(path, arch, timeout=timeout)
    kernels = []
    for k in result.kernels:
        stages = {s.name: Path(s.path) for s in k.stages}
        llvm = stages.get("llvm_ir") or stages.get("llir")
        if llvm is None:
            raise InputError(f"{path.name}: kernel {k.name} has no LLVM IR stage", hint="check needs llvm_ir / llir")
        kernels.append(
            (k.name, llvm.read_text(), stages.get("origin") or llvm.parent / "metadata.json", result.frontend)
        )
    return kernels


def _run_llvm(kernels, desc, bufs, arch, who: str, visits: list | None = None):
    from tools.check import engine, flydsl_abi, triton_abi
    from tools.check.ir import load_kernel

    prepared = engine.lay_out([(b["name"], data) for b, data in zip(desc["buffers"], bufs, strict=True)])
    events, written = [], set()
    for index, (name, llvm_text, origin, frontend) in enumerate(kernels):
        kernel = load_kernel(llvm_text, name)

        def address_of(arg, prepared=prepared, desc=desc):
            esize = desc["buffers"][arg["tensor"]]["element_size"]
            return prepared.address(arg["tensor"]) + arg["offset"] * esize

        dynamic_lds = 65536  # FlyDSL: the largest LDS a gfx942 workgroup may have
        if frontend == "flydsl":
            launch = flydsl_abi.read_launch(origin.read_text(), name)
            params = flydsl_abi.kernel_params([t for t, _ in kernel.params], launch, desc["launches"][0]["args"],
                                              address_of)  # fmt: skip
            grid, block = tuple(launch["grid"]), tuple(launch["block"])
        else:
            spec = desc["launches"][index if len(desc["launches"]) == len(kernels) else 0]
            meta = json.loads(origin.read_text()) if origin and origin.exists() else {}
            params = triton_abi.kernel_params([t for t, _ in kernel.params], spec, address_of)
            grid = tuple((list(spec["grid"]) + [1, 1, 1])[:3])
            block = (int(meta.get("num_warps", 4)) * int(meta.get("warp_size", 64)), 1, 1)
            dynamic_lds = int(meta.get("shared") or 0) or 1
        if kernel.reqd_block and tuple(kernel.reqd_block) != block:
            raise InputError(f"{name}: launched with block {block} but compiled for {kernel.reqd_block}", hint="")
        machine = engine.Machine(kernel, engine.Launch(grid=grid, block=block), prepared.memory,
                                 prepared.allocations, params, arch, dynamic_lds)  # fmt: skip
        run = machine.run()
        if visits is not None:
            visits.append((name, kernel, run.block_waves, machine.n_wg * machine.waves_per_wg, machine.n_wg))
        written |= run.written
        counts = run.event_counts
        for e in run.events:
            events.append(MemoryEvent(kernel=who, count=counts.get((e.kind, e.instruction), 1),
                                      **e.__dict__))  # fmt: skip
    out = [bytes(prepared.memory[a.start : a.start + a.size]) for a in prepared.allocations]
    return out, written, events


def outputs(
    path: str | Path,
    engine: str,
    *,
    seed: int = 0,
    shape: dict | None = None,
    arch: str = "gfx942",
    timeout: float = 600,
) -> dict[str, np.ndarray]:
    """One file's buffers after one run on one engine, typed (for cross-checking the engines against each other)."""
    path = Path(path).resolve()
    from tools.frontends import detect_frontend

    frontend = detect_frontend(path)
    with tempfile.TemporaryDirectory(prefix="kp-check-") as tmp:
        ((desc, bufs, outs),) = generate_inputs(path, frontend, [(seed, shape or {})], Path(tmp),
                                                interpret=engine == "interpreter", timeout=timeout)  # fmt: skip
        if engine == "llvm":
            outs, _, events = _run_llvm(_llvm_kernels(path, arch, timeout), desc, bufs, arch, "before")
            bad = [e for e in events if e.kind in ERROR_KINDS]
            if bad:
                raise InputError(f"{path.name}: {bad[0].kind} {bad[0].access} at {bad[0].line}", hint="")
    return {b["name"]: _typed(o, b["dtype"]) for b, o in zip(desc["buffers"], outs, strict=True)}


def _loops_of(kernel) -> list[dict]:
    """Natural-loop approximations of an LLVM kernel: a branch to a block at or before its own position in reverse
    post-order is a back edge (header = target, latch = source); nesting by span containment."""
    spans = set()
    index_of = {blk.id: blk.index for blk in kernel.blocks}
    for b in kernel.blocks:
        term = b.body[-1] if b.body else None
        if term is None or term.opcode not in ("br", "switch"):
            continue
        if term.opcode == "br":  # as Machine._terminator reads them: (target) or (cond, false, true)
            targets = [term.ops[0].ref] if len(term.ops) == 1 else [term.ops[1].ref, term.ops[2].ref]
        else:
            targets = [term.ops[1].ref] + [term.ops[i + 1].ref for i in range(2, len(term.ops), 2)]
        for t in targets:
            if t in index_of and index_of[t] <= b.index:
                spans.add((index_of[t], b.index))
    out = []
    for s in sorted(spans):
        depth = 1 + sum(1 for o in spans if o != s and o[0] <= s[0] and s[1] <= o[1])
        out.append({"header": s[0], "latch": s[1], "depth": depth})
    return out


def executed_loops(
    path: str | Path, arch: str = "gfx942", *, seed: int = 0, shape: dict | None = None, timeout: float = 600
) -> list[dict]:
    """Run ``path`` once on the CPU engine and count, per kernel launch, how many waves executed each loop header:
    ``{"kernel", "waves", "workgroups", "loops": [{"header", "latch", "depth", "executions"}]}`` with ``executions``
    the latch's executions per wave (the back edge runs once per iteration; summed over the loops around it)."""
    path = Path(path).resolve()
    from tools.frontends import detect_frontend

    frontend = detect_frontend(path)
    visits: list = []
    with tempfile.TemporaryDirectory(prefix="kp-trips-") as tmp:
        ((desc, bufs, _),) = generate_inputs(path, frontend, [(seed, shape or {})], Path(tmp), timeout=timeout)
        _run_llvm(_llvm_kernels(path, arch, timeout), desc, bufs, arch, "before", visits)
    out = []
    for name, kernel, block_waves, waves, groups in visits:
        loops = _loops_of(kernel)
        for lp in loops:
            lp["executions"] = block_waves.get(lp["latch"], 0) / max(waves, 1)
        out.append({"kernel": name, "waves": waves, "workgroups": groups, "loops": loops})
    return out


def _dedupe(events: list[MemoryEvent], keep: int = 12) -> list[MemoryEvent]:
    """At most ``keep`` events, the first of each (kernel, kind, instruction) before repeats."""
    firsts, rest, seen = [], [], set()
    for e in sorted(events, key=lambda e: e.kind not in ERROR_KINDS):  # errors first, hardware-defined ones after
        key = (e.kernel, e.kind, e.instruction)
        (rest if key in seen else firsts).append(e)
        seen.add(key)
    return (firsts + rest)[:keep]


# ------------------------------------------------------------------------------------------------------- entry point
def check(
    before: str | Path,
    after: str | Path,
    *,
    engine: str = "auto",
    arch: str = "gfx942",
    seeds: list[int] | None = None,
    shapes: list[dict] | None = None,
    atol: float = 0.0,
    rtol: float = 0.0,
    timeout: float = 600,
    inputs: str | Path | None = None,
) -> CheckReport:
    """Run BEFORE and AFTER on the same inputs for every (seed, shape) and compare every buffer either writes.

    ``inputs``: a file whose ``kernelpilot_inputs(seed, **shape)`` builds the arguments (default: BEFORE itself);
    the eval harness keeps it in the task folder, out of the candidate's reach.
    """
    from tools.dump_ir import check_source as _check_source
    from tools.frontends import detect_frontend
    from tools.isa.arch import normalize_arch

    t0 = time.perf_counter()
    a_path = _check_source(Path(after))
    b_path = _check_source(_git_revision(str(before), a_path) if not Path(before).exists() else Path(before))
    in_path = _check_source(Path(inputs)) if inputs else b_path
    frontend = detect_frontend(b_path)
    if detect_frontend(a_path) != frontend:
        raise InputError(f"{b_path.name} is {frontend} but {a_path.name} is {detect_frontend(a_path)}",
                         hint="compare two versions of the same kernel")  # fmt: skip
    if frontend not in ("flydsl", "triton"):
        raise InputError(f"check runs FlyDSL and Triton files; {b_path.name} is {frontend}",
                         hint="for CUDA/HIP compare on a GPU")  # fmt: skip
    if engine == "auto":  # the LLVM IR is what the GPU runs; the interpreter stays a choice for Triton
        engine = "llvm"
    if engine == "interpreter" and frontend != "triton":
        raise InputError("the interpreter engine runs Triton files only", hint="use --engine llvm for FlyDSL")
    arch = normalize_arch(arch)
    seeds = seeds or [0]
    shapes = shapes or [{}]
    cases = []
    names: list[str] = []
    if engine == "llvm":
        kb, ka = _llvm_kernels(b_path, arch, timeout), _llvm_kernels(a_path, arch, timeout)
        names = [f"{x[0]} → {y[0]}" for x, y in zip(kb, ka, strict=False)]
    todo = [(seed, shape) for shape in shapes for seed in seeds]
    with tempfile.TemporaryDirectory(prefix="kp-check-") as tmp:
        c0 = time.perf_counter()
        if engine == "llvm":
            inputs_b = generate_inputs(in_path, frontend, todo, Path(tmp) / "in", timeout=timeout)
            inputs_a = [None] * len(todo)
        else:
            inputs_b = generate_inputs(b_path, frontend, todo, Path(tmp) / "b", interpret=True, timeout=timeout)
            inputs_a = generate_inputs(
                a_path, frontend, todo, Path(tmp) / "a", interpret=True, load=Path(tmp) / "b", timeout=timeout
            )
        share = (time.perf_counter() - c0) / len(todo)  # the children's time, split evenly over the cases
        for (seed, shape), (desc, bufs, out_b), got_a in zip(todo, inputs_b, inputs_a, strict=True):
            c0 = time.perf_counter()
            case = CaseResult(seed=seed, shape=shape, verdict="error")
            try:
                if engine == "llvm":
                    out_b, w_b, ev_b = _run_llvm(kb, desc, bufs, arch, "before")
                    out_a, w_a, ev_a = _run_llvm(ka, desc, bufs, arch, "after")
                    events = ev_b + ev_a
                else:
                    out_a = got_a[2]
                    w_b = {i for i, (x, y) in enumerate(zip(bufs, out_b, strict=True)) if x != y}
                    w_a = {i for i, (x, y) in enumerate(zip(bufs, out_a, strict=True)) if x != y}
                    events = []
                written = {i: [w for w, s in (("before", w_b), ("after", w_a)) if i in s] for i in w_b | w_a}
                case.buffers, case.mismatches = compare_buffers(desc, out_b, out_a, written, atol, rtol)
                case.events = _dedupe(events)
                judge(case)
            except KernelpilotError as exc:
                if len(todo) == 1 or "unsupported in check" in exc.message:
                    raise
                case.verdict, case.reason = "error", exc.message
            case.seconds = round(time.perf_counter() - c0 + share, 3)
            cases.append(case)
    order = ["different", "error", "undetermined", "same"]
    worst = min(cases, key=lambda c: order.index(c.verdict))
    verdict = worst.verdict
    reason = worst.reason if verdict != "same" else f"{len(cases)} input set(s) agree: {worst.reason}"
    if verdict != "same" and len(cases) > 1:
        reason = f"seed {worst.seed}{' ' + json.dumps(worst.shape) if worst.shape else ''}: {reason}"
    report = CheckReport(
        summary=f"{verdict}: {b_path.name} vs {a_path.name} ({engine} engine, {len(cases)} input set(s)) — {reason}",
        before=str(b_path),
        after=str(a_path),
        engine=engine,
        arch=arch if engine == "llvm" else None,
        kernels=names,
        cases=cases,
        verdict=verdict,
        reason=reason,
        limits=LLVM_LIMITS if engine == "llvm" else INTERPRETER_LIMITS,
        seconds=round(time.perf_counter() - t0, 3),
    )
    return report


def _git_revision(spec: str, after: Path) -> Path:
    """``REF:PATH`` (e.g. ``HEAD:kernel.py``, PATH relative to the repository root as ``git show`` takes it, or
    ``HEAD:./kernel.py`` relative to AFTER's folder) → that revision's file, written under the kernelpilot cache at
    a path stable for its content so its compile is cached. Anything else is returned as a path."""
    from tools.toolchain import cache_root

    ref, sep, rel = spec.partition(":")
    if not sep or not ref or not rel or len(ref) == 1:  # "C:\…" style or a plain path: not a revision
        return Path(spec)
    result = LOCAL.run(["git", "show", f"{ref}:{rel}"], timeout=60, cwd=after.parent)
    if not result.ok:
        raise InputError(
            f"BEFORE {spec} is neither a file nor a git revision: {(result.stderr.strip().splitlines() or ['?'])[-1]}",
            hint="give a path, or REF:PATH as git show takes it (e.g. HEAD:./kernel.py from AFTER's folder)",
        )
    data = result.stdout.encode()
    target = cache_root() / "check-revisions" / hashlib.sha256(data).hexdigest()[:16] / Path(rel).name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + f".tmp{os.getpid()}")
        tmp.write_bytes(data)
        tmp.replace(target)
    return target


def format_report(report: CheckReport) -> str:
    lines = [f"check: {report.verdict.upper()} — {report.reason}",
             f"  {Path(report.before).name} → {Path(report.after).name}  engine {report.engine}"
             + (f" ({report.arch})" if report.arch else "") + f", {report.seconds:.2f}s"]  # fmt: skip
    for k in report.kernels:
        lines.append(f"  kernel {k}")
    for case in report.cases:
        shape = " " + json.dumps(case.shape) if case.shape else ""
        lines.append(f"  seed {case.seed}{shape}: {case.verdict} — {case.reason} ({case.seconds:.2f}s)")
        for b in case.buffers:
            diff = f", max |diff| {b.max_abs_diff:g}" if b.max_abs_diff else ""
            lines.append(f"    {b.verdict:<9} {b.name} ({b.dtype}[{b.elements}], written by {'+'.join(b.written_by)}): "
                         f"{b.mismatches} mismatch(es){diff}")  # fmt: skip
        for mm in case.mismatches:
            lines.append(f"    mismatch {mm.buffer}{mm.index}: before {mm.before}, after {mm.after}")
        bounded = [e for e in case.events if e.kind == "past-num-records"]
        if bounded:
            lines.append(f"    note: {sum(e.count for e in bounded)} lane access(es) past a buffer resource's num_records "
                         "(the hardware reads 0 / drops the store: how Triton masks buffer ops); --json lists them")  # fmt: skip
        for e in (e for e in case.events if e.kind != "past-num-records"):
            lines.append(f"    {e.kernel} {e.kind}: {e.access} of {e.bytes} B at offset {e.offset} of {e.buffer}, "
                         f"workgroup {e.workgroup} thread {e.thread} ({e.count} lane(s)) at {e.line}")  # fmt: skip
    lines.append("limits: " + "; ".join(report.limits))
    return "\n".join(lines)
