"""The one registry of frontends: name → (module, class). Imports nothing, so a CLI parser or the MCP server can
take its choices from here without loading a compiler: ``--frontend`` choices and the MCP ``frontend`` type are
derived from it, ``tools.frontends.base.get_frontend`` loads from it."""

from __future__ import annotations

from typing import Literal

FRONTENDS: dict[str, tuple[str, str]] = {
    "flydsl": ("tools.frontends.flydsl", "FlyDSLFrontend"),
    "triton": ("tools.frontends.triton", "TritonFrontend"),
    "cuda": ("tools.frontends.cuda", "CudaFrontend"),
    "hip": ("tools.frontends.hip", "HipFrontend"),
    "mojo": ("tools.frontends.mojo", "MojoFrontend"),
}
FRONTEND_NAMES: tuple[str, ...] = tuple(FRONTENDS)
FrontendName = Literal[FRONTEND_NAMES]  # type: ignore[valid-type]  # Literal["flydsl", "triton", …], for MCP schemas
# the Python kernel languages, told apart by the package a file (or a local module it imports) imports
PYTHON_FRONTENDS: tuple[str, ...] = ("flydsl", "triton")


def add_frontend_argument(parser, help_text: str = "kernel files: the language, instead of detecting it") -> None:
    """``--frontend`` on an argparse parser, with every registered frontend as a choice (each command that compiles
    takes the same option)."""
    parser.add_argument("--frontend", choices=FRONTEND_NAMES, help=help_text)
