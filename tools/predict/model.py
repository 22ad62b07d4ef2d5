"""The vendor-neutral timing model: per-wave work (from the ISA) + launch + device → predicted time and bound.

Design (after Hong & Kim, ISCA 2009, MWP-CWP, recast as Little's law): blocks run in rounds of
``CUs x resident blocks per CU``. A round takes the longest of
  * the chain of one wave: prologue + trips x (DRAM latency x bytes per iteration / bytes in flight + its own issue
    cycles when the loop does not run ahead of its loads) — a wave cannot finish sooner (memory_latency);
  * HBM: the round's DRAM bytes / achievable bandwidth (hbm_bandwidth);
  * L2: every byte the round requests (re-reads included) and its local-memory traffic / the L2's bandwidth
    (l2_bandwidth; devices whose machine file states ``l2_bytes_per_cycle``);
  * issue, VALU, matrix and LDS throughput of the busiest CU/SM (issue, valu, mfma / tensor, lds);
  * and no less than the chain and the HBM transfer overlapped as far as the SM's resident blocks let them: each block
    alternates between its DRAM waits (at the idle DRAM latency) and its transfer at the SM's share of the
    bandwidth, queueing for it (``closed_round_us``, mean-value analysis): one block per SM overlaps nothing, many
    approach the hard max of the two.
A launch also takes at least its blocks / the rate the GPU starts blocks at (block_launch; devices whose machine
file states ``block_launch_per_cycle``): a grid of many tiny blocks is bound by block scheduling. It also takes at
least the time its programs' same-address atomics take, applied one after another (atomic_contention; devices whose
file has the ``same_address_atomic_ns`` table; see atomics.py).
The bandwidth a launch can draw is also ``CUs x bytes in flight per CU / latency`` (Little's law): with few resident
waves or little issued before each wait, the chain term wins — what MWP < CWP means in Hong & Kim's model.
DRAM bytes are the ISA's requested bytes, capped by the unique bytes of the tensor arguments (re-reads hit L2).
Local memory (spills) is L2 traffic while its lines stay in the L2; a spill's line is evicted (written back, then
read again from DRAM) when the bytes the L2 takes in between its store and its reload pass the L2's capacity
(``l2_bytes``): see ``local_dram_share``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tools.isa.machines import Machine
from tools.models.predict import LaunchFigures, LoopFigures


@dataclass
class WaveWork:
    """One wave's (warp's) work, read from the ISA: executed once, and per hot-loop iteration.

    Cycles are issue-unit cycles (a SIMD on AMD, an SM sub-partition on NVIDIA); bytes are per wave."""

    instructions_once: float = 0
    instructions_iter: float = 0
    issue_once: float = 0  # issue slots (one per instruction)
    issue_iter: float = 0
    valu_once: float = 0  # vector ALU pipe cycles
    valu_iter: float = 0
    matrix_once: float = 0  # MFMA / tensor-core pipe cycles
    matrix_iter: float = 0
    lds_bytes_once: float = 0
    lds_bytes_iter: float = 0
    global_bytes_once: float = 0  # global loads + stores
    global_bytes_iter: float = 0
    load_bytes_once: float = 0
    load_bytes_iter: float = 0
    # local memory (stack frames, spills): served by L1/L2, so neither DRAM bytes nor a DRAM wait; it counts against
    # the L2's bandwidth (a warp's frame rarely stays in L1 beside a full SM of others). Filled by nvidia.py.
    local_bytes_once: float = 0
    local_bytes_iter: float = 0
    # the wave's local-memory frame (per-lane stack size x lanes): the lines its local traffic keeps in the L2
    local_frame_bytes: float = 0
    chain_cycles_once: float = 0  # one wave's own issue latency outside the hot loop
    chain_cycles_iter: float = 0  # one wave's own issue latency of one iteration
    in_flight_bytes: float = 0  # bytes a wave has issued when it first waits (hot loop, else the kernel)
    pipelined: bool = False  # the hot loop's first wait retires a load of the previous iteration (runs ahead)
    # of a pipelined hot loop: the chain cycles between issuing the loads its first wait retires and that wait (what
    # hides their latency; nvidia.run_ahead_cycles); None: the whole iteration's chain
    run_ahead_cycles_iter: float | None = None
    # the block's warps wait on one another between their DRAM phases (a barrier; nvidia.py block_synced): the block,
    # not each warp, is what takes turns at the SM's bandwidth (closed_round_us)
    block_synced: bool = False
    # DRAM latencies one hot-loop iteration waits in series beyond its first window, because a load's address comes
    # from another global load issued in the same iteration (a block-table entry, then the block it names); 0 when
    # every load of an iteration is independent of the others. Filled by the vendor modules (amd.py, nvidia.py).
    dependent_waits_iter: float = 0
    loops: list[LoopFigures] = field(default_factory=list)
    matrix_unit: str = "mfma"
    notes: list[str] = field(default_factory=list)


@dataclass
class LaunchShape:
    programs: int
    waves_per_block: int
    resident_blocks_per_cu: int  # from occupancy (registers, LDS / shared memory, block size)
    unique_tensor_bytes: int | None = None
    traffic_factor: float = 1.0  # DRAM bytes per requested byte of strided (uncoalesced) accesses (coalesce.py)
    atomic_updates: float = 0  # the most updates one address takes from the launch's global atomics (atomics.py)
    atomic_us: float | None = None  # the time those updates take on the device (atomics.contention)
    # programs the GPU starts, where more than ``programs`` (the ones doing the work): the others exit at once
    launched: int | None = None
    # the share of the requested load bytes one program re-reads from lines its own earlier loads brought into the
    # SM's L1 (a stencil's taps; reuse.py): those bytes cross neither the L2 nor its queue
    l1_hit_fraction: float = 0.0


def _optional(m: Machine, key: str) -> float | None:
    """A machine figure some devices' files do not state (None there)."""
    return m.figures[key][0] if key in m.figures else None


