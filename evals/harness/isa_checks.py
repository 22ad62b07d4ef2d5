"""Structural checks on compiled kernels: resources from dump-ir, patterns in the final ISA, and loop analyses on the
AMDGCN model (``tools.isa``: CFG, hot loop, liveness).

Extension point: write ``def my_check(check: IsaCheck, kernel: KernelDump) -> CheckOutcome`` and decorate it with
``@register("my_check")``; a task then names it in ``isa_checks: [{check: my_check, ...}]``. No other change.
A check that compares with the task's baseline registers with ``needs_baseline=True`` and is called with
``baseline=`` the baseline's kernel for the same arch (the scorer compiles the baseline only when a task uses one).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from evals.models import CheckOutcome, IsaCheck
from tools.models.dump import KernelDump, Resources

CheckFn = Callable[..., CheckOutcome]
CHECKS: dict[str, CheckFn] = {}
NEEDS_BASELINE: set[str] = set()

_OPS = {"==": operator.eq, "!=": operator.ne, "<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt}


def register(name: str, *, needs_baseline: bool = False) -> Callable[[CheckFn], CheckFn]:
    def deco(fn: CheckFn) -> CheckFn:
        CHECKS[name] = fn
        if needs_baseline:
            NEEDS_BASELINE.add(name)
        return fn

    return deco


def _outcome(check: IsaCheck, kernel: KernelDump, observed, passed: bool, what: str) -> CheckOutcome:
    want = f"{check.op} {check.value}" if check.value is not None else ""
    label = check.description or f"{check.check} {want}".strip()
    return CheckOutcome(
        name=label,
        passed=passed,
        detail=f"{kernel.name} on {kernel.arch}: {what}",
        arch=kernel.arch,
        kernel=kernel.name,
        observed=observed,
    )


def _compare(check: IsaCheck, observed, default_value=1) -> bool:
    value = check.value if check.value is not None else default_value
    return observed is not None and _OPS[check.op](observed, value)


def _resource_check(field: str) -> CheckFn:
    def fn(check: IsaCheck, kernel: KernelDump) -> CheckOutcome:
        observed = getattr(kernel.resources, field)
        ok = _compare(check, observed)
        said = "the compiler did not report it" if observed is None else f"{field} = {observed}"
        return _outcome(check, kernel, observed, ok, said)

    return fn


for _field in Resources.model_fields:
    if _field != "notes":
        CHECKS[_field] = _resource_check(_field)


@lru_cache(maxsize=64)
def _hot_loop_body(isa_path: str, name: str) -> list[str] | None:
    """The hot loop's instruction texts in one final ISA file (None: no loop); cached, several checks read it."""
    from tools.isa.amdgcn import find_kernel, load_isa_text, parse_isa
    from tools.isa.cfg import build_cfg, find_hot_loop

    kern = find_kernel(parse_isa(load_isa_text(isa_path), origin=isa_path), name)
    cfg = build_cfg(kern)
    hot = find_hot_loop(cfg)
    if hot is None:
        return None
    return [kern.instructions[i].text for i in sorted(hot.loop.instruction_indices(cfg))]


def _isa_lines(check: IsaCheck, kernel: KernelDump) -> tuple[list[str], str]:
    if check.where == "hot_loop" and kernel.arch.startswith("gfx"):
        body = _hot_loop_body(kernel.final_isa, kernel.name)
        if body is None:
            return [], "no loop"
        return body, "hot loop"
    return Path(kernel.final_isa).read_text(errors="replace").splitlines(), "final ISA"


@register("isa_contains")
def isa_contains(check: IsaCheck, kernel: KernelDump) -> CheckOutcome:
    """At least ``value`` (default 1) instruction lines match ``pattern``."""
    lines, scope = _isa_lines(check, kernel)
    rx = re.compile(check.pattern or "")
    n = sum(1 for line in lines if rx.search(line))
    return _outcome(check, kernel, n, _compare(check, n), f"{n} line(s) of the {scope} match /{check.pattern}/")


