"""dump-ir: compile a kernel for a target and keep every IR stage, the final ISA and the binary.

File mode compiles one kernel file (see the README's "File mode" for the ``kernelpilot_entry()`` convention); command
mode runs any command with the compilers' dump environment set and collects every kernel it compiled.
Results are cached by content (the source, its folder's other files, options, compiler versions, the environment
variables the frontend reads: tools/cache.py), not by folder, and reused only while every file and variable the
compile read is unchanged (its manifest); artifacts live in the cache entry and are copied to ``--out`` when given. The command line is
``tools/dump_ir/cli.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path

from tools import cache, readlog
from tools.callspec import CallSpec, resolve_call
from tools.errors import InputError, KernelpilotError
from tools.executors import thread_cancelled
from tools.frontends import detect_frontend, get_frontend
from tools.isa.arch import normalize_arch
from tools.models.dump import DumpResult, KernelDump, OccupancyLimiter
from tools.paths import regular_file


def check_source(path: Path) -> Path:
    """``path`` resolved, once it is an existing regular text file (a kernel source); else an InputError saying which."""
    if not path.exists():
        raise InputError(f"kernel file not found: {path}", hint="check the path (relative paths start at the cwd)")
    if path.is_dir():
        raise InputError(f"{path} is a directory, not a kernel file", hint="give a .py, .cu or .hip file")
    regular_file(path, "kernel file")  # a FIFO or /dev/zero would block or never end
    with open(path, "rb") as f:
        head = f.read(4096)
    if b"\x00" in head:
        raise InputError(f"{path} is a binary file, not kernel source", hint="give a .py, .cu or .hip source file")
    return path.resolve()


def _limit_word(limiter: OccupancyLimiter) -> str:
    return "hardware maximum" if limiter == "hardware" else f"limited by {limiter}"


def _summary(kernels: list[KernelDump], arch: str, source: str, hit: bool) -> str:
    parts = []
    for k in kernels[:4]:
        r = k.resources
        if r.vgpr_count is not None:
            parts.append(
                f"{k.name}: {r.vgpr_count} VGPRs (agpr {r.agpr_count or 0}), {r.sgpr_count} SGPRs, "
                f"spills {r.vgpr_spill_count or 0}, LDS {r.lds_bytes or 0} B, {r.waves_per_simd} waves/SIMD"
                + (f" ({_limit_word(r.occupancy_limiter)})" if r.occupancy_limiter else "")
            )
        elif r.registers_per_thread is not None:
            parts.append(
                f"{k.name}: {r.registers_per_thread} regs/thread, smem {r.lds_bytes or 0} B, "
                f"local {r.scratch_bytes or 0} B, {r.occupancy_warps_per_sm} warps/SM"
                + (f" ({_limit_word(r.occupancy_limiter)})" if r.occupancy_limiter else "")
            )
    more = f" (+{len(kernels) - 4} more)" if len(kernels) > 4 else ""
    return (
        f"{len(kernels)} kernel(s) for {arch} from {Path(source).name}{' [cache]' if hit else ''}: "
        + "; ".join(parts)
        + more
    )


OUT_MARKER = ".kernelpilot-out.json"  # in every --out directory kernelpilot writes: the files it put there


def _listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.name != OUT_MARKER)


def _check_out(out: str | Path | None) -> None:
    """Refuse an --out that holds anything kernelpilot did not write there (it replaces only its own output)."""
    if out is None:
        return
    out = Path(os.path.abspath(out))
    if out.is_symlink():
        raise InputError(f"--out {out} is a symlink", hint="give the real directory, or a new one")
    if out.exists() and not out.is_dir():
        raise InputError(
            f"--out {out} is a file, not a directory", hint="give a new or empty directory for the artifacts"
        )
    if not out.exists() or not any(out.iterdir()):
        return
    try:
        owned = set(json.loads((out / OUT_MARKER).read_text())["files"])
    except (OSError, ValueError, KeyError, TypeError):
        raise InputError(
            f"--out {out} is not empty and was not written by kernelpilot",
            hint="choose a new or empty directory; kernelpilot never deletes files it did not write",
        ) from None
    foreign = [name for name in _listing(out) if name not in owned]
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" (+{len(foreign) - 5} more)" if len(foreign) > 5 else "")
        raise InputError(
            f"--out {out} holds files kernelpilot did not write: {shown}",
            hint="move them elsewhere or choose another directory; kernelpilot never deletes files it did not write",
        )


def _mark(out: Path) -> None:
    (out / OUT_MARKER).write_text(json.dumps({"tool": "kernelpilot dump-ir", "files": _listing(out)}, indent=1))


def _copy_out(result: DumpResult, out: Path | None) -> DumpResult:
    """Copy the artifacts to ``out`` (replacing only an earlier kernelpilot output there), all or nothing."""
    if out is None:
        return result
    src = Path(result.out_dir)
    out = Path(os.path.abspath(out))
    _check_out(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.kp-tmp", dir=out.parent))
    old = None
    try:
        shutil.copytree(src, tmp, dirs_exist_ok=True)
        text = result.model_dump_json(indent=1).replace(str(src), str(out))
        (tmp / cache.RESULT_FILE).write_text(text)
        _mark(tmp)
        if out.exists():
            old = out.with_name(f".{out.name}.kp-old{uuid.uuid4().hex[:8]}")
            out.rename(old)
        tmp.rename(out)
    except BaseException:
        if old is not None and not out.exists():
            old.rename(out)  # put the earlier output back
            old = None
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)  # checked above: only kernelpilot's own files
    return DumpResult.model_validate_json(text)


def _record_manifest(staging: Path, folder: Path) -> None:
    """The entry's manifest from what the compile child recorded (``reads.json``; native compilers record none)."""
    record = staging / readlog.READS_FILE
    try:
        reads = json.loads(record.read_text())
    except (OSError, ValueError):
        reads = None
    cache.write_manifest(staging, cache.manifest_from_reads(reads, folder))
    record.unlink(missing_ok=True)


