"""The LLVM IR text as llvmlite's parser (an older LLVM than the compilers') accepts it, translated line by line.

Every rewrite stays within its line, so a parse error's line number is the original's (:func:`parse_error`):
newer intrinsics parsed as external functions, ``float -inf``/``nan``/``f0x…`` spellings and decimals a type cannot
hold exactly (``splat (float -1.000000e+30)``, MLIR's export) turned into the hex spellings llvmlite reads.
"""

from __future__ import annotations

import re

import numpy as np

from tools.check.errors import UnsupportedIR


def unsupported(what: str, line: str = "") -> UnsupportedIR:
    return UnsupportedIR(what, line)


def translate(text: str) -> str:
    """``text`` as llvmlite's parser reads it."""
    return shadow_new_intrinsics(hex_float_literals(text))


# Intrinsics newer than llvmlite's LLVM: it reads ``llvm.amdgcn.raw.ptr.buffer.load.async.lds`` as the type suffix
# ``.async.lds`` of ``llvm.amdgcn.raw.ptr.buffer.load``, fails the verifier and aborts the process (LLVM ERROR, no
# exception). They are parsed as ordinary external functions (``@kpshadow.…``, without ``immarg``, which only
# intrinsics may carry) and :func:`_callee_name` gives the executor their real names back.
SHADOW = "kpshadow."
SHADOWED = ("llvm.amdgcn.raw.ptr.buffer.load.async.lds", "llvm.amdgcn.global.load.async.lds")


def shadow_new_intrinsics(text: str) -> str:
    for name in SHADOWED:
        if "@" + name + "(" not in text:
            continue
        shadow = "@" + SHADOW + name.removeprefix("llvm.") + "("
        text = text.replace("@" + name + "(", shadow)
        text = "\n".join(line.replace(" immarg", "") if line.startswith("declare") and shadow in line else line
                         for line in text.split("\n"))  # fmt: skip
    return text


_SPECIAL = re.compile(r"\b(half|bfloat|float|double) ([-+]?)(inf|nan|qnan)\b")
_SPECIAL_BITS = {
    ("half", "inf"): "0xH7C00", ("half", "-inf"): "0xHFC00", ("half", "nan"): "0xH7E00",
    ("bfloat", "inf"): "0xR7F80", ("bfloat", "-inf"): "0xRFF80", ("bfloat", "nan"): "0xR7FC0",
    ("float", "inf"): "0x7FF0000000000000", ("float", "-inf"): "0xFFF0000000000000",
    ("float", "nan"): "0x7FF8000000000000", ("double", "inf"): "0x7FF0000000000000",
    ("double", "-inf"): "0xFFF0000000000000", ("double", "nan"): "0x7FF8000000000000",
}  # fmt: skip


def hex_float_literals(text: str) -> str:
    """Newer LLVM prints ``float -inf``/``nan``; llvmlite's parser reads only the hex spelling of such constants."""

    def repl(m):
        kind = "nan" if m.group(3) != "inf" else ("-inf" if m.group(2) == "-" else "inf")
        return f"{m.group(1)} {_SPECIAL_BITS[(m.group(1), kind)]}"

    text = _SPECIAL.sub(repl, text)
    text = "\n".join(_inexact_decimals(line) if "." in line and line[:1] != "!" else line for line in text.split("\n"))
    if "phi " in text:  # a phi names its type once: `phi float [ %a, %b ], [ -inf, %c ]`
        text = _PHI_SPECIAL.sub(_phi_special, text)
    if "f0x" in text:
        text = "\n".join(_F0X.sub(lambda m, line=line: _f0x(m, line), line) if "f0x" in line else line
                         for line in text.split("\n"))  # fmt: skip
    return text


_DECIMAL = re.compile(r"(?<![\w.%@$\"-])([-+]?\d+\.\d*(?:[eE][-+]?\d+)?)(?![\w.])")
_FLOAT_TYPE = re.compile(r"\b(half|bfloat|float|double)\b")


def _inexact_decimals(line: str) -> str:
    """A decimal constant the type cannot hold exactly (``float -1.0e+30``, what MLIR's LLVM export writes) → the
    hex spelling of its value rounded to the type: llvmlite's parser refuses inexact decimals, newer LLVM rounds."""
    if '"' in line:
        return line

    def repl(m):
        kinds = _FLOAT_TYPE.findall(line[: m.start()])
        kind = kinds[-1] if kinds else "double"
        value = float(m.group(1))
        if kind == "double":
            return m.group(1)
        if kind == "float":
            rounded = float(np.float32(value))
            return m.group(1) if rounded == value else "0x" + format(int(np.float64(rounded).view(np.uint64)), "016X")
        if kind == "half":
            h = np.float16(value)
            return m.group(1) if float(h) == value else "0xH" + format(int(h.view(np.uint16)), "04X")
        b = round_bf16_bits(value)
        return m.group(1) if float(np.uint32(b << 16).view(np.float32)) == value else "0xR" + format(b, "04X")

    return _DECIMAL.sub(repl, line)


def round_bf16_bits(value: float) -> int:
    """``value`` rounded to bfloat16 (to nearest, ties to even), as its 16 bits."""
    u = int(np.float32(value).view(np.uint32))
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


_PHI_SPECIAL = re.compile(r"(= phi (?:[a-z]+ )*?(half|bfloat|float|double) )(.*)")


def _phi_special(m) -> str:
    """``[ -inf, %bb ]`` incoming values of a float phi → the hex spelling of its type."""
    ty = m.group(2)

    def repl(v):
        kind = "nan" if v.group(3) != "inf" else ("-inf" if v.group(2) == "-" else "inf")
        return f"[ {_SPECIAL_BITS[(ty, kind)]},"

    return m.group(1) + re.sub(r"\[ (([-+]?)(inf|nan|qnan)),", repl, m.group(3))


_F0X = re.compile(r"\bf0x([0-9A-Fa-f]+)\b")


def _f0x(m, line: str) -> str:
    """``f0x3FB8AA3B`` (the bits in the type's own width) → the spelling llvmlite reads."""
    digits = m.group(1)
    if len(digits) == 16:
        return "0x" + digits.upper()
    if len(digits) == 8:
        value = np.uint32(int(digits, 16)).view(np.float32)
        return "0x" + format(int(np.float64(value).view(np.uint64)), "016X")
    if len(digits) == 4:
        before = line[: m.start()]
        is_bf16 = before.rfind("bfloat") > before.rfind("half")
        return ("0xR" if is_bf16 else "0xH") + digits.upper()
    raise unsupported(f"float literal {m.group(0)}", line.strip())


def parse_error(message: str, text: str) -> UnsupportedIR:
    """llvmlite's parse error as the line it stopped at and the construct there (the line numbers of the text we
    translate are those of the original: every rewrite stays within its line)."""
    m = re.search(r"<string>:(\d+):(\d+): error: (.*)", message)
    if not m:
        return UnsupportedIR(f"LLVM IR llvmlite cannot parse: {message.strip().splitlines()[-1]}")
    lineno, col = int(m.group(1)), int(m.group(2))
    lines = text.split("\n")
    line = lines[lineno - 1] if 0 < lineno <= len(lines) else ""
    construct = line[col - 1 :].split(",")[0].strip() if line else ""
    return UnsupportedIR(f"LLVM IR line {lineno} ({m.group(3)} at '{construct}'): llvmlite cannot parse it", line)
