"""The kernelpilot MCP server (``kernelpilot-mcp``): dump-ir, vgpr-pressure, prefetch-data-load, schedule,
kernel-trace, doctor.

Each tool is a thin wrapper over a function in ``tools/`` that returns a pydantic model, carried unchanged in a
``ToolResult[T]`` (models.py); the return type is the output schema. The tools are defined per family in
``compile_tools``, ``analysis_tools``, ``schedule_tools``, ``trace_tools`` and ``artifact_tools`` on the one server of ``app``; prompts
in ``prompts``; this module adds the transports (stdio, HTTP behind a bearer token) and ``main``. Expected failures (KernelpilotError) become ToolError, whose text is the only error text MCP 2.x
shows the model. Compiles run in a child process (``jobs.py``) so that cancellation kills the whole tree.
Heavy imports (flydsl, triton, torch) never happen here: the engine imports them inside the child that compiles.
"""

from __future__ import annotations

import argparse
import hmac
import os
import secrets
import signal
import sys

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError

# Each module registers its tools on the one `mcp` (mcp_server.app) when imported.
from mcp_server import analysis_tools, artifact_tools, compile_tools, prompts, schedule_tools, trace_tools  # noqa: F401
from mcp_server.app import ALLOW_COMMANDS_ENV, mcp  # noqa: F401  (tests and skills_check import them from here)
from tools import __version__

TOKEN_ENV = "KERNELPILOT_MCP_TOKEN"


# ---------------------------------------------------------------------------------------------------- transports


class BearerTokenMiddleware:
    """Rejects HTTP requests without exactly one ``Authorization: Bearer <token>`` (constant-time compare)."""

    def __init__(self, app, token: str) -> None:
        if not token:
            raise ValueError("an empty token protects nothing")
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            given = [v for k, v in scope.get("headers") or [] if k.lower() == b"authorization"]
            # two Authorization headers are ambiguous (proxies disagree on which wins): refuse, never pick one
            if len(given) != 1 or not hmac.compare_digest(given[0], self.expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send(
                    {"type": "http.response.body", "body": f"missing or wrong bearer token ({TOKEN_ENV})".encode()}
                )
                return
        await self.app(scope, receive, send)


def http_app(host: str, token: str | None):
    """The streamable-HTTP ASGI app (path /mcp), always behind the bearer token: on a shared host any local user
    can reach a loopback port, and the tools run code."""
    if not token:
        raise SystemExit(
            f"kernelpilot-mcp: refusing to listen on {host} without a token; set {TOKEN_ENV} (clients send "
            "'Authorization: Bearer <token>')"
        )
    return BearerTokenMiddleware(mcp.streamable_http_app(host=host), token)


def http_token() -> str:
    """``KERNELPILOT_MCP_TOKEN``, or (unset or empty) a fresh random one, printed once to stderr for the client."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    if token:
        return token
    token = secrets.token_urlsafe(24)
    print(
        f"kernelpilot-mcp: {TOKEN_ENV} is not set; this run's token is {token}\n"
        f"kernelpilot-mcp: clients send 'Authorization: Bearer {token}' (set {TOKEN_ENV} to choose your own)",
        file=sys.stderr,
        flush=True,
    )
    return token


def frame_error(exc: Exception) -> JSONRPCError | None:
    """The JSON-RPC reply to a stdio frame the SDK could not read (``exc``, what its reader hands on): -32700 for a
    line that is not JSON, -32600 for JSON that is not a JSON-RPC message (with the message's id when it has a usable
    one, else null, as JSON-RPC 2.0 says); None for a blank line, which is no frame at all."""
    from pydantic import ValidationError

    errors = exc.errors() if isinstance(exc, ValidationError) else []
    if errors and errors[0]["type"] == "json_invalid":
        raw = errors[0].get("input")
        if isinstance(raw, str | bytes) and not raw.strip():
            return None
        return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message="Parse error"))
    ids = (e["input"].get("id") for e in errors if isinstance(e.get("input"), dict))
    found = next((i for i in ids if isinstance(i, str | int) and not isinstance(i, bool)), None)
    detail = f": {errors[0]['msg']}" if errors else ""
    return JSONRPCError(
        jsonrpc="2.0", id=found, error=ErrorData(code=INVALID_REQUEST, message=f"Invalid Request{detail}"[:200])
    )


class AnsweredFrames:
    """The stdio transport's read stream, answering every frame it could not read with ``frame_error``'s reply.

    The SDK's stdio reader hands an unreadable line on as an exception, and the server's dispatcher drops it (it
    has no observer for them on the server side): the client then waits for a reply that never comes. This wrapper
    takes those out of the stream and writes the reply; every message it passes on is the SDK's own, with the
    sender's context (``last_context``) as the dispatcher reads it."""

    def __init__(self, inner, write_stream) -> None:
        self._inner, self._write = inner, write_stream

    @property
    def last_context(self):
        return getattr(self._inner, "last_context", None)

    async def receive(self):
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            reply = frame_error(item)
            if reply is not None:
                await self._write.send(SessionMessage(reply))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self):
        return self

    async def __anext__(self):
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.aclose()


async def serve_stdio() -> None:
    """``mcp.run()`` on stdio (``MCPServer.run_stdio_async``), with unreadable frames answered (``AnsweredFrames``)."""
    from mcp.server.stdio import stdio_server

    server = mcp._lowlevel_server  # what run_stdio_async runs; the SDK has no public handle on it (nor a hook)
    async with stdio_server() as (read_stream, write_stream):
        frames = AnsweredFrames(read_stream, write_stream)
        await server.run(frames, write_stream, server.create_initialization_options())


def build_arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kernelpilot-mcp", description="kernelpilot MCP server (stdio by default)")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help=f"HTTP bind address (always behind {TOKEN_ENV})")
    p.add_argument("--port", type=int, default=8765, help="HTTP port")
    p.add_argument("--version", action="version", version=f"kernelpilot-mcp {__version__}")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    # SIGTERM/SIGHUP from the host → normal exit, so atexit kills running compile and profile jobs.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(0))
    if not args.http:
        anyio.run(serve_stdio)
        return 0
    import uvicorn

    app = http_app(args.host, http_token())
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
