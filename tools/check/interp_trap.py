"""The interpreter engine's bf16 trap: Triton's interpreter (``TRITON_INTERPRET=1``, seen on Triton 3.9) computes
bf16 conversions and bf16 ``tl.dot`` wrongly (an int8 -> bf16 cast is a bit reinterpretation; a 16x16 dot of bf16
ones gives 4.2e9), so two files that both use them would be compared on two wrong results. A kernel whose TTIR has a
bf16 operand in ``tt.dot`` or a conversion to or from bf16 gets no verdict from that engine; the llvm engine runs
the compiled IR instead.
"""

from __future__ import annotations

import re
from pathlib import Path

from tools.errors import CompileError

# the TTIR operations whose bf16 form the interpreter gets wrong: dots and every conversion to or from bf16
_OPS = ("tt.dot", "tt.dot_scaled", "tt.fp_to_fp", "arith.truncf", "arith.extf", "arith.sitofp", "arith.uitofp",
        "arith.fptosi", "arith.fptoui")  # fmt: skip
_OP_LINE = re.compile(r"=\s*(" + "|".join(re.escape(o) for o in _OPS) + r")\b(.*)$")
_LOC = re.compile(r'loc\("([^"]+)":(\d+):\d+\)')


def bf16_uses(ttir: str) -> list[str]:
    """Each bf16 dot or conversion of one kernel's TTIR as ``op (types) at file:line`` (first per source line)."""
    locs = dict(re.findall(r"^#(loc\d+) = (loc\(.+\))$", ttir, flags=re.M))
    found, seen = [], set()
    for line in ttir.splitlines():
        m = _OP_LINE.search(line.split(" loc(")[0])
        if not m or "bf16" not in m.group(2):
            continue
        types = m.group(2).rsplit(":", 1)[-1].strip()
        ref = re.search(r"loc\(#(loc\d+)\)\s*$", line)
        at = _where(ref.group(1) if ref else None, locs)
        if (m.group(1), at) not in seen:
            seen.add((m.group(1), at))
            found.append(f"{m.group(1)} ({types}) at {at}")
    return found


def _where(name: str | None, locs: dict[str, str]) -> str:
    """``file:line`` of a TTIR location alias, through named locations (``loc("acc"(#loc1))``)."""
    for _ in range(8):
        text = locs.get(name or "", "")
        m = _LOC.search(text)
        if m:
            return f"{Path(m.group(1)).name}:{m.group(2)}"
        inner = re.search(r"#(loc\d+)", text)
        if inner is None:
            break
        name = inner.group(1)
    return "?"


def bf16_trap(paths: list[Path], arch: str, timeout: float, frontend: str, call: str | None,
              use_cache: bool = True) -> str | None:  # fmt: skip
    """Why the interpreter engine gives no verdict on these files (None: no bf16 dot or conversion in any kernel):
    each file is compiled (dump-ir, ``arch`` an AMD target) and every kernel's TTIR read."""
    from tools.dump_ir import dump_ir

    uses = []
    for path in dict.fromkeys(paths):  # BEFORE and AFTER may be one file
        try:
            result = dump_ir(path, arch, frontend=frontend, timeout=timeout, use_cache=use_cache, call=call)
        except CompileError as exc:  # no TTIR to read (e.g. PTX inline asm the AMD build rejects): read the source
            if re.search(r"\bbfloat16\b|\bbf16\b", path.read_text(errors="replace")):
                uses.append(f"{path.name}: names bfloat16, and its TTIR could not be built to tell where "
                            f"({exc.message.splitlines()[0]})")  # fmt: skip
            continue
        for k in result.kernels:
            ttir = next((Path(s.path) for s in k.stages if s.name == "ttir"), None)
            if ttir is not None and ttir.exists():
                uses += [f"{path.name} {k.name}: {u}" for u in bf16_uses(ttir.read_text())]
    if not uses:
        return None
    shown = "; ".join(uses[:4]) + (f"; and {len(uses) - 4} more" if len(uses) > 4 else "")
    return (
        "the interpreter engine computes bf16 conversions and bf16 tl.dot wrongly (Triton's TRITON_INTERPRET=1: "
        "int8 -> bf16 is a bit reinterpretation, a dot of bf16 ones is off by orders of magnitude), and this result "
        f"depends on them: {shown}; run `kernelpilot check --engine llvm` (the default), which runs the compiled IR"
    )
