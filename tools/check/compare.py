"""check: run BEFORE and AFTER on the same generated inputs (tools.check.inputs) and compare every buffer they write
(tools.check.buffers); the LLVM engine's runs also give predict's trip counts (executed_loops).

Two engines. ``llvm`` compiles both files (dump-ir, file mode), takes each kernel's LLVM IR stage and executes it on
the CPU lane by lane (tools.check.engine), so it sees what the GPU would run, including out-of-bounds accesses and
uninitialised LDS reads. ``interpreter`` (Triton) runs both through Triton's interpreter in a child process.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tools.callspec import CallSpec, resolve_call
from tools.check.buffers import ERROR_KINDS, compare_buffers, judge, shared_overreach, store_lines, typed
from tools.check.errors import CheckTimeout, UnsupportedIR, deadline
from tools.check.inline_asm import rejected_asm
from tools.check.inputs import RESULT_FILE, generate_inputs
from tools.check.interp_trap import bf16_trap
from tools.check.launches import by_launch, paired, shared_outputs
from tools.childproc import raise_recorded, read_result
from tools.errors import CompileError, InputError, KernelpilotError
from tools.executors import LOCAL
from tools.files import write_atomic
from tools.limits import MAX_MEMORY_GB, MIN_MEMORY_GB, out_of_range
from tools.models.check import CaseResult, CheckEngine, CheckReport, MemoryEvent

__all__ = ["CheckTimeout", "check", "executed_loops", "format_report", "outputs"]

DEFAULT_MAX_MEMORY_GB = 8.0  # the kernels' child: every lane of a launch is held at once

LLVM_LIMITS = [
    "all waves of a launch run in lock step: a missing barrier shows as an lds-race when one wave reads or overwrites "
    "LDS another wave wrote since the last barrier; a write after another wave's read (WAR) is not seen",
    "an async LDS DMA's bytes land at the wait.asyncmark that retires its group, a synchronous one's at once; a "
    "read between issue and that wait sees the old bytes (on a GPU: either)",
    "a load past a tensor's allocation (a pointer, or a buffer descriptor without bounds such as FlyDSL's default "
    "num_records 0xFFFFFFFF) is a past-allocation error naming lane, offset and line: the GPU reads whatever memory "
    "holds there; through a bounded descriptor it reads 0, as the hardware does",
    "floating-point math is numpy's (IEEE, round to nearest); MFMA accumulates in float64 then rounds to f32",
    "a launch with global atomics runs its workgroups one after another in linear order (x fastest), each atomic's "
    "lanes in lane order: counters and split-K sums see every earlier workgroup; a spin-wait no earlier workgroup "
    "satisfies is undetermined, and an order-dependent float sum may differ from the GPU's in its last bits",
]
INTERPRETER_LIMITS = [
    "Triton's interpreter runs the kernel's Python semantics: it ignores layouts, num_warps and num_stages, "
    "and cannot see races, register spills or what the AMD compiler emits",
    "out-of-bounds accesses are not reported (masked loads are honoured; unmasked ones read host memory)",
]


# ------------------------------------------------------------------------------------------------------- llvm engine
def _llvm_kernels(path: Path, arch: str, timeout: float, shape: dict | None = None, use_cache: bool = True,
                  frontend: str | None = None, call: str | None = None):  # fmt: skip
    """Each kernel ``kernelpilot_entry(**shape)`` (or the ``call`` spec's host function) compiles, in launch order,
    with its LLVM IR and origin files."""
    from tools.dump_ir import dump_ir

    try:
        result = dump_ir(path, arch, frontend=frontend, timeout=timeout, entry_kwargs=shape or None,
                         use_cache=use_cache, call=call)  # fmt: skip
    except CompileError as exc:  # inline asm for another target: a construct the engine cannot run, not an error
        raise rejected_asm(exc, path) or exc from None
    kernels = []
    for k in result.kernels:
        stages = {s.name: Path(s.path) for s in k.stages}
        llvm = stages.get("llvm_ir") or stages.get("llir")
        if llvm is None:
            raise InputError(f"{path.name}: kernel {k.name} has no LLVM IR stage", hint="check needs llvm_ir / llir")
        origin = stages.get("origin") or llvm.parent / "metadata.json"
        source = k.launch.source if k.launch else None
        kernels.append({"name": k.name, "llvm": str(llvm), "origin": str(origin), "frontend": result.frontend,
                        "source": source})  # fmt: skip
    return kernels


def _run_llvm(runs: list[dict[str, tuple[list, Path]]], arch: str, max_bytes: int, out: Path, timeout):
    """Run each case's sides (``{side: (kernels, case folder)}``) in ``tools.check._llvm_child`` (timeout, memory
    cap): per case, per side, (buffers after, written, events, launches) or the KernelpilotError that side raised."""
    from tools.check._llvm_child import ADDRESS_SPACE_HEADROOM

    out.mkdir(parents=True, exist_ok=True)
    spec = {"arch": arch, "max_bytes": max_bytes, "out": str(out),
            "runs": [{who: {"kernels": k, "case": str(d)} for who, (k, d) in run.items()} for run in runs]}  # fmt: skip
    (out / "spec.json").write_text(json.dumps(spec))
    root = str(Path(__file__).resolve().parents[2])
    env = {"PYTHONPATH": root, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    argv = [sys.executable, "-m", "tools.check._llvm_child", str(out / "spec.json")]
    result = LOCAL.run(argv, timeout=timeout, env=env, cwd=out)
    outcome = read_result(out / RESULT_FILE)
    if outcome is None:
        if result.timed_out:
            raise CheckTimeout(
                f"check's --timeout ran out while the kernels ran on the CPU ({timeout:.0f}s of it were left): an "
                "endless loop, or a problem too large for the CPU engine",
                hint="check the loop bounds and the scalar arguments, use smaller shapes (`kernelpilot check … --shape "
                "KEY=VALUE`) or raise its --timeout",
            )
        how = f"was killed by {result.signal_name}" if result.signal_name else f"exited with {result.returncode}"
        cap = (max_bytes + ADDRESS_SPACE_HEADROOM) / 1e9
        raise InputError(
            f"the process running the kernels {how} before it reported (its address space is capped at {cap:.1f} GB)",
            hint="use smaller shapes (`kernelpilot check … --shape KEY=VALUE`) or raise its --max-memory",
            details="\n".join(result.stderr.strip().splitlines()[-20:]),
        )
    got = []
    for i, sides in enumerate(outcome["cases"]):
        per_side = {}
        for who, r in sides.items():
            if r["status"] == "ok":
                n = len(list((out / f"case{i}" / who).glob("out*.bin")))
                bufs = [(out / f"case{i}" / who / f"out{j}.bin").read_bytes() for j in range(n)]
                per_side[who] = (bufs, set(r["written"]), [MemoryEvent(**e) for e in r["events"]], r["launches"],
                                 store_lines(out / f"case{i}" / who, r.get("stores") or []))  # fmt: skip
            elif r["status"] == "memory":
                per_side[who] = InputError(
                    f"running {who} ran out of memory under the {max_bytes / 1e9:.1f} GB cap",
                    hint="use smaller shapes (`kernelpilot check … --shape KEY=VALUE`) or raise its --max-memory",
                )
            elif r["status"] == "error":
                try:
                    raise_recorded(r)
                except KernelpilotError as exc:
                    per_side[who] = exc
            else:  # an exception that is no kernelpilot error: the engine's own bug, reported as one
                per_side[who] = RuntimeError(f"{r['message']}\n{r.get('traceback', '')}")
        got.append(per_side)
    return got


def outputs(
    path: str | Path,
    engine: str,
    *,
    seed: int = 0,
    shape: dict | None = None,
    arch: str = "gfx942",
    timeout: float = 600,
    max_memory_gb: float = DEFAULT_MAX_MEMORY_GB,
    call: str | None = None,
) -> dict[str, np.ndarray]:
    """One file's buffers after one run on one engine, typed (for cross-checking the engines against each other)."""
    path = Path(path).resolve()
    call = _call_key(call, path)
    from tools.frontends import detect_frontend

    frontend = detect_frontend(path)
    left = deadline(timeout)
    with tempfile.TemporaryDirectory(prefix="kp-check-") as tmp:
        ((desc, bufs, outs, case_dir),) = generate_inputs(path, frontend, [(seed, shape or {})], Path(tmp) / "in",
                                                          interpret=engine == "interpreter", timeout=left(),
                                                          call=call)  # fmt: skip
        if engine == "llvm":
            kernels = _llvm_kernels(path, arch, left(), shape, call=call)
            ((got,),) = [list(r.values()) for r in _run_llvm([{"before": (kernels, case_dir)}], arch,
                                                              int(max_memory_gb * 1e9), Path(tmp) / "run", left())]  # fmt: skip
            if isinstance(got, BaseException):
                raise got
            outs, _, events, _, _ = got
            bad = [e for e in events if e.kind in ERROR_KINDS]
            if bad:
                raise InputError(f"{path.name}: {bad[0].kind} {bad[0].access} at {bad[0].line}", hint="")
    return {b["name"]: typed(o, b["dtype"]) for b, o in zip(desc["buffers"], outs, strict=True)}


