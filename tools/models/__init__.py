"""Pydantic models shared by the CLI, the MCP server and the eval scorers.

One module per tool family; this package re-exports the ones every caller needs.
"""

from tools.models.dump import CompilerVersions, DumpResult, KernelDump, Resources, Stage

__all__ = ["CompilerVersions", "DumpResult", "KernelDump", "Resources", "Stage"]
