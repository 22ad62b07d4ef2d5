"""A recorded variant folder (benchmarks/predict_data/FORMAT.md) is read only from inside the folder: every file its
meta.json names (files.json/sass/cubin/ttir/...), meta.json itself and the kernel.sass beside it. A forged meta.json
that points out (``..``, an absolute path, a symlink) is refused with the field it came from, and what lies outside
is never read, so never quoted in an error (it was: ``unknown architecture 'sm_TOPSECRET-api-key-1234'``). The
variant is a real one, recorded on an H100 (h100-2026-11-26-atomic.tgz)."""

from __future__ import annotations

import json
import os
import tarfile
from pathlib import Path

import pytest

from tools.cli import main
from tools.errors import InputError
from tools.paths import confined_to
from tools.predict.cli import predict_file

REPO = Path(__file__).resolve().parents[1]
PACK = REPO / "benchmarks" / "predict_data" / "h100-2026-11-26-atomic.tgz"
VARIANT = "pair.ho_atomic_colsum.before"
SECRET = "TOPSECRET-api-key-1234"


@pytest.fixture
def layout(tmp_path) -> tuple[Path, Path]:
    return unpack_variant(tmp_path)


def unpack_variant(tmp_path: Path) -> tuple[Path, Path]:
    """(variant folder inside the project, a folder outside it holding files whose content must never come back)."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    with tarfile.open(PACK) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(f"predict_data/{VARIANT}/")]
        tar.extractall(project, members=members, filter="data")
    outside.mkdir()
    (outside / "secret.json").write_text(json.dumps({"target": {"arch": SECRET}}))
    (outside / "secret.sass").write_text(f"{SECRET}\n")
    return project / "predict_data" / VARIANT, outside


def _meta(folder: Path) -> dict:
    return json.loads((folder / "meta.json").read_text())


def _name(folder: Path, key: str, value: str) -> None:
    """Point meta.json's launches[0].files.<key> at ``value``."""
    meta = _meta(folder)
    meta["launches"][0]["files"][key] = value
    (folder / "meta.json").write_text(json.dumps(meta))


def _predict_confined(folder: Path):
    """What the MCP server's worker runs: the engine confined to the allowed roots (here the project)."""
    with confined_to([folder.parents[1]]):
        return predict_file(folder)


def _refused(folder: Path) -> InputError:
    with pytest.raises(InputError) as err:
        _predict_confined(folder)
    text = f"{err.value.message}\n{err.value.hint}"
    assert SECRET not in text  # nothing outside was read
    return err.value


def test_the_recorded_variant_predicts_as_recorded(layout):
    folder, _ = layout
    (p,) = _predict_confined(folder).launches
    # an atomic column sum: meta.json gives 18 registers; its SASS comes from files.sass, the arch from files.json
    assert p.name == "colsum_rows_kernel" and p.bound == "atomic_contention" and p.predicted_us is not None


@pytest.mark.parametrize("key", ["json", "sass", "cubin", "ttir"])
def test_a_file_named_with_dotdot_out_of_the_folder_is_refused_with_its_field(layout, key):
    folder, _ = layout
    _name(folder, key, f"../../../outside/secret.{'sass' if key == 'sass' else 'json'}")
    err = _refused(folder)
    assert f"launches[0].files.{key} = '../../../outside/secret." in err.message
    assert "leads outside the folder" in err.message and "FORMAT.md" in err.hint


def test_a_file_named_by_absolute_path_is_refused(layout):
    folder, outside = layout
    _name(folder, "json", str(outside / "secret.json"))
    assert f"launches[0].files.json = '{outside / 'secret.json'}' is absolute" in _refused(folder).message


def test_a_named_file_that_is_a_symlink_out_of_the_folder_is_refused(layout):
    folder, outside = layout
    rel = _meta(folder)["launches"][0]["files"]["json"]
    (folder / rel).unlink()
    (folder / rel).symlink_to(outside / "secret.json")  # the name meta.json gives, now leading out
    assert f"launches[0].files.json = '{rel}' leads outside the folder" in _refused(folder).message


def test_a_named_file_inside_the_folder_reached_through_a_symlink_is_read(layout):
    folder, _ = layout
    rel = _meta(folder)["launches"][0]["files"]["sass"]
    (folder / "same.sass").symlink_to(folder / rel)
    _name(folder, "sass", "same.sass")
    (p,) = _predict_confined(folder).launches
    assert p.bound == "atomic_contention"  # the same SASS, through a link that stays inside


def test_a_meta_json_that_is_a_symlink_out_of_the_folder_is_refused(layout):
    folder, outside = layout
    forged = _meta(folder)
    forged["launches"][0]["kernel"] = SECRET
    (outside / "meta.json").write_text(json.dumps(forged))
    (folder / "meta.json").unlink()
    (folder / "meta.json").symlink_to(outside / "meta.json")
    err = _refused(folder)
    assert err.message.startswith(f"{folder / 'meta.json'} is a symlink that leads outside the variant folder")


def test_a_kernel_sass_beside_meta_json_that_leads_out_is_refused(layout):
    folder, outside = layout
    meta = _meta(folder)
    del meta["launches"][0]["files"]["sass"]  # predict then falls back to the folder's kernel.sass
    (folder / "meta.json").write_text(json.dumps(meta))
    (folder / "kernel.sass").unlink()
    (folder / "kernel.sass").symlink_to(outside / "secret.sass")
    assert "kernel.sass is a symlink that leads outside the variant folder" in _refused(folder).message


def test_the_cli_applies_the_same_rule_without_roots(layout, capsys):
    folder, outside = layout
    _name(folder, "json", os.path.relpath(outside / "secret.json", folder))
    assert main(["predict", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "error: " in err and "launches[0].files.json" in err and "hint: " in err and SECRET not in err
