"""A scripted agent for the plugin A/B test: it solves a task (applies the task's solution.patch) only when it has
kernelpilot — the MCP config names the kernelpilot server, the skills are in the workspace, and `kernelpilot` is on
PATH — and otherwise changes nothing. It reports a cost so the A/B's cost column has figures.

usage: ab_agent.py WORKSPACE TASK_ID MCP_CONFIG REPORT_FILE
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

TASKS = Path(__file__).resolve().parents[2] / "evals" / "tasks"


def main(ws: str, task_id: str, mcp_config: str, report_file: str) -> int:
    servers = json.loads(Path(mcp_config).read_text()).get("mcpServers", {})
    skills = (Path(ws) / ".claude" / "skills" / "vgpr-pressure" / "SKILL.md").is_file()
    has_plugin = "kernelpilot" in servers and skills and shutil.which("kernelpilot") is not None
    print(f"mcp={'kernelpilot' in servers} skills={skills} cli={shutil.which('kernelpilot')}")
    if has_plugin:
        patch = TASKS / task_id / "solution.patch"
        subprocess.run(["git", "apply", "--whitespace=nowarn", str(patch)], cwd=ws, check=True)
    Path(report_file).write_text(json.dumps({"cost_usd": 0.5 if has_plugin else 0.25}))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
