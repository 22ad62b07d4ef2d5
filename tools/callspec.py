"""``--call 'FN(NAME=DTYPE[SHAPE], ..., NAME=VALUE)'``: the user's host function as the entry, no file edit needed.

A kernel file as users write it holds kernels and a host function (``w8a16_matmul(a, w, scale, out=None)``); the
call spec names that function and its arguments: tensors by dtype and shape (contiguous CPU tensors, zeros), scalars
as written. It is parsed with ``ast`` (never evaluated) and checked against the file's own source before anything
compiles (:func:`resolve_call`); inside a child that has imported the file it becomes the whole-call entry
``{"call": fn, "args": ..., "kwargs": ...}`` (Triton) or ``(fn, args, kwargs)`` (FlyDSL) that ``kernelpilot_entry()``
would return (:func:`entry_of`), so every launch is recorded exactly as the whole-call entry records it.

Its JSON form (:meth:`CallSpec.key`) is part of the dump and check-inputs cache keys.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from tools.errors import InputError

# the closed set of dtype names: spec name -> torch dtype attribute
DTYPES: dict[str, str] = {
    "bf16": "bfloat16",
    "fp16": "float16",
    "fp32": "float32",
    "fp64": "float64",
    "fp8e4nv": "float8_e4m3fn",
    "fp8e5": "float8_e5m2",
    "int8": "int8",
    "uint8": "uint8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "bool": "bool",
}
# torch's own names are accepted too (float16 is what `print(t.dtype)` shows)
DTYPE_ALIASES: dict[str, str] = {torch_name: name for name, torch_name in DTYPES.items() if torch_name != name}
FORM = "FN(NAME=DTYPE[SHAPE], ..., NAME=VALUE)"
EXAMPLE = "--call 'w8a16_matmul(a=bf16[16,8192], w=int8[8192,8192], scale=fp32[8192])'"
MAX_ELEMENTS = 1 << 34  # one tensor's elements: past this (16 Gi) a typo, not a kernel's shape


class TensorArg(BaseModel):
    """A contiguous CPU tensor of ``dtype`` (a :data:`DTYPES` name) and ``shape``."""

    model_config = ConfigDict(frozen=True)
    dtype: str
    shape: tuple[int, ...]

    def text(self) -> str:
        return f"{self.dtype}[{','.join(map(str, self.shape))}]" if self.shape else f"{self.dtype}[()]"


Scalar = int | float | str | bool | None


class ValueArg(BaseModel):
    """A scalar as written (int, float, string, True/False/None), or a tuple/list of them."""

    model_config = ConfigDict(frozen=True)
    value: Scalar | list[Scalar]
    is_tuple: bool = False

    def text(self) -> str:
        if isinstance(self.value, list):
            inner = ", ".join(repr(v) for v in self.value)
            return f"({inner}{',' if len(self.value) == 1 else ''})" if self.is_tuple else f"[{inner}]"
        return repr(self.value)


Arg = TensorArg | ValueArg


class CallSpec(BaseModel):
    """``fn(*args, **kwargs)`` as the user wrote it with ``--call``."""

    model_config = ConfigDict(frozen=True)
    fn: str
    args: tuple[Arg, ...] = ()
    kwargs: dict[str, Arg] = {}

    def text(self) -> str:
        """The canonical spelling (what reports and cache keys show)."""
        parts = [a.text() for a in self.args] + [f"{k}={a.text()}" for k, a in self.kwargs.items()]
        return f"{self.fn}({', '.join(parts)})"

    def key(self) -> str:
        """The JSON the compile and inputs children read, and the caches key on."""
        return self.model_dump_json()


def _bad(text: str, why: str, hint: str = "") -> InputError:
    return InputError(f"--call '{text}': {why}", hint=hint or f"write {FORM}, e.g. {EXAMPLE}")


def _dtype_hint() -> str:
    return "dtypes: " + " ".join(DTYPES) + " (torch names such as bfloat16 or float16 work too)"


def _dim(node: ast.expr, text: str, name: str) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        if node.value >= 0:
            return node.value
    raise _bad(
        text,
        f"the shape of {name} holds {ast.unparse(node)!r}; each dimension must be a non-negative integer",
        hint="e.g. a=bf16[16,8192] (a 0-d tensor: fp32[()])",
    )


def _scalar(node: ast.expr) -> tuple[bool, Scalar]:
    """(True, value) for a literal scalar (negative numbers included), else (False, None)."""
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, int | float | str | bool)):
        return True, node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        ok, v = _scalar(node.operand)
        if ok and isinstance(v, int | float) and not isinstance(v, bool):
            return True, -v if isinstance(node.op, ast.USub) else v
    return False, None


def _arg(node: ast.expr, text: str, name: str) -> Arg:
    ok, value = _scalar(node)
    if ok:
        return ValueArg(value=value)
    if isinstance(node, ast.Tuple | ast.List):
        items = [_scalar(e) for e in node.elts]
        if all(ok for ok, _ in items):
            return ValueArg(value=[v for _, v in items], is_tuple=isinstance(node, ast.Tuple))
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        dtype = DTYPE_ALIASES.get(node.value.id, node.value.id)
        if dtype not in DTYPES:
            raise _bad(text, f"unknown dtype {node.value.id!r} for {name}", hint=_dtype_hint())
        dims = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        shape = tuple(_dim(d, text, name) for d in dims)
        elements = 1
        for d in shape:
            elements *= d
        if elements > MAX_ELEMENTS:
            raise _bad(text, f"{name} would hold {elements} elements", hint="give the shape the kernel runs at")
        return TensorArg(dtype=dtype, shape=shape)
    if isinstance(node, ast.Name):
        known = DTYPE_ALIASES.get(node.id, node.id)
        if known in DTYPES:
            raise _bad(text, f"{name}={node.id} has no shape", hint=f"give one: {name}={node.id}[16,8192]")
        raise _bad(text, f"{name}={node.id} is neither a tensor (DTYPE[SHAPE]) nor a value",
                   hint=f"{_dtype_hint()}; values are numbers, True/False/None or 'strings' in quotes")  # fmt: skip
    raise _bad(
        text,
        f"{name}={ast.unparse(node)} is neither a tensor (DTYPE[SHAPE]) nor a literal value",
        hint="values are numbers, True/False/None, 'strings' in quotes, or tuples of them; nothing is evaluated",
    )


def parse_call(text: str) -> CallSpec:
    """The call spec ``text`` as a CallSpec; an InputError naming what is wrong (syntax, dtype, shape, value)."""
    text = str(text).strip()
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise _bad(text, f"not a call ({exc.msg})") from None
    call = tree.body
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        raise _bad(text, "not a call of a function by its name")
    args = []
    for i, node in enumerate(call.args):
        if isinstance(node, ast.Starred):
            raise _bad(text, "*args cannot be given", hint="name each argument: NAME=DTYPE[SHAPE] or NAME=VALUE")
        args.append(_arg(node, text, f"argument {i + 1}"))
    kwargs: dict[str, Arg] = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise _bad(text, "**kwargs cannot be given", hint="name each argument: NAME=DTYPE[SHAPE] or NAME=VALUE")
        if kw.arg in kwargs:
            raise _bad(text, f"{kw.arg} is given twice")
        kwargs[kw.arg] = _arg(kw.value, text, kw.arg)
    return CallSpec(fn=call.func.id, args=tuple(args), kwargs=kwargs)


def _is_kernel(node: ast.FunctionDef) -> bool:
    """A ``@triton.jit`` (``@jit``, ``@triton.autotune(...)``, ``@triton.heuristics(...)``) or ``@flyc.kernel``
    function: a kernel, not the host function that launches it (FlyDSL's ``@flyc.jit`` is a host function)."""
    for d in node.decorator_list:
        name = ast.unparse(d.func if isinstance(d, ast.Call) else d)
        last, flydsl = name.split(".")[-1], "flyc" in name or "flydsl" in name
        if (last in ("jit", "autotune", "heuristics") and not flydsl) or (last == "kernel" and flydsl):
            return True
    return False


def _top_level(tree: ast.Module) -> tuple[dict[str, ast.AST], list[str]]:
    """Names bound at the file's top level (def, class, assignment, import) and its host functions' names."""
    bound: dict[str, ast.AST] = {}
    hosts = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            bound[node.name] = node
            if not _is_kernel(node) and not node.name.startswith("kernelpilot_"):
                hosts.append(node.name)
        elif isinstance(node, ast.ClassDef):
            bound[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(t, ast.Name):
                    bound[t.id] = node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                bound[(alias.asname or alias.name).split(".")[0]] = node
    return bound, hosts


def _check_signature(spec: CallSpec, node: ast.FunctionDef, path: Path) -> None:
    a = node.args
    positional = [p.arg for p in a.posonlyargs + a.args]
    names = positional + [p.arg for p in a.kwonlyargs]
    shown = f"{spec.fn}({', '.join(names)})"
    if len(spec.args) > len(positional) and a.vararg is None:
        raise _bad(spec.text(), f"{len(spec.args)} positional arguments, but {shown} in {path.name} takes "
                   f"{len(positional)}", hint=f"name the arguments: {shown}")  # fmt: skip
    given_positionally = positional[: len(spec.args)]
    for k in spec.kwargs:
        if k in given_positionally:
            raise _bad(spec.text(), f"{k} is given twice (by position and by name)", hint=f"{shown}")
        if k not in names and a.kwarg is None:
            raise _bad(spec.text(), f"{spec.fn}() in {path.name} takes no argument {k!r}",
                       hint=f"its parameters: {shown}")  # fmt: skip
    defaults = len(a.defaults)
    required = [p for p in positional[: len(positional) - defaults] if p not in given_positionally]
    required += [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is None]
    missing = [p for p in required if p not in spec.kwargs]
    if missing:
        raise _bad(spec.text(), f"{spec.fn}() in {path.name} needs {', '.join(missing)} too",
                   hint=f"its parameters: {shown}")  # fmt: skip


def resolve_call(call: str | CallSpec | None, path: str | Path | None = None) -> CallSpec | None:
    """``call`` (the user's text, a CallSpec or its JSON key) parsed and, with ``path``, checked against the file before anything compiles: ``FN`` is a function
    the file defines at top level (or imports), not a kernel, and takes the arguments given. InputError otherwise,
    its hint naming the file's host functions or FN's parameters."""
    if call is None or call == "":
        return None
    if isinstance(call, CallSpec):
        spec = call
    elif str(call).lstrip().startswith("{"):  # the JSON form (CallSpec.key) one tool hands another
        spec = CallSpec.model_validate_json(call)
    else:
        spec = parse_call(call)
    if path is None:
        return spec
    path = Path(path)
    try:
        tree = ast.parse(path.read_text(errors="replace"), str(path))
    except (OSError, SyntaxError, ValueError):
        return spec  # the compile child reports the file's own error, with its traceback
    bound, hosts = _top_level(tree)
    offer = f"host functions in {path.name}: {', '.join(hosts)}" if hosts else f"{path.name} defines no host function"
    node = bound.get(spec.fn)
    if node is None:
        raise _bad(spec.text(), f"{path.name} defines no function {spec.fn!r}", hint=offer)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        if _is_kernel(node):
            raise _bad(spec.text(), f"{spec.fn} is a kernel; --call takes the host function that launches it",
                       hint=offer)  # fmt: skip
        _check_signature(spec, node, path)
    return spec


# ------------------------------------------------------------------------------------------------ inside the child
def _value(arg: dict, torch) -> Any:
    if "dtype" in arg:
        return torch.zeros(tuple(arg["shape"]), dtype=getattr(torch, DTYPES[arg["dtype"]]))
    value = arg["value"]
    return tuple(value) if arg.get("is_tuple") else value


def entry_of(module, call_json: str, frontend: str):
    """The entry ``kernelpilot_entry()`` would return for the call spec (its :meth:`CallSpec.key` JSON), built
    in the child that imported ``module``: the whole-call form for Triton, ``(fn, args, kwargs)`` for FlyDSL.
    A ``LookupError`` when the module has no such function at run time."""
    import torch

    spec = json.loads(call_json)
    fn = getattr(module, spec["fn"], None)
    if not callable(fn):
        raise LookupError(f"--call names {spec['fn']}(), which {module.__name__} does not define once imported")
    args = tuple(_value(a, torch) for a in spec["args"])
    kwargs = {k: _value(a, torch) for k, a in spec["kwargs"].items()}
    if frontend == "flydsl":
        return fn, args, kwargs
    return {"call": fn, "args": args, "kwargs": kwargs}


def add_call_argument(parser) -> None:
    """``--call`` on a command that compiles kernel files (dump-ir, predict, check, vgpr-pressure, prefetch)."""
    parser.add_argument(
        "--call",
        metavar="'FN(NAME=DTYPE[SHAPE], ...)'",
        help="run the file's host function FN with CPU tensors of these dtypes and shapes (bf16 fp16 fp32 fp64 "
        "fp8e4nv fp8e5 int8 uint8 int16 int32 int64 bool) and these values, recording every kernel launch; no "
        "kernelpilot_entry() needed (--call wins over one)",
    )
