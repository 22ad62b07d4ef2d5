"""Issue 17, cases 8, 9, 10 and 13: every one reproduced as its reporter found it, now a clear ``error:``/``hint:``
(or an explicit ``unknown``) and never a traceback. Test names carry the case number."""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.trace_fixtures import FIXTURES, KERNEL_STATS_CSV, KERNEL_TRACE_CSV, extract_att
from tools.errors import InputError, ToolchainError

REPO = Path(__file__).resolve().parents[1]
SPILL_ISA = FIXTURES / "amdgcn_isa" / "gfx942_hipkittens_gemm_vgpr_spill94.s"
GEMM_ISA = FIXTURES / "amdgcn_isa" / "gfx942_hipcc_batched_gemm.s"


def kp(*args: str, env: dict | None = None, prefix: list[str] | None = None, **kw) -> subprocess.CompletedProcess:
    """The real CLI in a child interpreter (what a user runs), with this checkout first on PYTHONPATH."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    full_env.pop("KERNELPILOT_TRACEBACK", None)
    argv = [*(prefix or []), sys.executable, "-m", "tools.cli", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=full_env, timeout=300, **kw)


def assert_clear_error(proc: subprocess.CompletedProcess, *expected: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stderr.startswith("error: ") and "\nhint: " in proc.stderr, proc.stderr
    for text in expected:
        assert text in proc.stderr, proc.stderr


# --- case 8: kernel-trace on plausible malformed input --------------------------------------------------------------


def _results_json(tmp_path: Path, buffer_records) -> Path:
    doc = {"rocprofiler-sdk-tool": [{"agents": [], "kernel_symbols": [], "buffer_records": buffer_records}]}
    path = tmp_path / "1_results.json"
    path.write_text(json.dumps(doc))
    return path


def test_case08_results_json_of_the_wrong_shape_names_the_field(tmp_path):
    # buffer_records is an object in rocprofv3's schema; a list used to raise AttributeError ('list'.get)
    from tools.kernel_trace import load_trace

    path = _results_json(tmp_path, [{"kernel_dispatch": []}])
    with pytest.raises(
        InputError, match=r"rocprofiler-sdk-tool\[0\]\.buffer_records is a JSON list, expected an object"
    ):
        load_trace(path)


@pytest.fixture(scope="module")
def rmsnorm_att(tmp_path_factory) -> Path:
    return extract_att("rmsnorm", tmp_path_factory.mktemp("att"))


def _att_with(tmp_path: Path, source: Path, edit) -> Path:
    d = tmp_path / source.name
    shutil.copytree(source, d)
    doc = json.loads((d / "code.json").read_text())
    edit(doc["code"])
    (d / "code.json").write_text(json.dumps(doc))
    return d


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        # row 1 is the first instruction (row 0 names the kernel); a full row has 10 fields
        (lambda code: code.__setitem__(1, code[1][:4]), r"code\[1\] has 4 fields, expected 10"),
        (lambda code: code[1].__setitem__(6, "many"), r"code\[1\]: Hit is 'many', not a number"),
        (lambda code: code.__setitem__(1, {"isa": "s_nop 0"}), r"code\[1\] is a JSON object, expected a list of 10"),
    ],
    ids=["short-row", "non-integer-field", "non-list-row"],
)
def test_case08_att_code_json_bad_rows_name_the_row(tmp_path, rmsnorm_att, edit, expected):
    from tools.kernel_trace import load_trace

    d = _att_with(tmp_path, rmsnorm_att, edit)
    with pytest.raises(InputError, match=expected):
        load_trace(d)


def test_case08_att_wave_file_that_is_a_list(tmp_path, rmsnorm_att):
    from tools.kernel_trace import load_trace

    d = _att_with(tmp_path, rmsnorm_att, lambda code: None)
    (d / "se0_sm0_sl0_wv0.json").write_text("[1, 2, 3]")
    with pytest.raises(InputError, match=r"se0_sm0_sl0_wv0\.json is a JSON list, expected an object"):
        load_trace(d)


@pytest.mark.parametrize(("cell", "why"), [("abc", "not a number"), ("1e999", "not a finite number")])
def test_case08_csv_cell_that_is_not_a_number_names_line_and_column(tmp_path, cell, why):
    # abc used to raise ValueError, 1e999 OverflowError (int(float('inf')))
    lines = KERNEL_TRACE_CSV.read_text().splitlines()
    header = lines[0].split(",")
    col = header.index('"Start_Timestamp"')
    row = lines[3].rsplit(",", len(header) - 1 - col)  # Kernel_Name holds commas: split from the right
    row[0] = row[0].rsplit(",", 1)[0] + "," + cell
    lines[3] = ",".join(row)
    path = tmp_path / "kernel_trace.csv"
    path.write_text("\n".join(lines) + "\n")
    proc = kp("kernel-trace", "--from", str(path))
    # line 4 of the file: header is line 1, the edited row is lines[3]
    assert_clear_error(proc, f"{path}:4: column Start_Timestamp is '{cell}', {why}")


def test_case08_isa_and_timeline_naming_a_directory(tmp_path):
    proc = kp("kernel-trace", "--from", str(KERNEL_TRACE_CSV), "--isa", str(tmp_path))
    assert_clear_error(proc, f"{tmp_path} is a directory, not a AMDGCN ISA file (--isa)")
    proc = kp("kernel-trace", "--from", str(KERNEL_TRACE_CSV), "--timeline", str(tmp_path))
    assert_clear_error(proc, f"--timeline {tmp_path} is a directory")


def test_case08_fifo_as_a_profiler_output_is_refused_not_read(tmp_path):
    fifo = tmp_path / "kernel_trace.csv"
    os.mkfifo(fifo)
    proc = kp("kernel-trace", "--from", str(fifo))  # reading it would block forever: refused from its stat
    assert_clear_error(proc, f"{fifo} is a FIFO, not a regular file")  # refused by the shared path guard


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_case08_mcp_error_carries_the_reason(tmp_path, monkeypatch, anyio_backend):
    from mcp import Client

    from mcp_server.server import mcp

    monkeypatch.setenv("KERNELPILOT_PROJECT_DIR", str(tmp_path))
    monkeypatch.setenv("KERNELPILOT_CACHE_DIR", str(tmp_path / "cache"))
    bad = _results_json(tmp_path, [])
    async with Client(mcp) as c:
        r = await c.call_tool("kernel-trace", {"trace": str(bad)})
    assert r.is_error
    text = r.content[0].text
    assert "buffer_records is a JSON list, expected an object" in text and "hint: " in text, text


# --- case 9: unreadable files, a cache dir that is a file, --out a file, nan, non-tar data, an ascii terminal --------


def _without_root_read_override() -> list[str] | None:
    """A prefix that runs the CLI unable to read a chmod-000 file: nothing as a normal user; as root, setpriv
    dropping the capabilities that let root read anything (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH). None when
    neither is possible here."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if not setpriv:
        return None
    prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
    probe = Path(os.environ.get("TMPDIR", "/tmp")) / f"kp-probe-{os.getpid()}"
    probe.write_text("x")
    probe.chmod(0)
    try:
        ok = subprocess.run([*prefix, "cat", str(probe)], capture_output=True).returncode != 0
    finally:
        probe.unlink()
    return prefix if ok else None