def _kernels_for(path: Path, default: list, desc: dict, shape: dict, compiles: dict, arch, left, use_cache,
                 frontend=None) -> list:  # fmt: skip
    """The kernels to run for one case: the default compile, unless the case's --shape changes what its launches
    compile to (``compile_key`` differs from ``kernelpilot_entry()``'s): then ``kernelpilot_entry(**shape)``'s
    own compile, once per distinct key and file in this call."""
    if not shape or (desc.get("default_key") is not None and desc["compile_key"] == desc["default_key"]):
        return default
    key = (str(path), json.dumps(desc["compile_key"], sort_keys=True))
    if key not in compiles:
        compiles[key] = _llvm_kernels(path, arch, left(), shape, use_cache, frontend)
    return compiles[key]


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
    path: str | Path,
    arch: str = "gfx942",
    *,
    seed: int = 0,
    shape: dict | None = None,
    timeout: float = 600,
    max_memory_gb: float = DEFAULT_MAX_MEMORY_GB,
    call: str | None = None,
) -> list[dict]:
    """Run ``path`` once on the CPU engine (``tools.check._llvm_child``) and count, per kernel launch, how many waves
    executed each loop header: ``{"kernel", "waves", "workgroups", "loops": [{"header", "latch", "depth",
    "executions"}]}`` with ``executions`` the latch's executions per wave (the back edge runs once per iteration;
    summed over the loops around it)."""
    path = Path(path).resolve()
    call = _call_key(call, path)
    from tools.check.ir import load_kernel
    from tools.frontends import detect_frontend

    frontend = detect_frontend(path)
    left = deadline(timeout)
    with tempfile.TemporaryDirectory(prefix="kp-trips-") as tmp:
        ((_, _, _, case_dir),) = generate_inputs(path, frontend, [(seed, shape or {})], Path(tmp) / "in",
                                                 timeout=left(), call=call)  # fmt: skip
        kernels = _llvm_kernels(path, arch, left(), shape, call=call)
        ((got,),) = [list(r.values()) for r in _run_llvm([{"before": (kernels, case_dir)}], arch,
                                                          int(max_memory_gb * 1e9), Path(tmp) / "run", left())]  # fmt: skip
        if isinstance(got, BaseException):
            raise got
        texts = {k["name"]: Path(k["llvm"]).read_text() for k in kernels}
    out = []
    for launch in got[3]:
        name = launch["kernel"]
        block_waves = {int(b): n for b, n in launch["block_waves"].items()}
        loops = _loops_of(load_kernel(texts[name], name))
        for lp in loops:
            lp["executions"] = block_waves.get(lp["latch"], 0) / max(launch["waves"], 1)
        out.append({"kernel": name, "waves": launch["waves"], "workgroups": launch["workgroups"], "loops": loops})
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
    engine: CheckEngine = "auto",
    arch: str = "gfx942",
    seeds: list[int] | None = None,
    shapes: list[dict] | None = None,
    atol: float = 0.0,
    rtol: float = 0.0,
    timeout: float = 600,
    inputs: str | Path | None = None,
    max_memory_gb: float = DEFAULT_MAX_MEMORY_GB,
    use_cache: bool = True,
    frontend: str | None = None,
    call: str | None = None,
) -> CheckReport:
    """Run BEFORE and AFTER on the same inputs for every (seed, shape) and compare every buffer either writes.

    ``inputs``: a file whose ``kernelpilot_inputs(seed, **shape)`` builds the arguments (default: BEFORE itself);
    the eval harness keeps it in the task folder, out of the candidate's reach. ``timeout`` bounds the whole call
    (compiles, inputs, runs; a CheckTimeout past it); the kernels run in a child whose memory is capped at
    ``max_memory_gb`` (a launch estimated to need more is refused before it starts). ``use_cache=False`` compiles both
    files and builds the inputs again (and replaces their cache entries). ``call``: the host function both files
    define, run with these tensors and values (``--call``, tools.callspec) instead of their entries; checked against
    both files before anything compiles.
    """
    from tools.isa.arch import normalize_arch

    if out_of_range(max_memory_gb, MIN_MEMORY_GB, MAX_MEMORY_GB):  # before any compile (the CLI checks it too)
        raise InputError(
            f"the memory cap of {max_memory_gb:g} GB is outside {MIN_MEMORY_GB:g}..{MAX_MEMORY_GB:g} GB",
            hint="give `kernelpilot check --max-memory GB` (MCP: max_memory_gb) within that range; the default is "
            f"{DEFAULT_MAX_MEMORY_GB:g}",
        )
    t0 = time.perf_counter()
    left = deadline(timeout)
    b_path, a_path, in_path, call, frontend = _checked_files(before, after, inputs, shapes, call, frontend)
    engine = _checked_engine(engine, frontend)
    arch, target_note = _engine_arch(normalize_arch(arch), engine, frontend)
    if engine == "interpreter":  # the interpreter's bf16 is wrong: no verdict on a result that depends on it
        trap = bf16_trap([b_path, a_path], "gfx942", left(), frontend, call, use_cache)
        if trap is not None:
            return CheckReport(summary=f"undetermined: {b_path.name} vs {a_path.name} (interpreter engine) — {trap}",
                               before=str(b_path), after=str(a_path), engine=engine, verdict="undetermined",
                               reason=trap, limits=INTERPRETER_LIMITS, seconds=round(time.perf_counter() - t0, 3),
                               call=CallSpec.model_validate_json(call).text() if call else None)  # fmt: skip
    todo = [(seed, shape) for shape in shapes or [{}] for seed in seeds or [0]]
    names: list[str] = []
    if engine == "llvm":
        try:
            kb, ka = (
                _llvm_kernels(b_path, arch, left(), use_cache=use_cache, frontend=frontend, call=call),
                _llvm_kernels(a_path, arch, left(), use_cache=use_cache, frontend=frontend, call=call),
            )
        except UnsupportedIR as exc:  # neither side can run (e.g. PTX inline asm): no verdict either way
            return CheckReport(summary=f"undetermined: {b_path.name} vs {a_path.name} (llvm engine) — "
                               f"{exc.verdict_reason}", before=str(b_path), after=str(a_path), engine=engine,
                               arch=arch, verdict="undetermined", reason=exc.verdict_reason, limits=LLVM_LIMITS,
                               seconds=round(time.perf_counter() - t0, 3), target_note=target_note)  # fmt: skip
        names = [f"{x['name']} → {y['name']}" for x, y in zip(kb, ka, strict=False)]
        if len(kb) != len(ka):
            names = [f"{' + '.join(x['name'] for x in kb)} → {' + '.join(y['name'] for y in ka)}"]
    with tempfile.TemporaryDirectory(prefix="kp-check-") as tmp:
        c0 = time.perf_counter()
        if engine == "llvm":
            inputs_b, inputs_a, own, runs = _run_llvm_cases(todo, (b_path, kb), (a_path, ka), in_path, arch, frontend,
                                                            call, use_cache, max_memory_gb, Path(tmp), left)  # fmt: skip
        else:
            inputs_b, inputs_a, own, runs = _run_interpreted_cases(
                todo, b_path, a_path, frontend, call, Path(tmp), left
            )
        share = (time.perf_counter() - c0) / len(todo)  # the children's time, split evenly over the cases
        cases = [
            _compared_case(seed, shape, engine, got_b, got_a, run, own, atol, rtol, len(todo) == 1, share)
            for (seed, shape), got_b, got_a, run in zip(todo, inputs_b, inputs_a, runs, strict=True)
        ]
    verdict, reason = _overall_verdict(cases)
    return CheckReport(
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
        call=CallSpec.model_validate_json(call).text() if call else None,
        inputs=input_distribution(inputs_b[0][0]) if inputs_b else [],
        target_note=target_note,
    )


