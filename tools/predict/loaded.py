"""Loop bounds loaded from tensors (issue 31): ``ctx_len = tl.load(lens + pid)`` evaluated on the example tensor's
recorded values (``LaunchArgument.values``), for the trip evaluator of ``tools.predict.trips``.

Pointers live in ``env["@ptr"]`` (SSA name → (argument, element offset)), the values in ``env["@values"]``;
``env["@read"]`` collects the arguments a load read. Only scalar ``tt.addptr`` / ``tt.load`` are followed: a tensor
of pointers (a block of loaded lengths) stays unknown.
"""

from __future__ import annotations

import re

_ADDPTR_RE = re.compile(r"^\s*(%[\w.$-]+)(?::\d+)?\s*=\s*tt\.addptr\s+(%[\w.$-]+),\s*(%[\w.$-]+)\s*:\s*!tt\.ptr<")
_SCALAR_LOAD_RE = re.compile(
    r"^\s*(%[\w.$-]+)(?::\d+)?\s*=\s*tt\.load\s+(%[\w.$-]+)\s*(?:,[^:]*)?:\s*!tt\.ptr<\w+>\s*$"
)


def seed_tensors(env: dict, args: list[str], tensors: dict[str, list[int]] | None) -> set[str]:
    """Put each tensor argument with recorded values into ``env`` as a pointer at element 0; the set the loads that
    read them fill (shared by every program's copy of ``env``)."""
    read: set[str] = set()
    if not tensors:
        return read
    ptrs, values = {}, {}
    for pos, name in enumerate(args):
        key = name.lstrip("%")
        vals = tensors.get(key, tensors.get(str(pos)))
        if vals:
            ptrs[name] = (key, 0)
            values[key] = vals
    if ptrs:
        env.update({"@ptr": ptrs, "@values": values, "@read": read})
    return read


def compile_loaded(line: str):
    """A scalar ``tt.addptr`` on a tracked pointer, or a scalar ``tt.load`` through one (its element read from the
    recorded values; out of range: unknown), as an effect ``(name, fn(env, pid, grid))`` like the trip evaluator's;
    None for any other line."""
    if "tensor<" in line:
        return None
    add = _ADDPTR_RE.match(line)
    if add:
        name, base, offset = add.groups()

        def addptr(env, pid, grid):
            ptrs = env.get("@ptr")
            if ptrs and base in ptrs and isinstance(env.get(offset), int):
                arg, off = ptrs[base]
                env["@ptr"] = {**ptrs, name: (arg, off + env[offset])}
            return None

        return name, addptr
    load = _SCALAR_LOAD_RE.match(line)
    if load:
        name, ptr = load.groups()

        def loaded(env, pid, grid):
            ptrs = env.get("@ptr")
            if not ptrs or ptr not in ptrs:
                return None
            arg, off = ptrs[ptr]
            vals = env["@values"][arg]
            if not 0 <= off < len(vals):
                return None
            env["@read"].add(arg)
            return vals[off]

        return name, loaded
    return None