@pytest.mark.parametrize(
    ("tool", "fixture", "name"),
    [
        ("kernel-trace", KERNEL_STATS_CSV, "kernel_stats.csv"),
        ("vgpr-pressure", GEMM_ISA, "k.s"),
        ("prefetch-data-load", GEMM_ISA, "k.s"),
        ("dump-ir", REPO / "examples" / "triton" / "vector_add.py", "k.py"),
    ],
)
def test_case09_unreadable_file_is_a_clear_error_for_every_tool(tmp_path, tool, fixture, name):
    prefix = _without_root_read_override()
    if prefix is None:
        pytest.skip("running as root without setpriv: a chmod-000 file stays readable")
    path = tmp_path / name
    shutil.copy(fixture, path)
    path.chmod(0)
    args = {"kernel-trace": ["--from", str(path)], "dump-ir": [str(path), "--arch", "gfx942"]}.get(tool, [str(path)])
    proc = kp(tool, *args, prefix=prefix, env={"KERNELPILOT_CACHE_DIR": str(tmp_path / "cache")})
    assert_clear_error(proc, str(path), "permission denied")


def test_case09_cache_dir_that_is_a_file(tmp_path):
    cache = tmp_path / "cache"
    cache.write_text("not a directory")
    proc = kp("dump-ir", str(REPO / "examples" / "triton" / "vector_add.py"), "--arch", "gfx942",
              env={"KERNELPILOT_CACHE_DIR": str(cache)})  # fmt: skip
    assert_clear_error(proc, f"the kernelpilot cache directory {cache} cannot be used: {cache} is a file")


