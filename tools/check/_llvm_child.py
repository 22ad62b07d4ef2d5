"""Child process: run BEFORE's and AFTER's LLVM IR on every case's inputs (check's llvm engine).

``python -m tools.check._llvm_child SPEC_JSON``, started by ``tools.check.compare`` under ``tools.executors`` (its
timeout, its process group), never by hand. SPEC holds ``arch``, ``max_bytes`` (the memory cap), ``out`` and
``runs``: per case ``{side: {"kernels": [...], "case": folder}}``, each kernel ``{"name", "llvm", "origin",
"frontend"}`` with file paths, run in order, the folder one ``tools.check._inputs_child`` wrote (each side may have
its own compile, for a --shape that changes it, and its own launches, for a host function's sequence).

The kernel runs here, not in the CLI or the MCP worker: an endless loop ends with the parent's timeout, and the
memory is bounded twice — each launch's need is estimated before anything is allocated (over the cap: an
InputError naming the figure), and the address space is capped (``tools.childproc.limit_memory``) for what the
estimate misses. The child dies with its parent. It writes ``out/case<i>/<side>/out<j>.bin`` per buffer and
``out/result.json`` (``tools.childproc``): per case and side ``{"written", "events", "launches", "stores"}`` or the
error, by type; ``stores<j>.bin`` (int32 per element of each written buffer) names the store that last wrote it, an
index into ``stores`` (its kernel, source line and IR line; -1: no store wrote it).
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

from tools.childproc import failure, limit_memory, write_result

ADDRESS_SPACE_HEADROOM = 3 << 30  # numpy, llvmlite and the interpreter map this much before the kernel runs
BYTES_PER_LANE = 128  # the machine's own per-lane arrays: ids, program counters, masks


def launch_bytes(kernel, grid: tuple, block: tuple, lds: int) -> int:
    """Bytes a launch needs on the CPU engine: every lane of every workgroup runs at once, each SSA value the
    kernel defines is kept per lane, and each workgroup has its LDS with three shadow arrays (14 B per byte)."""
    from tools.check.engine import WAVE

    n_wg = math.prod(grid)
    lanes = n_wg * -(-math.prod(block) // WAVE) * WAVE
    per_lane = BYTES_PER_LANE
    for b in kernel.blocks:
        for ins in b.phis + b.body:
            if ins.ty.kind == "void":
                continue
            try:
                per_lane += max(ins.ty.size, 1)
            except Exception:  # a type the engine refuses later, with its own message
                continue
    return lanes * per_lane + n_wg * max(lds, 1) * 14


def _gb(n: int) -> str:
    """Bytes as the --max-memory option reads them: GB, or MB below a tenth of one (a 10 MB cap is not 0.0 GB)."""
    return f"{n / 1e9:.1f} GB" if n >= 1e8 else f"{n / 1e6:.0f} MB"


def run_llvm(kernels: list[dict], desc: dict, bufs: list[bytes], arch: str, who: str, max_bytes: int):
    """Run each kernel once, in order, over ``bufs`` (one flat memory): (buffers after, written buffer indices,
    events, per launch its kernel and a digest of every buffer after it)."""
    from tools.check import engine, flydsl_abi, triton_abi
    from tools.check.atomics import has_global_atomics
    from tools.check.ir import load_kernel
    from tools.errors import InputError
    from tools.models.check import MemoryEvent

    prepared = engine.lay_out([(b["name"], data) for b, data in zip(desc["buffers"], bufs, strict=True)])
    events, written, launches = [], set(), []
    stores = engine.StoreSites(prepared.memory.size)
    for index, k in enumerate(kernels):
        name, origin, frontend = k["name"], Path(k["origin"]), k["frontend"]
        kernel = load_kernel(Path(k["llvm"]).read_text(), name)

        def address_of(arg, prepared=prepared, desc=desc):
            esize = desc["buffers"][arg["tensor"]]["element_size"]
            return prepared.address(arg["tensor"]) + arg["offset"] * esize

        dynamic_lds = 65536  # FlyDSL: the largest LDS a gfx942 workgroup may have
        if frontend == "flydsl":
            passed = [a for a in desc["launches"][0]["args"] if "opaque" not in a and not a.get("constexpr")]
            scalars = {i: a["scalar"] for i, a in enumerate(passed) if a.get("type") == "int"}
            launch = flydsl_abi.read_launch(origin.read_text(), name, scalars)
            params = flydsl_abi.kernel_params([t for t, _ in kernel.params], launch, desc["launches"][0]["args"],
                                              address_of)  # fmt: skip
            grid, block = tuple(launch["grid"]), tuple(launch["block"])
        else:
            spec = desc["launches"][index if len(desc["launches"]) == len(kernels) else 0]
            meta = json.loads(origin.read_text()) if origin.exists() else {}
            params = triton_abi.kernel_params([t for t, _ in kernel.params], spec, address_of)
            grid = tuple((list(spec["grid"]) + [1, 1, 1])[:3])
            block = (int(meta.get("num_warps", 4)) * int(meta.get("warp_size", 64)), 1, 1)
            dynamic_lds = int(meta.get("shared") or 0) or 1
        if kernel.reqd_block and tuple(kernel.reqd_block) != block:
            raise InputError(f"{name}: launched with block {block} but compiled for {kernel.reqd_block}", hint="")
        lds = max(kernel.lds_bytes, dynamic_lds if any(s == 0 for _, s in kernel.globals.values()) else 0)
        need = launch_bytes(kernel, grid, block, lds) + prepared.memory.nbytes
        if need > max_bytes:
            threads = math.prod(block)
            raise InputError(
                f"{who} kernel {name}: grid {grid} × block {block} = {math.prod(grid) * threads:,} lanes, run at "
                f"once on the CPU, needs about {_gb(need)}; the cap is {_gb(max_bytes)}",
                hint="check a smaller problem whose grid reaches the same edge cases (`kernelpilot check … --shape KEY=VALUE`), "
                "or raise its --max-memory",
            )
        n_wg = math.prod(grid)
        # with global atomics, one workgroup after another in linear order (tools.check.atomics); else all at once
        slices = [(w, 1) for w in range(n_wg)] if has_global_atomics(kernel) else [None]
        block_waves: dict[int, int] = {}
        for part in slices:
            machine = engine.Machine(kernel, engine.Launch(grid=grid, block=block), prepared.memory,
                                     prepared.allocations, params, arch, dynamic_lds, stores, part)  # fmt: skip
            run = machine.run()
            written |= run.written
            counts = run.event_counts
            for e in run.events:
                key = (e.kind, e.instruction)
                events.append(MemoryEvent(kernel=who, count=counts.get(key, 1),
                                          max_offset=run.event_max_offsets.get(key), **e.__dict__))  # fmt: skip
            for b, waves in run.block_waves.items():
                block_waves[b] = block_waves.get(b, 0) + waves
        digests = [hashlib.sha1(prepared.memory[a.start : a.start + a.size]).hexdigest() for a in prepared.allocations]
        launches.append({"kernel": name, "digests": digests, "waves": n_wg * machine.waves_per_wg, "workgroups": n_wg,
                         "block_waves": {str(b): n for b, n in block_waves.items()}})  # fmt: skip
    out = [bytes(prepared.memory[a.start : a.start + a.size]) for a in prepared.allocations]
    sites = {j: stores.of_elements(a.start, a.size, desc["buffers"][j]["element_size"])
             for j, a in enumerate(prepared.allocations) if j in written}  # fmt: skip
    return out, written, events, launches, (sites, stores.sites)


def _side(kernels, case_dir: Path, out_dir: Path, arch: str, who: str, max_bytes: int) -> dict:
    desc = json.loads((case_dir / "inputs.json").read_text())
    bufs = [(case_dir / f"buf{j}.bin").read_bytes() for j in range(len(desc["buffers"]))]
    try:
        outs, written, events, launches, (sites, site_info) = run_llvm(kernels, desc, bufs, arch, who, max_bytes)
    except (Exception, MemoryError) as exc:  # recorded by type; the parent decides what it means
        return failure(exc, f"running {who}")
    out_dir.mkdir(parents=True, exist_ok=True)
    for j, data in enumerate(outs):
        (out_dir / f"out{j}.bin").write_bytes(data)
    for j, per_element in sites.items():  # which store wrote each element (an index into "stores", -1: none)
        (out_dir / f"stores{j}.bin").write_bytes(per_element.astype("<i4").tobytes())
    return {"status": "ok", "written": sorted(written), "events": [e.model_dump(mode="json") for e in events],
            "launches": launches, "stores": site_info}  # fmt: skip


def main(argv: list[str]) -> int:
    from tools.executors import die_with_parent

    die_with_parent()
    spec = json.loads(Path(argv[0]).read_text())
    max_bytes = int(spec["max_bytes"])
    limit_memory(max_bytes + ADDRESS_SPACE_HEADROOM)
    out = Path(spec["out"])
    cases = []
    for i, run in enumerate(spec["runs"]):
        sides = {}
        for who, side in run.items():
            sides[who] = _side(side["kernels"], Path(side["case"]), out / f"case{i}" / who, spec["arch"], who,
                               max_bytes)  # fmt: skip
        cases.append(sides)
    write_result(out / "result.json", "ok", cases=cases)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
