"""Several launches per entry: how two sides' buffers pair up, and where their launch sequences first part.

A side's buffers each have a role (``tools.check._inputs_child``): ``entry`` (a tensor the entry passes), ``return``
(a tensor the call form's host function returns) or ``scratch`` (allocated inside the host function). The entry's
final outputs are the entry and return buffers, paired in order; scratch is each side's own.
"""

from __future__ import annotations

from tools.errors import InputError


def paired(desc_b: dict, desc_a: dict) -> dict[int, int]:
    """BEFORE's buffer index → AFTER's, for the buffers the entry shares (passed or returned), in order."""
    mine = [i for i, b in enumerate(desc_b["buffers"]) if b.get("role", "entry") != "scratch"]
    theirs = [j for j, b in enumerate(desc_a["buffers"]) if b.get("role", "entry") != "scratch"]
    if len(mine) != len(theirs):
        raise InputError(f"BEFORE's entry passes or returns {len(mine)} tensor(s), AFTER's {len(theirs)}",
                         hint="both files' kernelpilot_entry() must take the same tensors")  # fmt: skip
    return dict(zip(mine, theirs, strict=True))


def shared_outputs(desc_b: dict, desc_a: dict, out_b: list, out_a: list, w_b: set, w_a: set):
    """AFTER's buffers and written set in BEFORE's numbering: the buffers the entry shares (passed or returned) pair
    up in order; scratch a host function allocates is its own and is not compared."""
    pairs = paired(desc_b, desc_a)
    mapped = [out_a[pairs[i]] if i in pairs else data for i, data in enumerate(out_b)]
    for i, j in pairs.items():
        if len(out_a[j]) != len(out_b[i]):
            raise InputError(f"{desc_b['buffers'][i]['name']} has {len(out_b[i])} bytes in BEFORE but "
                             f"{len(out_a[j])} in AFTER", hint="both entries must pass tensors of the same size")  # fmt: skip
    return mapped, {i for i, j in pairs.items() if j in w_a}


def by_launch(desc_b: dict, launches_b: list, desc_a: dict, launches_a: list) -> str | None:
    """Launch by launch, where both sides launch the same sequence over the same buffers: after which launch the
    buffers first differ (bit for bit). None for a single launch each."""
    if len(launches_b) <= 1 and len(launches_a) <= 1:
        return None
    names = lambda ls: " + ".join(x["kernel"] for x in ls)  # noqa: E731
    sizes = [[b["nbytes"] for b in d["buffers"]] for d in (desc_b, desc_a)]
    if len(launches_b) != len(launches_a) or sizes[0] != sizes[1]:
        return (f"launch sequences differ ({len(launches_b)}: {names(launches_b)}; {len(launches_a)}: "
                f"{names(launches_a)}): compared on the entry's final outputs only")  # fmt: skip
    for n, (x, y) in enumerate(zip(launches_b, launches_a, strict=True), 1):
        if x["digests"] != y["digests"]:
            bad = [desc_b["buffers"][i]["name"] for i, (p, q) in enumerate(zip(x["digests"], y["digests"],
                                                                               strict=True)) if p != q]  # fmt: skip
            return (f"{len(launches_b)} launches each: buffers agree after {n - 1}, first differ after launch {n} "
                    f"({x['kernel']} → {y['kernel']}) in {', '.join(bad)}")  # fmt: skip
    return f"{len(launches_b)} launches each: all buffers agree after every launch"
