"""dump-ir: compile a kernel and keep every IR stage, the final ISA and the binary (public API)."""

from tools.dump_ir.cli import format_table
from tools.dump_ir.dump import OUT_MARKER, check_source, dump_ir, dump_ir_command

__all__ = ["OUT_MARKER", "check_source", "dump_ir", "dump_ir_command", "format_table"]
