"""Loops as the compiler left them and as the user names them: a ``tl.range(..., flatten=True)`` nest merged into one
loop (``fused_loops``, read from the TTGIR), and ``--trips NAME=N`` (``loop_names``, ``override_trips``): a loop is
named by the source line of its ``for``."""

from __future__ import annotations

from pathlib import Path

from tools.errors import InputError
from tools.predict.evidence import Assumption
from tools.predict.trips import TtirLoop, ttir_loops


def fused_loops(
    ttir: str,
    ttgir: Path | None,
    scalars: dict[str, int],
    grid: list[int] | None,
    tensors: dict[str, list[int]] | None = None,
) -> tuple[list[TtirLoop], str] | None:
    """The loops of a kernel whose TTIR marks a loop nest ``{tt.flatten}`` (``tl.range(..., flatten=True)``: a
    persistent GEMM's tile loop around its K loop), as the compiler left them after merging the nest: the bounds
    evaluated on the TTGIR, where the merged loop runs tiles per program x max(K steps, 1) times and the nest's
    empty-K copy sits under a branch the evaluation decides. The merged loop takes the inner loop's bytes and matrix
    work per iteration (TTGIR's TMA copies and wgmma carry no tt.load / tt.dot) and the outer loop's trips
    (``fused_outer_trips``). None when nothing was marked or merged (the TTGIR's loops nest as deep as the TTIR's)."""
    if "tt.flatten" not in ttir or ttgir is None or not ttgir.exists():
        return None
    src, _ = ttir_loops(ttir, scalars, grid, tensors=tensors)
    out, detail = ttir_loops(ttgir.read_text(), scalars, grid, tensors=tensors)
    if not out or max(lp.depth for lp in out) >= max(lp.depth for lp in src):
        return None
    flat = [i for i, lp in enumerate(src) if lp.flatten]
    for fi in flat:
        inner = [j for j in range(fi + 1, len(src)) if src[j].depth == src[fi].depth + 1]
        if len(inner) != 1 or src[inner[0]].trips is None or src[fi].trips is None:
            continue
        body = src[inner[0]]
        for lp in out:
            if lp.trips and not lp.matrix_flops_per_iter and abs(lp.trips - body.trips) <= 0.01 * body.trips:
                lp.bytes_per_iter = body.bytes_per_iter + src[fi].bytes_per_iter
                lp.matrix_flops_per_iter = body.matrix_flops_per_iter
                lp.fused_outer_trips = src[fi].trips
                detail += (
                    f"; a tl.range(..., flatten=True) nest merged by the compiler: {src[fi].trips:g} outer x the inner "
                    f"loop's steps = {lp.trips:g} iterations per program (bounds read from the TTGIR)"
                )
                break
    return out, detail


def loop_names(loops: list[TtirLoop]) -> list[str]:
    """What ``--trips NAME=N`` calls each loop: the source line of its ``for`` (``40``); a second loop from the same
    line (a copy the compiler made, such as a merged flatten=True nest's empty-K copy) ``40.2``, then ``40.3``, in
    program order, except that a merged nest's loop takes the plain line; ``#3`` (its scf.for's place, from 1) where
    no line is known."""
    taken: dict[str, int] = {}
    order = sorted(range(len(loops)), key=lambda i: (loops[i].fused_outer_trips is None, i))
    names = [""] * len(loops)
    for i in order:
        base = str(loops[i].line) if loops[i].line is not None else f"#{i + 1}"
        taken[base] = taken.get(base, 0) + 1
        names[i] = base if taken[base] == 1 else f"{base}.{taken[base]}"
    return names


def describe_loops(loops: list[TtirLoop]) -> str:
    """The loops --trips can name, one phrase each: ``40 (depth 1, 248.2 iterations per program evaluated)``."""
    parts = []
    for name, lp in zip(loop_names(loops), loops, strict=True):
        got = f"{lp.trips:g} iterations per program evaluated" if lp.trips is not None else "bounds not evaluated"
        parts.append(f"{name} (depth {lp.depth}, {got})")
    return ", ".join(parts) or "none"


def override_trips(loops: list[TtirLoop], named: dict[str, float]) -> tuple[list[TtirLoop], list[str]]:
    """``loops`` with each one ``named`` (``loop_names``) running the stated iterations per program, the loops inside
    it scaled alike (their trips are summed over its iterations), and a line per override; LookupError naming the
    loops there are when a name is not one of them."""
    names = loop_names(loops)
    for name in named:
        if name not in names:
            raise LookupError(f"no loop named {name!r}; the loops: {describe_loops(loops)}")
    out = [TtirLoop(**vars(lp)) for lp in loops]
    lines = []
    for name, value in named.items():
        i = names.index(name)
        old = out[i].trips
        ratio = value / old if old else None
        for j in range(i + 1, len(out)):
            if out[j].depth <= out[i].depth:
                break
            if ratio is not None and out[j].trips is not None:
                out[j].trips *= ratio
                out[j].max_trips = (out[j].max_trips or 0) * ratio
        out[i].trips = out[i].max_trips = float(value)
        was = f"{old:g} evaluated" if old is not None else "bounds not evaluated"
        lines.append(f"loop {name} (line {out[i].line}): {value:g} iterations per program stated by --trips ({was})")
    return out, lines


def stated_plan(kernel: str, plan: list[TtirLoop] | None, loop_trips: dict[str, float] | None,
                seen: dict[str, tuple[list[str], str]] | None = None):  # fmt: skip
    """(the plan with the loops ``loop_trips`` names overridden, a line per override; the plan as it is without
    names); an InputError naming the loops there are when a name matches none (or the kernel has no named loops).
    With ``seen`` (one launch of several: a name may be another launch's loop), only the names this kernel has are
    applied, and ``seen[kernel]`` gets (its loop names, their description) for the caller to check every name was
    some launch's (``check_named_loops``)."""
    if not loop_trips:
        return plan, []
    if seen is not None:
        names = loop_names(plan) if plan else []
        seen[kernel] = (names, describe_loops(plan or []))
        mine = {name: n for name, n in loop_trips.items() if name in names}
        return override_trips(plan, mine) if mine else (plan, [])
    if not plan:
        raise InputError(f"{kernel}: --trips names loops ({', '.join(loop_trips)}), but its loops have no names here "
                         "(no TTIR to read them from, or no loop)",
                         hint="give kernelpilot predict --trips N (the hot loop's iterations per program) instead")  # fmt: skip
    try:
        return override_trips(plan, loop_trips)
    except LookupError as exc:
        raise InputError(f"{kernel}: --trips: {exc}",
                         hint="name a loop by its for's source line: kernelpilot predict --trips LINE=N; here: "
                         f"{describe_loops(plan)}") from None  # fmt: skip


def check_named_loops(loop_trips: dict[str, float] | None, seen: dict[str, tuple[list[str], str]]) -> None:
    """InputError when a loop ``loop_trips`` names is no launch's (``stated_plan`` filled ``seen``), listing each
    launch's loops."""
    missing = [name for name in loop_trips or {} if not any(name in names for names, _ in seen.values())]
    if missing:
        where = "; ".join(f"{kernel}: {text}" for kernel, (_, text) in seen.items())
        raise InputError(f"--trips: no launch has a loop named {', '.join(repr(n) for n in missing)}; the loops: {where}",
                         hint="name a loop by its for's source line: kernelpilot predict --trips LINE=N")  # fmt: skip


def stated_assumptions(lines: list[str]) -> list[Assumption]:
    """What a prediction with loops' trips stated by name assumes: each stated count (the band stays the device's,
    its status says it was not validated)."""
    return [Assumption(line) for line in lines]