def _checked_files(before, after, inputs, shapes, call, frontend) -> tuple[Path, Path, Path, str | None, str]:
    """BEFORE, AFTER and the inputs file as checked sources, the ``call`` key checked against both files, and their
    one frontend; an InputError for a pair check cannot compare."""
    from tools.dump_ir import check_source as _check_source
    from tools.frontends import detect_frontend
    from tools.paths import guard

    a_path = _check_source(guard(after, "AFTER"))
    # an existing BEFORE is a file (inside the roots, in a confined call); anything else may be REF:PATH
    b_path = _check_source(guard(before, "BEFORE") if Path(before).exists() else _git_revision(str(before), a_path))
    in_path = _check_source(guard(inputs, "inputs file")) if inputs else b_path
    if call and shapes and any(shapes):
        raise InputError("--shape and --call do not go together: --call states every argument's shape",
                         hint="run check once per --call, e.g. --call 'fn(x=fp32[4096])' then --call 'fn(x=fp32[8192])'")  # fmt: skip
    call = _call_key(call, b_path, a_path)
    given, frontend = frontend, frontend or detect_frontend(b_path)  # --frontend names both files' language
    if not given and detect_frontend(a_path) != frontend:
        raise InputError(f"{b_path.name} is {frontend} but {a_path.name} is {detect_frontend(a_path)}",
                         hint="compare two versions of the same kernel")  # fmt: skip
    if frontend not in ("flydsl", "triton"):
        raise InputError(f"check runs FlyDSL and Triton files; {b_path.name} is {frontend}",
                         hint="for CUDA/HIP compare on a GPU")  # fmt: skip
    return b_path, a_path, in_path, call, frontend


