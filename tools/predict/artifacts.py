"""Kernels compiled elsewhere (another Triton, the GPU machine): a variant folder of ``benchmarks/predict_data``.

Layout (benchmarks/predict_data/FORMAT.md, written by the validation): ``meta.json`` with ``launches`` in order —
each with ``kernel``, ``grid``, ``block``, ``num_warps``, ``shared``, ``registers``, ``args`` (tensors with
``nbytes``, scalars with ``value``), ``constexprs`` and ``files`` (``ttir``, ``cubin``, ``sass``, ``json`` relative to
the folder) — and the compiled files. Each launch becomes a KernelDump with its LaunchInfo, so it is predicted as a
kernel compiled here would be.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from tools.errors import InputError
from tools.isa.arch import normalize_arch, nvidia_occupancy
from tools.models.dump import CompilerVersions, KernelDump, LaunchArgument, LaunchInfo, Resources, Stage
from tools.predict.variant_meta import load_meta


def is_variant_dir(path: Path) -> bool:
    return path.is_dir() and (path / "meta.json").is_file()


def _arch_of(launch: dict, folder: Path, default: str | None) -> str:
    meta_file = launch.get("files", {}).get("json")
    if meta_file and (folder / meta_file).is_file():
        target = json.loads((folder / meta_file).read_text()).get("target") or {}
        arch = str(target.get("arch", ""))
        if arch:
            return normalize_arch(arch if arch.startswith("gfx") else f"sm_{arch}")
    if default:
        return normalize_arch(default)
    if (folder / "cuda").is_dir():  # the validation's CUDA tasks: built for the H100 it ran on
        return "sm_90"
    raise InputError(f"{folder}: no Triton metadata names the target", hint="pass --arch")


def _resources(launch: dict, arch: str, folder: Path, threads: int, name: str) -> Resources:
    shared = int(launch.get("shared") or 0)
    regs = launch.get("registers")
    cubin = launch.get("files", {}).get("cubin")
    if regs is None and cubin and (folder / cubin).is_file():
        from tools.frontends.nvidia import nvidia_resources

        res = nvidia_resources(folder / cubin, name, arch, threads, dynamic_smem_bytes=shared)
        if res.occupancy_warps_per_sm:
            return res
    if regs is None:
        return Resources(notes=["registers unknown: no profiler figure and no readable cubin"])
    occ = nvidia_occupancy(arch, int(regs), 0, threads, shared)
    return Resources(
        registers_per_thread=int(regs),
        lds_bytes=shared or None,
        wavefront_size=32,
        max_flat_workgroup_size=threads,
        occupancy_warps_per_sm=occ.value,
        occupancy_limiter=occ.limiter,
        occupancy_reason=occ.reason,
        occupancy_limits=occ.limits,
    )


def _stages(launch: dict, folder: Path) -> list[Stage]:
    out = []
    for key, name in (("ttir", "ttir"), ("ttgir", "ttgir"), ("ptx", "ptx"), ("cubin", "cubin"), ("sass", "sass")):
        rel = launch.get("files", {}).get(key)
        if rel and (folder / rel).is_file():
            out.append(Stage(name=name, path=str(folder / rel), bytes=(folder / rel).stat().st_size))
    return out


def read_variant(folder: str | Path, arch: str | None = None) -> list[KernelDump]:
    """Every recorded launch of the variant in ``folder``, in launch order (memsets/memcpys skipped)."""
    folder = Path(folder)
    meta = load_meta(folder)  # validated: a damaged or forged field is an error naming it
    kernels = []
    for launch in meta.get("launches") or []:
        if launch.get("op", "kernel") != "kernel":
            continue
        name = launch.get("kernel") or "kernel"
        karch = _arch_of(launch, folder, arch)
        block = launch.get("block") or [int(launch.get("num_warps") or 4) * 32, 1, 1]
        threads = math.prod(block)
        grid = [int(g) for g in (launch.get("grid") or [])] or None
        args = []
        for a in launch.get("args") or []:
            kind = a.get("kind")
            if kind == "tensor":
                args.append(LaunchArgument(name=a["name"], kind="tensor", dtype=a.get("dtype"), shape=a.get("shape"),
                                           nbytes=a.get("nbytes"), values=a.get("values")))  # fmt: skip
            else:
                v = a.get("value")
                args.append(LaunchArgument(name=a["name"], kind="scalar", value=v if not isinstance(v, list) else None))
        for k, v in (launch.get("constexprs") or {}).items():
            args.append(LaunchArgument(name=k, kind="constexpr", value=v if not isinstance(v, list | dict) else None))
        stages = _stages(launch, folder)
        sass = next((s.path for s in stages if s.name == "sass"), None)
        if sass is None and (folder / "kernel.sass").is_file():
            sass = str(folder / "kernel.sass")
        options = {k: launch.get(k) for k in ("num_warps", "num_stages") if launch.get(k) is not None}
        kernels.append(
            KernelDump(
                name=name,
                arch=karch,
                frontend=meta.get("language") or "triton",
                compiler=CompilerVersions(frontend="triton", versions={"triton": str(meta.get("triton") or "?")}),
                stages=stages,
                final_isa=sass,
                binary=next((s.path for s in stages if s.name == "cubin"), None),
                resources=_resources(launch, karch, folder, threads, name),
                launch=LaunchInfo(
                    grid=grid,
                    programs=math.prod(grid) if grid else None,
                    block_threads=threads,
                    options=options,
                    arguments=args,
                    source="trace",
                    note=f"recorded on {meta.get('device') or 'the GPU machine'} ({folder.name})",
                ),
                notes=list(launch.get("notes") or []),
            )
        )
    if not kernels:
        raise InputError(f"{folder}/meta.json records no kernel launch", hint="see benchmarks/predict_data/FORMAT.md")
    return kernels
