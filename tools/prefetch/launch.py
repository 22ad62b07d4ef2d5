"""The launch a profiler recorded, for launch-aware occupancy: ``--trace FILE`` gives ``--verify`` the grid the GPU
really ran, where a kernel file's example arguments give the grid it would run.

Read through ``tools.kernel_trace.readers.load_trace`` (every format it reads). rocprofv3 records the grid in work-items
(``Grid_Size_X/Y/Z``) beside the workgroup size; ncu records it in blocks: both become workgroups per dimension.
"""

from __future__ import annotations

from pathlib import Path

from tools.errors import InputError
from tools.models.dump import LaunchInfo
from tools.models.prefetch import PrefetchReport
from tools.models.trace import Dispatch, Trace
from tools.prefetch.analysis import workgroups_per_cu

MAX_NAMES_SHOWN = 8


def _workgroups(trace: Trace, d: Dispatch) -> list[int]:
    """The dispatch's grid in workgroups (blocks) per dimension."""
    if trace.format.startswith("ncu"):
        return list(d.grid)
    if d.workgroup is None:
        raise InputError(
            f"{trace.path}: {d.name} has a grid of {d.grid} work-items but no workgroup size",
            hint="give a rocprofv3 --kernel-trace output (it records Workgroup_Size_X/Y/Z beside Grid_Size_X/Y/Z)",
        )
    return [-(-g // max(1, w)) for g, w in zip(d.grid, d.workgroup, strict=True)]


def _matches(trace: Trace, kernel: str) -> list[Dispatch]:
    with_grid = [d for d in trace.dispatches if d.grid is not None]
    exact = [d for d in with_grid if kernel in (d.name, d.symbol)]
    if exact:
        return exact
    near = [d for d in with_grid if kernel in d.name or (d.symbol and kernel in d.symbol)]
    names = sorted({d.name for d in near})
    if len(names) > 1:
        shown = "; ".join(n[:80] for n in names[:MAX_NAMES_SHOWN])
        raise InputError(
            f"{trace.path}: {len(names)} kernels match '{kernel}': {shown}",
            hint="pass --trace-kernel with the whole name, or a longer part of it",
        )
    return near


def launch_from_trace(trace_path: str | Path, kernel: str) -> LaunchInfo:
    """The launch of ``kernel`` (its exact name, else a unique part of it) in a kernel trace: grid in workgroups,
    threads per workgroup. Where the trace holds several dispatches of it with different grids, the largest is
    taken (the launch most likely to feel an occupancy drop) and the note says so. InputError when the trace has
    no dispatch of that kernel with a grid, naming the kernels it does have."""
    from tools.kernel_trace.readers import load_trace  # the reader alone: kernel-trace's report and CLI stay out

    trace = load_trace(trace_path)
    found = _matches(trace, kernel)
    if not found:
        names = sorted({d.name for d in trace.dispatches if d.grid is not None})
        if not names:
            raise InputError(
                f"{trace.path} ({trace.format}) records no launch grid",
                hint="give a rocprofv3 kernel_trace.csv (rocprofv3 --kernel-trace) or an ncu --page details export",
            )
        shown = "; ".join(n[:80] for n in names[:MAX_NAMES_SHOWN])
        more = f" and {len(names) - MAX_NAMES_SHOWN} more" if len(names) > MAX_NAMES_SHOWN else ""
        raise InputError(
            f"{trace.path} has no dispatch of '{kernel}'; it has: {shown}{more}",
            hint="pass --trace-kernel NAME (the kernel's name in the trace, or a unique part of it)",
        )
    grids = {tuple(_workgroups(trace, d)) for d in found}

    def programs(g: tuple[int, ...]) -> int:
        n = 1
        for x in g:
            n *= x
        return n

    grid = max(grids, key=programs)
    chosen = next(d for d in found if tuple(_workgroups(trace, d)) == grid)
    threads = None
    if chosen.workgroup is not None:
        threads = programs(chosen.workgroup)
    note = f"{len(found)} dispatch(es) of {chosen.name[:80]} in {Path(trace.path).name}"
    if len(grids) > 1:
        note += f" with {len(grids)} different grids; judged at the largest"
    return LaunchInfo(grid=list(grid), programs=programs(grid), block_threads=threads, source="trace", note=note)


def with_launch(rep: PrefetchReport, launch: LaunchInfo) -> PrefetchReport:
    """``rep`` judged at ``launch``: its launch replaced and its workgroups per CU/SM recomputed for the launch's
    workgroup size (the occupancy itself is the compiled kernel's)."""
    rep = rep.model_copy(deep=True)
    threads = launch.block_threads or (rep.launch.block_threads if rep.launch else None)
    if threads and not launch.block_threads:
        launch = launch.model_copy(update={"block_threads": threads})
    rep.launch = launch
    if rep.occupancy is not None and rep.arch and threads:
        rep.workgroups_per_cu = workgroups_per_cu(rep.arch, rep.occupancy, threads)
    return rep
