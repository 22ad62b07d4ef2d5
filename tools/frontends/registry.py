"""The one registry of frontends: name → where its class lives and which file suffixes are its language. Imports
nothing, so a CLI parser, the MCP server or the eval task schema can take the set from here without loading a
compiler: ``--frontend`` choices, the MCP ``frontend`` type, ``TaskSpec.language``, suffix detection
(:data:`LANGUAGE_OF_SUFFIX`) and ``tools.inputs.SOURCE_SUFFIXES`` are derived from it, and
``tools.frontends.base.get_frontend`` loads from it."""

from __future__ import annotations

from typing import Literal, NamedTuple


class FrontendInfo(NamedTuple):
    module: str  # the module holding the Frontend subclass, imported only when the frontend is used
    cls: str  # the class's name in it
    suffixes: tuple[str, ...]  # kernel files of this language, by suffix (lower case)
    python: bool = False  # a Python kernel language: a .py file is this one when it imports the package of that name


FRONTENDS: dict[str, FrontendInfo] = {
    "flydsl": FrontendInfo("tools.frontends.flydsl", "FlyDSLFrontend", (".py",), python=True),
    "triton": FrontendInfo("tools.frontends.triton", "TritonFrontend", (".py",), python=True),
    "cuda": FrontendInfo("tools.frontends.cuda", "CudaFrontend", (".cu",)),
    "hip": FrontendInfo("tools.frontends.hip", "HipFrontend", (".hip", ".cpp", ".cc")),
    "mojo": FrontendInfo("tools.frontends.mojo", "MojoFrontend", (".mojo",)),
}
FRONTEND_NAMES: tuple[str, ...] = tuple(FRONTENDS)
FrontendName = Literal[FRONTEND_NAMES]  # type: ignore[valid-type]  # Literal["flydsl", "triton", …], for MCP schemas
# the Python kernel languages, told apart by the package a file (or a local module it imports) imports
PYTHON_FRONTENDS: tuple[str, ...] = tuple(name for name, info in FRONTENDS.items() if info.python)
# suffix → kernel language, for the suffixes only one language uses; a .py file is FlyDSL or Triton by what it imports
LANGUAGE_OF_SUFFIX: dict[str, str] = {
    suffix: name for name, info in FRONTENDS.items() if not info.python for suffix in info.suffixes
}
# every kernel-source suffix, in registry order: the files dump-ir compiles
SOURCE_SUFFIXES: tuple[str, ...] = tuple(dict.fromkeys(s for info in FRONTENDS.values() for s in info.suffixes))


def add_frontend_argument(parser, help_text: str = "kernel files: the language, instead of detecting it") -> None:
    """``--frontend`` on an argparse parser, with every registered frontend as a choice (each command that compiles
    takes the same option)."""
    parser.add_argument("--frontend", choices=FRONTEND_NAMES, help=help_text)
