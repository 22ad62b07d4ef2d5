"""Frontends: compile one language for one target, keeping every stage's artifact in order.

The package itself imports nothing: the compile child (``python -m tools.frontends._pyrunner``) starts inside it,
and pydantic/yaml imports there would only slow every compile down.
"""

from __future__ import annotations

import importlib

__all__ = ["FRONTENDS", "Frontend", "detect_frontend", "get_frontend"]


def __getattr__(name: str):
    if name in __all__:
        return getattr(importlib.import_module("tools.frontends.base"), name)
    raise AttributeError(name)
