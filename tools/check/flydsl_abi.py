"""How a FlyDSL jit call becomes a kernel launch: grid, block and the LLVM kernel's parameters.

FlyDSL's first MLIR stage (``origin``) holds the host function (``func.func``, one argument per jit argument, the
stream as ``!gpu.async.token``) and its ``gpu.launch_func`` (grid and block sizes, which host arguments are passed).
The kernel's ``gpu.func`` types each tensor as ``!fly.memref<elem, global, layout>``; in LLVM IR a tensor becomes a
``ptr addrspace(1)`` followed, when its layout has dynamic (``?``) leaves, by a packed struct of those leaves
(shape leaves first, then stride leaves, each in order) — e.g. ``?:1`` → ``<{ <{ i32 }> }>`` holding the size.
"""

from __future__ import annotations

import re

from tools.check.ir import Ty, split_top, unsupported
from tools.errors import InputError
from tools.isa.ttir import strip_loc

_FUNC = re.compile(r"func\.func @([\w.$]+)\((.*?)\)\s*(?:attributes|\{)", re.S)
_LAUNCH = re.compile(
    r"gpu\.launch_func\s+(?:async\s+\[[^\]]*\]\s+)?@[\w.$]+::@([\w.$]+)\s+blocks in \(([^)]*)\)\s+threads in \(([^)]*)\)"
    r"(?:\s+dynamic_shared_memory_size\s+(%[\w.$]+))?\s+args\((.*?)\)\s*(?:loc|$)",
    re.M,
)
_GPU_FUNC = re.compile(r"gpu\.func @([\w.$]+)\((.*?)\)\s*kernel", re.S)


def _split_args(sig: str) -> list[tuple[str, str]]:
    """'%arg0: !fly.memref<f16, global, ?:1>, %arg1: i32' → [('%arg0', type), …] (commas inside <> kept)."""
    return [(name.strip(), ty.strip()) for name, _, ty in (item.partition(":") for item in split_top(sig))]


def layout_leaves(memref_type: str) -> tuple[list[str], list[str]]:
    """``!fly.memref<f16, global, (?,4):(4,1)>`` → (shape leaves, stride leaves) as strings ('?' or digits)."""
    inner = memref_type[memref_type.index("<") + 1 : memref_type.rindex(">")]
    parts = [p.strip() for p in split_top(inner)]
    layout = parts[-1] if len(parts) >= 3 else ""
    shape, _, stride = layout.partition(":")
    return re.findall(r"\?|-?\d+", shape), re.findall(r"\?|-?\d+", stride)


_INT_OP = re.compile(r"^\s*(%[\w.$]+) = arith\.(\w+) (%[\w.$]+)(?:, (%[\w.$]+))? : (\w+)(?: to (\w+))?\s*$", re.M)
_CONST = re.compile(r"^\s*(%[\w.$]+) = arith\.constant (-?\d+) : (\w+)\s*$", re.M)
_BINARY = {
    "addi": lambda a, b: a + b,
    "subi": lambda a, b: a - b,
    "muli": lambda a, b: a * b,
    "divsi": lambda a, b: abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1),  # rounds toward zero
    "divui": lambda a, b: a // b,
    "floordivsi": lambda a, b: a // b,
    "ceildivsi": lambda a, b: -(-a // b),
    "ceildivui": lambda a, b: -(-a // b),
    "remsi": lambda a, b: a - b * (abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)),
    "remui": lambda a, b: a % b,
    "maxsi": max,
    "minsi": min,
    "maxui": max,
    "minui": min,
    "shli": lambda a, b: a << b,
    "shrsi": lambda a, b: a >> b,
    "shrui": lambda a, b: a >> b,
    "andi": lambda a, b: a & b,
    "ori": lambda a, b: a | b,
}
_CASTS = {"index_cast", "index_castui", "extsi", "extui", "trunci"}


def _wrap(value: int, ty: str) -> int:
    """``value`` as the signed integer type ``ty`` holds it (``index``: 64 bits)."""
    bits = 64 if ty == "index" else int(ty[1:]) if re.fullmatch(r"i\d+", ty) else 64
    value &= (1 << bits) - 1
    return value - (1 << bits) if bits > 1 and value >> (bits - 1) else value


def host_values(body: str, known: dict[str, int]) -> dict[str, int]:
    """The integer SSA values of a host function body that follow from ``known`` (its integer arguments' values):
    constants and the arith ops a grid is computed with (``M // TILE`` is ``arith.floordivsi``)."""
    values = dict(known)
    ops = sorted([(m.start(), m) for m in _CONST.finditer(body)] + [(m.start(), m) for m in _INT_OP.finditer(body)],
                 key=lambda x: x[0])  # fmt: skip
    for _, m in ops:
        if m.re is _CONST:
            values[m.group(1)] = _wrap(int(m.group(2)), m.group(3))
            continue
        name, op, a, b, ty, to = m.groups()
        if a not in values or (b is not None and b not in values):
            continue
        if op in _CASTS and b is None:
            values[name] = _wrap(values[a], to or ty)
        elif op in _BINARY and b is not None and not (op.startswith(("div", "rem", "ceildiv", "floordiv"))
                                                      and values[b] == 0):  # fmt: skip
            values[name] = _wrap(_BINARY[op](values[a], values[b]), ty)
    return values