def dump_ir(
    source: str | Path,
    arch: str,
    *,
    frontend: str | None = None,
    out: str | Path | None = None,
    use_cache: bool = True,
    debug_info: bool = True,
    flags: list[str] | None = None,
    timeout: float = 600,
    entry_kwargs: dict | None = None,
    call: str | CallSpec | None = None,
) -> DumpResult:
    """File mode: compile ``source`` for ``arch`` and return every kernel's stages and resources.

    ``entry_kwargs``: call ``kernelpilot_entry(**entry_kwargs)`` (check compiles each --shape that changes a
    compile-time value this way); ``call``: the host function to run instead of any entry (``--call``,
    tools.callspec; checked against the file before compiling). Each is part of the cache key when given."""
    _check_out(out)  # before compiling: a refused --out should not cost a compile
    path = check_source(Path(source))
    spec = resolve_call(call, path)
    arch = normalize_arch(arch)
    name = frontend or detect_frontend(path)
    fe = get_frontend(name)
    arch = fe.check_arch(arch)
    fe.check_flags(path, list(flags or []))  # before anything runs: a refused flag never reaches a compiler
    options = {"debug_info": debug_info, "flags": list(flags or [])}
    if entry_kwargs:
        options["entry_kwargs"] = dict(entry_kwargs)
    if spec is not None:
        options["call"] = spec.key()
    versions = fe.versions()
    # resources gained launch LDS and the occupancy limiter, launches their arguments (FlyDSL's: the recorded
    # @flyc.jit call's), entries a manifest, launch arguments their hottest counts: older entries must not be reused
    keyed = {**options, "resources_schema": 5, "manifest": 1, "env": cache.keyed_environment(fe.env_keys)}
    folder = cache.source_folder(path)
    content = cache.cache_key(path, folder, name, arch, keyed, versions.versions)
    key = cache.located_key(content, folder.directory)  # the entry: its artifacts name this folder
    cache.sweep()
    dest = Path(out) if out else None
    if use_cache and (found := _cached(key, content, path, folder)):
        return _copy_out(found, dest)
    if not use_cache:  # --no-cache: compile now, whoever else compiles it
        return _copy_out(_compile(fe, name, path, arch, folder, key, content, options, timeout), dest)
    # Another thread or process compiling the same kernel (parallel scorings of one baseline, MCP checks of one
    # file): wait for its entry (at most `timeout`) rather than compile it again, then compile only on a miss.
    with cache.compile_lock(content, timeout, thread_cancelled) as held:
        if held and (found := _cached(key, content, path, folder)):
            return _copy_out(found, dest)
        return _copy_out(_compile(fe, name, path, arch, folder, key, content, options, timeout), dest)


