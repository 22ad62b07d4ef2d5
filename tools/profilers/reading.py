"""What every profiler reader shares: opening a file safely, typed cells that name their file/line/field when they
are wrong, and a guard that turns any parse problem a reader did not foresee into an ``InputError`` naming the file.

A reader's promise: a report, or ``error:``/``hint:`` — never a traceback, whatever the bytes on disk.
"""

from __future__ import annotations

import functools
import math
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from tools.errors import InputError, KernelpilotError

T = TypeVar("T")
# Parse failures a malformed file can provoke in Python code that assumed a shape (wrong type, missing key, ...).
PARSE_ERRORS = (ValueError, TypeError, KeyError, AttributeError, IndexError, OverflowError, RecursionError)


def regular_file(path: Path, what: str) -> Path:
    """``path`` when it is a regular file we may read; an InputError for a directory, a FIFO/device, no access."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise InputError(f"{path} does not exist", hint=f"pass the path of a {what}") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}", hint="check the path and its permissions") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{path} is a directory, not a {what}", hint=f"pass the {what} file inside it")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(
            f"{path} is not a regular file (a FIFO, socket or device)", hint=f"pass the {what} file itself"
        )
    try:
        with path.open("rb"):
            pass
    except PermissionError:
        raise InputError(
            f"cannot read {path}: permission denied", hint=f"make it readable (chmod u+r {path}) or copy it"
        ) from None
    return path


def read_text(path: Path, what: str) -> str:
    """The text of a regular file (undecodable bytes replaced); InputError as ``regular_file`` says."""
    regular_file(path, what)
    try:
        return path.read_text(errors="replace")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}", hint="check the file") from None


def as_int(value: object, where: str, field: str) -> int | None:
    """An integer cell or JSON value: '' / None -> None; '12', '12.0', 12 -> 12; anything else an InputError."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise InputError(f"{where}: {field} is {value!r}, not a number", hint="the file may be damaged or edited")
    if isinstance(value, int):
        return value
    number = as_float(value, where, field)
    if number is None:
        return None
    if not number.is_integer():
        raise InputError(f"{where}: {field} is {value!r}, not an integer", hint="the file may be damaged or edited")
    return int(number)


def as_float(value: object, where: str, field: str) -> float | None:
    """A finite number, or None for an empty cell; 'abc', '1e999', 'nan', a list… are an InputError."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise InputError(
            f"{where}: {field} is {type(value).__name__} {str(value)[:40]!r}, not a number",
            hint="the file may be damaged or edited",
        )
    try:
        number = float(value)
    except (ValueError, OverflowError):
        raise InputError(
            f"{where}: {field} is {str(value)[:40]!r}, not a number", hint="the file may be damaged or edited"
        ) from None
    if not math.isfinite(number):
        raise InputError(
            f"{where}: {field} is {str(value)[:40]!r}, not a finite number", hint="the file may be damaged or edited"
        )
    return number


def as_dict(value: object, where: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(
            f"{where} is a JSON {json_type(value)}, expected an object", hint="the file may be damaged or edited"
        )
    return value


def as_list(value: object, where: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(
            f"{where} is a JSON {json_type(value)}, expected a list", hint="the file may be damaged or edited"
        )
    return value


def json_type(value: object) -> str:
    """The JSON name of a decoded value's type: object, list, string, number, boolean, null."""
    names = {dict: "object", list: "list", str: "string", bool: "boolean", int: "number", float: "number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def guarded(what: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Wrap a reader ``fn(path, ...)``: OS errors and unforeseen parse errors become an InputError naming the file."""

    def wrap(fn: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(fn)
        def reader(path: Path, *args, **kwargs) -> T:
            try:
                return fn(path, *args, **kwargs)
            except KernelpilotError:
                raise
            except PermissionError:
                raise InputError(
                    f"cannot read {path}: permission denied", hint="make the file (and its directory) readable"
                ) from None
            except OSError as exc:
                raise InputError(f"cannot read {path}: {exc.strerror or exc}", hint=f"pass a readable {what}") from None
            except PARSE_ERRORS as exc:
                detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
                raise InputError(
                    f"{path}: malformed {what} ({type(exc).__name__}{': ' + detail if detail else ''})",
                    hint=f"the file does not have the shape a {what} has; regenerate it with the profiler",
                ) from None

        return reader

    return wrap
