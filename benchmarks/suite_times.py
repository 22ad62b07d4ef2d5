"""The test suite's budget, watched: run the suite (or a lane of it) and print each file's seconds, slowest first.

    python benchmarks/suite_times.py                       # the full suite as the README runs it (-n auto)
    python benchmarks/suite_times.py -m "not slow"         # the fast lane
    python benchmarks/suite_times.py --write -- -n 0       # serial, and record the figures in tests/durations.json

A file's seconds are the sum of its tests' setup, call and teardown times: what it costs the worker it runs on
(under pytest-xdist a file runs whole on one worker). ``--write`` stores them in tests/durations.json, which the
suite's conftest reads to start the longest files first. The script prints figures; it asserts nothing: the budget
(full suite <= 25 min, fast lane <= 5 min on 2 cores) is a target to read off, not a test.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DURATIONS = REPO / "tests" / "durations.json"


class Recorder:
    """A pytest plugin: seconds and test counts per file, from every report the controller sees."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.tests: dict[str, set[str]] = defaultdict(set)
        self.failed: list[str] = []

    def pytest_runtest_logreport(self, report) -> None:
        path = report.nodeid.split("::")[0]
        self.seconds[path] += report.duration
        self.tests[path].add(report.nodeid)
        if report.failed:
            self.failed.append(report.nodeid)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-m", dest="marker", help="a pytest marker expression, e.g. 'not slow' (the fast lane)")
    ap.add_argument("--write", action="store_true", help=f"store the per-file seconds in {DURATIONS.relative_to(REPO)}")
    ap.add_argument("--top", type=int, default=0, help="print only the N slowest files (0: all)")
    ap.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --), e.g. -n 0 or a test path")
    args = ap.parse_args(argv)
    if args.write and args.marker:
        ap.error("--write records the full suite's figures; drop -m (a lane's seconds would replace the full ones)")
    extra = list(args.pytest_args)
    if not any(a == "-n" or a.startswith("-n") or a.startswith("--numprocesses") for a in extra):
        extra = ["-n", "auto", *extra]
    run = ["-q", "-p", "no:cacheprovider", "--dist", "loadfile", *(["-m", args.marker] if args.marker else []), *extra]
    rec = Recorder()
    t0 = time.monotonic()
    rc = pytest.main([*run, str(REPO / "tests")] if not any(a.startswith("tests") for a in extra) else run, [rec])
    wall = time.monotonic() - t0
    rows = sorted(rec.seconds.items(), key=lambda kv: -kv[1])
    total = sum(rec.seconds.values())
    print(f"\n{'seconds':>8} {'tests':>6}  file")
    for path, sec in rows[: args.top or None]:
        print(f"{sec:8.1f} {len(rec.tests[path]):6d}  {path}")
    print(f"{total:8.1f} {sum(len(t) for t in rec.tests.values()):6d}  all files (summed over workers)")
    print(f"wall {wall:.1f} s for pytest {' '.join(run)} (exit {int(rc)}); {len(rec.failed)} failed report(s)")
    if args.write:
        if rec.failed:
            print("not written: a run with failures does not set the budget", file=sys.stderr)
        else:
            table = {"note": "seconds per test file, from benchmarks/suite_times.py --write; the conftest starts the "
                     "longest files first", "lane": args.marker or "full",
                     "seconds": {p: round(s, 1) for p, s in sorted(rec.seconds.items())}}  # fmt: skip
            DURATIONS.write_text(json.dumps(table, indent=1) + "\n")
            print(f"wrote {DURATIONS.relative_to(REPO)} ({len(rows)} files)")
    return int(rc)


if __name__ == "__main__":
    sys.exit(main())
