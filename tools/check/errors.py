"""check's own error type: IR the CPU engine does not run. Told apart by type, never by the text of a message."""

from __future__ import annotations

from tools.errors import InputError


class UnsupportedIR(InputError):
    """An instruction, intrinsic or construct check does not model: the verdict is ``undetermined``, never a guess.

    ``what`` names the construct (``intrinsic llvm.amdgcn.s.getpc``, ``inline asm "v_add_u32 $0, $1, $2"``) and
    ``instruction`` is the LLVM IR line it came from (empty when there is none, e.g. a type or a launch form).
    """

    def __init__(self, what: str, instruction: str = "") -> None:
        self.what = what
        self.instruction = instruction.split(", !dbg")[0].strip()
        where = f" (at {self.instruction})" if self.instruction else ""
        super().__init__(
            f"unsupported in check: {what}{where}",
            hint="kernelpilot check models the intrinsics and opcodes its README lists; for Triton files try "
            "--engine interpreter, else compare on a GPU (or file an issue with the IR line above)",
        )
