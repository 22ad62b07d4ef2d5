"""`kernelpilot kernel-trace` end to end through tools.cli.main."""

from __future__ import annotations

import json

from tools.cli import main

from .trace_fixtures import ROCPD_DB


def test_cli_json_report(capsys):
    assert main(["kernel-trace", "--from", str(ROCPD_DB), "--top", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"].startswith("rocpd")
    assert report["top_kernels"][0]["total_ns"] == 2580371 and report["top_kernels_truncated"] is True


def test_cli_text_report(capsys):
    assert main(["kernel-trace", "--from", str(ROCPD_DB), "--kernel", "ck_tile"]) == 0
    out = capsys.readouterr().out
    assert "   150      2580371" in out and "warning: register counts" in out


def test_cli_bad_input_exits_2(tmp_path, capsys):
    assert main(["kernel-trace", "--from", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "not an ATT output directory" in err and "hint:" in err
    assert main(["kernel-trace"]) == 2
    assert main(["kernel-trace", "--from", str(ROCPD_DB), "--", "true"]) == 2
