"""The processes that run kernels for the scorer. One process runs ONE side — the reference, the baseline, or the
candidate — so the candidate never shares an interpreter with the reference computation or the baseline timing.

``python -m evals.harness.child check SPEC``  runs every case in SPEC (JSON) and saves outputs with torch.save.
``python -m evals.harness.child serve SPEC``  the same on request, in a process that lives across requests: the
                                             reference answers the correctness cases and later the timed-call
                                             re-check without a second torch import.
``python -m evals.harness.child time SPEC``   serves timing rounds: one JSON request per stdin line, one reply line.

The serving modes import torch, then wait for the nonce line before touching the GPU: the scorer starts them before
it holds the GPU lock (the import overlaps compiling and another task's GPU phase) and sends the nonce once it does.

The timer (``tools.profilers.timing.EventTimer``: events, synchronise and host clock) is made BEFORE the kernel
module is imported, so patching ``torch.cuda.Event.elapsed_time`` or ``time.perf_counter`` from the candidate cannot
change what is measured; the patch itself is detected and reported. Replies carry a nonce the parent sends after the import.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

from tools.childproc import import_user_file


def _import_file(path: Path, name: str):
    return import_user_file(path, name)


def load_callable(spec: dict):
    """The function to run: the reference, or the candidate's entry (through the task's loader when it has one)."""
    if spec["role"] == "reference":
        return _import_file(Path(spec["reference_file"]), "kp_reference").reference
    code_dir = Path(spec["code_dir"])
    if spec.get("loader"):
        file, _, fn = spec["loader"].partition(":")
        loader = getattr(_import_file(Path(spec["task_workspace"]) / file, "kp_loader"), fn)
        return loader(code_dir, Path(spec["build_dir"]))
    file, _, fn = spec["entry"].partition(":")
    return getattr(_import_file(code_dir / file, "kp_candidate"), fn)


_INPUTS: dict[str, object] = {}  # reference file → its module, imported once per process


def _make_inputs(spec: dict, params: dict, seed: int, device: str):
    import torch

    ref = _INPUTS.get(spec["reference_file"])
    if ref is None:
        ref = _INPUTS[spec["reference_file"]] = _import_file(Path(spec["reference_file"]), "kp_inputs")
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    return ref.make_inputs(params, gen, device)


def _clone(inputs):
    import torch

    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def _same(a, b) -> bool:
    import torch

    for x, y in zip(a, b, strict=True):
        if isinstance(x, torch.Tensor) and not torch.equal(x, y):
            return False
    return True


def run_check(spec: dict, loaded: dict | None = None) -> int:
    """Run ``spec["cases"]`` and save the outputs to ``spec["out"]``; ``loaded`` keeps the callable between the
    requests of a serving process (imported on the first, after that request's inputs exist)."""
    import torch

    device = spec["device"]
    torch.backends.cuda.matmul.allow_tf32 = False  # precision pinned on both sides
    torch.backends.cudnn.allow_tf32 = False
    results: dict[str, dict] = {}
    # Inputs are generated before the kernel module is imported: it cannot see or replace the generator.
    prepared = [(c, _make_inputs(spec, c["params"], c["seed"], device)) for c in spec["cases"]]
    loaded = {} if loaded is None else loaded
    try:
        fn = loaded["fn"] if "fn" in loaded else loaded.setdefault("fn", load_callable(spec))
    except Exception:
        torch.save({"__load_error__": traceback.format_exc(limit=6)}, spec["out"])
        return 0
    for case, inputs in prepared:
        before = _clone(inputs)
        try:
            out = fn(*inputs)
            if device != "cpu":
                torch.cuda.synchronize()
            results[case["name"]] = {"out": out.detach().to("cpu") if isinstance(out, torch.Tensor) else out}
            results[case["name"]]["inputs_mutated"] = not _same(before, inputs)
        except Exception:
            results[case["name"]] = {"error": traceback.format_exc(limit=4)}
    torch.save(results, spec["out"])
    return 0


def _ready() -> None:
    """Tell the scorer the imports are done (it waits for this before letting another task's timing start)."""
    sys.__stdout__.write(json.dumps({"ready": True}) + "\n")
    sys.__stdout__.flush()


def serve_check(spec: dict) -> int:
    """Correctness on request: each stdin line is ``{"cases": [...], "out": PATH}``; the reply carries the nonce."""
    import torch  # noqa: F401 - imported before the nonce: the slow part, done while the scorer waits for the GPU

    _ready()
    nonce = sys.stdin.readline().strip()
    loaded: dict = {}
    for line in sys.stdin:
        req = json.loads(line)
        run_check({**spec, "cases": req["cases"], "out": req["out"]}, loaded)
        sys.__stdout__.write(json.dumps({"nonce": nonce, "out": req["out"]}) + "\n")
        sys.__stdout__.flush()
    return 0


def serve_time(spec: dict) -> int:
    """Timing rounds on request, through ``tools.profilers.timing.EventTimer`` (the one definition of a timed call):
    per round, ``calls`` calls on fresh inputs (made outside the timed windows), each after an L2 flush, queued
    behind a GPU sleep so that no window holds the host's launch; then ``host_calls`` calls with the GPU idle, whose
    host time around call + device-wide synchronise shows work left running on other streams. The timer binds its
    clock and events before the kernel module is imported, and reports what the module replaced."""
    import torch

    from tools.profilers.timing import EventTimer

    torch.backends.cuda.matmul.allow_tf32 = False
    device = spec["device"]
    _ready()
    nonce = sys.stdin.readline().strip()  # the scorer holds the GPU from here: the GPU work starts
    timer = EventTimer(flush_l2=True)  # before the kernel module: it cannot replace what the timer holds
    fn = load_callable(spec)
    out_dir = Path(spec["out_dir"])
    for line in sys.stdin:
        req = json.loads(line)
        seeds = [req["seed_base"] + j for j in range(req["calls"] + req.get("host_calls", 1))]

        def inputs(j: int, req=req, seeds=seeds):
            return _make_inputs(spec, req["params"], seeds[j], device)

        timed = timer.round(fn, req["calls"], prepare=inputs)
        checks = [timer.host_call(fn, *inputs(req["calls"] + j)) for j in range(req.get("host_calls", 1))]
        saved = {}
        for j in req["check"]:
            saved[f"{req['shape']}@{seeds[j]}"] = {"out": timed[j].output.detach().to("cpu"), "seed": seeds[j]}
        path = out_dir / f"{spec['role']}-{req['round']}.pt"
        if saved:
            torch.save(saved, path)
        reply = {
            "nonce": nonce,
            "event_ms": [t.event_us / 1e3 for t in timed],
            "check_event_ms": [c.event_us / 1e3 for c in checks],
            "host_ms": [c.host_us / 1e3 for c in checks],
            "saved": str(path) if saved else None,
            "tampered": timer.tampered(),
        }
        sys.__stdout__.write(json.dumps(reply) + "\n")
        sys.__stdout__.flush()
    return 0


def reduce_out_of_order() -> bool:
    """Under Triton's interpreter (``TRITON_INTERPRET=1``), make ``tl.reduce``'s general path combine (element,
    accumulated) instead of (accumulated, element). The interpreter reduces in order; a GPU combines lanes in shuffle
    order, so a combine that is not commutative (a scan pair's ``(a1 a2, a2 x1 + x2)``) is wrong on the GPU while the
    CPU check passes it (our own open-nv-linear-scan answer did, H200 2026-11-26). With the operands swapped such a
    combine gives another answer on the CPU too; a commutative one gives the same bits (the same sequence of
    operations). Returns False where this Triton's interpreter has no such path (nothing changed)."""
    import os

    if os.environ.get("TRITON_INTERPRET") != "1":
        return False
    try:
        from triton.runtime import interpreter
    except ImportError:
        return False
    ops = getattr(interpreter, "ReduceOps", None)
    general = getattr(ops, "generic_reduce", None)
    if general is None or getattr(general, "_kp_swapped", False):
        return general is not None

    def swapped(self, input):
        combine, n = self.combine_fn, len(input)

        class Swapped:
            @staticmethod
            def fn(*operands):
                return combine.fn(*operands[n:], *operands[:n])

        self.combine_fn = Swapped
        try:
            return general(self, input)
        finally:
            self.combine_fn = combine

    swapped._kp_swapped = True
    ops.generic_reduce = swapped
    return True


def main(argv: list[str]) -> int:
    from tools.executors import die_with_parent

    die_with_parent()  # the scorer's process goes, this one goes: no kernel process outlives its scoring
    reduce_out_of_order()  # before any kernel module is imported
    mode, spec_file = argv
    spec = json.loads(Path(spec_file).read_text())
    return {"check": run_check, "serve": serve_check, "time": serve_time}[mode](spec)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