def local_dram_share(reuse_bytes: float, l2_bytes: float) -> float:
    """Share of local-memory traffic that reaches DRAM when a spill's line is reloaded after at most ``reuse_bytes``
    new bytes entered the L2 (its reuse distance). Under LRU a line survives a distance below the capacity; spill
    stores and their reloads spread evenly over the interval, so the share whose distance passes the capacity is
    ``1 - l2_bytes / reuse_bytes`` (0 when everything fits). Each such line costs DRAM its write-back and its reload:
    once its bytes in local traffic (a store and a load of the same bytes)."""
    return max(0.0, 1.0 - l2_bytes / reuse_bytes) if reuse_bytes > 0 else 0.0


def closed_round_us(think_us: float, demand_us: float, customers: int) -> float:
    """The time one SM takes to run ``customers`` resident blocks once each, when every block alternates between a
    phase that needs no DRAM bandwidth (``think_us``: its chain of latency waits and dependent issue) and its DRAM
    transfer (``demand_us``: its bytes at the SM's share of the achievable bandwidth), the blocks queueing for that
    share. Exact mean-value analysis of a closed network of one delay station and one FCFS server (Reiser and
    Lavenberg, J. ACM 27(2), 1980; Lazowska et al., Quantitative System Performance, 1984, ch. 6): with one block
    nothing overlaps (think + demand); as blocks are added the SM's bandwidth is approached smoothly, never passed,
    and the result is never below the hard bound max(think, customers x demand) of the old model."""
    if customers < 1 or demand_us <= 0:
        return think_us
    queue = 0.0
    throughput = 0.0
    for n in range(1, customers + 1):
        residence = demand_us * (1 + queue)
        throughput = n / (think_us + residence)
        queue = throughput * residence
    return max(customers / throughput, think_us, customers * demand_us)


def _us(cycles: float, m: Machine) -> float:
    return cycles / m.clock_hz * 1e6


# the round terms, each named for the bound it becomes; on a tie the first named wins (max keeps the first)
_ROUND_TERMS = ("memory_latency", "hbm_bandwidth", "l2_bandwidth", "issue", "valu", "matrix", "lds")


