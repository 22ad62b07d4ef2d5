"""vgpr-pressure's diff rules: which metric changes between two reports are regressions."""

from __future__ import annotations

from tools.models.vgpr import KernelDiff, MetricChange, VgprDiff, VgprReport, VgprReports

PEAK_REGRESSION_THRESHOLD = 8  # live VGPRs: below one allocation granule is noise


def attach_baseline(
    current: VgprReports, baseline: VgprReports, peak_threshold: int = PEAK_REGRESSION_THRESHOLD
) -> VgprDiff:
    """Judge ``current`` against ``baseline``: each report gets its KernelDiff (occupancy, spills, peak…)."""
    d = diff_reports(baseline, current, peak_threshold)
    by_after = {k.after: k for k in d.kernels}
    for r in current.reports:
        kd = by_after.get(r.kernel)
        if kd is not None:
            r.baseline = kd
    return d


def _value(rep: VgprReport, name: str):
    m = rep.metric(name)
    return m.value if m else None


def diff_kernel(before: VgprReport, after: VgprReport, peak_threshold: int = PEAK_REGRESSION_THRESHOLD) -> KernelDiff:
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
        regression = False
        why = ""
        if delta is not None and tol is not None:
            worse = delta > tol if up_is_worse else delta < -tol
            if worse:
                regression = True
                why = f"{name} {'rose' if delta > 0 else 'fell'} by {abs(delta)}" + (
                    f" (threshold {tol})" if tol else ""
                )
        changes.append(MetricChange(name=name, before=b, after=a, delta=delta, regression=regression, why=why))
    return KernelDiff(
        before=before.kernel, after=after.kernel, changes=changes, regression=any(c.regression for c in changes)
    )


def diff_reports(
    before: VgprReports | VgprReport, after: VgprReports | VgprReport, peak_threshold: int = PEAK_REGRESSION_THRESHOLD
) -> VgprDiff:
    """Compare two analyses kernel by kernel (by name; a single kernel on each side matches regardless of name).

    A regression is more spills or scratch, lower occupancy, or a live-VGPR peak higher by more than
    ``peak_threshold``.
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
    kernels = [diff_kernel(b, a, peak_threshold) for b, a in pairs]
    regression = any(k.regression for k in kernels)
    lines = []
    for k in kernels:
        moved = [c for c in k.changes if c.delta]
        desc = ", ".join(f"{c.name} {c.before}→{c.after}" for c in moved) or "no change"
        lines.append(f"{k.after}: {'REGRESSION' if k.regression else 'ok'} ({desc})")
    if only_b or only_a:
        lines.append(f"unmatched: before {only_b}, after {only_a}")
    return VgprDiff(
        summary="; ".join(lines) or "nothing to compare",
        kernels=kernels,
        only_before=only_b,
        only_after=only_a,
        regression=regression,
    )
