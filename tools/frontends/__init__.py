"""Frontends: compile one kernel language for one target, keeping every stage's artifact in order."""

from tools.frontends.base import FRONTENDS, Frontend, detect_frontend, get_frontend

__all__ = ["FRONTENDS", "Frontend", "detect_frontend", "get_frontend"]