@dataclass(frozen=True)
class _PerWave:
    """One wave's work over the launch's mean trips: once, plus trips x one hot-loop iteration."""

    issue: float
    valu: float
    matrix: float
    lds_bytes: float
    global_bytes: float
    local_bytes: float

    @classmethod
    def of(cls, work: WaveWork, trips: float) -> _PerWave:
        return cls(
            issue=work.issue_once + trips * work.issue_iter,
            valu=work.valu_once + trips * work.valu_iter,
            matrix=work.matrix_once + trips * work.matrix_iter,
            lds_bytes=work.lds_bytes_once + trips * work.lds_bytes_iter,
            global_bytes=work.global_bytes_once + trips * work.global_bytes_iter,
            local_bytes=work.local_bytes_once + trips * work.local_bytes_iter,
        )


@dataclass(frozen=True)
class _RoundModel:
    """One launch on one device as its rounds are modelled: the figures every round's terms read, derived once
    (``_RoundModel.of``), and the terms of one round."""

    work: WaveWork
    shape: LaunchShape
    m: Machine
    per_wave: _PerWave
    cus: int
    units: float  # issue units per CU / SM
    latency: float  # the loaded DRAM latency (cycles)
    bw: float  # achievable HBM bytes per second
    resident_blocks: int  # per CU / SM, at least one
    requested: float  # the launch's requested global bytes
    moved: float  # of those, the bytes that cross to DRAM
    dram_share: float  # moved / requested
    l2_per_cycle: float | None
    l2_capacity: float | None
    l1_hit: float  # the share of load bytes served by the SM's L1
    l2_wave_bytes: float  # the bytes one wave's requests bring to the L2

    @classmethod
    def of(cls, work: WaveWork, shape: LaunchShape, m: Machine, trips: float) -> _RoundModel:
        per_wave = _PerWave.of(work, trips)
        requested = shape.programs * shape.waves_per_block * per_wave.global_bytes
        moved = requested
        if shape.traffic_factor > 1:  # strided accesses: whole sectors per element, neighbours' sectors not reused
            moved = requested * shape.traffic_factor
        elif shape.unique_tensor_bytes and requested > shape.unique_tensor_bytes:
            moved = float(shape.unique_tensor_bytes)
        l1_hit = min(1.0, max(0.0, shape.l1_hit_fraction))
        return cls(
            work=work,
            shape=shape,
            m=m,
            per_wave=per_wave,
            cus=int(m.value("compute_units")),
            units=m.value("issue_units_per_cu"),
            # a timing model of a whole launch: the latency a load sees with the GPU full of requests
            # (prefetch-data-load's structural threshold keeps the idle figure, dram_latency_cycles)
            latency=m.value("loaded_dram_latency_cycles"),
            bw=m.value("hbm_achievable_gbs") * 1e9,
            resident_blocks=max(1, shape.resident_blocks_per_cu),
            requested=requested,
            moved=moved,
            dram_share=moved / requested if requested else 0.0,
            l2_per_cycle=_optional(m, "l2_bytes_per_cycle"),
            l2_capacity=_optional(m, "l2_bytes"),
            l1_hit=l1_hit,
            # its loads' L1 hits stay in the SM
            l2_wave_bytes=per_wave.global_bytes - l1_hit * (work.load_bytes_once + trips * work.load_bytes_iter),
        )

    def local_dram_bytes(self, blocks: int) -> float:
        """Local-memory bytes of a round's waves that reach DRAM. Between a spill and its reload the L2 takes the
        round's frames (every resident wave's) and the DRAM bytes streamed meanwhile: one hot-loop iteration's when
        the hot loop touches the frame (its lines are reused every iteration), else the waves' whole lifetime's (a
        spill outside the loop is reloaded later in the same wave)."""
        work, local = self.work, self.per_wave.local_bytes
        if not (self.l2_capacity and work.local_frame_bytes and local):
            return 0.0
        waves_r = blocks * self.shape.waves_per_block
        streamed = work.global_bytes_iter if work.local_bytes_iter else self.per_wave.global_bytes
        reuse = waves_r * (streamed * self.dram_share + work.local_frame_bytes)
        return waves_r * local * local_dram_share(reuse, self.l2_capacity)

    def chain_us(self, blocks: int, chain_trips: float, idle: bool = False) -> float:
        """One wave's chain in a round of ``blocks`` resident blocks: its loads wait the latency once per in-flight
        window. The latency is the loaded DRAM latency, or longer when the round's warps together keep more bytes in
        flight than the L2 serves in that time (Little's law: a request queues behind the others)."""
        work, m = self.work, self.m
        lat = m.value("dram_latency_cycles") if idle else self.latency
        if self.l2_per_cycle:
            queued = blocks * self.shape.waves_per_block * work.in_flight_bytes * (1 - self.l1_hit) / self.l2_per_cycle
            lat = max(lat, queued)
        load_iter = work.load_bytes_iter
        flight = max(work.in_flight_bytes, 1.0)
        if idle:  # the DRAM waits alone (the think time of closed_round_us)
            iter_wait = lat * (load_iter / flight + work.dependent_waits_iter) if load_iter else 0.0
            return _us((lat if work.load_bytes_once else 0) + chain_trips * iter_wait, m)
        if load_iter:
            windows = load_iter / flight
            hidden = 0.0  # the chain that runs while the loads are in flight
            if work.pipelined:
                ahead = work.run_ahead_cycles_iter
                hidden = work.chain_cycles_iter if ahead is None else min(ahead, work.chain_cycles_iter)
            iter_chain = lat * (windows + work.dependent_waits_iter) + work.chain_cycles_iter - hidden
            iter_chain = max(iter_chain, work.chain_cycles_iter)
        else:
            iter_chain = work.chain_cycles_iter
        once_chain = work.chain_cycles_once + (lat if work.load_bytes_once else 0)
        return _us(once_chain + chain_trips * iter_chain, m)

    def round_terms(self, blocks: int, round_trips: float, spilled: float) -> dict[str, float]:
        """Each ``_ROUND_TERMS`` term's time for one round of ``blocks`` blocks, ``spilled`` of its local-memory bytes
        reaching DRAM."""
        m, wpb, pw = self.m, self.shape.waves_per_block, self.per_wave
        per_cu = math.ceil(blocks / self.cus)
        return {
            "memory_latency": self.chain_us(blocks, round_trips),
            "hbm_bandwidth": (blocks * wpb * pw.global_bytes * self.dram_share + spilled) / self.bw * 1e6,
            # every requested byte (re-reads that hit L2 too, not those that hit the SM's L1) and local-memory
            # traffic crosses the L2
            "l2_bandwidth": _us(blocks * wpb * (self.l2_wave_bytes + pw.local_bytes) / self.l2_per_cycle, m)
            if self.l2_per_cycle
            else 0.0,
            "issue": _us(per_cu * wpb * pw.issue / self.units, m),
            "valu": _us(per_cu * wpb * pw.valu / self.units, m),
            "matrix": _us(per_cu * wpb * pw.matrix / self.units, m),
            "lds": _us(per_cu * wpb * pw.lds_bytes / m.value("lds_bytes_per_cycle"), m),
        }

    def overlapped_memory_us(self, blocks: int, round_trips: float, hbm_us: float) -> float:
        """A round's latency chain and its DRAM transfer overlapped only as far as other resident blocks fill the
        gaps (a customer is a block whose warps synchronise between their DRAM phases, else a warp; a pipelined hot
        loop keeps the next iteration's loads in flight while it waits: two customers). The think time is the
        chain's DRAM waits at the idle latency: the queueing that makes the loaded latency longer is what the closed
        network computes, and the issue chain overlaps other warps' transfers (the loaded-latency chain with its
        issue stays a bound of its own, the round's memory_latency)."""
        work, per_cu = self.work, math.ceil(blocks / self.cus)
        customers = per_cu * (1 if work.block_synced else self.shape.waves_per_block) * (2 if work.pipelined else 1)
        think = self.chain_us(blocks, round_trips, idle=True)
        return closed_round_us(think, hbm_us / customers, customers)


