"""vgpr-pressure's diff rules: which metric changes between two reports fail (more spills or scratch, a budget the
user set) and which only explain a time (lower occupancy, a higher live-register peak: warnings; the speed decides,
``tools.outcome``)."""

from __future__ import annotations

from tools.errors import KernelpilotError
from tools.models.vgpr import KernelDiff, MetricChange, VgprDiff, VgprReport, VgprReports

PEAK_REGRESSION_THRESHOLD = 8  # live VGPRs: below one allocation granule is noise


def attach_baseline(
    current: VgprReports,
    baseline: VgprReports,
    peak_threshold: int = PEAK_REGRESSION_THRESHOLD,
    max_vgprs: int | None = None,
    min_waves: int | None = None,
) -> VgprDiff:
    """Judge ``current`` against ``baseline``: each report gets its KernelDiff (occupancy, spills, peak…)."""
    d = diff_reports(baseline, current, peak_threshold, max_vgprs=max_vgprs, min_waves=min_waves)
    by_after = {k.after: k for k in d.kernels}
    for r in current.reports:
        kd = by_after.get(r.kernel)
        if kd is not None:
            r.baseline = kd
    return d


def _value(rep: VgprReport, name: str):
    m = rep.metric(name)
    return m.value if m else None


# the metrics whose rise (fall) fails a comparison: spilling is never free
FAILING = {"vgpr_spill_count", "sgpr_spill_count", "scratch_bytes", "local_bytes", "spill_instructions"}


def diff_kernel(
    before: VgprReport,
    after: VgprReport,
    peak_threshold: int = PEAK_REGRESSION_THRESHOLD,
    max_vgprs: int | None = None,
    min_waves: int | None = None,
) -> KernelDiff:
    """The metric changes of one kernel: more spills or scratch fail; lower occupancy or a higher peak are warnings
    (they explain a time; whether it is slower is the speed's question); ``max_vgprs`` / ``min_waves`` are the user's
    budgets for AFTER (VGPRs or registers/thread; waves/SIMD or warps/SM) and fail when broken."""
    changes = []
    rules = {  # metric -> (worse when it goes up?, tolerance)
        "vgpr_spill_count": (True, 0),
        "sgpr_spill_count": (True, 0),
        "scratch_bytes": (True, 0),
        "local_bytes": (True, 0),
        "spill_instructions": (True, 0),
        "waves_per_simd": (False, 0),
        "occupancy_warps_per_sm": (False, 0),
        "max_live_vgprs": (True, peak_threshold),
        "max_live_gprs": (True, peak_threshold),
        "vgpr_count": (True, None),
        "agpr_count": (True, None),
        "sgpr_count": (True, None),
        "registers_per_thread": (True, None),
        "lds_bytes": (True, None),
        "max_live_agprs": (True, None),
    }
    names = [m.name for m in after.metrics]
    for name in names:
        if name not in rules:
            continue
        b, a = _value(before, name), _value(after, name)
        if b is None and a is None:
            continue
        delta = (a - b) if isinstance(a, int | float) and isinstance(b, int | float) else None
        up_is_worse, tol = rules[name]
        worse = False
        why = ""
        if delta is not None and tol is not None:
            worse = delta > tol if up_is_worse else delta < -tol
            if worse:
                why = f"{name} {'rose' if delta > 0 else 'fell'} by {abs(delta)}" + (
                    f" (threshold {tol})" if tol else ""
                )
        fails = worse and name in FAILING
        changes.append(
            MetricChange(
                name=name, before=b, after=a, delta=delta, regression=fails, warning=worse and not fails, why=why
            )
        )
    changes += _budgets(before, after, max_vgprs, min_waves)
    return KernelDiff(
        before=before.kernel, after=after.kernel, changes=changes, regression=any(c.regression for c in changes)
    )


