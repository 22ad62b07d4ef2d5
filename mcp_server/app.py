"""The MCP server instance and what every tool definition shares: annotations, argument types, error mapping,
jobs, path confinement. Tool families register on ``mcp`` in their own modules; ``server.py`` imports them all.
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BeforeValidator, Field

from mcp_server import jobs
from mcp_server.models import ToolResult
from mcp_server.paths import allowed_roots, confine
from tools import __version__
from tools.errors import InputError, KernelpilotError, bounded, from_os_error
from tools.isa.arch import AMD_ARCHS, NVIDIA_ARCHS, normalize_arch
from tools.isa.machines import machine_names
from tools.paths import confined_to


def _canonical_arch(value):
    """Any spelling the CLI's ``--arch`` takes (gfx942:xnack-, GFX942, sm90, sm_90a, 90) → its canonical name; a name
    no target has is left as given, for the enum to refuse with the list of targets."""
    try:
        return normalize_arch(value) if isinstance(value, str) else value
    except InputError:
        return value


# The closed sets the MCP parameters take, each derived from the engine's one registry, as the CLI's options are
# (tests/mcp_server/test_parameters_match_cli.py holds the two to the same values):
# every target tools.isa.arch models, in every spelling normalize_arch accepts; the schema lists the canonical names
Arch = Annotated[
    Literal[tuple([*AMD_ARCHS, *NVIDIA_ARCHS])],  # type: ignore[valid-type]
    BeforeValidator(_canonical_arch),
]
ARCH_HELP = "target architecture (gfx942:xnack-, sm90, sm_90a spell the same targets, as --arch takes them)"
# the device models (tools/isa/machines/*.yaml and $KERNELPILOT_MACHINES_DIR when the server starts): --device's choices
Device = Literal[tuple(machine_names())]  # type: ignore[valid-type]
ALLOW_COMMANDS_ENV = "KERNELPILOT_ALLOW_COMMANDS"

# Analyses read files and write only their cache: safe to run without asking, and again with the same result.
ANALYSIS = ToolAnnotations(read_only_hint=True, idempotent_hint=True, destructive_hint=False, open_world_hint=False)
# Tools that execute the user's code or commands (compiles import the kernel file; profiles run the program).
RUNS_CODE = ToolAnnotations(read_only_hint=False, idempotent_hint=True, destructive_hint=False, open_world_hint=False)
# Profiling runs a program (each run a new output) and may reach an ssh host or a container.
PROFILES = ToolAnnotations(read_only_hint=False, idempotent_hint=False, destructive_hint=False, open_world_hint=True)

mcp = MCPServer(
    "kernelpilot",
    version=__version__,
    instructions=(
        "GPU kernel optimization tools. Paths are absolute or relative to the project directory. Results are "
        "compact JSON led by 'summary' and 'next_steps'; IR, ISA and traces are artifacts: page them with "
        "read-artifact (offset/limit, or a regex pattern). A long compile or profile returns status 'running' with "
        "a job_id after wait_seconds: call the same tool again with that job_id. Playbooks: the prompts "
        "optimize-kernel, dump-ir, vgpr-pressure, prefetch-data-load, schedule, kernel-trace, check."
    ),
)


# The engine's errors are written for the CLI (`--arch`, `kernelpilot check … --shape KEY=VALUE`); an MCP caller has
# parameters instead. Where the parameter's name is not the option's with '_' for '-', it is listed here.
MCP_PARAMETER = {
    "--shape": "shapes",
    "--seed": "seeds",
    "--max-memory": "max_memory_gb",
    "--cmd": "command",
    "--kernel": "kernel_regex",  # kernel-trace's; the other tools call it kernel, as the CLI does
}
_CLI_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_CLI_COMMAND = re.compile(r"`kernelpilot [^`]*`|\bkernelpilot [a-z][a-z-]* [^;)`\n]*")  # quoted, or to the clause's end


def mcp_terms(text: str, params: Iterable[str]) -> str:
    """``text`` in the words of an MCP tool whose parameters are ``params``: each CLI option the tool has a
    parameter for becomes that parameter (``--arch`` → ``arch``, ``--max-memory`` → ``max_memory_gb``), and a CLI
    command naming such options (`` `kernelpilot check … --shape KEY=VALUE` ``, ``e.g. kernelpilot predict k.py --arch
    sm_90``) becomes those parameters. An option without a parameter here stays: it is still the CLI's, and true
    there."""
    params = set(params)

    def param(option: str) -> str | None:
        return next((n for n in (option[2:].replace("-", "_"), MCP_PARAMETER.get(option)) if n in params), None)

    def command(m: re.Match) -> str:
        names = list(dict.fromkeys(n for o in _CLI_OPTION.findall(m.group(0)) if (n := param(o))))
        if not names:
            return m.group(0)
        return f"the {', '.join(f'`{n}`' for n in names)} parameter{'s' if len(names) > 1 else ''}"

    text = _CLI_COMMAND.sub(command, text)
    return _CLI_OPTION.sub(lambda m: param(m.group(0)) or m.group(0), text)


@contextmanager
def agent_errors(tool: Callable | None = None) -> Iterator[None]:
    """KernelpilotError (message, details, hint) → ToolError, the only error text MCP 2.x shows the model; with
    ``tool`` (the tool's function), in the words of its parameters (``mcp_terms``)."""
    params = [p for p in inspect.signature(tool).parameters if p != "ctx"] if tool else []
    try:
        yield
    except KernelpilotError as exc:
        raise ToolError(bounded(mcp_terms(exc.render(), params))) from exc
    except ToolError:
        raise
    except OSError as exc:
        raise ToolError(bounded(from_os_error(exc).render() if exc.filename else internal_error(exc))) from exc
    except Exception as exc:  # never a bare "Error executing tool": the agent gets the reason, bounded
        raise ToolError(bounded(internal_error(exc))) from exc


def internal_error(exc: BaseException) -> str:
    """The text for an exception kernelpilot did not expect: what it was, and that it is ours to fix."""
    return (
        f"error: kernelpilot internal error: {type(exc).__name__}: {exc}\n"
        "hint: this is a kernelpilot bug, not your input's fault; the CLI (kernelpilot <tool> …) shows the traceback"
    )


WaitSeconds = Annotated[
    float,
    Field(
        description="return status 'running' and a job_id if still working after this long (stay under your "
        "client's tool timeout; 60 s in several clients)",
        ge=0,
    ),
]
JobId = Annotated[str | None, Field(description="resume waiting for an earlier call's job (other inputs ignored)")]
Timeout = Annotated[float, Field(description="seconds before the work is killed", gt=0, le=7200)]
KernelName = Annotated[str | None, Field(description="kernel name or unique substring (default: every / the hottest)")]
Call = Annotated[
    str | None,
    Field(
        description="a kernel file's host function to run instead of kernelpilot_entry() (the file needs none): "
        "'FN(NAME=DTYPE[SHAPE], ..., NAME=VALUE)', e.g. \"w8a16_matmul(a=bf16[16,8192], w=int8[8192,8192], "
        'scale=fp32[8192])"; dtypes bf16 fp16 fp32 fp64 fp8e4nv fp8e5 int8 uint8 int16 int32 int64 bool (contiguous '
        "CPU tensors), values ints, floats, True/False/None, 'strings'; every kernel launch it makes is recorded. "
        "Applies to both versions of a comparison",
        max_length=4000,
    ),
]


async def run_job(ctx: Context, tool: str, job_id: str | None, wait_seconds: float, start) -> jobs.Job | dict:
    """Resume ``job_id``, or start ``start()`` → (call, kwargs, timeout, label); the result dict, or the running Job."""
    if job_id:
        job = jobs.get(job_id, tool)
    else:
        call, kwargs, timeout, label = start()
        job = jobs.start(tool, call, kwargs, timeout=timeout, label=label)
    if not await jobs.wait(job, ctx, wait_seconds):
        return job
    return jobs.result(job)


def still_running(job: jobs.Job, tool: str, output: type[ToolResult]):
    """``output`` saying the job is still running after wait_seconds, and how to keep waiting."""
    return output.running(job.label, job.elapsed, job.id, tool)


def read_input(path: str, what: str) -> str:
    """An analysis input: under the allowed roots or the kernelpilot cache (where dump-ir writes ISA)."""
    return str(confine(path, what=what, artifacts=True))


def confined(fn, /, **kwargs):
    """``fn(**kwargs)`` with every file the engine opens (directory scans, siblings) checked against the roots."""
    with confined_to(allowed_roots(artifacts=True)):
        return fn(**kwargs)


def require_command_mode(tool: str) -> None:
    """Running an arbitrary program is opt-in for the server's operator, not the caller's choice."""
    if os.environ.get(ALLOW_COMMANDS_ENV) != "1":
        raise InputError(
            f"{tool} command mode is off on this server: it would run any program as the server's user",
            hint=f"the person running the server can set {ALLOW_COMMANDS_ENV}=1 in its environment and restart it; "
            + ("or use file mode: source='kernel.py'" if tool == "dump-ir" else "or read an existing trace: trace=..."),
        )