@register("isa_absent")
def isa_absent(check: IsaCheck, kernel: KernelDump) -> CheckOutcome:
    """No instruction line matches ``pattern``."""
    lines, scope = _isa_lines(check, kernel)
    rx = re.compile(check.pattern or "")
    hits = [line.strip() for line in lines if rx.search(line) and not line.lstrip().startswith((";", "//", "."))]
    first = f", first: {hits[0][:60]}" if hits else ""
    return _outcome(
        check, kernel, len(hits), not hits, f"{len(hits)} line(s) of the {scope} match /{check.pattern}/{first}"
    )


def _hot_loads(kernel: KernelDump):
    """The hot loop's load records from the prefetch analysis (``tools.prefetch.hot_loop_of``): the same facts
    ``prefetch-data-load`` reports, so a check and the tool cannot disagree."""
    return _hot_loop_cached(kernel.final_isa, kernel.arch, kernel.name)


@lru_cache(maxsize=64)
def _hot_loop_cached(isa_path: str, arch: str, name: str):
    from tools.prefetch import hot_loop_of

    return hot_loop_of(isa_path, arch, name)


@register("loads_carried_ahead")
def loads_carried_ahead(check: IsaCheck, kernel: KernelDump) -> CheckOutcome:
    """Loads in the hot loop whose data is consumed in the next iteration (copies followed), as prefetch-data-load
    counts them: the loop issues these loads one iteration ahead."""
    hot = _hot_loads(kernel)
    if hot is None:
        return _outcome(check, kernel, 0, False, "the kernel has no loop")
    n = hot.loads_next_iteration
    what = (
        f"{n} of {hot.loads_total} loads in the hot loop are consumed in the next iteration, {hot.loads_exposed} "
        f"exposed; prefetch-data-load calls the loop {hot.verdict}"
    )
    carried = [ld for ld in hot.loads if ld.consumed == "next-iteration"]
    if carried:
        what += f" (e.g. [{carried[0].index}] {carried[0].text.split()[0]})"
    return _outcome(check, kernel, n, _compare(check, n), what)


@register("loads_in_flight_at_barrier")
def loads_in_flight_at_barrier(check: IsaCheck, kernel: KernelDump) -> CheckOutcome:
    """Barriers in the hot loop that wait while at least one load is still outstanding, so the barrier's wait hides
    memory latency (each load in flight from its issue to the wait that retires it, from prefetch-data-load)."""
    hot = _hot_loads(kernel)
    if hot is None:
        return _outcome(check, kernel, 0, False, "the kernel has no loop")
    n, total = hot.barriers_with_loads_in_flight, hot.barriers_total
    what = f"{n} of {total} barriers in the hot loop have a load in flight"
    # Without a value the check asks for every barrier (and at least one) to be covered.
    ok = _compare(check, n) if check.value is not None else bool(total) and n == total
    return _outcome(check, kernel, n, ok, what)


@register("hot_loop_memory_latencies")
def hot_loop_memory_latencies(check: IsaCheck, kernel: KernelDump) -> CheckOutcome:
    """The memory latencies one hot-loop iteration waits out, as prefetch-data-load estimates them (stall cycles per
    iteration / the assumed latency; a load that depends on another load in the same iteration waits once per link),
    compared with ``op``/``value``: a time per iteration, whatever the loop's shape."""
    hot = _hot_loads(kernel)
    if hot is None:
        return _outcome(check, kernel, None, False, "the kernel has no loop")
    n = hot.memory_latencies_per_iteration
    if n is None:
        return _outcome(check, kernel, None, False, "no latency estimate for the hot loop")
    what = f"~{n} memory latencies per hot-loop iteration (iteration ~{hot.iteration_cycles} cycles; {hot.verdict})"
    return _outcome(check, kernel, n, _compare(check, n), what)


def _hot_verdict(rep) -> tuple[str, str]:
    hot = next((lp for lp in rep.loops if lp.is_hot), None)
    return (hot.verdict, hot.reason) if hot else ("no-loop", "the kernel has no loop")


@register("hot_loop_prefetched")
def hot_loop_prefetched(check: IsaCheck, kernel: KernelDump) -> CheckOutcome:
    """The shared prefetch detector (``tools.prefetch.hot_loop_of``) classifies the hot loop as ``prefetched``:
    its loads are consumed one iteration after they are issued, decided from the ISA, not the source."""
    hot = _hot_loads(kernel)
    verdict, reason = (hot.verdict, hot.reason) if hot else ("no-loop", "the kernel has no loop")
    return _outcome(check, kernel, verdict, verdict == "prefetched", f"hot loop is {verdict}: {reason}")