@dataclass
class _Rounds:
    """A launch's rounds added up: each term's time over all rounds, and what the rounds took."""

    terms: dict[str, float]  # by _ROUND_TERMS name
    total: float  # the rounds' time, before any floor or the launch overhead
    rounds: int
    slots: int  # blocks one round runs: CUs x resident blocks per CU
    tail_us: float | None  # the last, partial round's time (several rounds only)
    local_dram: float  # local-memory bytes that reach DRAM
    overlap_lost: float  # us the chain and the transfer failed to overlap, over the larger of the two


def _rounds(model: _RoundModel, trips: float, max_trips: float) -> _Rounds:
    """The launch's blocks in rounds of ``slots``: every round's terms summed, its time the largest term or the
    overlapped chain and transfer, whichever is longer; the whole no shorter than the longest program's chain."""
    shape, work = model.shape, model.work
    slots = model.cus * model.resident_blocks
    n_rounds = max(1, math.ceil(shape.programs / slots))
    # programs of unequal trips (a causal loop's bound on the program id) in several rounds: a slot whose program
    # ends early takes the next one, so a round's chain is the mean program's, and the launch lasts at least the
    # longest program's chain (uneven_chain); in one round every program runs at once and the longest one ends it
    uneven = n_rounds > 1 and max_trips > trips
    round_trips = trips if uneven else max_trips
    out = _Rounds({k: 0.0 for k in _ROUND_TERMS}, 0.0, n_rounds, slots, None, 0.0, 0.0)
    # every round but the last is full and the same: each kind is computed once and counted as often as it runs, so
    # the time taken does not grow with the grid (2**31-1 x 65535 x 65535 programs are ~10**16 rounds)
    for blocks, times in ((slots, n_rounds - 1), (shape.programs - (n_rounds - 1) * slots, 1)):
        if not times:
            continue
        spilled = model.local_dram_bytes(blocks)
        out.local_dram += spilled * times
        round_terms = model.round_terms(blocks, round_trips, spilled)
        winner = max(round_terms, key=round_terms.get)
        for k, v in round_terms.items():
            out.terms[k] += v * times
        memory = model.overlapped_memory_us(blocks, round_trips, round_terms["hbm_bandwidth"])
        out.overlap_lost += (memory - max(round_terms["memory_latency"], round_terms["hbm_bandwidth"])) * times
        out.total += max(round_terms[winner], memory) * times
        if times == 1 and n_rounds > 1 and blocks < slots:
            out.tail_us = round_terms[winner]
    if uneven:
        longest = model.chain_us(slots, max_trips)
        if longest > out.total:
            out.terms["memory_latency"] = max(out.terms["memory_latency"], longest)
            out.total = longest
            work.notes.append(
                f"programs run {trips:g} hot-loop trips on average and {max_trips:g} at most: the longest program's "
                f"chain ({longest:.1f} us) outlasts the rounds of mean programs, so it sets the time"
            )
    return out