def _checked_engine(engine: str, frontend: str) -> str:
    if engine == "auto":  # the LLVM IR is what the GPU runs; the interpreter stays a choice for Triton
        engine = "llvm"
    if engine == "interpreter" and frontend != "triton":
        raise InputError(
            "the interpreter engine runs Triton files only", hint="run FlyDSL with `kernelpilot check --engine llvm`"
        )
    return engine


def _run_llvm_cases(todo, before, after, in_path, arch, frontend, call, use_cache, max_memory_gb, tmp: Path, left):
    """Inputs for every case (AFTER's own when it launches its own sequence) and both sides' runs in the LLVM
    engine's child: ``(inputs_b, inputs_a, own, runs)``."""
    (b_path, kb), (a_path, ka) = before, after
    inputs_b = generate_inputs(in_path, frontend, todo, tmp / "in", timeout=left(), use_cache=use_cache, call=call)
    # AFTER launches its own sequence (another count, or a host function's): its launches come from its own
    # entry, on BEFORE's bytes for every tensor the entry passes
    own = len(kb) != len(ka) or any(k.get("source") == "call" for k in kb + ka)
    inputs_a = inputs_b
    if own:
        load = inputs_b[0][3].parent
        inputs_a = generate_inputs(a_path, frontend, todo, tmp / "a", load=load, timeout=left(), call=call)
    compiles = {}
    plan = []
    for (_, shape), got_b, got_a in zip(todo, inputs_b, inputs_a, strict=True):
        sides = {"before": (b_path, kb, got_b), "after": (a_path, ka, got_a if own else got_b)}
        plan.append({who: (_kernels_for(path, default, got[0], shape, compiles, arch, left, use_cache,
                                        frontend), got[3])
                     for who, (path, default, got) in sides.items()})  # fmt: skip
    return inputs_b, inputs_a, own, _run_llvm(plan, arch, int(max_memory_gb * 1e9), tmp / "run", left())


