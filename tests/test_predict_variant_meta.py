"""A damaged or forged variant folder's meta.json is an error naming the file and the field (exit 2, at once), never
a traceback, a hang or a prediction from figures no GPU ran; every meta.json the validation recorded_variant still reads."""

from __future__ import annotations

import json
import shutil
import tarfile
import time
from pathlib import Path

import pytest

from tools.cli import main
from tools.predict.artifacts import read_variant

REPO = Path(__file__).resolve().parents[1]
PACKS = sorted((REPO / "benchmarks" / "predict_data").glob("*.tgz"))


def _launch(meta: dict) -> dict:
    return meta["launches"][0]


# (what is damaged, how, the field the error names)
DAMAGE = [
    ("cut-off JSON", lambda text, meta: text[: len(text) // 2], "is not valid JSON"),
    ("a list at the top level", lambda text, meta: json.dumps([meta]), "the top level is a JSON list, not an object"),
    (
        "launches a string",
        lambda text, meta: {**meta, "launches": "all of them"},
        "launches: Input should be a valid list",
    ),
    (
        "a string grid",
        lambda text, meta: _set(meta, "grid", ["33", "1", "1"]),
        "launches[0].grid[0]: Input should be a valid integer",
    ),
    (
        "a NaN scalar",
        lambda text, meta: _arg(meta, 1, value=float("nan")),
        "launches[0].args[1].value: should be a finite number",
    ),
    (
        "an argument without a name",
        lambda text, meta: _arg(meta, 0, name=None),
        "launches[0].args[0].name: Field required",
    ),
    (
        "a negative grid",
        lambda text, meta: _set(meta, "grid", [-33, 1, 1]),
        "launches[0].grid[0]: Input should be greater than or equal to 1",
    ),
    (
        "a zero grid",
        lambda text, meta: _set(meta, "grid", [0, 1, 1]),
        "launches[0].grid[0]: Input should be greater than or equal to 1",
    ),
    (
        "a grid of 10**30",
        lambda text, meta: _set(meta, "grid", [10**30, 1, 1]),
        "launches[0].grid[0]: Input should be less than or equal to 2147483647",
    ),
    (
        "a zero block",
        lambda text, meta: _set(meta, "block", [0, 1, 1]),
        "launches[0].block[0]: Input should be greater than or equal to 1",
    ),
    (
        "a block of 2048 threads",
        lambda text, meta: _set(meta, "block", [128, 16, 1]),
        "block [128, 16, 1] is 2048 threads",
    ),
    (
        "negative registers",
        lambda text, meta: _set(meta, "registers", -26),
        "launches[0].registers: Input should be greater than or equal to 1",
    ),
    (
        "negative shared memory",
        lambda text, meta: _set(meta, "shared", -1),
        "launches[0].shared: Input should be greater than or equal to 0",
    ),
    (
        "a negative tensor size",
        lambda text, meta: _arg(meta, 0, nbytes=-51200),
        "launches[0].args[0].nbytes: Input should be greater than or equal to 1",
    ),
    (
        "a zero tensor size",
        lambda text, meta: _arg(meta, 0, nbytes=0),
        "launches[0].args[0].nbytes: Input should be greater than or equal to 1",
    ),
    (
        "20000 launches",
        lambda text, meta: {**meta, "launches": [{"kernel": "k", "grid": [1]}] * 20000},
        "launches: List should have at most 1024 items",
    ),
    (
        "a 100 kB kernel name",
        lambda text, meta: _set(meta, "kernel", "k" * 100_000),
        "launches[0].kernel: String should have at most 4096 characters",
    ),
]


def _set(meta: dict, key: str, value) -> dict:
    _launch(meta)[key] = value
    return meta


def _arg(meta: dict, index: int, **fields) -> dict:
    arg = _launch(meta)["args"][index]
    for key, value in fields.items():
        if value is None:
            arg.pop(key)
        else:
            arg[key] = value
    return meta


@pytest.mark.parametrize(("damage", "edit", "expected"), DAMAGE, ids=[d[0] for d in DAMAGE])
def test_a_damaged_meta_json_is_an_error_naming_the_file_and_field(
    recorded_variant, tmp_path, capsys, damage, edit, expected
):
    folder = tmp_path / "variant"
    shutil.copytree(recorded_variant, folder)
    text = (folder / "meta.json").read_text()
    got = edit(text, json.loads(text))
    (folder / "meta.json").write_text(got if isinstance(got, str) else json.dumps(got))
    t0 = time.monotonic()
    code = main(["predict", str(folder)])
    seconds = time.monotonic() - t0
    err = capsys.readouterr().err
    assert code == 2, err
    first = err.splitlines()[0]
    assert first.startswith(f"error: {folder / 'meta.json'}") and expected in first, err
    assert "\nhint: see benchmarks/predict_data/FORMAT.md" in err and "Traceback" not in err
    assert len(err) < 2000 and seconds < 5, (len(err), seconds)  # no 100 kB name echoed back; no hang


def test_every_recorded_variant_meta_json_is_valid(tmp_path):
    # every variant folder of every pack in benchmarks/predict_data (its manifest lists them: 279 before the generated
    # corpus of 2026-12-02, whose loaded lengths and families the newer ones carry) reads as valid
    import json

    from tools.predict.variant_meta import load_meta

    count = listed = 0
    for pack in PACKS:
        with tarfile.open(pack) as tar:
            metas = [m for m in tar.getmembers() if m.name.endswith("/meta.json")]
            manifest = next(m for m in tar.getmembers() if m.name.endswith("manifest.json"))
            listed += len(json.load(tar.extractfile(manifest))["variants"])
            tar.extractall(tmp_path / pack.stem, members=metas, filter="data")
        for meta in metas:
            load_meta((tmp_path / pack.stem / meta.name).parent)
            count += 1
    assert count == listed and count >= 279 + 689, (count, listed)


def test_the_recorded_variant_variant_itself_reads(recorded_variant):
    (k,) = read_variant(recorded_variant)
    assert (k.name, k.launch.grid, k.launch.block_threads) == ("axpy_persistent_kernel", [33, 1, 1], 128)
