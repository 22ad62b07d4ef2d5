"""FlyDSL: compile-only on any machine through FlyDSL's own dump environment.

``COMPILE_ONLY=1 ARCH=… FLYDSL_DUMP_IR=1 FLYDSL_DUMP_DIR=…`` makes FlyDSL write every MLIR stage, the LLVM IR and
the final ISA into ``<dump>/<kernel>/NN_<stage>``; the cache is disabled so every dump is fresh. The code object
(hsaco) is embedded in the ``gpu_module_to_binary`` stage as an MLIR string; it is decoded into ``<kernel>.hsaco``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tools.errors import CompileError
from tools.frontends._flydsl_calls import launch_of
from tools.frontends.base import (
    Frontend,
    amd_resources,
    python_runner,
    raise_for_runner,
    run_user_command,
    runner_outcome,
    stages_of,
    write_log,
)
from tools.isa.arch import AMD_TARGETS
from tools.models.dump import CompilerVersions, KernelDump
from tools.toolchain import package_version, require_package, rocm_path_for_flydsl


def decode_mlir_string(body: str) -> bytes:
    """Decode an MLIR string literal body (``\\7F`` hex escapes, ``\\\\``, ``\\"``, ``\\n``, ``\\t``)."""
    out = bytearray()
    i, n = 0, len(body)
    simple = {'"': 0x22, "\\": 0x5C, "n": 0x0A, "t": 0x09}
    while i < n:
        ch = body[i]
        if ch != "\\":
            out += ch.encode("utf-8")
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in simple:
            out.append(simple[nxt])
            i += 2
        else:
            out.append(int(body[i + 1 : i + 3], 16))
            i += 3
    return bytes(out)


def extract_binary(mlir_text: str) -> bytes | None:
    """The first ``bin = "…"`` payload of a gpu.binary op, or None."""
    start = mlir_text.find('bin = "')
    if start < 0:
        return None
    i = start + len('bin = "')
    j = i
    while j < len(mlir_text):
        if mlir_text[j] == "\\":
            j += 2
            continue
        if mlir_text[j] == '"':
            break
        j += 1
    data = decode_mlir_string(mlir_text[i:j])
    return data if data[:4] == b"\x7fELF" else None


class FlyDSLFrontend(Frontend):
    name = "flydsl"
    archs = AMD_TARGETS
    env_keys = ("PYTHONPATH", "FLYDSL_", "MLIR_", "LLVM_", "ROCM_PATH", "HIP_PATH", "HSA_OVERRIDE_GFX_VERSION")

    def versions(self) -> CompilerVersions:
        versions = {"flydsl": package_version("flydsl") or "missing"}
        torch = package_version("torch")
        if torch:
            versions["torch"] = torch
        return CompilerVersions(frontend=self.name, versions=versions)

    def environment(self, arch: str, dump_dir: Path, options: dict) -> tuple[dict[str, str], str]:
        rocm, linker = rocm_path_for_flydsl()
        env = {
            "COMPILE_ONLY": "1",
            "ARCH": arch,
            "FLYDSL_DUMP_IR": "1",
            "FLYDSL_DUMP_DIR": str(dump_dir),
            "FLYDSL_RUNTIME_ENABLE_CACHE": "0",
            "ROCM_PATH": str(rocm),
        }
        if options.get("debug_info", True):
            env["FLYDSL_DEBUG_ENABLE_DEBUG_INFO"] = "1"
        return env, linker

    def collect(
        self, dump_dir: Path, arch: str, out_dir: Path, linker: str, calls: list[dict] | None = None
    ) -> list[KernelDump]:
        """Every kernel directory FlyDSL wrote, with its stages in number order and its decoded hsaco; ``calls``:
        the runner's recorded @flyc.jit calls (file mode), which give each kernel its launch's argument values."""
        kernels = []
        for kdir in sorted(p for p in dump_dir.iterdir() if p.is_dir()) if dump_dir.exists() else []:
            files = sorted(
                (p for p in kdir.iterdir() if p.is_file()),
                key=lambda p: (int(p.name.split("_")[0]) if p.name.split("_")[0].isdigit() else 10**6, p.name),
            )
            target = out_dir / kdir.name
            shutil.copytree(kdir, target, dirs_exist_ok=True)
            copied = [target / f.name for f in files]
            isa = next((p for p in copied if p.name.endswith("final_isa.s")), None)
            binary = None
            module_stage = next((p for p in copied if "gpu_module_to_binary" in p.name), None)
            if module_stage is not None:
                data = extract_binary(module_stage.read_text(errors="replace"))
                if data:
                    binary = target / f"{kdir.name}.hsaco"
                    binary.write_bytes(data)
            if isa is None:
                raise CompileError(
                    f"FlyDSL wrote no final ISA for {kdir.name}",
                    hint="the compile stopped early; see the compile log",
                )
            resources = amd_resources(isa, kdir.name, arch)
            if linker == "ziglang":
                resources.notes.append("code object linked with ziglang's ld.lld (no ROCm install here)")
            kernels.append(
                KernelDump(
                    name=kdir.name,
                    arch=arch,
                    frontend=self.name,
                    compiler=self.versions(),
                    stages=stages_of(copied + ([binary] if binary else [])),
                    final_isa=str(isa),
                    binary=str(binary) if binary else None,
                    resources=resources,
                    launch=launch_of(kdir.name, calls or []),
                )
            )
        return kernels

    def compile_file(self, path: Path, arch: str, out_dir: Path, options: dict) -> list[KernelDump]:
        arch = self.check_arch(arch)
        require_package("flydsl", "to compile FlyDSL kernels")
        dump_dir = out_dir / ".flydsl_dump"
        env, linker = self.environment(arch, dump_dir, options)
        result = python_runner(
            "flydsl",
            path,
            arch,
            out_dir,
            env,
            options.get("timeout", 600),
            options.get("entry_kwargs"),
            options.get("call"),
        )
        log = write_log(out_dir, result)
        raise_for_runner(result, path, self.name, log)
        calls = (runner_outcome(out_dir) or {}).get("calls") or []
        (out_dir / "runner.json").unlink(missing_ok=True)
        kernels = self.collect(dump_dir, arch, out_dir, linker, calls)
        shutil.rmtree(dump_dir, ignore_errors=True)
        if not kernels:
            raise CompileError(
                f"{path.name} ran but compiled no FlyDSL kernel",
                hint="kernelpilot_entry() must call (or return) a @flyc.jit function that launches a @flyc.kernel",
            )
        return kernels

    def compile_command(self, argv: list[str], arch: str, out_dir: Path, options: dict) -> list[KernelDump]:
        arch = self.check_arch(arch)
        dump_dir = out_dir / ".flydsl_dump"
        env, linker = self.environment(arch, dump_dir, options)
        result = run_user_command(argv, env, options)
        write_log(out_dir, result)
        kernels = self.collect(dump_dir, arch, out_dir, linker)
        shutil.rmtree(dump_dir, ignore_errors=True)
        if not result.ok and not kernels:
            raise CompileError(
                f"the command exited with {result.returncode} and compiled no FlyDSL kernel",
                hint="run the command by hand to see why; its output is in compile.log",
                details="\n".join(result.stderr.splitlines()[-40:]),
            )
        return kernels
