"""check's comparison: BEFORE's and AFTER's written buffers element by element, and a case's verdict from them and
from the memory events each side's run recorded (the numbers beside a verdict say the same)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tools.errors import InputError
from tools.models.check import BufferVerdict, CaseResult, MemoryEvent, Mismatch

MAX_MISMATCHES = 10
ERROR_KINDS = ("past-allocation", "lds-out-of-range", "private-out-of-range", "lds-uninitialised", "lds-race")


def typed(data: bytes, dtype: str) -> np.ndarray:
    raw = np.frombuffer(data, dtype=np.uint8)
    if dtype == "bfloat16":
        return (raw.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)
    if dtype.startswith("float8"):
        from tools.check import xlane

        fmt = ("bf8" if "e5m2" in dtype else "fp8") + ("_fnuz" if "fnuz" in dtype else "_ocp")
        return xlane.fp8_decode(raw, fmt)
    np_name = {"bool": "bool"}.get(dtype, dtype)
    try:
        return raw.view(np.dtype(np_name))
    except TypeError:
        return raw  # an exotic dtype: compare bytes


def element_index(flat: int, buf_index: int, desc: dict) -> list[int]:
    for launch in desc["launches"]:
        for a in launch["args"] + launch["kwargs"]:
            if a.get("tensor") == buf_index and a["offset"] == 0 and a["shape"]:
                dense = np.prod(a["shape"]) * 1 == desc_elems(desc, buf_index)
                contiguous = list(np.cumprod([1, *a["shape"][::-1]])[:-1][::-1]) == a["strides"]
                if dense and contiguous:
                    return [int(i) for i in np.unravel_index(flat, a["shape"])]
    return [flat]


def desc_elems(desc: dict, i: int) -> int:
    b = desc["buffers"][i]
    return b["nbytes"] // b["element_size"]


def store_lines(side_dir: Path, sites: list[dict]):
    """(buffer, element) → the source line of the store that last wrote it on one side (``_llvm_child``'s
    ``stores<j>.bin``), its IR line where it has no debug location; None where no store wrote it."""
    per_buffer = {int(f.stem[6:]): np.fromfile(f, dtype="<i4") for f in side_dir.glob("stores*.bin")}

    def line(buf: int, element: int) -> str | None:
        arr = per_buffer.get(buf)
        site = int(arr[element]) if arr is not None and element < len(arr) else -1
        if site < 0 or site >= len(sites):
            return None
        s = sites[site]
        return s["line"] if s["line"] != "(no debug location)" else s["instruction"]

    return line


def compare_buffers(desc, before: list[bytes], after: list[bytes], written: dict[int, list[str]], atol, rtol,
                    stores: dict | None = None):  # fmt: skip
    """Element by element, every written buffer; ``stores`` ({side: (buffer, element) → source line}) names the
    store that wrote each listed mismatch on each side (the llvm engine)."""
    verdicts, mismatches = [], []
    for i in sorted(written):
        b = desc["buffers"][i]
        x, y = typed(before[i], b["dtype"]), typed(after[i], b["dtype"])
        same_bits = np.frombuffer(before[i], np.uint8) == np.frombuffer(after[i], np.uint8)
        esize = len(before[i]) // max(len(x), 1) if len(x) else 1
        equal = same_bits.reshape(-1, esize).all(axis=1) if len(x) else np.ones(0, bool)
        diff = None
        if x.dtype.kind == "f":
            xf, yf = x.astype(np.float64), y.astype(np.float64)
            if atol or rtol:
                equal = equal | np.isclose(xf, yf, atol=atol, rtol=rtol, equal_nan=True)
            finite = np.isfinite(xf) & np.isfinite(yf)
            diff = float(np.max(np.abs(xf - yf)[finite])) if finite.any() else None
        elif x.dtype.kind in "iu":
            d = np.abs(x.astype(np.int64) - y.astype(np.int64))
            diff = float(d.max()) if len(d) else None
        bad = np.nonzero(~equal)[0]
        verdicts.append(BufferVerdict(name=b["name"], dtype=b["dtype"], elements=len(x), written_by=written[i],
                                      mismatches=len(bad), max_abs_diff=diff,
                                      verdict="different" if len(bad) else "same"))  # fmt: skip
        for j in bad[: max(0, MAX_MISMATCHES - len(mismatches))]:
            lines = {who: stores[who](i, int(j)) for who in ("before", "after")} if stores else {}
            mismatches.append(Mismatch(buffer=b["name"], index=element_index(int(j), i, desc), before=repr(x[j].item()),
                                       after=repr(y[j].item()), before_store=lines.get("before"),
                                       after_store=lines.get("after")))  # fmt: skip
    return verdicts, mismatches


def shared_overreach(events: list[MemoryEvent], desc: dict) -> InputError | None:
    """An input error when every access past a tensor that AFTER makes, BEFORE makes too (the same tensor, the same
    kind of access, no further past it): the example arguments do not fit the kernels' grid, the same on both sides,
    which is the entry's fault and says nothing about AFTER. None when AFTER has no such access, or one of its own."""
    reach: dict[str, dict[tuple[str, str], int]] = {"before": {}, "after": {}}
    for e in events:
        if e.kind == "past-allocation":
            key, top = (e.buffer, e.access), max(e.offset, e.max_offset if e.max_offset is not None else e.offset)
            reach[e.kernel][key] = max(reach[e.kernel].get(key, top), top)
    after, before = reach["after"], reach["before"]
    if not after or any(key not in before or top > before[key] for key, top in after.items()):
        return None
    sizes = {b["name"]: b for b in desc["buffers"]}
    told, needs = [], []
    for (name, access), top in sorted(before.items()):
        b = sizes.get(name)
        if b is None:  # an address in no tensor at all (a null or forged pointer)
            told.append(f"{access}s at byte {top} of {name}")
            continue
        esize = max(int(b["element_size"]), 1)
        told.append(f"{access}s past '{name}' ({b['nbytes'] // esize} × {b['dtype']}, {b['nbytes']} B) up to index "
                    f"{top // esize} (byte offset {top})")  # fmt: skip
        needs.append(f"'{name}' of at least {top // esize + 1} elements")
    return InputError(
        "the example arguments do not fit the kernels: BEFORE and AFTER both make the same "
        + "; ".join(told)
        + ". The same accesses on both sides are the inputs' fault, not AFTER's: no verdict on these inputs",
        hint=f"make kernelpilot_entry (or kernelpilot_inputs) pass {', '.join(needs) or 'tensors the grid fits'}, or "
        "a grid that fits the tensors (`kernelpilot check … --shape KEY=VALUE`); on a GPU those reads return whatever memory holds there",
    )


