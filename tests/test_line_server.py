"""tools.executors.LineServer: the long-lived child the eval scorer's kernel processes run in (one JSON reply line
per request line), killed with its process group on close."""

from __future__ import annotations

import sys
import textwrap

import pytest

from tools.executors import LineServer

# Echoes each request as {"nonce": "n1", "got": <request>}, after printing a stray line in the same write: the
# reply sits in the same pipe read as the line before it.
ECHO = textwrap.dedent("""
    import json, sys
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("exit"):
            sys.exit(3)
        sys.stdout.write("a kernel module printed this\\n" + json.dumps({"nonce": "n1", "got": req}) + "\\n")
        sys.stdout.flush()
""")


def _server(tmp_path, script=ECHO) -> LineServer:
    return LineServer([sys.executable, "-c", script], env={}, cwd=tmp_path, stderr_path=tmp_path / "err.txt")


def test_a_reply_behind_another_line_in_the_same_read_is_found(tmp_path):
    s = _server(tmp_path)
    try:
        for i in range(3):  # the same process answers every request
            assert s.ask(f'{{"i": {i}}}', timeout=30, accept=lambda r: r.get("nonce") == "n1") == {
                "nonce": "n1",
                "got": {"i": i},
            }
    finally:
        s.close()


def test_a_child_that_exits_is_a_runtime_error_with_its_exit_code(tmp_path):
    s = _server(tmp_path)
    try:
        with pytest.raises(RuntimeError, match=r"exited \(code (3|None)\)"):
            s.ask('{"exit": true}', timeout=30, accept=lambda r: True)
    finally:
        s.close()


def test_a_child_that_never_answers_is_a_timeout_and_close_kills_it(tmp_path):
    s = _server(tmp_path, "import time; time.sleep(600)")
    with pytest.raises(TimeoutError, match="no reply within 1 s"):
        s.ask("{}", timeout=1, accept=lambda r: True)
    s.close()
    assert s.proc.poll() is not None  # gone: close() killed its process group
