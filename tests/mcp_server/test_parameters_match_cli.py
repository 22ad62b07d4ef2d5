"""Every MCP tool with a CLI twin takes the values the CLI takes: each closed set (frontends, targets, device models,
check engines, profilers) is one registry that both derive from, read here from the real argparse parser
(``tools.cli.build_parser``) and the real MCP input schema (``list_tools``), not restated in the test."""

from __future__ import annotations

import argparse
from functools import cache

import pytest
from mcp import Client

from mcp_server.app import MCP_PARAMETER
from mcp_server.server import mcp
from tests.isa_fixtures import BATCHED, fixtures_dir
from tools.cli import BUILTIN_COMMANDS, build_parser, main
from tools.errors import InputError
from tools.frontends.registry import FRONTEND_NAMES
from tools.isa.arch import AMD_ARCHS, NVIDIA_ARCHS, normalize_arch
from tools.isa.machines import machine_names
from tools.models.check import ENGINE_CHOICES
from tools.profilers import PROFILERS

from .conftest import needs_fixtures

pytestmark = [pytest.mark.anyio]
ARCHS = [*AMD_ARCHS, *NVIDIA_ARCHS]
# spellings the CLI's --arch takes (normalize_arch), beside the canonical names the schema lists
SPELLINGS = ["GFX942", "gfx942:xnack-", "gfx950:sramecc+:xnack-", "sm90", "sm_90a", "90", "SM_80", " gfx90a "]


@cache
def cli_options(command: str) -> dict[str, argparse.Action]:
    """``kernelpilot COMMAND``'s options by flag, from the parser the CLI itself builds."""
    parser = build_parser(only=command)
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {flag: a for a in sub.choices[command]._actions for flag in a.option_strings}


async def mcp_schemas() -> dict[str, dict]:
    async with Client(mcp) as c:
        return {t.name: t.input_schema["properties"] for t in (await c.list_tools()).tools}


def enum_of(prop: dict) -> list | None:
    """A parameter's closed set in the JSON schema (``Literal`` or ``Literal | None``), None for a free value."""
    for p in [prop, *prop.get("anyOf", [])]:
        if "enum" in p:
            return p["enum"]
    return None


def cli_twin(command: str, param: str) -> argparse.Action | None:
    """The CLI option an MCP parameter stands for: ``--name-with-dashes``, or the one ``MCP_PARAMETER`` names."""
    flags = [f"--{param.replace('_', '-')}", *(o for o, p in MCP_PARAMETER.items() if p == param)]
    return next((cli_options(command)[f] for f in flags if f in cli_options(command)), None)


async def test_the_mcp_tools_with_a_cli_twin_are_the_compiling_and_reading_commands():
    twins = sorted(set(await mcp_schemas()) & set(BUILTIN_COMMANDS))
    assert twins == ["check", "doctor", "dump-ir", "kernel-trace", "predict", "prefetch-data-load", "schedule",
                     "vgpr-pressure"]  # fmt: skip


async def test_every_mcp_closed_set_is_its_cli_options_choices():
    checked = set()
    for tool, props in (await mcp_schemas()).items():
        if tool not in BUILTIN_COMMANDS:
            continue
        for param, prop in props.items():
            values = enum_of(prop)
            if values is None:
                continue
            action = cli_twin(tool, param)
            assert action is not None, f"MCP {tool}.{param} has no CLI option"
            if param == "arch":  # --arch is free text normalised by normalize_arch; the schema lists every target
                assert action.choices is None and values == ARCHS, (tool, values)
            else:
                assert list(action.choices) == values, (tool, param, values, action.choices)
            checked.add((tool, param))
    assert {("dump-ir", "frontend"), ("check", "engine"), ("check", "frontend"), ("check", "arch"),
            ("predict", "device"), ("predict", "frontend"), ("prefetch-data-load", "device"),
            ("kernel-trace", "profiler")} <= checked  # fmt: skip