def _bound(model: _RoundModel, rounds: _Rounds, overhead: float) -> tuple[float, str, float | None]:
    """(time before the overhead, bound, block-launch time) of the launch. The order is the rule: the largest term
    (a chain with no load to wait for is issue; matrix is named for the unit), then a long tail of a last round at
    most half full, then each floor that passes the time raises it to its own (the GPU's block-start rate, then one
    address's atomics applied one after another), and last the fixed launch overhead where it is longer still."""
    work, shape, m, terms, total = model.work, model.shape, model.m, rounds.terms, rounds.total
    bound = max(terms, key=terms.get)
    if bound == "memory_latency" and not (work.load_bytes_iter or work.load_bytes_once):
        bound = "issue"  # a chain of dependent instructions, no load to wait for
    if bound == "matrix":
        bound = work.matrix_unit
    tail_us, slots = rounds.tail_us, rounds.slots
    if tail_us is not None and tail_us >= 0.3 * total and (shape.programs % slots) <= slots // 2:
        bound = "tail"
    rate = _optional(m, "block_launch_per_cycle")
    block_launch_us = _us((shape.launched or shape.programs) / rate, m) if rate else None
    if block_launch_us and block_launch_us > total:
        total, bound = block_launch_us, "block_launch"  # the GPU starts blocks no faster than this
    atomic_us = shape.atomic_us
    if atomic_us and atomic_us > total:
        total, bound = atomic_us, "atomic_contention"  # one address's updates are applied one after another
    if overhead > total:
        bound = "launch_overhead"
    return total, bound, block_launch_us


