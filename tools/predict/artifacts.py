"""Kernels compiled elsewhere (another Triton, the GPU machine): a variant folder of ``benchmarks/predict_data``.

Layout (benchmarks/predict_data/FORMAT.md, written by the validation): ``meta.json`` with ``launches`` in order —
each with ``kernel``, ``grid``, ``block``, ``num_warps``, ``shared``, ``registers``, ``args`` (tensors with
``nbytes``, scalars with ``value``), ``constexprs`` and ``files`` (``ttir``, ``cubin``, ``sass``, ``json`` relative to
the folder) — and the compiled files. Each launch becomes a KernelDump with its LaunchInfo, so it is predicted as a
kernel compiled here would be.

Every file is read from inside the folder (``variant_file``): a path in meta.json that is absolute, climbs out with
``..`` or passes through a symlink leading out is refused, and so is a meta.json that is itself such a symlink — a
forged meta.json must not make predict read (or quote in an error) any other file. Under the MCP server the folder
lies inside the allowed roots, so everything read does too.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from tools.errors import InputError
from tools.isa.arch import normalize_arch, nvidia_occupancy
from tools.models.dump import CompilerVersions, KernelDump, LaunchArgument, LaunchInfo, Resources, Stage
from tools.paths import guard
from tools.predict.variant_meta import load_meta

FORMAT_HINT = "a variant's files lie in its folder, named relative to it (benchmarks/predict_data/FORMAT.md)"


def is_variant_dir(path: Path) -> bool:
    return path.is_dir() and (path / "meta.json").is_file()


def variant_file(folder: Path, rel: object, field: str | None = None) -> Path:
    """``folder / rel`` once it is known to lie inside the folder with every symlink resolved; ``field`` names the
    meta.json entry that gave ``rel`` (None: a file the format names, e.g. meta.json itself). InputError otherwise,
    naming the field, never the content of what lies outside. FIFOs and devices are refused too (``guard``), and
    inside an MCP call the allowed roots apply."""
    meta = folder / "meta.json"
    shown = repr(rel)[:200]
    if not isinstance(rel, str) or not rel or "\x00" in rel:
        raise InputError(f"{meta}: {field} = {shown} is not a file path", hint=FORMAT_HINT)
    target = (folder / rel).resolve()
    if Path(rel).is_absolute() or not target.is_relative_to(folder.resolve()):
        if field is None:
            what = f"{folder / rel} is a symlink that leads outside the variant folder"
        else:
            what = (
                f"{meta}: {field} = {shown} {'is absolute' if Path(rel).is_absolute() else 'leads outside the folder'}"
            )
        raise InputError(f"{what}; predict reads only files inside {folder}", hint=FORMAT_HINT)
    return guard(target, f"{field} of {meta}" if field else str(folder / rel))


def _files(launch: dict, folder: Path, index: int) -> dict[str, Path]:
    """Each compiled file launch ``index`` names (``files``), confined to the folder; the missing ones left out."""
    named = launch.get("files") or {}
    out = {}
    for key, rel in named.items() if isinstance(named, dict) else ():
        path = variant_file(folder, rel, f"launches[{index}].files.{key}")
        if path.is_file():
            out[key] = path
    return out


def _arch_of(files: dict[str, Path], folder: Path, default: str | None) -> str:
    if "json" in files:
        target = json.loads(files["json"].read_text()).get("target") or {}
        arch = str(target.get("arch", ""))
        if arch:
            return normalize_arch(arch if arch.startswith("gfx") else f"sm_{arch}")
    if default:
        return normalize_arch(default)
    if (folder / "cuda").is_dir():  # the validation's CUDA tasks: built for the H100 it ran on
        return "sm_90"
    raise InputError(f"{folder}: no Triton metadata names the target", hint="pass --arch")


def _resources(launch: dict, arch: str, files: dict[str, Path], threads: int, name: str) -> Resources:
    from tools.frontends.nvidia import add_sass_spills

    shared = int(launch.get("shared") or 0)
    regs = launch.get("registers")
    if regs is None and "cubin" in files:
        from tools.frontends.nvidia import nvidia_resources

        res = nvidia_resources(files["cubin"], name, arch, threads, dynamic_smem_bytes=shared)
        if res.occupancy_warps_per_sm:
            add_sass_spills(res, files.get("sass"), name)
            return res
    if regs is None:
        return Resources(notes=["registers unknown: no profiler figure and no readable cubin"])
    occ = nvidia_occupancy(arch, int(regs), 0, threads, shared)
    res = Resources(
        registers_per_thread=int(regs),
        lds_bytes=shared or None,
        wavefront_size=32,
        max_flat_workgroup_size=threads,
        occupancy_warps_per_sm=occ.value,
        occupancy_limiter=occ.limiter,
        occupancy_reason=occ.reason,
        occupancy_limits=occ.limits,
    )
    add_sass_spills(res, files.get("sass"), name)  # a recorded cubin's spills: Triton keeps no ptxas log
    return res


def _stages(files: dict[str, Path]) -> list[Stage]:
    return [
        Stage(name=key, path=str(files[key]), bytes=files[key].stat().st_size)
        for key in ("ttir", "ttgir", "ptx", "cubin", "sass")
        if key in files
    ]


def read_variant(folder: str | Path, arch: str | None = None) -> list[KernelDump]:
    """Every recorded launch of the variant in ``folder``, in launch order (memsets/memcpys skipped)."""
    folder = Path(folder)
    variant_file(folder, "meta.json")  # a symlink out of the folder is refused before anything reads it
    meta = load_meta(folder)  # validated: a damaged or forged field is an error naming it
    kernels = []
    for index, launch in enumerate(meta.get("launches") or []):
        if launch.get("op", "kernel") != "kernel":
            continue
        name = launch.get("kernel") or "kernel"
        files = _files(launch, folder, index)
        karch = _arch_of(files, folder, arch)
        block = launch.get("block") or [int(launch.get("num_warps") or 4) * 32, 1, 1]
        threads = math.prod(block)
        grid = [int(g) for g in (launch.get("grid") or [])] or None
        args = []
        for a in launch.get("args") or []:
            kind = a.get("kind")
            if kind == "tensor":
                args.append(LaunchArgument(name=a["name"], kind="tensor", dtype=a.get("dtype"), shape=a.get("shape"),
                                           nbytes=a.get("nbytes"), values=a.get("values"),
                                           hottest=a.get("hottest")))  # fmt: skip
            else:
                v = a.get("value")
                args.append(LaunchArgument(name=a["name"], kind="scalar", value=v if not isinstance(v, list) else None))
        for k, v in (launch.get("constexprs") or {}).items():
            args.append(LaunchArgument(name=k, kind="constexpr", value=v if not isinstance(v, list | dict) else None))
        stages = _stages(files)
        sass = next((s.path for s in stages if s.name == "sass"), None)
        if sass is None and (folder / "kernel.sass").is_file():
            sass = str(variant_file(folder, "kernel.sass"))
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
                resources=_resources(launch, karch, files, threads, name),
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
