"""From per-instruction costs and loops (read by the vendor modules) and trip counts to one wave's work.

The hot loop is the loop with the most executed instructions (body x trips); its body is the per-iteration work,
every other instruction counts as often as its own loops run (once outside any loop).
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.models.predict import LoopFigures
from tools.predict.model import WaveWork


@dataclass
class InstCost:
    issue: float = 1  # issue slots
    valu: float = 0  # vector ALU pipe cycles
    matrix: float = 0  # matrix pipe cycles
    chain: float = 1  # cycles before the same wave can issue again
    lds_bytes: float = 0
    load_bytes: float = 0
    store_bytes: float = 0
    matrix_flops: float = 0  # multiply-adds of a matrix instruction per wave (m x n x k x blocks)


@dataclass
class IsaLoop:
    header: str
    depth: int
    members: frozenset[int]  # instruction indices, inner loops included
    parent: int | None = None  # index into the loop list
    counter_step: int | None = None  # |immediate| the loop adds to the register its exit compare reads


def lane_bytes(src, threads: int | None) -> float:
    """Global bytes one source iteration's loads/stores request as the program's lanes issue them: an access of
    fewer elements than the program has lanes (a scalar ``tl.load(w + k)``, a short row) is issued by every lane,
    each reading an element another lane reads too (a broadcast: the same address across lanes), so it requests
    ``threads`` x its element bytes, not its elements'. The source's own bytes when the accesses or the lanes are
    unknown."""
    if not threads or not getattr(src, "accesses", None):
        return float(src.bytes_per_iter)
    return float(sum(max(n, threads) * b for n, b in src.accesses))


def unroll_of(
    lp: IsaLoop, src, isa_bytes: float, isa_flops: float = 0, threads: int | None = None
) -> tuple[int, str | None]:
    """How many source iterations one ISA iteration does: from matrix work (k x the source body's matrix products
    per program) when both do matrix products, else from bytes (k x the source body's global bytes per program, as
    its lanes request them: ``lane_bytes``) when the body loads or stores, else from the loop counter's step against
    the source step.

    Matrix work first: a compiler unrolls a product's instructions with the loop, while the bytes an iteration moves
    also change with how its loads are laid out (a tile loaded by more lanes, or twice, moves more bytes per
    iteration without doing a second iteration's work). Bytes as the lanes request them: a load every lane issues to
    one address (a broadcast) moves lanes x its bytes in the ISA without being a second iteration."""
    flops = src.matrix_flops_per_iter
    if flops and isa_flops:
        ratio = isa_flops / flops
        k = round(ratio)
        if k >= 1 and abs(ratio - k) <= 0.25:
            why = (
                f"its body does {isa_flops:.0f} matrix multiply-adds per program per iteration, {k}x the source loop's"
            )
            return k, (f"{why} {flops}" if k > 1 else None)
    src_bytes = lane_bytes(src, threads)
    if src_bytes and isa_bytes >= 1.5 * src_bytes:
        k = round(isa_bytes / src_bytes)
        why = f"its body moves {isa_bytes:.0f} B per program per iteration, {k}x the source loop's {src_bytes:.0f} B"
        if src_bytes != src.bytes_per_iter:
            why += f" as its {threads} lanes request them (broadcast loads counted once per lane)"
        c, step = lp.counter_step, src.step
        if c and step and c == k * step:  # the counter agrees: k source steps per ISA iteration (not a guess)
            why += f", and its counter advances by {c}, {k}x the source step {step}"
        return k, why
    if src_bytes and isa_bytes >= 0.5 * src_bytes:
        return 1, None  # the body moves what one source iteration moves: not unrolled, whatever its counter does
    c, step = lp.counter_step, src.step
    if c and step and c % step == 0 and 2 <= c // step <= 32:
        return c // step, f"its counter advances by {c}, {c // step}x the source step {step}"
    # a counter of trips (it advances by the unroll factor, not by the source step): told apart only where the
    # step does not divide it; a counter advancing by the source step itself is the source loop, not unrolled
    if c and step and step != 1 and 2 <= c <= 32 and c % 2 == 0 and c % step:
        return c, f"its trip counter advances by {c} per iteration"
    return 1, None


def remainder_groups(members: list[int], loops: list[IsaLoop], isa_bytes: list[float]) -> list[tuple[int, ...]]:
    """ISA loops of one depth (``members``, in address order) grouped into the copies of one source loop: a loop
    whose counter advances k times as far as the next loop's and whose body moves k times its bytes (k >= 2) is an
    unrolled copy, and the next loop its remainder (``for e in range(1, E)`` → a 4x body, then a 1x loop for the
    rest). Every other loop is a group of its own."""
    groups: list[tuple[int, ...]] = []
    for li in members:
        if groups and len(groups[-1]) == 1:
            main = groups[-1][0]
            a, b = loops[main].counter_step, loops[li].counter_step
            if a and b and a % b == 0 and a // b >= 2 and isa_bytes[li]:
                k = a // b
                if abs(isa_bytes[main] / isa_bytes[li] - k) <= 0.25:
                    groups[-1] = (main, li)
                    continue
        groups.append((li,))
    return groups


def assign_trips(
    loops: list[IsaLoop],
    plan: list | None,
    default: float,
    isa_bytes: list[float],
    isa_flops: list[float] | None = None,
    threads: int | None = None,
    unrolled: dict[int, tuple[object, int]] | None = None,
) -> tuple[list[float], list[float], list[str]]:
    """Per ISA loop, its iterations per program (mean, max; summed over the loops around it) and notes.

    ``plan`` holds the source loops (TtirLoop: depth, trips, max_trips, bytes_per_iter) in program order; ISA loops
    of a depth take those of the same depth in order when the counts agree, else the largest. A loop the compiler
    unrolled does k times the source loop's matrix work (``isa_flops``: per program) or, without matrix products,
    moves k times its bytes per iteration (``isa_bytes``: per program), so it runs trips / k.
    Without a plan every loop runs ``default`` times per enclosing iteration. ``unrolled`` (filled when given): ISA
    loop -> (its source loop, the unroll factor) of each loop unrolled without a remainder loop beside it (its
    remainder, if any, is straight-line code: ``straight_remainders``)."""
    mean, peak, notes = [], [], []
    isa_flops = isa_flops or [0.0] * len(loops)
    order: dict[int, int] = {}
    # more ISA loops than source loops at a depth: when unrolled copies and their remainders account for the extra
    # ones, each group takes its source loop in program order (else every such loop takes the largest source loop)
    by_group: dict[int, tuple[object, int | None, int]] = {}  # ISA loop -> (source loop, unroll, remainder of k)
    for depth in sorted({lp.depth for lp in loops}):
        row = [t for t in (plan or []) if t.depth == depth and t.trips is not None]
        members = [li for li, lp in enumerate(loops) if lp.depth == depth]
        if not row or len(members) <= len(row):
            continue
        groups = remainder_groups(members, loops, isa_bytes)
        if len(groups) != len(row):
            continue
        for g, src in zip(groups, row, strict=True):
            if len(g) == 2:
                k = loops[g[0]].counter_step // loops[g[1]].counter_step
                by_group[g[0]] = (src, k, 0)
                by_group[g[1]] = (src, None, k)
            else:
                by_group[g[0]] = (src, None, 0)
    for li, lp in enumerate(loops):
        if li in by_group:
            src, k, rem = by_group[li]
            if rem:
                notes.append(
                    f"loop {lp.header}: the remainder of a {rem}x unrolled copy: {src.trips:g} mod {rem} iterations"
                )
                mean.append(src.trips % rem)
                peak.append(src.max_trips % rem)
                continue
            unroll, why = (
                (k, f"its counter advances {k}x as far as its remainder loop's")
                if k
                else (unroll_of(lp, src, isa_bytes[li], isa_flops[li], threads))
            )
            if why:
                notes.append(f"loop {lp.header}: {why}: unrolled {unroll}x, so {src.trips:g} / {unroll} iterations")
            mean.append(src.trips / unroll)
            peak.append(src.max_trips / unroll)
            continue
        seen = order.get(lp.depth, 0)
        order[lp.depth] = seen + 1
        row = [t for t in (plan or []) if t.depth == lp.depth and t.trips is not None]
        if not plan:
            mean.append(default**lp.depth)
            peak.append(default**lp.depth)
            continue
        if not row:
            row = [t for t in plan if t.trips is not None]
        if not row:
            mean.append(default**lp.depth)
            peak.append(default**lp.depth)
            continue
        same_depth = [o for o in loops if o.depth == lp.depth]
        src = row[seen] if len(same_depth) == len(row) else max(row, key=lambda t: t.trips)
        unroll, why = unroll_of(lp, src, isa_bytes[li], isa_flops[li], threads)
        if unroll == 1 and len(same_depth) > len(row):
            # a remainder loop beside an unrolled copy of the same source loop: trips mod the unroll factor
            others = [
                unroll_of(o, src, isa_bytes[loops.index(o)], isa_flops[loops.index(o)], threads)[0]
                for o in same_depth
                if o is not lp
            ]
            k = max(others, default=1)
            if k > 1:
                notes.append(
                    f"loop {lp.header}: the remainder of a {k}x unrolled copy: {src.trips:g} mod {k} iterations"
                )
                mean.append(src.trips % k)
                peak.append(src.max_trips % k)
                continue
        if why:
            notes.append(f"loop {lp.header}: {why}: unrolled {unroll}x, so {src.trips:g} / {unroll} iterations")
        if unrolled is not None and unroll > 1:
            unrolled[li] = (src, unroll)
        mean.append(src.trips / unroll)
        peak.append(src.max_trips / unroll)
    return mean, peak, notes


def straight_remainders(
    loops: list[IsaLoop],
    regions: list[tuple[int, int]],
    inst_bytes: list[float],
    isa_bytes: list[float],
    unrolled: dict[int, tuple[object, int]],
) -> list[tuple[int, list[tuple[int, int, int]]]]:
    """The straight-line remainder copies of each unrolled loop: ptxas unrolls a loop whose trip count is known only
    at run time k times and leaves the last ``trips mod k`` iterations to copies of the body behind branches (4x:
    a 2x copy, then a 1x copy), outside any loop. Read from the code after the loop, in address order: ``regions``
    (first, last instruction a forward conditional branch can skip) inside the loop's enclosing loop and no other;
    a region whose global bytes (``inst_bytes`` per instruction, per program, summed) are s x one unrolled copy's
    (the loop's bytes / k) for a whole s below k is a copy of s iterations; a region that moves no global bytes is
    passed over; the first other region, global bytes moved outside every region (an epilogue) or the next loop ends
    the search. Per loop: (ISA loop, [(first, last, s), ...]) where the copies' s sum to at most k - 1."""
    out = []
    for li, (_src, k) in unrolled.items():
        lp = loops[li]
        per_copy = isa_bytes[li] / k
        if per_copy <= 0:
            continue
        context = loops[lp.parent].members if lp.parent is not None else None
        copies: list[tuple[int, int, int]] = []
        pos = max(lp.members) + 1
        while True:
            region = min((r for r in regions if r[0] >= pos), default=None)
            if region is None:
                break
            first, last = region
            span = range(first, last + 1)
            # past the enclosing loop, into another loop, or past unguarded global bytes (an epilogue): done
            other = any(first in o.members or last in o.members for o in loops if not lp.members <= o.members)
            outside = context is not None and last not in context
            if outside or other or any(inst_bytes[i] for i in range(pos, first)):
                break
            moved = sum(inst_bytes[i] for i in span)
            pos = last + 1
            if not moved:
                continue
            ratio = moved / per_copy
            s = round(ratio)
            if not 1 <= s < k or abs(ratio - s) > 0.25 or sum(c for *_, c in copies) + s > k - 1:
                break
            copies.append((first, last, s))
        if copies:
            out.append((li, copies))
    return out


def remainder_weights(trips: float, k: int, sizes: list[int]) -> list[float] | None:
    """How often each straight-line remainder copy (of ``sizes`` source iterations each) runs per execution of the
    code around it, for a loop of ``trips`` source iterations unrolled ``k`` times: the copies do ``trips mod k``
    iterations. Copies of distinct powers of two summing to k - 1 (ptxas: 2, then 1 for k = 4) run by the binary
    digits of the remainder (3 = 2 + 1), the others each the share that makes them do it together. None when the
    trips are a mean over programs of unequal trips (not whole): each program's remainder is unknown, and the loop's
    trips / k carry the mean's work."""
    rem = trips % k
    if abs(rem - round(rem)) >= 1e-9:
        return None
    rem = round(rem)
    binary = sum(sizes) == k - 1 and len(set(sizes)) == len(sizes) and all(s & (s - 1) == 0 for s in sizes)
    if binary:
        return [1.0 if rem & s else 0.0 for s in sizes]
    return [rem / sum(sizes)] * len(sizes)


def recount_remainders(
    costs: list[InstCost],
    loops: list[IsaLoop],
    segments: list[tuple[int, int]] | None,
    unrolled: dict[int, tuple[object, int]],
    exclusive: list[set[int]],
    isa_bytes: list[float],
    trips: list[float],
    peaks: list[float],
    notes: list[str],
    waves_per_block: int,
) -> dict[int, float]:
    """The straight-line remainder copies of the unrolled loops (``straight_remainders``) counted as often as
    ``trips mod k`` runs them: per instruction of a copy, its executions per program; each such loop's ``trips`` and
    ``peaks`` set to its whole unrolled iterations, a line in ``notes``."""
    weights: dict[int, float] = {}
    # a loop of matrix products keeps every copy counted: the GEMM terms (wgmma_drain_cycles, h200.yaml) were set on
    # predictions that counted them so, and recounting them would need those figures set again
    unrolled = {li: v for li, v in unrolled.items() if not any(costs[i].matrix for i in exclusive[li])}
    if segments and unrolled:
        inst_bytes = [waves_per_block * (c.load_bytes + c.store_bytes) for c in costs]
        for li, copies in straight_remainders(loops, segments, inst_bytes, isa_bytes, unrolled):
            src, k = unrolled[li]
            parent = loops[li].parent
            outer = trips[parent] if parent is not None else 1.0
            if not outer:
                continue
            per_entry, peak_entry = src.trips / outer, src.max_trips / outer
            # programs of unequal trips (mean under the longest): no program's remainder is known
            equal = abs(per_entry - peak_entry) < 1e-9
            runs = remainder_weights(per_entry, k, [c for *_, c in copies]) if equal else None
            sizes = " + ".join(f"{c}x" for *_, c in copies)
            if runs is None:  # programs of unequal trips: the loop's trips / k do the mean's work, not the copies
                runs = [0.0] * len(copies)
                how = f"{per_entry:g} iterations on average (programs differ): {per_entry / k:g} of the {k}x loop"
            else:
                trips[li] = outer * (per_entry - per_entry % k) / k
                peaks[li] = outer * (peak_entry - peak_entry % k) / k
                how = f"{per_entry:g} iterations = {(per_entry - per_entry % k) / k:g} of the {k}x loop + {per_entry % k:g} in the copies"
            for (first, last, _), w in zip(copies, runs, strict=True):
                weights.update({i: outer * w for i in range(first, last + 1)})
            notes.append(
                f"loop {loops[li].header}: its remainder is straight-line code after it ({sizes} copies behind "
                f"branches): {how}, each copy counted as often as the remainder runs it"
            )
    return weights


def wave_work(
    costs: list[InstCost],
    loops: list[IsaLoop],
    plan: list | None,
    default: float,
    waves_per_block: int,
    in_flight,
    dependent_waits=None,
    threads: int | None = None,
    segments: list[tuple[int, int]] | None = None,
) -> tuple[WaveWork, float, float]:
    """Sum ``costs`` into a WaveWork, with the hot loop's trips per program (mean, max). ``in_flight(members)`` → (bytes a wave has issued at its first wait in that
    instruction set, whether loads stay in flight past it); called on the hot loop (walked as two iterations), or
    on every instruction (once) when there is no loop. ``dependent_waits(members)`` → (the hot loop's loads waited
    for in series within one iteration beyond the first, the bytes of the loads behind another), when the vendor
    reads them. ``segments``: the code each forward conditional branch can skip (first, last instruction), where the
    vendor reads them: an unrolled loop's remainder copies among them run ``trips mod k`` iterations, and the loop itself
    ``floor(trips / k)`` (``straight_remainders``), instead of every copy once beside trips / k."""
    n = len(costs)
    count = [1.0] * n
    exclusive: list[set[int]] = []
    for li, lp in enumerate(loops):
        inner = set().union(*(o.members for o in loops if o.parent == li)) if loops else set()
        exclusive.append(set(lp.members) - inner)
    isa_bytes = [waves_per_block * sum(costs[i].load_bytes + costs[i].store_bytes for i in ex) for ex in exclusive]
    isa_flops = [waves_per_block * sum(costs[i].matrix_flops for i in ex) for ex in exclusive]
    unrolled: dict[int, tuple[object, int]] = {}
    trips, peaks, notes = assign_trips(loops, plan, default, isa_bytes, isa_flops, threads, unrolled)
    weights = recount_remainders(costs, loops, segments, unrolled, exclusive, isa_bytes, trips, peaks, notes,
                                 waves_per_block)  # fmt: skip
    for li in sorted(range(len(loops)), key=lambda i: loops[i].depth):
        for i in exclusive[li]:
            count[i] = trips[li]
    for i, w in weights.items():
        count[i] = w
    executed = [sum(count[i] for i in exclusive[li]) for li in range(len(loops))]
    hot = max(range(len(loops)), key=lambda i: executed[i]) if loops else None
    if weights and hot is not None and not executed[hot]:
        hot = None  # the unrolled loop never runs (fewer trips than its unroll): the kernel is its straight line
    w = WaveWork(notes=notes)
    for li, lp in enumerate(loops):
        w.loops.append(
            LoopFigures(
                header=lp.header,
                depth=lp.depth,
                instructions=len(lp.members),
                trips=trips[li],
                executed_instructions=executed[li],
                hot=li == hot,
            )
        )
    hot_set = exclusive[hot] if hot is not None else set()
    for i, c in enumerate(costs):
        if i in hot_set:
            w.instructions_iter += 1
            w.issue_iter += c.issue
            w.valu_iter += c.valu
            w.matrix_iter += c.matrix
            w.lds_bytes_iter += c.lds_bytes
            w.global_bytes_iter += c.load_bytes + c.store_bytes
            w.load_bytes_iter += c.load_bytes
            w.chain_cycles_iter += c.chain
        else:
            k = count[i]
            w.instructions_once += k
            w.issue_once += k * c.issue
            w.valu_once += k * c.valu
            w.matrix_once += k * c.matrix
            w.lds_bytes_once += k * c.lds_bytes
            w.global_bytes_once += k * (c.load_bytes + c.store_bytes)
            w.load_bytes_once += k * c.load_bytes
            w.chain_cycles_once += k * c.chain
    members = sorted(loops[hot].members) if hot is not None else list(range(n))
    w.in_flight_bytes, w.pipelined = in_flight(members, hot is not None)
    if hot is None:
        return w, 1.0, 1.0
    if dependent_waits is not None:
        waits, behind_bytes = dependent_waits(members)
        # the model charges an iteration's bytes over the bytes in flight at its first wait (windows); the windows
        # past the first are loads issued after a wait, which may be the loads behind another: those latencies are
        # charged already, the rest of the series is not
        flight = max(w.in_flight_bytes, 1.0)
        charged = min(behind_bytes / flight, max(0.0, w.load_bytes_iter / flight - 1))
        w.dependent_waits_iter = max(0.0, waits - charged)
    return w, trips[hot], peaks[hot]
