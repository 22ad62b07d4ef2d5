"""The server as hosts run it: a stdio subprocess, and streamable HTTP on 127.0.0.1 behind a bearer token."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from mcp_server.server import TOKEN_ENV, http_app
from tests.mcp_server.conftest import REPO

pytestmark = pytest.mark.anyio


def server_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return {**env, **extra}


def test_importing_the_server_loads_no_compiler():
    code = "import sys, mcp_server.server; print(sorted(m for m in ('flydsl', 'triton', 'torch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], env=server_env(), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


async def test_stdio_subprocess_lists_tools_and_answers():
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcp_server.server"], env=server_env(), cwd=REPO)
    async with Client(params) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        r = await c.call_tool("doctor", {})
    assert {"dump-ir", "vgpr-pressure", "prefetch-data-load", "kernel-trace", "doctor"} <= names
    assert r.structured_content["project_dir"] == str(REPO)


@pytest.mark.slow
def test_stdio_answers_unreadable_frames_with_json_rpc_errors_and_stays_up():
    import json

    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    frames = [
        "{not json",  # -32700 Parse error, id null: no id can be read
        "",  # a blank line is no frame: no reply
        "[]",  # JSON, not a JSON-RPC message: -32600 Invalid Request
        json.dumps({"jsonrpc": "2.0", "id": 7, "method": 5}),  # invalid, but its id is readable: the reply carries it
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "\x00\xff garbage",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_server.server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, env=server_env(), cwd=REPO, text=True,
    )  # fmt: skip
    killer = threading.Timer(120, proc.kill)  # a reply that never comes fails the test instead of hanging it
    killer.start()
    try:
        proc.stdin.write("\n".join(frames) + "\n")
        proc.stdin.flush()
        replies = []
        while len(replies) < 6 and (line := proc.stdout.readline()):  # the server answers all 6, in its own order
            replies.append(json.loads(line))
        proc.stdin.close()  # the host's way to stop a stdio server
        assert proc.wait(timeout=60) == 0
    finally:
        killer.cancel()
        proc.kill()
    errors = [(r["id"], r["error"]["code"]) for r in replies if "error" in r]
    assert errors == [(None, -32700), (None, -32600), (7, -32600), (None, -32700)], replies
    results = {r["id"]: r["result"] for r in replies if "result" in r}
    assert sorted(results) == [1, 2] and "dump-ir" in {t["name"] for t in results[2]["tools"]}  # still serving


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_server():
    port, token = free_port(), "test-token-123"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_server.server", "--http", "--port", str(port)],
        env=server_env(**{TOKEN_ENV: token}),
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("HTTP server did not start within 30 s")
        yield f"http://127.0.0.1:{port}/mcp", token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def test_http_requires_the_bearer_token(http_server):
    url, token = http_server
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    async with httpx2.AsyncClient() as raw:
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            r = await raw.post(url, json=body, headers=headers)
            assert r.status_code == 401 and TOKEN_ENV in r.text
    transport = streamable_http_client(url, http_client=create_mcp_http_client({"Authorization": f"Bearer {token}"}))
    async with Client(transport) as c:
        out = (await c.call_tool("doctor", {})).structured_content
    assert out["summary"].endswith("tools found")


def test_http_refuses_a_public_bind_without_a_token():
    with pytest.raises(SystemExit, match="refusing to listen on 0.0.0.0 without a token"):
        http_app("0.0.0.0", None)
    assert http_app("0.0.0.0", "t").expected == b"Bearer t"  # with a token it starts, behind the check
