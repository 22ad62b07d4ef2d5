"""Which language a .py kernel file is in: read from its imports with ``ast`` (any import statement form, anywhere
in the file), following the local modules it imports (its folder, folders it puts on sys.path, PYTHONPATH) up to
three deep; and ``--frontend`` on every command that compiles, its choices taken from the one frontend registry."""

from __future__ import annotations

import argparse
import importlib
import re
from pathlib import Path

import pytest

from tools.cli import BUILTIN_COMMANDS, main
from tools.errors import InputError
from tools.frontends import detect_frontend, get_frontend
from tools.frontends.registry import FRONTEND_NAMES, FRONTENDS, LANGUAGE_OF_SUFFIX, PYTHON_FRONTENDS
from tools.inputs import SOURCE_SUFFIXES

from .test_frontend_detection_through_imports import KERNEL as WRAPPED_KERNEL

# the wrapped add_one kernel, its imports written as agents often do: both packages on one line
KERNEL = WRAPPED_KERNEL.replace(
    "import triton\nimport triton.language as tl", "import torch, triton\nfrom triton import language as tl"
)
assert KERNEL.startswith("\nimport torch, triton\n")
COMPILING_COMMANDS = ("dump-ir", "predict", "check", "vgpr-pressure", "prefetch-data-load")


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_one_import_line_naming_torch_and_triton_is_triton(tmp_path):
    # `import torch, triton` was missed by a regex that expected triton right after `import`
    assert detect_frontend(_write(tmp_path, "k.py", "import torch, triton\n")) == "triton"


def test_a_wrapper_importing_a_local_kernel_module_is_that_modules_language(tmp_path):
    _write(tmp_path, "kernel.py", KERNEL)
    assert (
        detect_frontend(
            _write(tmp_path, "wrapper.py", "import kernel\n\nkernelpilot_entry = kernel.kernelpilot_entry\n")
        )
        == "triton"
    )


def test_imports_inside_a_try_or_a_function_count(tmp_path):
    text = "try:\n    import flydsl.expr as fx\nexcept ImportError:\n    fx = None\n"
    assert detect_frontend(_write(tmp_path, "k.py", text)) == "flydsl"
    assert detect_frontend(_write(tmp_path, "f.py", "def go():\n    from triton.language import core\n")) == "triton"


def test_a_folder_the_wrapper_puts_on_sys_path_is_searched(tmp_path):
    _write(tmp_path, "lib/mykernels.py", KERNEL)
    text = (
        "import os, sys\n"
        "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'lib'))\n"
        "import mykernels\n"
    )
    # two folders below: neither its own folder nor the two above it hold mykernels.py, only the sys.path entry does
    assert detect_frontend(_write(tmp_path, "a/b/entry.py", text)) == "triton"
    text = "import sys\nfrom pathlib import Path\nsys.path.append(str(Path(__file__).resolve().parents[2] / 'lib'))\nimport mykernels\n"
    assert detect_frontend(_write(tmp_path, "c/d/entry.py", text)) == "triton"


def test_relative_imports_resolve_from_the_files_folder(tmp_path):
    _write(tmp_path, "pkg/__init__.py", "")
    _write(tmp_path, "pkg/kernels.py", KERNEL)
    assert detect_frontend(_write(tmp_path, "pkg/entry.py", "from . import kernels\n")) == "triton"
    assert detect_frontend(_write(tmp_path, "pkg/sub/entry.py", "from ..kernels import add_one\n")) == "triton"


def test_local_modules_are_followed_three_deep_and_no_further(tmp_path):
    _write(tmp_path, "m4.py", "import triton\n")
    for i in (3, 2, 1):
        _write(tmp_path, f"m{i}.py", f"import m{i + 1}\n")
    # entry → m1 → m2 → m3: m3 is three modules deep and imports m4 (which imports triton), but m4 is not read
    with pytest.raises(InputError, match=r"up to 3 deep: m1\.py, m2\.py, m3\.py\)"):
        detect_frontend(_write(tmp_path, "entry.py", "import m1\n"))
    assert detect_frontend(tmp_path / "m1.py") == "triton"  # m1 → m2 → m3 → m4: three deep


