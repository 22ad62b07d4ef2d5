"""The generated validation corpus (issue 31 item 3): every ``fam_*.py`` family's problems x designs.

A variant is ``gen.<family>.<problem>.<design>``; its pairs are every two designs of one problem
(``design->design``). Pure enumeration: importing a family module builds no tensors."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

DIR = Path(__file__).resolve().parent


def family_files(folder: Path = DIR) -> list[Path]:
    return sorted(folder.glob("fam_*.py"))


def load(path: Path, name: str | None = None):
    """Import a family file under ``name`` (a fresh module per name: its @triton.jit functions are its own)."""
    name = name or f"kp_gen_{path.stem}"
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(path.parent))


def enumerate_gen(folder: Path = DIR) -> list[tuple[str, str, str, Path]]:
    """(family, problem, design, file) of every generated variant, in file, problem, design order."""
    out = []
    for path in family_files(folder):
        mod = load(path)
        for problem, params in mod.PROBLEMS.items():
            for design in mod.designs(params):
                out.append((mod.FAMILY, problem, design, path))
    return out


def build(path: Path, problem: str, design: str, device, name: str | None = None):
    """The ``Built`` of one variant (gen_common.Built), its family module imported under ``name``."""
    mod = load(path, name)
    params = mod.PROBLEMS[problem]
    return mod.build(params, mod.designs(params)[design], device)
