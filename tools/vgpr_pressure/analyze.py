"""vgpr-pressure for any input: a kernel source (compiled with dump-ir), an ISA file, a cubin, a dump directory or a
git reference; each file goes to the AMD or the NVIDIA analysis."""

from __future__ import annotations

from pathlib import Path

from tools import inputs, paths
from tools.errors import InputError
from tools.gitref import resolve_file
from tools.isa import arch as archmod
from tools.models.vgpr import KernelError, VgprReports
from tools.vgpr_pressure.amd import analyze_isa, analyze_isa_all
from tools.vgpr_pressure.nvidia import analyze_cubin


def analyze_path(
    path: str | Path,
    kernel: str | None = None,
    arch: str | None = None,
    *,
    per_instruction: bool = False,
    top_k: int = 8,
    launch_lds: int | None = None,
    frontend: str | None = None,
    call: str | None = None,
) -> VgprReports:
    """Any input the CLI accepts: a kernel source file (compiled with dump-ir, like prefetch-data-load, in
    ``frontend``'s language or the one detected; ``call``: its host function to run, tools.callspec), an ISA file, a
    cubin, or a dump directory (every ISA file in it)."""
    if inputs.is_source(path):
        return analyze_source(path, kernel, arch, per_instruction=per_instruction, top_k=top_k, launch_lds=launch_lds,
                              frontend=frontend, call=call)  # fmt: skip
    if call:
        raise InputError(f"--call applies to a kernel file; {path} is compiled already",
                         hint="pass the kernel file itself, or drop --call")  # fmt: skip

    files = _isa_files(path)
    out = VgprReports(summary="", file=str(path), reports=[])
    for f in files:
        if inputs.is_cubin(f):
            part = analyze_cubin(f, kernel, arch, per_instruction=per_instruction, top_k=top_k, launch_lds=launch_lds)
        elif kernel:
            try:
                rep = analyze_isa(f, kernel, arch, per_instruction=per_instruction, top_k=top_k, launch_lds=launch_lds)
            except InputError:
                if len(files) > 1:
                    continue
                raise
            part = VgprReports(summary="", file=str(f), reports=[rep])
        else:
            part = analyze_isa_all(f, arch, per_instruction=per_instruction, top_k=top_k, launch_lds=launch_lds)
        out.reports.extend(part.reports)
        out.errors.extend(part.errors)
    if kernel and not out.reports:
        raise InputError(f"no kernel named '{kernel}' in {path}", hint="run without --kernel to list the kernels")
    out.summary = (
        " | ".join(r.summary for r in out.reports)
        if len(out.reports) <= 3
        else (f"{len(out.reports)} kernels in {path}")
    )
    return out


def _isa_files(path: str | Path) -> list[Path]:
    """The AMDGCN files of a dump directory; for an NVIDIA dump (dump-ir's ``NN_cubin.cubin`` beside the SASS), its
    cubins, which carry the register life ranges the SASS text lacks."""
    try:
        return inputs.find_isa_files(path)
    except InputError:
        p = Path(path)
        if not p.is_dir():
            raise
        cubins = sorted(
            f
            for f in p.rglob("*.cubin")
            if f.is_file() and not any(x.startswith(".") for x in f.relative_to(p).parts) and inputs.is_cubin(f)
        )
        if not cubins:
            raise
        return [paths.guard(f, f"cubin in {p}") for f in cubins]


def analyze_source(
    path: str | Path,
    kernel: str | None = None,
    arch: str | None = None,
    *,
    per_instruction: bool = False,
    top_k: int = 8,
    launch_lds: int | None = None,
    frontend: str | None = None,
    call: str | None = None,
) -> VgprReports:
    """Compile a kernel file with dump-ir (cached by content; default gfx942, sm_90 for .cu) and analyse every
    kernel it produced; the TTGIR/LLVM IR stages of the dump feed the Triton findings."""
    p = Path(path)
    result, arch = inputs.compile_source(p, arch, frontend=frontend, call=call)
    out = VgprReports(summary="", file=str(p), reports=[])
    for k in result.kernels:
        if kernel and kernel != k.name and kernel not in k.name:
            continue
        launch = _launch_of(k, launch_lds)
        if not archmod.is_amd(arch):
            if k.binary:
                part = analyze_cubin(
                    k.binary, None, arch, per_instruction=per_instruction, top_k=top_k, launch_lds=launch
                )
                out.reports.extend(part.reports)
            continue
        if not k.final_isa:
            out.errors.append(KernelError(kernel=k.name, error="dump-ir kept no final ISA", hint="run dump-ir"))
            continue
        part = analyze_isa_all(k.final_isa, arch, per_instruction=per_instruction, top_k=top_k, launch_lds=launch)
        out.reports.extend(r for r in part.reports if r.kernel == k.name or len(part.reports) == 1)
        out.errors.extend(part.errors)
    if kernel and not out.reports:
        names = ", ".join(k.name for k in result.kernels)
        raise InputError(f"no kernel named '{kernel}' in {p}", hint=f"kernels compiled from it: {names}")
    out.summary = " | ".join(r.summary for r in out.reports) or f"no kernel compiled from {p}"
    return out


def _launch_of(k, given: int | None) -> inputs.LaunchLds:
    """The LDS dump-ir counted at launch beyond the binary's static figure (Triton's metadata.shared), unless the
    caller stated it."""
    if given is not None:
        return inputs.LaunchLds(given, "--launch-lds")
    res = k.resources
    dynamic = (res.lds_bytes or 0) - (res.static_lds_bytes or 0) if res.lds_bytes is not None else 0
    return inputs.LaunchLds(max(dynamic, 0), "dump-ir")


def analyze_spec(
    spec: str | Path,
    kernel: str | None = None,
    arch: str | None = None,
    *,
    per_instruction: bool = False,
    top_k: int = 8,
    launch_lds: int | None = None,
    frontend: str | None = None,
    call: str | None = None,
) -> VgprReports:
    """:func:`analyze_path` for a path or a git reference (``HEAD:kernel.py``, read with ``git show``)."""
    with resolve_file(spec) as (path, git_file):
        reports = analyze_path(
            path,
            kernel,
            arch,
            per_instruction=per_instruction,
            top_k=top_k,
            launch_lds=launch_lds,
            frontend=frontend,
            call=call,
        )
    if git_file is not None:
        reports.file = git_file.label
    return reports