def _cached(key: str, content: str, path: Path, folder: cache.SourceFolder) -> DumpResult | None:
    """The cache's entry for this compile: this folder's own, or one compiled in another folder copied here."""
    if hit := cache.lookup(key, folder.directory):
        return hit
    if elsewhere := cache.lookup_elsewhere(content, folder.directory):  # the same kernel compiled in another folder
        try:
            moved = cache.relocate(elsewhere, key, path, folder)
        except OSError:
            return None  # the other entry went away while it was copied: compile instead
        cache.remember(content, key)
        return moved
    return None


def _compile(fe, name, path, arch, folder, key, content, options, timeout) -> DumpResult:
    """Compile into a staging folder and publish it under ``key`` (a failed compile keeps its log as ``.failed``)."""
    staging = cache.new_staging_dir(key)
    t0 = time.perf_counter()
    try:
        kernels = fe.compile_file(path, arch, staging, {**options, "timeout": timeout})
        elapsed = time.perf_counter() - t0
        result = DumpResult(
            summary=_summary(kernels, arch, str(path), False),
            source=str(path),
            arch=arch,
            frontend=name,
            out_dir=str(staging),
            compile_seconds=round(elapsed, 3),
            kernels=kernels,
            log=str(staging / "compile.log") if (staging / "compile.log").exists() else None,
        )
        _record_manifest(staging, folder.directory)
        result = cache.commit(staging, key, result)
        cache.remember(content, key)
    except BaseException as exc:
        failed = staging.with_name(staging.name.replace(".tmp", ".failed"))
        if staging.exists():
            staging.rename(failed)  # keep the log for the curious, never under a success name
        if isinstance(exc, KernelpilotError):
            exc.message = exc.message.replace(str(staging), str(failed))
            exc.args = (exc.message,)
        raise
    return result


def dump_ir_command(
    argv: list[str],
    arch: str,
    *,
    frontend: str = "auto",
    out: str | Path | None = None,
    debug_info: bool = True,
    timeout: float = 1800,
    cwd: str | None = None,
) -> DumpResult:
    """Command mode: run ``argv`` with the FlyDSL and/or Triton dump environment and collect every kernel."""
    if not argv:
        raise InputError(
            "no command given after --cmd", hint="e.g. kernelpilot dump-ir --arch gfx942 --cmd python run.py"
        )
    _check_out(out)
    arch = normalize_arch(arch)
    names = ["flydsl", "triton"] if frontend == "auto" else [frontend]
    cache.sweep()
    if out:
        out_dir = Path(os.path.abspath(out))
    else:
        out_dir = cache.new_staging_dir(f"cmd-{int(time.time() * 1000)}")
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    kernels: list[KernelDump] = []
    errors = []
    for name in names:
        fe = get_frontend(name)
        if arch not in fe.archs:
            continue
        try:
            sub = out_dir / name
            sub.mkdir(exist_ok=True)
            kernels += fe.compile_command(argv, arch, sub, {"debug_info": debug_info, "timeout": timeout, "cwd": cwd})
        except KernelpilotError as exc:
            errors.append(exc)
        if frontend == "auto" and kernels:
            break
    if out:
        _mark(out_dir)  # ours now, even when nothing compiled: a rerun may replace it
    if not kernels:
        if errors:
            raise errors[0]
        raise InputError(
            f"the command ran but compiled no kernel for {arch}",
            hint="check that it launches FlyDSL or Triton kernels (FlyDSL honours COMPILE_ONLY/ARCH; Triton needs a GPU "
            "or its own compile calls)",
        )
    return DumpResult(
        summary=_summary(kernels, arch, argv[0], False),
        source=" ".join(argv),
        arch=arch,
        frontend=frontend,
        out_dir=str(out_dir),
        compile_seconds=round(time.perf_counter() - t0, 3),
        kernels=kernels,
    )