def _run_interpreted_cases(todo, b_path, a_path, frontend, call, tmp: Path, left):
    """Both sides run through Triton's interpreter while their inputs are built: ``(inputs_b, inputs_a, False,
    [None, ...])``."""
    inputs_b = generate_inputs(b_path, frontend, todo, tmp / "b", interpret=True, timeout=left(), call=call)
    inputs_a = generate_inputs(
        a_path, frontend, todo, tmp / "a", interpret=True, load=tmp / "b", timeout=left(), call=call
    )
    return inputs_b, inputs_a, False, [None] * len(todo)


def _compared_case(seed, shape, engine, got_b, got_a, run, own, atol, rtol, single: bool, share: float) -> CaseResult:
    """One (seed, shape): every buffer either side wrote compared, the events kept, the verdict judged. An engine
    error is the case's verdict, or raised when it is the only case."""
    desc, bufs, out_b, _ = got_b
    c0 = time.perf_counter()
    case = CaseResult(seed=seed, shape=shape, verdict="error")
    try:
        if engine == "llvm":
            for got in run.values():
                if isinstance(got, BaseException):
                    raise got
            (out_b, w_b, ev_b, l_b, st_b), (out_a, w_a, ev_a, l_a, st_a) = run["before"], run["after"]
            events = ev_b + ev_a
            to_a = paired(desc, got_a[0]) if own else {}
            stores = {"before": lambda i, j, st=st_b: st(i, j),
                      "after": lambda i, j, st=st_a, to_a=to_a: st(to_a.get(i, i), j)}  # fmt: skip
            if own:  # AFTER's own buffers: its entry's, in BEFORE's order
                out_a, w_a = shared_outputs(desc, got_a[0], out_b, out_a, w_b, w_a)
                w_b = {i for i in w_b if desc["buffers"][i].get("role", "entry") != "scratch"}
            case.launches = by_launch(desc, l_b, got_a[0], l_a)
        else:
            out_a = got_a[2]
            w_b = {i for i, (x, y) in enumerate(zip(bufs, out_b, strict=True)) if x != y}
            w_a = {i for i, (x, y) in enumerate(zip(got_a[1], out_a, strict=True)) if x != y}
            out_a, w_a = shared_outputs(desc, got_a[0], out_b, out_a, w_b, w_a)
            w_b = {i for i in w_b if desc["buffers"][i].get("role", "entry") != "scratch"}
            events, stores = [], None
        written = {i: [w for w, s in (("before", w_b), ("after", w_a)) if i in s] for i in w_b | w_a}
        case.buffers, case.mismatches = compare_buffers(desc, out_b, out_a, written, atol, rtol, stores)
        case.events = _dedupe(events)
        inputs_fault = shared_overreach(events, desc) if engine == "llvm" else None
        if inputs_fault is not None:  # the same accesses past a tensor on both sides: no verdict either way
            raise inputs_fault
        judge(case)
        if case.verdict == "different" and case.launches:
            case.reason += f" ({case.launches})"
    except UnsupportedIR as exc:  # a construct the engine does not run: no verdict either way
        case.verdict, case.reason = "undetermined", exc.verdict_reason
    except KernelpilotError as exc:
        if single:
            raise
        case.verdict, case.reason = "error", exc.message
    case.seconds = round(time.perf_counter() - c0 + share, 3)
    return case