def test_case09_out_naming_a_file_is_refused_before_any_work(tmp_path):
    out = tmp_path / "out"
    out.write_text("mine")
    proc = kp("dump-ir", str(REPO / "examples" / "triton" / "vector_add.py"), "--arch", "gfx942", "--out", str(out),
              env={"KERNELPILOT_CACHE_DIR": str(tmp_path / "cache")})  # fmt: skip
    assert_clear_error(proc, f"--out {out} is a file, not a directory")
    assert out.read_text() == "mine" and not (tmp_path / "cache").exists()  # refused before compiling anything


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_case09_timeout_must_be_a_positive_finite_number(value):
    proc = kp("kernel-trace", "--timeout", value, "--", "true")
    why = "a finite number" if value in ("nan", "inf") else "> 0"
    assert_clear_error(proc, f"argument --timeout: must be {why}, got")


def test_case09_non_tar_data_from_an_executor(tmp_path, monkeypatch):
    # A 'docker' that prints a banner instead of tar's stream: this fakes the remote end only, to test our handling.
    from tools.executors import Executor, fetch_tree

    fake = tmp_path / "bin" / "docker"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Welcome to the GPU cluster'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(ToolchainError, match="27 bytes that are not a usable tar stream") as info:
        fetch_tree(Executor.parse("docker:gpu"), "/remote/out", tmp_path / "local", timeout=30)
    assert "Welcome to the GPU cluster" in info.value.message and info.value.hint


def test_case09_ascii_terminal_gets_the_report_not_a_traceback():
    # the suggestions line is "~N VGPRs — evidence": an em dash that an ascii stdout cannot encode
    proc = kp("vgpr-pressure", str(SPILL_ISA), env={"PYTHONIOENCODING": "ascii"})
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "VGPRs ? " in proc.stdout  # replaced, not fatal


def test_case09_closed_stdout_and_a_reader_that_stops_early():
    closed = kp("kernel-trace", "--from", str(KERNEL_STATS_CSV), prefix=["sh", "-c", 'exec "$@" >&-', "sh"])
    assert closed.returncode == 0 and closed.stderr == ""
    # `| head -1`: the reader goes away after one line; the CLI stops quietly (141 = 128 + SIGPIPE)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "tools.cli", "vgpr-pressure", str(SPILL_ISA), "--per-instruction"]
    writer = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    writer.stdout.readline()
    writer.stdout.close()
    err = writer.stderr.read().decode()
    assert writer.wait(timeout=120) == 141 and "Traceback" not in err, err


# --- case 10: the eval flake ----------------------------------------------------------------------------------------


def test_case10_a_scorer_failure_is_infra_error_not_the_agents_failure(tmp_path):
    # score() cannot create its work directory (a file sits where its parent should be): a harness fault
    from evals.catalog import load_tasks
    from evals.harness.devices import Runtime
    from evals.harness.scoring import score_isolated

    (tmp_path / "blocker").write_text("")
    task = load_tasks(["matmul-tiling"])[0]
    s = score_isolated(
        task, tmp_path, tmp_path, tmp_path / "blocker" / "work", Runtime(), changed=[], diff_problems=[], agent="x"
    )
    assert (s.passed, s.complete) == (False, False)
    assert s.infra_error.startswith("the scorer failed twice: ") and "blocker" in s.infra_error
    assert s.reasons == [f"infra_error: {s.infra_error} (not the agent's failure; re-run the task)"]