def _round_notes(model: _RoundModel, rounds: _Rounds, total: float) -> None:
    """The notes on what the rounds lost to partial overlap and sent to DRAM from local memory, onto the work's."""
    if rounds.overlap_lost > 0.02 * total:
        model.work.notes.append(
            f"latency and DRAM transfer overlap only partly with {model.resident_blocks} resident block(s) per SM: "
            f"+{rounds.overlap_lost:.1f} us over the larger of the two (closed queueing, model.closed_round_us)"
        )
    if rounds.local_dram:
        model.work.notes.append(
            f"local memory: {rounds.local_dram / 1e6:.1f} MB of the spill traffic reaches DRAM (its lines are evicted "
            f"from the {model.l2_capacity / 2**20:.0f} MiB L2 before their reload), counted in bytes_moved and the "
            "HBM time"
        )


def _figures(
    model: _RoundModel, rounds: _Rounds, trips: float, overhead: float, block_launch_us: float | None
) -> LaunchFigures:
    """The launch's figures: its bytes, residency and in-flight bytes, and every term's time."""
    work, shape, m, terms = model.work, model.shape, model.m, rounds.terms
    blocks_per_cu = min(model.resident_blocks, math.ceil(shape.programs / model.cus))
    resident = blocks_per_cu * shape.waves_per_block
    in_flight_cu = resident * work.in_flight_bytes
    active = min(model.cus, shape.programs)
    little_bw = active * in_flight_cu / (model.latency / m.clock_hz) if in_flight_cu else None
    local = model.per_wave.local_bytes
    return LaunchFigures(
        bytes_moved=model.moved + rounds.local_dram,
        bytes_requested=model.requested,
        unique_tensor_bytes=shape.unique_tensor_bytes,
        bytes_in_flight_per_cu=in_flight_cu,
        bytes_in_flight_per_wave=work.in_flight_bytes,
        resident_waves_per_cu=resident,
        resident_blocks_per_cu=blocks_per_cu,
        rounds=rounds.rounds,
        active_cus=active,
        iteration_cycles=work.chain_cycles_iter if work.loops else None,
        trips=trips,
        issue_us=terms["issue"],
        valu_us=terms["valu"],
        matrix_us=terms["matrix"],
        lds_us=terms["lds"],
        hbm_us=terms["hbm_bandwidth"],
        l2_us=terms["l2_bandwidth"] if model.l2_per_cycle else None,
        local_bytes=shape.programs * shape.waves_per_block * local if local else None,
        latency_us=terms["memory_latency"],
        tail_us=rounds.tail_us,
        launch_overhead_us=overhead,
        block_launch_us=block_launch_us,
        atomic_updates_per_address=shape.atomic_updates or None,
        atomic_us=shape.atomic_us,
        achievable_bandwidth_gbs=min(model.bw, little_bw) / 1e9 if little_bw else None,
    )


def predict(
    work: WaveWork, shape: LaunchShape, m: Machine, trips: float, max_trips: float
) -> tuple[float, str, LaunchFigures]:
    """(predicted_us, bound, figures) for one launch: its rounds' terms (``_rounds``), the bound and the floors over
    them (``_bound``), plus the fixed launch overhead. Appends to ``work.notes`` what the rounds show."""
    model = _RoundModel.of(work, shape, m, trips)
    rounds = _rounds(model, trips, max_trips)
    overhead = m.value("launch_overhead_us")
    total, bound, block_launch_us = _bound(model, rounds, overhead)
    _round_notes(model, rounds, total)
    return total + overhead, bound, _figures(model, rounds, trips, overhead, block_launch_us)