def _budgets(before: VgprReport, after: VgprReport, max_vgprs: int | None, min_waves: int | None):
    out = []
    amd = after.vendor != "nvidia"
    for budget, metric, label, too in (
        (max_vgprs, "vgpr_count" if amd else "registers_per_thread", "max_vgprs", lambda v, lim: v > lim),
        (min_waves, "waves_per_simd" if amd else "occupancy_warps_per_sm", "min_waves", lambda v, lim: v < lim),
    ):
        if budget is None:
            continue
        b, a = _value(before, metric), _value(after, metric)
        broken = a is None or too(a, budget)
        why = f"{metric} = {a if a is not None else 'unknown'}, budget {label} {budget}" if broken else ""
        out.append(MetricChange(name=f"{label} budget", before=b, after=a, delta=None, regression=broken, why=why))
    return out


def diff_reports(
    before: VgprReports | VgprReport,
    after: VgprReports | VgprReport,
    peak_threshold: int = PEAK_REGRESSION_THRESHOLD,
    *,
    max_vgprs: int | None = None,
    min_waves: int | None = None,
) -> VgprDiff:
    """Compare two analyses kernel by kernel (by name; a single kernel on each side matches regardless of name).

    A regression (a failure) is more spills or scratch, or a budget broken (``max_vgprs``, ``min_waves``); lower
    occupancy or a live-VGPR peak higher by more than ``peak_threshold`` are warnings: whether AFTER is slower is
    the measured or predicted speed's question (``tools.outcome``), not the register count's.
    """
    bl = before.reports if isinstance(before, VgprReports) else [before]
    al = after.reports if isinstance(after, VgprReports) else [after]
    pairs = []
    only_b, only_a = [], []
    if len(bl) == 1 and len(al) == 1:
        pairs = [(bl[0], al[0])]
    else:
        amap = {r.kernel: r for r in al}
        for r in bl:
            if r.kernel in amap:
                pairs.append((r, amap.pop(r.kernel)))
            else:
                only_b.append(r.kernel)
        only_a = list(amap)
    kernels = [diff_kernel(b, a, peak_threshold, max_vgprs, min_waves) for b, a in pairs]
    regression = any(k.regression for k in kernels)
    lines = []
    for k in kernels:
        moved = [c for c in k.changes if c.delta]
        desc = ", ".join(f"{c.name} {c.before}→{c.after}" for c in moved) or "no change"
        warned = [c.name for c in k.changes if c.warning]
        state = "REGRESSION" if k.regression else f"ok, warning: {', '.join(warned)}" if warned else "ok"
        lines.append(f"{k.after}: {state} ({desc})")
    if only_b or only_a:
        lines.append(f"unmatched: before {only_b}, after {only_a}")
    return VgprDiff(
        summary="; ".join(lines) or "nothing to compare",
        kernels=kernels,
        only_before=only_b,
        only_after=only_a,
        regression=regression,
    )


def judge_outcome(
    d: VgprDiff,
    before: str,
    after: str,
    arch: str | None,
    check: bool = True,
    device: str | None = None,
    call: str | None = None,
) -> VgprDiff:
    """Add the outcome to a comparison of two inputs (paths or git refs): correctness (``check`` on the CPU, for
    FlyDSL/Triton files) and AFTER's predicted speed with its band; incorrect, or predicted slower beyond the band,
    is a regression. ``device`` names the machine model of the prediction (default: the arch's)."""
    from tools.models.outcome import Correctness
    from tools.outcome import check_correctness, kernel_dumps, no_speed, predict_speed
    from tools.prefetch.analysis import resolve_source

    b, a = resolve_source(before), resolve_source(after)
    if check:
        d.correctness = check_correctness(b, a, arch, call=call)
    else:
        d.correctness = Correctness(checked=False, source="none", note="correctness not checked (--no-check)")
    try:
        kb, ka = kernel_dumps(b, arch, call=call), kernel_dumps(a, arch, call=call)
        target = arch or next((k.arch for k in ka), None)
        d.speed = predict_speed(kb, ka, target, device)[0] if target else no_speed("the target is unknown: pass --arch")
    except KernelpilotError as exc:
        d.speed = no_speed(f"no kernels to predict from: {exc.message}")
    bad = []
    if d.correctness.ok is False:
        bad.append(f"incorrect: {d.correctness.note}")
    if d.speed.verdict == "slower":
        bad.append(f"slower: {d.speed.note}")
    if bad:
        d.regression = True
        d.summary += "; REGRESSION: " + "; ".join(bad)
    return d