async def test_every_cli_choice_set_is_the_mcp_twins_enum():
    # the other way round: a CLI option with choices whose MCP twin takes free text (or other values) is a drift
    schemas = await mcp_schemas()
    for tool, props in schemas.items():
        if tool not in BUILTIN_COMMANDS:
            continue
        for param, prop in props.items():
            action = cli_twin(tool, param)
            if action is not None and action.choices is not None:
                assert enum_of(prop) == list(action.choices), (tool, param, prop)


async def test_the_sets_are_the_registries():
    schemas = await mcp_schemas()
    assert enum_of(schemas["dump-ir"]["frontend"]) == list(FRONTEND_NAMES) == enum_of(schemas["check"]["frontend"])
    assert "mojo" in FRONTEND_NAMES
    assert enum_of(schemas["predict"]["device"]) == machine_names() == list(cli_options("predict")["--device"].choices)
    assert enum_of(schemas["check"]["engine"]) == list(ENGINE_CHOICES) == ["auto", "llvm", "interpreter"]
    assert enum_of(schemas["kernel-trace"]["profiler"]) == list(PROFILERS)


async def test_every_arch_spelling_the_cli_takes_the_mcp_tools_take_as_that_target():
    tools_with_arch = [t for t, props in (await mcp_schemas()).items() if "arch" in props]
    assert {"dump-ir", "check", "predict", "prefetch-data-load", "vgpr-pressure", "schedule"} <= set(tools_with_arch)
    for tool in tools_with_arch:
        arguments = mcp._tool_manager.get_tool(tool).fn_metadata.arg_model
        required = {"isa": "k.s"} if tool in ("vgpr-pressure", "schedule") else {}  # their one required parameter
        for spelling in [*ARCHS, *SPELLINGS]:
            got = arguments.model_validate(required | {"arch": spelling}).arch
            assert got == normalize_arch(spelling), (tool, spelling)
        with pytest.raises(InputError):
            normalize_arch("gfx9999")
        with pytest.raises(ValueError, match="gfx942"):  # refused by both, the schema listing the targets
            arguments.model_validate(required | {"arch": "gfx9999"})


@needs_fixtures()
async def test_vgpr_pressure_over_mcp_reads_an_arch_spelling_as_the_cli_does(capsys):
    isa = str(fixtures_dir() / "amdgcn_isa" / BATCHED)
    assert main(["vgpr-pressure", isa, "--arch", "gfx942:xnack-", "--json"]) == 0
    capsys.readouterr()
    async with Client(mcp) as c:
        r = await c.call_tool("vgpr-pressure", {"isa": isa, "arch": "gfx942:xnack-"})
    assert not r.is_error, r.content[0].text
    assert {rep["arch"] for rep in r.structured_content["report"]["reports"]} == {"gfx942"}


async def test_mcp_dump_ir_takes_frontend_mojo_and_compiles_with_the_mojo_frontend():
    # it was refused by the schema, which the CLI's --frontend mojo is not: now the Mojo frontend compiles the file
    # (a Python file read as Mojo: the Mojo compiler's own error, not a schema refusal)
    async with Client(mcp) as c:
        r = await c.call_tool("dump-ir", {"source": "examples/prefetch/flydsl_mfma/baseline.py", "frontend": "mojo",
                                          "wait_seconds": 300})  # fmt: skip
    text = r.content[0].text
    assert r.is_error and "validation error" not in text, text
    assert "mojo" in text.lower() and "hint:" in text, text


async def test_mcp_check_takes_frontend_as_the_cli_does(capsys):
    # --frontend names both files' language; a language check does not run is refused the same way by both
    pair = ["examples/prefetch/flydsl_mfma/baseline.py", "examples/prefetch/flydsl_mfma/prefetched.py"]
    assert main(["check", *pair, "--frontend", "hip"]) == 2
    cli = capsys.readouterr().err
    async with Client(mcp) as c:
        r = await c.call_tool("check", {"before": pair[0], "after": pair[1], "frontend": "hip"})
    assert r.is_error and "check runs FlyDSL and Triton files; baseline.py is hip" in r.content[0].text
    assert "check runs FlyDSL and Triton files; baseline.py is hip" in cli
