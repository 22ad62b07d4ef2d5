"""check's BEFORE as a git revision is never an option to git, and never reaches outside the roots.

Each test builds a real git repository in tmp_path; the kernel files are never compiled: every refusal happens
before a compile starts, so these run in about a second.
"""

from __future__ import annotations

import subprocess

import pytest
from mcp import Client

from mcp_server.server import mcp
from tools.check.compare import check
from tools.cli import main
from tools.errors import InputError
from tools.gitref import read_git_file
from tools.paths import confined_to

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
SECRET = "SECRET_TOKEN_9f3a"


def _repo(root, files: dict[str, str]):
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "base"], cwd=root, check=True)


def test_cli_before_starting_with_dash_is_refused_and_git_writes_nothing(tmp_path, capsys, monkeypatch):
    _repo(tmp_path, {"k.py": "x = 1\n"})
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--", "--output=victim.txt:x", "k.py"])
    assert code == 2
    err = capsys.readouterr().err
    assert "starts with '-'" in err and "hint:" in err
    assert not (tmp_path / "victim.txt:x").exists()  # git show --output=… would have written it


def test_a_revision_starting_with_dash_never_reaches_git(tmp_path):
    _repo(tmp_path, {"k.py": "x = 1\n"})
    with pytest.raises(InputError, match="starts with '-'"):
        read_git_file("--output=out.txt:k.py", tmp_path / "dest", cwd=tmp_path)
    assert not (tmp_path / "out.txt").exists()


def test_a_revision_path_outside_the_roots_is_refused_before_git_reads_it(tmp_path):
    _repo(tmp_path, {"secret_cfg.py": f"TOKEN = '{SECRET}'\n", "proj/k.py": "x = 1\n"})
    with confined_to([tmp_path / "proj"]), pytest.raises(InputError, match="outside the directories") as exc:
        read_git_file("HEAD:./../secret_cfg.py", tmp_path / "dest", cwd=tmp_path / "proj")
    assert SECRET not in str(exc.value) and not (tmp_path / "dest").exists()
    # the repository root is outside the project: HEAD:secret_cfg.py is looked for inside it only (./secret_cfg.py)
    with confined_to([tmp_path / "proj"]), pytest.raises(InputError, match="does not exist at HEAD") as exc:
        read_git_file("HEAD:secret_cfg.py", tmp_path / "dest", cwd=tmp_path / "proj")
    assert SECRET not in str(exc.value) and "files named" not in str(exc.value)
    # inside the roots the same repository reads as before
    with confined_to([tmp_path / "proj"]):
        got = read_git_file("HEAD:./k.py", tmp_path / "dest", cwd=tmp_path / "proj")
    assert got.local_path.read_text() == "x = 1\n" and got.path == "proj/k.py"


def test_check_refuses_an_existing_before_outside_the_roots(tmp_path):
    outside = tmp_path / "out:side"
    outside.mkdir()
    (outside / "k.py").write_text(f"open({str(tmp_path / 'MARKER')!r}, 'w')\n")
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "k.py").write_text("x = 1\n")
    with confined_to([tmp_path / "proj"]), pytest.raises(InputError, match="outside the directories"):
        check(str(outside / "k.py"), tmp_path / "proj" / "k.py")
    assert not (tmp_path / "MARKER").exists()


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder inside a larger git repository whose root holds a secret; the roots are the project only."""
    marker = tmp_path / "MARKER"
    _repo(tmp_path, {"secret_cfg.py": f"TOKEN = '{SECRET}'\nopen({str(marker)!r}, 'w')\nraise SystemExit(TOKEN)\n",
                     "proj/k.py": "x = 1\n"})  # fmt: skip
    elsewhere = tmp_path / "elsewhere" / "out:side"
    elsewhere.mkdir(parents=True)
    (elsewhere / "k.py").write_text(f"open({str(marker)!r}, 'w')\n")
    monkeypatch.setenv("KERNELPILOT_PROJECT_DIR", str(tmp_path / "proj"))
    monkeypatch.setenv("KERNELPILOT_ALLOWED_ROOTS", "")
    monkeypatch.setenv("KERNELPILOT_CACHE_DIR", str(tmp_path / "proj" / ".cache"))
    return tmp_path, marker


@pytest.mark.anyio
@pytest.mark.parametrize(
    "before",
    ["--output={root}/outside:x.sh", "HEAD:./../secret_cfg.py", "HEAD:secret_cfg.py", "{root}/elsewhere/out:side/k.py"],
)
async def test_mcp_check_before_never_escapes_the_roots(project, before):
    root, marker = project
    before = before.format(root=root)
    async with Client(mcp) as c:
        r = await c.call_tool("check", {"before": before, "after": "k.py", "wait_seconds": 120})
    text = r.content[0].text
    refused = ("outside the directories", "starts with '-'", "does not exist at HEAD")
    assert r.is_error and any(why in text for why in refused), text
    assert SECRET not in text and "hint:" in text
    assert not marker.exists() and not (root / "outside:x.sh").exists()


@pytest.fixture
def anyio_backend():
    return "asyncio"
