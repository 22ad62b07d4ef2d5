"""A scripted agent that kills the Dask worker running it (its parent process) the first KILLS times it is started,
counting in COUNTER_FILE; after that it applies the task's solution.patch. It stands for a host lost mid-job.

usage: kill_worker_agent.py WORKSPACE TASK_ID COUNTER_FILE KILLS
"""

import os
import signal
import subprocess
import sys
from pathlib import Path

TASKS = Path(__file__).resolve().parents[2] / "evals" / "tasks"


def main(ws: str, task_id: str, counter: str, kills: str) -> int:
    path = Path(counter)
    n = int(path.read_text()) if path.exists() else 0
    path.write_text(str(n + 1))
    if n < int(kills):
        os.kill(os.getppid(), signal.SIGKILL)  # the worker process that started this agent
        return 0
    subprocess.run(["git", "apply", "--whitespace=nowarn", str(TASKS / task_id / "solution.patch")], cwd=ws, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