def read_launch(origin_text: str, kernel: str, scalars: dict[int, int] | None = None) -> dict:
    """Grid, block, and for each kernel argument its host-argument index and MLIR type. ``scalars``: the values of
    the host function's integer arguments by index (the entry's), for a grid computed from them at run time."""
    text = strip_loc(origin_text)
    host = _FUNC.search(text)
    if not host:
        raise unsupported("a FlyDSL module without a host func.func (origin stage)")
    host_args = _split_args(host.group(2))
    host_names = [n for n, _ in host_args]
    launch = next((m for m in _LAUNCH.finditer(text) if m.group(1) == kernel), None)
    if launch is None:
        raise unsupported(f"no gpu.launch_func of {kernel} in the origin stage")
    known = {host_names[i]: int(v) for i, v in (scalars or {}).items() if i < len(host_names)}
    values = host_values(text[host.end() : launch.start()], known)

    def dims(group: str) -> tuple[int, int, int]:
        vals = []
        for name in (v.strip() for v in group.split(",")):
            if name not in values:
                raise unsupported(f"a launch size ({name}) computed at run time from something other than the jit "
                                  "function's integer arguments")  # fmt: skip
            if values[name] < 1:
                raise InputError(f"{kernel}: the launch size {name} is {values[name]} for the entry's arguments",
                                 hint="pass arguments that give every grid and block dimension at least 1")  # fmt: skip
            vals.append(values[name])
        return tuple(vals)

    kargs = []
    for item in split_top(launch.group(5)):
        name, _, ty = item.strip().partition(":")
        name = name.strip()
        if name not in host_names:
            raise unsupported(f"a kernel argument ({name}) computed in the host function; pass jit arguments through")
        kargs.append({"host_index": host_names.index(name), "type": ty.strip()})
    gpu = next((m for m in _GPU_FUNC.finditer(text) if m.group(1) == kernel), None)
    if gpu is not None:
        for arg, (_, ty) in zip(kargs, _split_args(gpu.group(2)), strict=False):
            arg["type"] = ty
    host_types = [t for _, t in host_args]
    return {"grid": dims(launch.group(2)), "block": dims(launch.group(3)), "args": kargs, "host_types": host_types}


def _struct_fill(ty: Ty, leaves: list[int]) -> list:
    out = []
    for m in ty.members:
        if m.kind == "struct":
            out.append(_struct_fill(m, leaves))
        elif m.kind == "int":
            if not leaves:
                raise unsupported("a tensor layout struct with more fields than dynamic leaves")
            out.append(leaves.pop(0))
        else:
            raise unsupported(f"tensor layout struct member {m}")
    return out


def kernel_params(kernel_params_ty: list[Ty], launch: dict, jit_args: list[dict], address_of) -> list:
    """Values for the LLVM kernel's parameters from the jit call's arguments (as the inputs child described them).

    ``address_of(arg)`` gives a tensor argument's device address (its buffer's base plus its element offset).
    """
    host_types = launch["host_types"]
    passed = [a for a in jit_args if "opaque" not in a and not a.get("constexpr")]
    host_real = [t for t in host_types if "async.token" not in t]
    if len(passed) != len(host_real):
        raise InputError(
            f"the jit function takes {len(host_real)} arguments (besides the stream) but the entry passes {len(passed)}",
            hint="kernelpilot_entry()/kernelpilot_inputs() must return the arguments the @flyc.jit function takes",
        )
    values, p = [], 0
    for karg in launch["args"]:
        arg = passed[karg["host_index"]]
        ty = karg["type"]
        if "memref" in ty:
            if "tensor" not in arg:
                raise InputError(f"jit argument '{arg['name']}' is a tensor in the kernel but not in the entry",
                                 hint="pass a torch tensor")  # fmt: skip
            values.append(address_of(arg))
            p += 1
            shape_l, stride_l = layout_leaves(ty)
            if "?" in shape_l + stride_l:
                if p >= len(kernel_params_ty) or kernel_params_ty[p].kind != "struct":
                    raise unsupported(f"tensor layout {ty} without its struct parameter in LLVM IR")
                dyn = []
                shape, strides = list(arg["shape"]), list(arg["strides"])
                if len(shape_l) != len(shape):  # a flat layout over a tensor: one extent, unit stride
                    shape, strides = [int(_prod(shape))], [1]
                for i, leaf in enumerate(shape_l):
                    if leaf == "?":
                        dyn.append(shape[i] if i < len(shape) else 1)
                for i, leaf in enumerate(stride_l):
                    if leaf == "?":
                        dyn.append(strides[i] if i < len(strides) else 1)
                values.append(_struct_fill(kernel_params_ty[p], dyn))
                p += 1
        else:
            if "scalar" not in arg:
                raise InputError(f"jit argument '{arg['name']}' is a scalar in the kernel but not in the entry",
                                 hint="pass a Python int or float")  # fmt: skip
            values.append(arg["scalar"])
            p += 1
    if p != len(kernel_params_ty):
        raise unsupported(f"mapping the jit arguments to the kernel's {len(kernel_params_ty)} LLVM parameters "
                          f"(mapped {p})")  # fmt: skip
    return values


def _prod(xs):
    out = 1
    for x in xs:
        out *= x
    return out
