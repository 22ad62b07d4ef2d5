"""The dump-ir cache is keyed by what a compile reads, not by the folder it sits in (the eval harness
scores every candidate from a fresh temp dir, and a path-keyed cache never hit there).

A kernel file's compile reads the file, the helpers it imports from beside it (Python puts the kernel's folder first
on sys.path) and the packages below it; all of them are in the key, the folder's path is not. The artifacts name the
folder (``.file``, ``DIFile``, ``loc(...)``), so a hit from another folder is a copy with those names rewritten.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools.cache import folder_pattern, source_folder
from tools.dump_ir import dump_ir

REPO = Path(__file__).resolve().parents[1]

HELPER = """
import triton


@triton.jit
def scaled(x):
    return x * {factor}
"""

KERNEL = """
import torch
import triton
import triton.language as tl
from helper import scaled


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, scaled(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)


def kernelpilot_entry():
    x = torch.randn(1024)
    return {"kernel": scale_kernel, "args": (x, torch.empty_like(x), 1024), "kwargs": {"BLOCK": 256}, "grid": (4,)}
"""


def kernel_folder(folder: Path, factor: str = "3.0") -> Path:
    folder.mkdir(parents=True)
    (folder / "helper.py").write_text(HELPER.format(factor=factor))
    (folder / "kernel.py").write_text(KERNEL)
    return folder / "kernel.py"


@pytest.mark.slow
def test_the_same_kernel_in_another_folder_is_a_hit_whose_artifacts_name_that_folder(tmp_path):
    first = dump_ir(kernel_folder(tmp_path / "a"), "gfx942")
    # a longer folder name: the rewritten text artifacts change size, and the stage sizes follow
    second = dump_ir(kernel_folder(tmp_path / "scored-elsewhere"), "gfx942")
    assert (first.cache_hit, second.cache_hit) == (False, True)
    assert second.source == str(tmp_path / "scored-elsewhere" / "kernel.py")
    assert second.out_dir != first.out_dir  # an entry of its own: the first one still names its own folder
    isa = Path(second.kernels[0].final_isa).read_text()
    assert f'.file\t1 "{tmp_path / "scored-elsewhere"}" "kernel.py"' in isa
    assert f'"{tmp_path / "scored-elsewhere"}" "helper.py"' in isa
    assert str(tmp_path / "a") not in isa
    assert f'"{tmp_path / "a"}" "kernel.py"' in Path(first.kernels[0].final_isa).read_text()
    assert all(Path(s.path).stat().st_size == s.bytes for s in second.kernels[0].stages)
    third = dump_ir(tmp_path / "scored-elsewhere" / "kernel.py", "gfx942")  # now its own entry: a plain hit
    assert third.cache_hit and third.out_dir == second.out_dir


@pytest.mark.slow
def test_a_change_in_the_helper_the_kernel_imports_is_a_miss(tmp_path):
    three = dump_ir(kernel_folder(tmp_path / "a"), "gfx942")
    five = dump_ir(kernel_folder(tmp_path / "b", factor="5.0"), "gfx942")
    assert not five.cache_hit
    # the compiled multiply follows the helper: 3.0 is 0x40400000, 5.0 is 0x40a00000 as an f32 literal
    assert "0x40400000" in Path(three.kernels[0].final_isa).read_text()
    assert "0x40a00000" in Path(five.kernels[0].final_isa).read_text()


@pytest.mark.slow
def test_no_cache_compiles_again(tmp_path):
    kernel = kernel_folder(tmp_path / "k")
    dump_ir(kernel, "gfx942")
    proc = subprocess.run(
        [sys.executable, "-m", "tools.cli", "dump-ir", str(kernel), "--arch", "gfx942", "--no-cache", "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert '"cache_hit": false' in proc.stdout


def test_the_folder_digest_ignores_the_folders_path(tmp_path):
    a, b = kernel_folder(tmp_path / "a"), kernel_folder(tmp_path / "b")
    assert source_folder(a).digest == source_folder(b).digest
    assert source_folder(a).names == ("helper.py", "kernel.py")


def test_any_other_file_beside_the_kernel_changes_the_digest(tmp_path):
    # the compile runs in the kernel's folder: a file it opens (or imports under another name) is beside it
    kernel = kernel_folder(tmp_path / "a")
    before = source_folder(kernel).digest
    (tmp_path / "a" / "tile_sizes.json").write_text('{"BLOCK": 256}')
    assert source_folder(kernel).digest != before


def test_an_imported_package_below_the_kernel_is_in_the_digest_and_an_unimported_folder_is_not(tmp_path):
    kernel = kernel_folder(tmp_path / "a")
    kernel.write_text("from helpers.math import scaled\n" + KERNEL.replace("from helper import scaled\n", ""))
    (tmp_path / "a" / "helpers").mkdir()
    (tmp_path / "a" / "helpers" / "math.py").write_text(HELPER.format(factor="3.0"))
    (tmp_path / "a" / "notes").mkdir()
    (tmp_path / "a" / "notes" / "todo.txt").write_text("try BLOCK=512")
    before = source_folder(kernel)
    assert before.names == ("helper.py", "kernel.py", "helpers")
    (tmp_path / "a" / "notes" / "todo.txt").write_text("try BLOCK=1024")
    assert source_folder(kernel).digest == before.digest
    (tmp_path / "a" / "helpers" / "math.py").write_text(HELPER.format(factor="5.0"))
    assert source_folder(kernel).digest != before.digest


def test_a_package_imported_by_an_imported_package_is_in_the_digest(tmp_path):
    kernel = kernel_folder(tmp_path / "a")
    (tmp_path / "a" / "helper.py").write_text("from consts import FACTOR\n")
    (tmp_path / "a" / "consts").mkdir()
    (tmp_path / "a" / "consts" / "__init__.py").write_text("FACTOR = 3.0\n")
    before = source_folder(kernel).digest
    (tmp_path / "a" / "consts" / "__init__.py").write_text("FACTOR = 5.0\n")
    assert source_folder(kernel).digest != before


def test_c_includes_from_a_sub_folder_are_in_the_digest(tmp_path):
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "kernel.hip").write_text('#include "common/tile.h"\n__global__ void k() {}\n')
    (tmp_path / "k" / "common").mkdir()
    (tmp_path / "k" / "common" / "tile.h").write_text("#define TILE 64\n")
    before = source_folder(tmp_path / "k" / "kernel.hip").digest
    (tmp_path / "k" / "common" / "tile.h").write_text("#define TILE 128\n")
    assert source_folder(tmp_path / "k" / "kernel.hip").digest != before


def test_rewriting_the_folder_name_never_touches_a_longer_path_it_prefixes(tmp_path):
    old = Path("/w/k")
    text = '.file 1 "/w/k" "kernel.py"\nloc("/w/k/kernel.py":3:1)\n"/w/k/.venv/triton/x.py" "/w/kk/kernel.py" ; /w/k\n'
    got = folder_pattern(old, ("kernel.py", "helpers")).sub(lambda _: "/t/new", text)
    assert got == (
        '.file 1 "/t/new" "kernel.py"\nloc("/t/new/kernel.py":3:1)\n"/w/k/.venv/triton/x.py" "/w/kk/kernel.py" ; /t/new\n'
    )


def test_a_large_file_beside_the_kernel_is_keyed_by_size_and_mtime_not_read(tmp_path):
    # over HASHED_FILE_MAX (1 MiB) a file is not read: an identical copy with another mtime is a miss, never a hit on
    # bytes that were not compared
    a, b = kernel_folder(tmp_path / "a"), kernel_folder(tmp_path / "b")
    for folder, mtime in ((tmp_path / "a", 1_000_000_000), (tmp_path / "b", 1_000_000_001)):
        weights = folder / "weights.bin"
        weights.write_bytes(b"\1" * (2 << 20))
        os.utime(weights, (mtime, mtime))
    assert source_folder(a).digest == source_folder(a).digest
    assert source_folder(a).digest != source_folder(b).digest