def test_case10_runner_retries_a_harness_exception_once_then_records_infra_error(tmp_path, monkeypatch):
    import evals.harness.runner as runner
    from evals.catalog import load_tasks

    calls = []

    def broken(task, *args, **kwargs):
        calls.append(task.id)
        raise SystemError("AST constructor recursion depth mismatch (before=33, after=27)")

    monkeypatch.setattr(runner, "run_one", broken)
    [s] = runner.run_suite(load_tasks(["matmul-tiling"]), "noop", tmp_path, progress=lambda m: None)
    assert calls == ["matmul-tiling", "matmul-tiling"]  # tried, then retried once
    assert s.infra_error == (
        "the harness failed twice on this task: SystemError: AST constructor recursion depth mismatch (before=33, "
        "after=27)"
    )
    assert not s.passed and not s.complete
    # the stored result is not "already scored": a re-run scores the task again
    monkeypatch.setattr(runner, "run_one", broken)
    runner.run_suite(load_tasks(["matmul-tiling"]), "noop", tmp_path, progress=lambda m: None)
    assert len(calls) == 4


# --- case 13: messages ---------------------------------------------------------------------------------------------


def test_case13_timeout_minus_one_says_it_must_be_positive():
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


def test_case13_the_numeric_options_are_the_known_ones():
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
def test_case13_every_numeric_option_refuses_bad_values(value, capsys):
    from tools.cli import main

    for _command, path, option in _numeric_options():
        assert main([*path, option, value]) == 2, (path, option, value)
        err = capsys.readouterr().err
        assert err.startswith(f"error: argument {option}: must be ") and "\nhint: " in err, err


@pytest.mark.parametrize("value", ["0:5", "5:0"])
def test_case13_iterations_are_numbered_from_one(value):
    proc = kp("kernel-trace", "--iterations", value, "--", "true")
    assert_clear_error(proc, f"--iterations {value}: FIRST and COUNT must be >= 1")