def test_the_refusal_names_what_it_followed_and_an_option_every_compiling_command_has(tmp_path):
    _write(tmp_path, "helper.py", "import math\n")
    with pytest.raises(InputError) as info:
        detect_frontend(_write(tmp_path, "entry.py", "import helper, json\n"))
    err = info.value
    assert "entry.py imports neither flydsl nor triton, nor does a local module it imports" in err.message
    assert "helper.py" in err.message
    named = re.search(r"--frontend ([\w|]+)", err.hint).group(1).split("|")
    assert named == ["flydsl", "triton"] and set(named) <= set(FRONTEND_NAMES)


def test_a_file_that_does_not_parse_says_where(tmp_path):
    with pytest.raises(InputError, match=r"k\.py does not parse as Python: line 2"):
        detect_frontend(_write(tmp_path, "k.py", "import torch\ndef broken(:\n"))


def test_a_triton_file_with_a_syntax_error_is_triton_so_the_compile_shows_the_users_line(tmp_path):
    # its import lines parse alone: dump-ir compiles it and Python's SyntaxError names the user's line
    # (test_dump_ir_errors.test_syntax_error_shows_the_users_line_not_ours)
    assert detect_frontend(_write(tmp_path, "k.py", "import torch, triton\ndef broken(:\n")) == "triton"


def test_every_registered_frontend_resolves_to_its_class():
    for name, info in FRONTENDS.items():
        assert getattr(importlib.import_module(info.module), info.cls)().name == name


def test_suffix_detection_and_source_suffixes_are_the_registry_suffixes(tmp_path):
    # each frontend's suffixes come from the registry: a file of a suffix only one language uses is that language,
    # and every suffix is a kernel source dump-ir compiles
    assert SOURCE_SUFFIXES == (".py", ".cu", ".hip", ".cpp", ".cc", ".mojo")
    for name, info in FRONTENDS.items():
        assert get_frontend(name).suffixes == info.suffixes
        assert set(info.suffixes) <= set(SOURCE_SUFFIXES)
        if name not in PYTHON_FRONTENDS:
            for suffix in info.suffixes:
                assert detect_frontend(_write(tmp_path, f"k{suffix}", "")) == name
    assert set(LANGUAGE_OF_SUFFIX) == set(SOURCE_SUFFIXES) - {".py"}


@pytest.mark.parametrize("command", COMPILING_COMMANDS)
def test_every_compiling_command_takes_frontend_with_the_registry_choices(command):
    parser = argparse.ArgumentParser()
    importlib.import_module(BUILTIN_COMMANDS[command][0]).add_arguments(parser)
    (action,) = [a for a in parser._actions if "--frontend" in a.option_strings]
    assert tuple(action.choices) == FRONTEND_NAMES == ("flydsl", "triton", "cuda", "hip", "mojo")


@pytest.mark.slow
def test_predict_compiles_a_wrapper_that_imports_the_kernel_module(tmp_path, capsys):
    # the case: predict refused this wrapper ("imports neither flydsl nor triton")
    _write(tmp_path, "kernel.py", KERNEL)
    wrapper = _write(tmp_path, "wrapper.py", "import kernel\n\nkernelpilot_entry = kernel.kernelpilot_entry\n")
    assert main(["predict", str(wrapper), "--arch", "sm_90"]) == 0
    assert "[0] add_one:" in capsys.readouterr().out


@pytest.mark.slow
def test_frontend_names_the_language_detection_cannot_see(tmp_path, capsys):
    # importlib.import_module is not an import statement: detection refuses; --frontend triton compiles it
    _write(tmp_path, "kernel.py", KERNEL)
    text = "import importlib\n\nkernelpilot_entry = importlib.import_module('kernel').kernelpilot_entry\n"
    wrapper = _write(tmp_path, "wrapper.py", text)
    assert main(["vgpr-pressure", str(wrapper), "--arch", "gfx942"]) == 2
    assert "hint: pass --frontend flydsl|triton" in capsys.readouterr().err
    assert main(["vgpr-pressure", str(wrapper), "--arch", "gfx942", "--frontend", "triton"]) == 0
    assert capsys.readouterr().out.startswith("add_one (gfx942):")
