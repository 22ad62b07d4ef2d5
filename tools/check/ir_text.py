"""The LLVM IR text as llvmlite's parser (an older LLVM than the compilers') accepts it, translated line by line.

Every rewrite stays within its line, so a parse error's line number is the original's (:func:`parse_error`):
newer intrinsics parsed as external functions; special values (``float -inf``, ``bfloat +nan(0x3F)``, ``half +qnan``,
``-snan(0x1)``, MLIR's bare ``nan``), ``f0x…`` spellings and decimals a type cannot hold exactly
(``splat (float -1.000000e+30)``, MLIR's export) turned into the hex spellings llvmlite reads.
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


# Special values as LLVM prints them: ``+inf``/``-inf``, ``+qnan`` (the default quiet NaN), ``+nan(0x3F)`` (a quiet
# NaN with that payload: Triton's bf16 NaN 0x7FFF is ``bfloat +nan(0x3F)``), ``-snan(0x1)`` (signalling), and the
# bare ``inf``/``nan``/``qnan`` of MLIR's export; wherever they stand (``bfloat +nan(0x3F)``, ``splat (…)``, a phi's
# ``[ -inf, %5 ]``, ``fcmp ogt float %x, -inf``): the type is the last float type named before them on the line.
_SPECIAL_VALUE = re.compile(r"(?<![\w.%@$\"-])([-+]?)(inf|qnan|nan|snan)(?:\(0x([0-9A-Fa-f]+)\))?(?![\w.(])")
_NOFPCLASS = re.compile(r"nofpclass\([^)]*\)")
# exponent and mantissa bits of each float format, and how LLVM spells a constant of it in hex
_FORMAT_BITS = {"half": (5, 10), "bfloat": (8, 7), "float": (8, 23), "double": (11, 52)}


def special_float_bits(kind: str, sign: str, name: str, payload: int = 0) -> int:
    """The bits of ``[sign]name[(payload)]`` in float format ``kind``: ``inf``; ``qnan``/``nan`` a quiet NaN (quiet
    bit set, ``payload`` in the bits below it); ``snan`` a signalling NaN (quiet bit clear, ``payload`` nonzero)."""
    exp, man = _FORMAT_BITS[kind]
    if name == "inf":
        mantissa = 0
    elif name == "snan":
        mantissa = payload or 1
    else:
        mantissa = 1 << (man - 1) | payload
    if mantissa >> man:
        raise unsupported(f"{kind} NaN payload 0x{payload:X}", f"{sign}{name}(0x{payload:X})")
    return (sign == "-") << (exp + man) | ((1 << exp) - 1) << man | mantissa


def hex_spelling(kind: str, bits: int) -> str:
    """The hex constant llvmlite reads for the bits of an infinity or NaN of ``kind``: ``0xH…`` (half), ``0xR…``
    (bfloat), and for float and double the 64 bits of the double with that value (a float's NaN payload moves up
    into the double's mantissa, as LLVM's own printer writes it)."""
    if kind == "half":
        return f"0xH{bits:04X}"
    if kind == "bfloat":
        return f"0xR{bits:04X}"
    if kind == "float":
        bits = (bits >> 31) << 63 | 0x7FF << 52 | (bits & 0x7FFFFF) << 29
    return f"0x{bits:016X}"


def _special_values(line: str) -> str:
    """Every special-value token of one line in the hex spelling of its type (nofpclass(...) attributes left as
    they are)."""
    if '"' in line or line[:1] == "!":
        return line
    protected = [(m.start(), m.end()) for m in _NOFPCLASS.finditer(line)]

    def repl(m):
        if any(a <= m.start() < b for a, b in protected):
            return m.group(0)
        kinds = _FLOAT_TYPE.findall(line[: m.start()])
        if not kinds:
            return m.group(0)
        kind = kinds[-1]
        bits = special_float_bits(kind, m.group(1), m.group(2), int(m.group(3), 16) if m.group(3) else 0)
        return hex_spelling(kind, bits)

    return _SPECIAL_VALUE.sub(repl, line)


def hex_float_literals(text: str) -> str:
    """Newer LLVM prints ``float -inf``, ``bfloat +nan(0x3F)``, ``half +qnan``…; llvmlite's parser reads only the hex
    spelling of such constants. Decimals a type cannot hold exactly and ``f0x…`` bits are rewritten too."""
    text = "\n".join(_special_values(line) if _SPECIAL_HINT.search(line) else line for line in text.split("\n"))
    text = "\n".join(_inexact_decimals(line) if "." in line and line[:1] != "!" else line for line in text.split("\n"))
    if "f0x" in text:
        text = "\n".join(_F0X.sub(lambda m, line=line: _f0x(m, line), line) if "f0x" in line else line
                         for line in text.split("\n"))  # fmt: skip
    return text


_SPECIAL_HINT = re.compile(r"inf|nan")  # a cheap test before the full pattern


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