def _overall_verdict(cases: list[CaseResult]) -> tuple[str, str]:
    """The worst case's verdict (different, error, undetermined, same) and its reason, naming the case when several
    ran."""
    order = ["different", "error", "undetermined", "same"]
    worst = min(cases, key=lambda c: order.index(c.verdict))
    verdict = worst.verdict
    reason = worst.reason if verdict != "same" else f"{len(cases)} input set(s) agree: {worst.reason}"
    if verdict != "same" and len(cases) > 1:
        reason = f"seed {worst.seed}{' ' + json.dumps(worst.shape) if worst.shape else ''}: {reason}"
    return verdict, reason


def _engine_arch(arch: str, engine: str, frontend: str) -> tuple[str, str | None]:
    """The AMD target whose LLVM IR the llvm engine runs, and what the report says about it: a Triton file is
    checked on the CPU whatever its target, compiled for gfx942 when an NVIDIA one (sm_*) is asked for."""
    if engine != "llvm" or frontend != "triton":
        return arch, None
    if arch.startswith("sm_"):
        return "gfx942", (
            f"Triton kernels are checked by the llvm engine whatever their target: asked for {arch}, the IR that ran "
            "was compiled for gfx942 for that purpose (the engine runs AMDGPU LLVM IR; the NVIDIA build differs in "
            "layouts and instructions, not in the values each program computes, except inline PTX, which is "
            "undetermined)"
        )
    return arch, (
        f"Triton kernels are checked by the llvm engine whatever their target: the IR that ran was compiled for "
        f"{arch} for that purpose (pass --arch sm_90 or any target: a Triton file is checked the same way)"
    )


