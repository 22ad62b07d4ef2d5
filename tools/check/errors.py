"""check's own error types: IR the CPU engine does not run, and a call past its --timeout. Told apart by type, never by
the text of a message."""

from __future__ import annotations

import time

from tools.errors import InputError, KernelpilotError


class UnsupportedIR(InputError):
    """An instruction, intrinsic or construct check does not model: the verdict is ``undetermined``, never a guess.

    ``what`` names the construct (``intrinsic llvm.amdgcn.s.getpc``, ``inline asm "v_add_u32 $0, $1, $2"``) and
    ``instruction`` is the LLVM IR line it came from (empty when there is none, e.g. a type or a launch form).
    """

    def __init__(self, what: str, instruction: str = "") -> None:
        self.what = what
        self.instruction = instruction.split(", !dbg")[0].strip()
        self.location = ""  # the kernel source line the instruction came from, when the engine reached it
        where = f" (at {self.instruction})" if self.instruction else ""
        super().__init__(
            f"unsupported in check: {what}{where}",
            hint="kernelpilot check models the intrinsics and opcodes its README lists; for Triton files try "
            "--engine interpreter, else compare on a GPU (or file an issue with the IR line above)",
        )

    def record_fields(self) -> dict:
        """What crosses a process boundary (tools.childproc): the construct, its IR line and its source line."""
        return {"what": self.what, "instruction": self.instruction, "location": self.location}

    @classmethod
    def from_record(cls, fields: dict, message: str) -> UnsupportedIR:
        exc = cls(str(fields.get("what") or message), str(fields.get("instruction") or ""))
        exc.location = str(fields.get("location") or "")
        return exc

    @property
    def verdict_reason(self) -> str:
        """What a check report says: ``undetermined: <construct> (at <instruction>, <source line>)``."""
        where = ", ".join(x for x in (self.instruction, self.location) if x and x != "(no debug location)")
        return f"undetermined: check does not run {self.what}" + (f" (at {where})" if where else "")


class CheckTimeout(KernelpilotError):
    """check ran past its --timeout (the child running then was killed with its process group)."""


def deadline(timeout: float):
    """A function returning the seconds left of ``timeout`` (one budget for the whole call), or raising
    CheckTimeout once none are left."""
    end = time.monotonic() + timeout

    def left() -> float:
        rest = end - time.monotonic()
        if rest <= 0:
            raise CheckTimeout(
                f"check ran past its --timeout of {timeout:g}s", hint="raise `kernelpilot check --timeout`"
            )
        return rest

    return left
