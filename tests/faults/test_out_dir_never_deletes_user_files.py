"""``--out`` replaces only a directory kernelpilot wrote: user files in it are refused and kept, never deleted."""

from __future__ import annotations

import json

import pytest

from tests.conftest import EXAMPLES
from tools.cli import main
from tools.dump_ir import OUT_MARKER, dump_ir
from tools.errors import InputError


def test_out_dir_with_user_files_is_refused_and_kept(tmp_path, capsys):
    v = tmp_path / "v"
    (v / "src").mkdir(parents=True)
    (v / "result.json").write_text("{}")
    (v / "src" / "main.cu").write_text("code")
    kernel = EXAMPLES / "triton" / "vector_add.py"
    assert main(["dump-ir", str(kernel), "--arch", "gfx942", "--out", str(v)]) == 2
    err = capsys.readouterr().err
    assert "was not written by kernelpilot" in err and "Traceback" not in err
    assert (v / "src" / "main.cu").read_text() == "code"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v"]  # no temporary directory left beside it


def test_own_out_dir_is_replaced_but_added_files_are_not_deleted(tmp_path):
    kernel = EXAMPLES / "triton" / "vector_add.py"
    out = tmp_path / "dump"
    dump_ir(kernel, "gfx942", out=out)
    assert json.loads((out / OUT_MARKER).read_text())["files"]
    dump_ir(kernel, "gfx942", out=out)  # its own earlier output: replaced
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="holds files kernelpilot did not write: notes.txt"):
        dump_ir(kernel, "gfx942", out=out)
    assert (out / "notes.txt").read_text() == "mine"
    with pytest.raises(InputError, match="is a file, not a directory"):
        dump_ir(kernel, "gfx942", out=out / "notes.txt")
