"""Triton: ``triton.compile`` for any target on any machine (``GPUTarget("hip", "gfx942", 64)``,
``GPUTarget("cuda", 90, 32)``), keeping ttir, ttgir, llir, amdgcn or ptx, and hsaco or cubin (+ SASS on NVIDIA).

Command mode points ``TRITON_CACHE_DIR`` at a fresh directory and collects every kernel the command compiled.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tools.errors import CompileError
from tools.frontends.base import (
    Frontend,
    amd_resources,
    python_runner,
    raise_for_runner,
    run_user_command,
    stages_of,
    write_log,
)
from tools.frontends.nvidia import add_sass_spills, nvidia_resources, write_sass
from tools.isa.arch import AMD_TARGETS, NVIDIA_TARGETS, is_amd
from tools.models.dump import CompilerVersions, KernelDump, LaunchInfo
from tools.toolchain import package_version, require_package

_STAGE_ORDER = {"ttir": 1, "ttgir": 2, "llir": 3, "amdgcn": 4, "ptx": 4, "hsaco": 5, "cubin": 5}


class TritonFrontend(Frontend):
    name = "triton"
    archs = AMD_TARGETS + NVIDIA_TARGETS
    env_keys = ("PYTHONPATH", "TRITON_", "AMDGCN_", "MLIR_", "LLVM_", "DISABLE_LLVM_OPT", "DISABLE_PTXAS_OPT",
                "PTXAS_OPTIONS", "NVPTX_ENABLE_DUMP", "USE_IR_LOC", "CC", "ROCM_PATH", "HIP_PATH", "CUDA_HOME")  # fmt: skip

    def versions(self) -> CompilerVersions:
        return CompilerVersions(frontend=self.name, versions={"triton": package_version("triton") or "missing"})

    def _kernel(
        self, name: str, arch: str, stages: list[Path], meta: dict, launch: LaunchInfo | None = None
    ) -> KernelDump:
        binary = next((p for p in stages if p.suffix in {".hsaco", ".cubin"}), None)
        # Triton allocates its shared memory at launch (metadata.shared): the ISA's static figure leaves it out
        dynamic = int(meta.get("shared") or 0)
        if is_amd(arch):
            isa = next((p for p in stages if p.suffix == ".s" or p.name.endswith(".amdgcn")), None)
            llir = next((p for p in stages if p.suffix == ".ll"), None)
            threads = meta.get("num_warps", 4) * (meta.get("warp_size") or 64)
            resources = amd_resources(isa, name, arch, dynamic, threads, llir) if isa else None
        else:
            threads = meta.get("num_warps", 4) * 32
            isa = resources = None
            if binary:
                # nvdisasm and cuobjdump are independent processes: run them side by side
                with ThreadPoolExecutor(2) as pool:
                    sass = pool.submit(write_sass, binary, binary.with_name("06_sass.sass"))
                    resources = nvidia_resources(binary, name, arch, threads, dynamic_smem_bytes=dynamic)
                    isa = sass.result()
                add_sass_spills(resources, isa, name)
            if isa:
                stages = [*stages, isa]
        if resources is None:
            raise CompileError(f"Triton produced no final ISA for {name}", hint="see compile.log")
        if dynamic and resources.lds_bytes is None:
            resources.lds_bytes = dynamic
        notes = [launch.note] if launch and launch.note and launch.source == "signature" else []
        return KernelDump(
            name=name,
            arch=arch,
            frontend=self.name,
            compiler=self.versions(),
            stages=stages_of(stages),
            final_isa=str(isa) if isa else None,
            binary=str(binary) if binary else None,
            resources=resources,
            launch=launch,
            notes=notes,
        )

    def compile_file(self, path: Path, arch: str, out_dir: Path, options: dict) -> list[KernelDump]:
        arch = self.check_arch(arch)
        require_package("triton", "to compile Triton kernels")
        env = {"TRITON_CACHE_DIR": str(out_dir / ".triton_cache"), "TRITON_DEFAULT_FP_FUSION": "1"}
        result = python_runner(
            "triton",
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
        manifest = json.loads((out_dir / "runner.json").read_text())
        (out_dir / "runner.json").unlink()
        kernels = []
        for entry in manifest["kernels"]:
            kdir = Path(entry["dir"])
            meta = json.loads((kdir / "metadata.json").read_text())
            launch_file = kdir / "launch.json"
            launch = LaunchInfo.model_validate_json(launch_file.read_text()) if launch_file.exists() else None
            kernels.append(self._kernel(entry["name"], arch, [Path(p) for p in entry["stages"]], meta, launch))
        return kernels

    def compile_command(self, argv: list[str], arch: str, out_dir: Path, options: dict) -> list[KernelDump]:
        cache_dir = out_dir / ".triton_cache"
        env = {"TRITON_CACHE_DIR": str(cache_dir), "TRITON_ALWAYS_COMPILE": "1"}
        result = run_user_command(argv, env, options)
        write_log(out_dir, result)
        kernels = []
        for meta_file in sorted(cache_dir.glob("*/*.json")) if cache_dir.exists() else []:
            if meta_file.name.startswith("__grp__"):
                continue
            try:
                meta = json.loads(meta_file.read_text())
            except ValueError:
                continue
            name = meta.get("name")
            target = meta.get("target") or {}
            karch = str(target.get("arch", ""))
            karch = karch if karch.startswith("gfx") else f"sm_{karch}"
            if not name or (arch and karch != arch):
                continue
            kdir = out_dir / f"{name}_{meta_file.parent.name[:8]}"
            kdir.mkdir(parents=True, exist_ok=True)
            stages = []
            for f in sorted(meta_file.parent.iterdir(), key=lambda p: _STAGE_ORDER.get(p.suffix.lstrip("."), 9)):
                stage = f.suffix.lstrip(".")
                if stage in _STAGE_ORDER:
                    dst = kdir / f"{_STAGE_ORDER[stage]:02d}_{stage}{'.s' if stage == 'amdgcn' else f.suffix}"
                    dst.write_bytes(f.read_bytes())
                    stages.append(dst)
            (kdir / "metadata.json").write_text(json.dumps(meta, indent=1))
            warp = meta.get("warp_size") or (64 if karch.startswith("gfx") else 32)
            launch = LaunchInfo(block_threads=meta.get("num_warps", 4) * warp, source="command")
            kernels.append(self._kernel(name, karch, stages, meta, launch))
        if not result.ok and not kernels:
            raise CompileError(
                f"the command exited with {result.returncode} and compiled no Triton kernel",
                hint="run the command by hand to see why; its output is in compile.log",
                details="\n".join(result.stderr.splitlines()[-40:]),
            )
        return kernels