# verify_prefetch's structural findings that make up a prefetch's shape (tools/prefetch/verify.py structural_checks)
_SHAPE_FINDINGS = (
    "same-kernel",
    "loads-stay-in-loop",
    "prologue-loads",
    "loads-feed-next-iteration",
    "load-to-wait-distance-grew",
    "memory-latencies-per-iteration",
)


@register("prefetch_verified", needs_baseline=True)
def prefetch_verified(check: IsaCheck, kernel: KernelDump, baseline: KernelDump | None = None) -> CheckOutcome:
    """``tools.prefetch.verify_prefetch(baseline, candidate)`` finds a prefetch's shape on the ISA alone: prologue
    loads, in-loop loads feeding the next iteration, a longer load-to-wait distance, no more memory latencies per
    iteration, loads not hoisted out as loop-invariant, about the same bytes per iteration, no new spills. Occupancy is
    the task's own ``waves_per_simd`` check (a budget), so a trap that prefetches but loses waves fails there alone.

    verify's own verdict is an outcome (correct, then faster); from ISA text it has neither a run nor a launch, so it
    says undetermined. This check is for the tasks whose point is the transformation itself (they say so), so it
    reads verify's structural findings: a warning among ``_SHAPE_FINDINGS`` fails it, as does any failed check."""
    from tools.errors import InputError
    from tools.prefetch import verify_prefetch

    if baseline is None or not baseline.final_isa:
        return _outcome(check, kernel, None, False, "no baseline kernel for this arch to verify against")
    try:
        rep = verify_prefetch(
            baseline.final_isa, kernel.final_isa, kernel.arch, gpu=False
        )  # occupancy is a budget the task states with its own waves_per_simd check, not part of the prefetch's shape
    except InputError as exc:
        return _outcome(check, kernel, None, False, f"verify_prefetch: {exc.message}")
    failed = [
        f"{c.name} ({c.detail})"
        for c in rep.checks
        if not c.ok or (c.name in _SHAPE_FINDINGS and c.severity == "warning")
    ]
    what = rep.summary if not failed else f"{rep.summary}: " + "; ".join(failed)
    return _outcome(check, kernel, _hot_verdict(rep.after)[0], not failed, what)


def _baseline_for(kernel: KernelDump, baseline: list[KernelDump]) -> KernelDump | None:
    """The baseline kernel a candidate kernel is a rewrite of: same name and arch, else the only one for the arch."""
    same_arch = [b for b in baseline if b.arch == kernel.arch]
    named = [b for b in same_arch if b.name == kernel.name]
    return (named or same_arch)[0] if len(named or same_arch) == 1 else None


def run_isa_checks(
    checks: list[IsaCheck], kernels: list[KernelDump], baseline: list[KernelDump] | None = None
) -> list[CheckOutcome]:
    """Every check on every kernel it selects (by name substring and arch); ``baseline`` (the task's baseline,
    compiled) feeds the checks registered with ``needs_baseline``."""
    out: list[CheckOutcome] = []
    for check in checks:
        fn = CHECKS.get(check.check)
        if fn is None:
            out.append(
                CheckOutcome(
                    name=check.check,
                    passed=False,
                    detail=f"unknown check '{check.check}'; known: {', '.join(sorted(CHECKS))}",
                )
            )
            continue
        selected = [
            k
            for k in kernels
            if (check.kernel is None or check.kernel in k.name) and (check.archs is None or k.arch in check.archs)
        ]
        if not selected:
            out.append(CheckOutcome(name=check.check, passed=False, detail="no compiled kernel matches this check"))
        for k in selected:
            try:
                if check.check in NEEDS_BASELINE:
                    out.append(fn(check, k, baseline=_baseline_for(k, baseline or [])))
                else:
                    out.append(fn(check, k))
            except Exception as exc:  # a check that cannot read the ISA fails the check, never the run
                out.append(_outcome(check, k, None, False, f"check could not run: {exc.__class__.__name__}: {exc}"))
    return out
