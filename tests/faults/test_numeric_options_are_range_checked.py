"""Every numeric option of every command, and every numeric MCP parameter, refuses negative, zero (where it must be
positive), ``nan``, ``inf`` and non-numbers with a message naming the option and its range."""

from __future__ import annotations

import argparse

import pytest
from mcp import Client

from mcp_server.server import mcp
from tests.faults.helpers import (
    assert_clear_error,
    kp,
)
from tools.cli import main


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_timeout_must_be_a_positive_finite_number(value):
    proc = kp("kernel-trace", "--timeout", value, "--", "true")
    why = "a finite number" if value in ("nan", "inf") else "> 0"
    assert_clear_error(proc, f"argument --timeout: must be {why}, got")


def test_timeout_minus_one_says_it_must_be_positive():
    proc = kp("dump-ir", "k.py", "--arch", "gfx942", "--timeout", "-1")
    assert_clear_error(proc, "argument --timeout: must be > 0, got -1")


def _numeric_options() -> list[tuple[str, list[str], str]]:
    """(command, subcommand path, option) for every int/float option of every kernelpilot command."""
    from tools.cli import COMMANDS, build_parser

    found = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])
            elif action.option_strings and action.type is not None and action.type.__name__ in ("int", "float"):
                found.append((path[0], path, action.option_strings[0]))

    for command in COMMANDS:
        sub = next(a for a in build_parser(command)._actions if isinstance(a, argparse._SubParsersAction))
        walk(sub.choices[command], [command])
    return found


def test_the_numeric_options_are_the_known_ones():
    # a new numeric option is checked automatically; this list makes its range a deliberate choice
    assert sorted({opt for _, _, opt in _numeric_options()}) == [
        "--allow-occupancy-drop",
        "--atol",
        "--compute-units",
        "--days",
        "--jobs",
        "--jobs-per-gpu",
        "--launch-count",
        "--launch-lds",
        "--max-memory",
        "--max-vgprs",
        "--min-waves",
        "--peak-threshold",
        "--rtol",
        "--score-memory-gb",
        "--score-timeout",
        "--seed",
        "--slurm-gpus-per-node",
        "--slurm-jobs",
        "--time-limit",
        "--timeout",
        "--top",
    ]  # --trips is N or LINE=N (tools.predict.cli.trips_value checks its range: tests/test_cli_number_bounds.py)


@pytest.mark.parametrize("value", ["-5", "nan", "inf", "abc"])
def test_every_numeric_option_refuses_bad_values(value, capsys):

    for _command, path, option in _numeric_options():
        assert main([*path, option, value]) == 2, (path, option, value)
        err = capsys.readouterr().err
        assert err.startswith(f"error: argument {option}: must be ") and "\nhint: " in err, err


@pytest.mark.parametrize("value", ["0:5", "5:0"])
def test_iterations_are_numbered_from_one(value):
    proc = kp("kernel-trace", "--iterations", value, "--", "true")
    assert_clear_error(proc, f"--iterations {value}: FIRST and COUNT must be >= 1")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_every_numeric_mcp_parameter_has_a_lower_bound(anyio_backend):

    async with Client(mcp) as c:
        tools = (await c.list_tools()).tools
        bad = await c.call_tool("kernel-trace", {"command": ["true"], "timeout": -1})
    unbounded = []
    for t in tools:
        for name, prop in t.input_schema.get("properties", {}).items():
            variants = [prop, *prop.get("anyOf", [])]
            numeric = [v for v in variants if v.get("type") in ("number", "integer")]
            if numeric and not any("minimum" in v or "exclusiveMinimum" in v for v in numeric):
                unbounded.append(f"{t.name}.{name}")
    assert unbounded == []
    assert bad.is_error and "timeout" in bad.content[0].text and "greater than 0" in bad.content[0].text
