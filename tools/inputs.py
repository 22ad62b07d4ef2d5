"""The one place that turns what a user passes (a path, ISA text, a dump directory, a kernel source) into ISA inputs.

Every tool that reads ISA (vgpr-pressure, prefetch-data-load) asks here: which suffixes are kernel sources (compiled
with dump-ir), which are ISA text, which files of a dump directory are its final ISA, and what a kernel source
compiles to. Nothing here analyses the ISA.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tools import paths
from tools.errors import InputError
from tools.frontends.registry import SOURCE_SUFFIXES  # kernel sources (compiled with dump-ir), by frontend
from tools.isa.amdgcn import load_isa_text
from tools.models.dump import KernelDump, LaunchInfo, Resources

ISA_SUFFIXES = (".s", ".amdgcn", ".asm", ".isa")  # AMDGCN assembly text
SASS_SUFFIXES = (".sass",)  # nvdisasm text
# A dump directory's final ISA, in order of preference: the first tier with a match wins (dump-ir names its AMD ISA
# NN_amdgcn.s, FlyDSL NN_final_isa.s, Triton's cache *.amdgcn; a plain *.s last).
DUMP_ISA_TIERS = (("*final_isa.s",), ("*_amdgcn.s",), ("*.amdgcn",), ("*.s",))
DUMP_SASS_PATTERNS = ("*.sass",)  # NVIDIA dumps (dump-ir's NN_sass.sass), for tools that read SASS text


def is_source(path: str | Path) -> bool:
    """A kernel source file that dump-ir compiles (by suffix; the file must exist)."""
    p = Path(path)
    return p.suffix.lower() in SOURCE_SUFFIXES and p.is_file()


def default_arch(path: str | Path) -> str:
    """The target a kernel source is compiled for when none is given: sm_90 for CUDA, else gfx942."""
    return "sm_90" if Path(path).suffix == ".cu" else "gfx942"


def is_cubin(path: str | Path) -> bool:
    """An NVIDIA cubin (ELF with e_machine EM_CUDA), by its first bytes."""
    from tools.isa.sass import is_cubin as cubin_header

    with open(path, "rb") as fh:
        return cubin_header(fh.read(64) + b"\0" * 20)


def is_text(value: str | Path) -> bool:
    """ISA text given inline (several lines, or too long to be a path) rather than a path."""
    return isinstance(value, str) and ("\n" in value or len(value) >= 4096)


def find_isa_files(path: str | Path, *, sass: bool = False) -> list[Path]:
    """The ISA files of a dump directory, or ``[path]`` for a file.

    A directory gives the first tier of :data:`DUMP_ISA_TIERS` that matches (with ``sass``, ``*.sass`` joins the
    first tier). Hidden directories (a compiler's own cache, e.g. ``.triton_cache``) hold copies, not the dump."""
    p = paths.guard(path, "ISA")
    if not p.exists():
        raise InputError(
            f"{p} does not exist",
            hint="pass a kernel file, an ISA file (.s/.amdgcn"
            + ("/.sass" if sass else "")
            + "), a cubin, or a dump directory",
        )
    if p.is_file():
        return [p]
    tiers = ((DUMP_ISA_TIERS[0] + DUMP_SASS_PATTERNS), *DUMP_ISA_TIERS[1:]) if sass else DUMP_ISA_TIERS
    for patterns in tiers:
        found = sorted(
            {
                f
                for pattern in patterns
                for f in p.rglob(pattern)
                if f.is_file() and not any(x.startswith(".") for x in f.relative_to(p).parts)
            }
        )
        if found:
            return [paths.guard(f, f"ISA file in {p}") for f in found]
    names = ", ".join(t[0] for t in DUMP_ISA_TIERS) + (", *.sass" if sass else "")
    raise InputError(
        f"{p} contains no ISA files ({names})",
        hint="dump with FLYDSL_DUMP_IR=1 / hipcc --save-temps, or run `kernelpilot dump-ir` first; or pass the ISA "
        "file itself",
    )


def read_isa(text_or_path: str | Path) -> tuple[str, str | None]:
    """(ISA text, the file it came from or None for inline text); a directory gives its first ISA file."""
    if isinstance(text_or_path, Path) or not is_text(text_or_path):
        files = find_isa_files(text_or_path)
        return load_isa_text(files[0]), str(files[0])
    return text_or_path, None


@dataclass
class LaunchLds:
    """LDS / shared memory a launch allocates on top of what the binary declares, and where the figure comes from."""

    bytes: int
    origin: str  # "--launch-lds", or the metadata file it was read from


def launch_lds_beside(path: str | Path | None) -> LaunchLds | None:
    """Triton's ``shared`` (bytes allocated at launch) from the metadata JSON beside an ISA file or cubin: the same
    stem with ``.json`` (Triton's cache: ``kernel.amdgcn`` + ``kernel.json``), else ``metadata.json`` (a dump-ir
    kernel directory); None when neither is there, readable inside the caller's roots, or says ``shared``."""
    if not path:
        return None
    import json

    p = Path(path)
    for meta in (p.with_suffix(".json"), p.parent / "metadata.json"):
        try:
            if meta == p or not meta.is_file():
                continue
            shared = json.loads(paths.guard(meta, "metadata beside the ISA").read_text(errors="replace")).get("shared")
        except (InputError, OSError, ValueError, AttributeError):
            continue
        if isinstance(shared, int) and not isinstance(shared, bool) and shared >= 0:
            return LaunchLds(shared, meta.name)
    return None


def resolve_launch_lds(given: int | LaunchLds | None, beside: str | Path | None) -> LaunchLds | None:
    """The launch LDS a caller stated (an int is ``--launch-lds``), else what the metadata beside ``beside`` says."""
    if isinstance(given, LaunchLds):
        return given
    if given is not None:
        return LaunchLds(given, "--launch-lds")
    return launch_lds_beside(beside)


UNKNOWN_LAUNCH_LDS_NOTE = (
    "launch-time LDS is unknown for an ISA file: lds_bytes is only what the binary declares (Triton kernels allocate "
    "their shared memory at launch, metadata 'shared'); pass --launch-lds BYTES, or keep Triton's <kernel>.json "
    "beside the ISA"
)


@dataclass
class IsaInput:
    """One ISA text to analyse and what is known about it beyond the text."""

    text: str
    path: str  # the file, or "<text>"
    kernel: str | None = None  # the kernel dump-ir compiled it for
    resources: Resources | None = None
    launch: LaunchInfo | None = None
    binary: str | None = None  # the code object / cubin dump-ir kept


@dataclass
class IsaInputs:
    items: list[IsaInput]
    arch: str | None
    origin: str  # what the user passed: a path, or "<text>"
    kernels: list[KernelDump] = field(default_factory=list)  # dump-ir's kernels, for a compiled source


def compile_source(
    path: str | Path, arch: str | None, *, frontend: str | None = None, timeout: float = 600, call: str | None = None
):
    """dump-ir's result for a kernel source (cached by content) and the arch it was compiled for; ``call``: the host
    function to run instead of its entry (``--call``, tools.callspec)."""
    from tools.dump_ir import dump_ir  # lazy: compiling imports the frontends
    from tools.isa import arch as archmod

    p = Path(path)
    arch = archmod.normalize_arch(arch) if arch else default_arch(p)
    return dump_ir(p, arch, frontend=frontend, timeout=timeout, call=call), arch


def load_isa_inputs(
    source: str | Path,
    arch: str | None,
    *,
    frontend: str | None = None,
    timeout: float = 600,
    tool: str = "this tool",
    call: str | None = None,
) -> IsaInputs:
    """ISA text given inline, an ISA/SASS file, a dump directory (its final ISA files, SASS included) or a kernel
    source (compiled with dump-ir: one input per kernel with its resources and launch). A binary file is refused:
    ``tool`` reads assembly text."""
    if isinstance(source, str) and "\n" in source:
        return IsaInputs([IsaInput(source, "<text>")], arch, "<text>")
    path = paths.guard(source, "input")
    if not path.exists():
        raise InputError(f"{path} does not exist", hint="give a kernel file, an ISA/SASS file or a dump directory")
    if path.is_dir():
        files = find_isa_files(path, sass=True)
        return IsaInputs([IsaInput(f.read_text(errors="replace"), str(f)) for f in files], arch, str(path))
    if path.suffix in SOURCE_SUFFIXES:
        result, arch = compile_source(path, arch, frontend=frontend, timeout=timeout, call=call)
        items = [
            IsaInput(
                Path(k.final_isa).read_text(errors="replace"), k.final_isa, k.name, k.resources, k.launch, k.binary
            )
            for k in result.kernels
            if k.final_isa
        ]
        return IsaInputs(items, arch, str(path), list(result.kernels))
    if b"\x00" in path.read_bytes()[:4096]:
        raise InputError(
            f"{path} is binary; {tool} reads assembly text",
            hint="pass the .s / .sass text, or the kernel source (it is compiled with dump-ir)",
        )
    return IsaInputs([IsaInput(path.read_text(errors="replace"), str(path))], arch, str(path))