def test_case13_truncated_isa_says_unknown_not_none(tmp_path):
    # cut before the .amdhsa_kernel block and the .set symbols that carry the register counts
    path = tmp_path / "cut.s"
    path.write_text("\n".join(GEMM_ISA.read_text().splitlines()[:60]) + "\n")
    proc = kp("vgpr-pressure", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "None VGPRs" not in proc.stdout and "vgpr_count=None" not in proc.stdout
    assert "VGPR count unknown (no resource metadata)" in proc.stdout and "vgpr_count=unknown" in proc.stdout
    assert "stripped or truncated file" in proc.stdout


def test_case13_version():
    from tools import __version__

    proc = kp("--version")
    assert (proc.returncode, proc.stdout.strip()) == (0, f"kernelpilot {__version__}")


def test_case13_prefetch_data_load_has_the_frontend_its_hints_name(tmp_path):
    # a .py without flydsl/triton imports: the frontend hint says --frontend, which prefetch-data-load now takes
    path = tmp_path / "k.py"
    path.write_text("def kernelpilot_entry():\n    return None\n")
    proc = kp("prefetch-data-load", str(path), env={"KERNELPILOT_CACHE_DIR": str(tmp_path / "cache")})
    assert_clear_error(proc, "--frontend")
    proc = kp("prefetch-data-load", str(path), "--frontend", "nope")
    assert proc.returncode == 2 and "invalid choice: 'nope'" in proc.stderr


def test_case13_error_text_is_bounded(capsys, tmp_path, monkeypatch):
    # a 3 MB command name (too long for exec, so in process: what MCP's command list reaches) used to come back
    # twice in the error: 6 MB on stderr
    from tools.cli import main

    monkeypatch.setenv("KERNELPILOT_CACHE_DIR", str(tmp_path))
    assert main(["dump-ir", "--arch", "gfx942", "--cmd", "x" * 3_000_000]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "\nhint: " in err and "Traceback" not in err
    assert len(err) < 25_000 and "characters left out" in err, len(err)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_case13_every_numeric_mcp_parameter_has_a_lower_bound(anyio_backend):
    from mcp import Client

    from mcp_server.server import mcp

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


def test_case13_mcp_timeout_message_names_the_timeout_the_user_gave(tmp_path):
    import time

    from mcp_server import jobs
    from tools.errors import CompileError

    (tmp_path / "request.json").write_text(json.dumps({"call": "dump-ir", "kwargs": {"timeout": 5}}))
    job = jobs.Job("j1", "dump-ir", "compiling k.py for gfx942", tmp_path, subprocess.Popen(["true"]), 35)
    job.proc.wait()
    job.state, job.started = "timed_out", time.monotonic() - 35
    with pytest.raises(CompileError, match=r"compiling k\.py for gfx942 did not finish within its 5s timeout"):
        jobs.result(job)


# --- every hint names options that exist ---------------------------------------------------------------------------

OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
NAMED_COMMAND = re.compile(r"kernelpilot ([a-z-]+)")
# Options of other programs that hints tell the user to pass to THAT program (which the hint names).
EXTERNAL = {
    "--att": "rocprofv3",
    "--kernel-trace": "rocprofv3",
    "--sys-trace": "rocprofv3",
    "--kernel-include-regex": "rocprofv3",
    "--csv": "ncu",
    "--page": "ncu",
    "--import": "ncu",
    "--print-source": "ncu",
    "--section": "ncu",
    "--save-temps": "hipcc",
    "--index-url": "pip",
    "--protocol": "dask scheduler",
}
# The commands a user runs whose errors carry hints from the modules they import (eval reports tool errors as task
# reasons, not as CLI hints, so only evals/ hints count for it; quickstart and doctor take no user kernel).
USER_COMMANDS = {
    "dump-ir": "tools.dump_ir",
    "vgpr-pressure": "tools.vgpr_pressure",
    "prefetch-data-load": "tools.prefetch",
    "kernel-trace": "tools.kernel_trace",
    "eval": "evals.cli",
}


def _module_of(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")


def _imports(path: Path) -> set[str]:
    """Project modules ``path`` imports anywhere (top level or lazily inside functions)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.split(".")[0] in ("tools", "evals", "mcp_server")}


def _hints() -> list[tuple[str, int, str, str]]:
    """(module, line, text, source) of every ``hint=`` argument in the engine, the harness and the server: the
    text is its string parts; the source its code (an f-string's expressions may name the program)."""
    found = []
    for path in sorted(p for d in ("tools", "evals", "mcp_server") for p in (REPO / d).rglob("*.py")):
        code = path.read_text()
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg == "hint":
                        text = "".join(
                            n.value
                            for n in ast.walk(kw.value)
                            if isinstance(n, ast.Constant) and isinstance(n.value, str)
                        )
                        found.append((_module_of(path), node.lineno, text, ast.get_source_segment(code, kw.value)))
    return found


def _options_of(command: str) -> set[str]:
    from tools.cli import build_parser

    sub = next(a for a in build_parser(command)._actions if isinstance(a, argparse._SubParsersAction))
    opts: set[str] = {"--help"}

    def walk(parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            opts.update(action.option_strings)
            if isinstance(action, argparse._SubParsersAction):
                for p in action.choices.values():
                    walk(p)

    walk(sub.choices[command])
    return opts


def test_case13_every_hint_names_options_that_exist():
    modules = {_module_of(p): p for d in ("tools", "evals", "mcp_server") for p in (REPO / d).rglob("*.py")}
    closure: dict[str, set[str]] = {}
    for command, root in USER_COMMANDS.items():
        seen, todo = set(), [root]
        while todo:
            m = todo.pop()
            if m in seen or m not in modules:
                continue
            seen.add(m)
            todo += [i for i in _imports(modules[m]) if command != "eval" or i.startswith("evals")]
        closure[command] = seen
    options = {c: _options_of(c) for c in USER_COMMANDS}
    wrong = []
    for module, line, text, source in _hints():
        for m in OPTION.finditer(text):
            opt = m.group()
            named = NAMED_COMMAND.findall(text[: m.start()])
            if named:  # "kernelpilot dump-ir --out DIR": an option of that command
                if opt not in _options_of(named[-1]):
                    wrong.append(f"{module}:{line}: {opt} is not an option of kernelpilot {named[-1]}")
            elif opt in EXTERNAL:
                if EXTERNAL[opt] not in source:
                    wrong.append(f"{module}:{line}: {opt} ({EXTERNAL[opt]}'s) without naming {EXTERNAL[opt]}")
            else:
                wrong += [
                    f"{module}:{line}: hint names {opt}, which `kernelpilot {c}` lacks"
                    for c, mods in closure.items()
                    if module in mods and module != "mcp_server.server" and opt not in options[c]
                ]
                if module.startswith("mcp_server"):  # the MCP server names its parameters, not CLI options
                    wrong.append(f"{module}:{line}: MCP hint names the CLI option {opt}")
    assert wrong == [], "\n".join(wrong)
