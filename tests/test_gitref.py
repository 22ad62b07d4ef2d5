"""tools.gitref: ``REV:PATH`` specs read from a real git repository made in the test."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tools.errors import InputError
from tools.gitref import is_git_spec, parse_spec, resolve_file


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose sub/kernel.py reads 'v1' at HEAD~1 and 'v2' at HEAD, with 'v3' uncommitted."""
    (tmp_path / "sub").mkdir()
    _git(tmp_path, "init", "-q")
    (tmp_path / "sub" / "kernel.py").write_text("v1\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "one")
    (tmp_path / "sub" / "kernel.py").write_text("v2\n")
    _git(tmp_path, "commit", "-q", "-am", "two")
    (tmp_path / "sub" / "kernel.py").write_text("v3\n")
    return tmp_path


def test_spec_forms():
    assert parse_spec("HEAD:kernel.py") == ("HEAD", "kernel.py")
    assert parse_spec("main~2:src/k.py") == ("main~2", "src/k.py")
    assert parse_spec("kernel.py") is None
    assert parse_spec(":kernel.py") is None  # git's index form is not a revision


def test_existing_file_wins_over_spec(tmp_path: Path):
    odd = tmp_path / "HEAD:kernel.py"
    odd.write_text("x")
    assert not is_git_spec("HEAD:kernel.py", cwd=tmp_path)
    assert is_git_spec("HEAD:other.py", cwd=tmp_path)


def test_repository_root_relative_path(repo: Path):
    with resolve_file("HEAD:sub/kernel.py", cwd=repo) as (path, git_file):
        assert path.read_text() == "v2\n"  # the committed version, not the working copy's v3
        assert path.name == "kernel.py"  # same base name: frontends pick the language by suffix
        assert git_file.path == "sub/kernel.py"
        assert git_file.label.startswith("HEAD:sub/kernel.py (")
    assert not path.exists()  # the temporary copy is gone after the block


def test_path_relative_to_working_directory(repo: Path):
    with resolve_file("HEAD~1:kernel.py", cwd=repo / "sub") as (path, git_file):
        assert path.read_text() == "v1\n"
        assert git_file.path == "sub/kernel.py"


def test_plain_path_passes_through(repo: Path):
    with resolve_file("sub/kernel.py", cwd=repo) as (path, git_file):
        assert git_file is None
        assert path.read_text() == "v3\n"


def test_unknown_revision_names_the_fix(repo: Path):
    with pytest.raises(InputError, match="names no commit") as err:
        with resolve_file("nosuchbranch:sub/kernel.py", cwd=repo):
            pass
    assert "git log lists them" in err.value.hint


def test_missing_path_lists_files_of_that_name(repo: Path):
    with pytest.raises(InputError, match="does not exist at HEAD") as err:
        with resolve_file("HEAD:kernel.py", cwd=repo):  # from the root, kernel.py lives in sub/
            pass
    assert "sub/kernel.py" in err.value.hint


def test_outside_a_repository(tmp_path: Path):
    with pytest.raises(InputError, match="not inside a git repository"):
        with resolve_file("HEAD:kernel.py", cwd=tmp_path):
            pass
