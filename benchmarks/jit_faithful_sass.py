"""On an NVIDIA GPU host: does kernelpilot compile, from example arguments, the kernel Triton's JIT launches?

For each kernel file (example-argument form), compile it with ``dump_ir`` for the host's arch, then launch it with
``kernel[grid](*args, **kwargs)`` on the GPU (a fresh TRITON_CACHE_DIR, so the JIT compiles) and compare the two SASS
listings instruction by instruction, with addresses and branch labels normalised. Also compares kernelpilot's
occupancy with the driver's own (cuOccupancyMaxActiveBlocksPerMultiprocessor) and the static shared memory with
cuFuncGetAttribute. Prints one line per kernel and writes ``$OUT/jit_sass.json`` (and a diff where they differ).

    python3 benchmarks/jit_faithful_sass.py tests/data/triton_jit/tiled_dot.py ...
"""

from __future__ import annotations

import ctypes
import difflib
import json
import os
import re
import sys
import tempfile
from pathlib import Path

_INSTR = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")
_LABEL = re.compile(r"\.L_x_\d+|`\(\.L_x_\d+\)|0x[0-9a-f]+(?=\s*\)|\s*;|$)")


def instructions(sass: str) -> list[str]:
    """The instruction sequence of a SASS listing, without addresses, encodings or label numbers."""
    out = []
    for line in sass.splitlines():
        m = _INSTR.search(line)
        if m:
            out.append(_LABEL.sub("L", re.sub(r"\s+", " ", m.group(1))))
    return out


def _driver_figures(function: int, block: int, dynamic_smem: int) -> dict:
    cuda = ctypes.CDLL("libcuda.so.1")
    value = ctypes.c_int()
    figures = {}
    for name, attr in (("static_smem", 1), ("regs", 4)):  # CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, _NUM_REGS
        cuda.cuFuncGetAttribute(ctypes.byref(value), attr, ctypes.c_void_p(function))
        figures[name] = value.value
    rc = cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(
        ctypes.byref(value), ctypes.c_void_p(function), block, ctypes.c_size_t(dynamic_smem)
    )
    figures["blocks_per_sm"] = value.value if rc == 0 else None
    return figures


def load_kinds(instrs: list[str]) -> dict[str, int]:
    """How many global loads of each width: LDG.E.128, LDG.E.U16, ..."""
    kinds: dict[str, int] = {}
    for i in instrs:
        m = re.search(r"\b(LDG\.E[\w.]*)", i)
        if m:
            kinds[m.group(1)] = kinds.get(m.group(1), 0) + 1
    return kinds


def signature_form(path: Path, arch: str) -> dict:
    """A signature-form file (no example arguments): what kernelpilot compiles, for contrast; nothing launches."""
    from tools.dump_ir import dump_ir

    dump = dump_ir(path, arch, use_cache=False).kernels[0]
    instrs = instructions(Path(dump.final_isa).read_text())
    return {
        "kernel": dump.name,
        "file": str(path),
        "form": "signature",
        "instructions": len(instrs),
        "loads": load_kinds(instrs),
        "registers": dump.resources.registers_per_thread,
    }


def compare(path: Path, arch: str, out: Path) -> dict:
    import torch

    from tools.dump_ir import dump_ir
    from tools.frontends._pyrunner import _load
    from tools.frontends.nvidia import write_sass

    dump = dump_ir(path, arch, use_cache=False).kernels[0]
    ours = Path(dump.final_isa).read_text()
    spec = _load(path).kernelpilot_entry()  # loaded as file mode loads it
    args = [a.to("cuda") if isinstance(a, torch.Tensor) else a for a in spec["args"]]
    compiled = spec["kernel"][tuple(spec["grid"])](*args, **spec["kwargs"])
    torch.cuda.synchronize()
    cubin = out / f"{path.stem}_jit.cubin"
    cubin.write_bytes(compiled.asm["cubin"])
    jit = write_sass(cubin, cubin.with_suffix(".sass")).read_text()
    a, b = instructions(ours), instructions(jit)
    block = compiled.metadata.num_warps * 32
    driver = _driver_figures(compiled.function, block, compiled.metadata.shared)
    r = dump.resources
    row = {
        "kernel": dump.name,
        "file": str(path),
        "specialization": dump.launch.specialization if dump.launch else None,
        "sass_equal": a == b,
        "instructions": [len(a), len(b)],
        "loads": [load_kinds(a), load_kinds(b)],
        "registers": [r.registers_per_thread, compiled.n_regs, driver["regs"]],
        "shared": {
            "ours_launch": r.lds_bytes,
            "ours_static": r.static_lds_bytes,
            "jit_metadata": compiled.metadata.shared,
            "driver_static": driver["static_smem"],
        },
        "warps_per_sm": {
            "ours": r.occupancy_warps_per_sm,
            "limiter": r.occupancy_limiter,
            "driver": driver["blocks_per_sm"] * compiled.metadata.num_warps
            if driver["blocks_per_sm"] is not None
            else None,
        },
    }
    if a != b:
        diff = difflib.unified_diff(a, b, "kernelpilot", "jit", lineterm="", n=2)
        (out / f"{path.stem}.diff").write_text("\n".join(diff))
    return row


def main(files: list[str]) -> int:
    import torch

    out = Path(os.environ.get("OUT", tempfile.mkdtemp()))
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="jit-cache-")
    major, minor = torch.cuda.get_device_capability()
    arch = f"sm_{major}{minor}"
    import triton

    rows = []
    for f in files:
        try:
            path = Path(f).resolve()
            rows.append(signature_form(path, arch) if f.endswith("_signature.py") else compare(path, arch, out))
        except Exception as exc:  # one kernel's failure must not hide the others' results
            rows.append({"file": f, "error": f"{type(exc).__name__}: {exc}"})
        print(json.dumps(rows[-1]), flush=True)
    meta = {
        "device": torch.cuda.get_device_name(),
        "arch": arch,
        "triton": triton.__version__,
        "torch": torch.__version__,
    }
    (out / "jit_sass.json").write_text(json.dumps({"meta": meta, "kernels": rows}, indent=1))
    print(json.dumps(meta))
    return 0 if all(r.get("sass_equal", r.get("form") == "signature") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