def judge(case: CaseResult) -> CaseResult:
    """A case's verdict from its buffers and memory events (the numbers beside the verdict say the same)."""
    after_bad = [e for e in case.events if e.kernel == "after" and e.kind in ERROR_KINDS]
    before_bad = [e for e in case.events if e.kernel == "before" and e.kind in ERROR_KINDS]
    diff = [b for b in case.buffers if b.verdict == "different"]
    if after_bad and after_bad[0].kind == "past-allocation":  # its values are made up here: the access is the fault
        e = after_bad[0]
        case.verdict = "different"
        case.reason = (f"AFTER: {e.kind} {e.access} of {e.bytes} B at offset {e.offset} of {e.buffer}, workgroup "
                       f"{e.workgroup} thread {e.thread} ({e.user_line})")  # fmt: skip
    elif diff:
        first = case.mismatches[0] if case.mismatches else None
        where = f"; first at {first.buffer}{first.index}: {first.before} → {first.after}" if first else ""
        if first and (first.before_store or first.after_store):
            told = {"BEFORE": first.before_store, "AFTER": first.after_store}
            where += " (stored by " + ", ".join(f"{who} at {w or 'no store'}" for who, w in told.items()) + ")"
        case.verdict, case.reason = (
            "different",
            (f"{sum(b.mismatches for b in diff)} element(s) differ in {', '.join(b.name for b in diff)}{where}"),
        )
    elif after_bad:
        e = after_bad[0]
        case.verdict = "different"
        case.reason = f"AFTER: {e.kind} {e.access} of {e.bytes} B at offset {e.offset} of {e.buffer} ({e.user_line})"
    elif before_bad:
        e = before_bad[0]
        case.verdict = "undetermined"
        case.reason = (
            f"BEFORE itself makes a {e.kind} {e.access} ({e.user_line}); outputs agree but prove nothing there"
        )
    elif not case.buffers:
        case.verdict, case.reason = "undetermined", "neither kernel wrote any buffer"
    else:
        n = sum(b.elements for b in case.buffers)
        case.verdict, case.reason = "same", f"{n} element(s) in {len(case.buffers)} written buffer(s) agree"
    return case