def _call_key(call: str | CallSpec | None, *paths: Path) -> str | None:
    """The call spec's JSON, once it is valid for every file given (an InputError naming the file otherwise)."""
    spec = None
    for path in paths:
        spec = resolve_call(call, path)
    return spec.key() if spec is not None else None


def input_distribution(desc: dict) -> list[str]:
    """Each input buffer with the distribution it was filled from, as the report states it."""
    return [f"{b['name']} ({b['dtype']}, {b['nbytes'] // max(b['element_size'], 1)} elements): {b['fill']}"
            for b in desc["buffers"] if b.get("fill")]  # fmt: skip


def _git_revision(spec: str, after: Path) -> Path:
    """``REF:PATH`` (e.g. ``HEAD:kernel.py``, PATH relative to the repository root as ``git show`` takes it, or
    ``HEAD:./kernel.py`` relative to AFTER's folder) → that revision's file, written under the kernelpilot cache at
    a path stable for its content so its compile is cached. Anything else is returned as a path.

    Read through ``tools.gitref`` (a REF starting with ``-`` refused, the REF resolved to a commit first, PATH
    confined to the roots in a confined call); a BEFORE starting with ``-`` is refused even when it has no colon.
    """
    from tools.gitref import parse_spec, read_git_file
    from tools.toolchain import cache_root

    if spec.startswith("-"):
        raise InputError(
            f"BEFORE '{spec}' starts with '-': it is neither a file nor a git revision",
            hint="give a path (./-name.py for a file whose name starts with '-'), or REF:PATH such as HEAD:./k.py",
        )
    parsed = parse_spec(spec)
    if parsed is None or len(parsed[0]) == 1:  # "C:\…" style or a plain path: not a revision
        return Path(spec)
    with tempfile.TemporaryDirectory(prefix="kp-check-rev-") as tmp:
        try:
            data = read_git_file(spec, Path(tmp), cwd=after.parent).local_path.read_bytes()
        except InputError as exc:
            raise InputError(f"BEFORE {spec} is neither a file nor a git revision: {exc.message}", hint=exc.hint,
                             details=exc.details) from None  # fmt: skip
    target = cache_root() / "check-revisions" / hashlib.sha256(data).hexdigest()[:16] / Path(parsed[1]).name
    if not target.exists():
        write_atomic(target, data)
    return target


def format_report(report: CheckReport) -> str:
    lines = [f"check: {report.verdict.upper()} — {report.reason}",
             f"  {Path(report.before).name} → {Path(report.after).name}  engine {report.engine}"
             + (f" ({report.arch})" if report.arch else "") + f", {report.seconds:.2f}s"]  # fmt: skip
    if report.target_note:
        lines.append(f"  note: {report.target_note}")
    for k in report.kernels:
        lines.append(f"  kernel {k}")
    for case in report.cases:
        shape = " " + json.dumps(case.shape) if case.shape else ""
        lines.append(f"  seed {case.seed}{shape}: {case.verdict} — {case.reason} ({case.seconds:.2f}s)")
        if case.launches and case.verdict != "different":
            lines.append(f"    launches: {case.launches}")
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
    if report.call:
        lines.append(f"  call: {report.call}")
    for text in report.inputs:
        lines.append(f"  input {text}")
    lines.append("limits: " + "; ".join(report.limits))
    return "\n".join(lines)
