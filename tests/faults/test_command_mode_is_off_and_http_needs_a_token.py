"""The MCP server runs no command unless it is started allowing it, and over HTTP (loopback included) every request
needs the run's token."""

from __future__ import annotations

import re
import subprocess
import time

import pytest

from mcp_server.server import ALLOW_COMMANDS_ENV, TOKEN_ENV
from tests.conftest import REPO
from tests.faults.helpers import (
    PY,
    call,
    cli_env,
    error_text,
)


@pytest.mark.anyio
async def test_command_mode_is_off_unless_the_server_allows_it(project, monkeypatch):
    proj, _ = project
    monkeypatch.delenv(ALLOW_COMMANDS_ENV, raising=False)
    ran = proj / "ran"
    argv = [PY, "-c", f"open({str(ran)!r}, 'w').write('x')"]
    for tool in ("dump-ir", "kernel-trace"):
        text = error_text(await call(tool, {"command": argv}))
        assert "command mode is off on this server" in text and f"{ALLOW_COMMANDS_ENV}=1" in text
    assert not ran.exists()


def _http_server(env: dict[str, str]):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [PY, "-m", "mcp_server.server", "--http", "--port", str(port)],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    pytest.fail("HTTP server did not start within 30 s")


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}


HEADERS = [("accept", "application/json, text/event-stream"), ("content-type", "application/json")]


@pytest.mark.parametrize("token_env", [None, ""], ids=["unset", "empty"])
def test_http_on_loopback_always_requires_a_token(token_env):
    import httpx2

    env = cli_env()
    env.pop(TOKEN_ENV, None)
    if token_env is not None:
        env[TOKEN_ENV] = token_env
    proc, port = _http_server(env)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        found = None
        for _ in range(50):  # printed before the port opens, so it is already there (maybe after warnings)
            found = re.search(r"this run's token is (\S+)", proc.stderr.readline())
            if found:
                break
        assert found, "the server printed no token"
        token = found.group(1)
        with httpx2.Client(timeout=10) as http:
            assert http.post(url, json=INIT, headers=dict(HEADERS)).status_code == 401
            wrong_then_right = [*HEADERS, ("authorization", "Bearer nope"), ("authorization", f"Bearer {token}")]
            assert http.post(url, json=INIT, headers=wrong_then_right).status_code == 401  # never "the last wins"
            ok = http.post(url, json=INIT, headers=[*HEADERS, ("authorization", f"Bearer {token}")])
            assert ok.status_code == 200, ok.text
    finally:
        proc.terminate()
        proc.wait(timeout=10)
