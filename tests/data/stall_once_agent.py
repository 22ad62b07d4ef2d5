"""A scripted agent that stalls one task, once, so that a test can stop an eval run while that task is in flight.

usage: stall_once_agent.py MARK_DIR STALL_TASK WHERE TASK_ID WORKSPACE

For TASK_ID != STALL_TASK, or once MARK_DIR/TASK_ID exists (a re-run), it changes nothing and exits at once.
Otherwise it writes MARK_DIR/TASK_ID and stalls where WHERE says:
  agent    it records its pid in MARK_DIR/TASK_ID and sleeps five minutes (a long agent run);
  scoring  it appends to WORKSPACE/kernel.py a line that makes every process importing the kernel (the scorer's
           compile and kernel processes) append its pid to MARK_DIR/TASK_ID.pids and sleep five minutes, then exits.
"""

import os
import sys
import time
from pathlib import Path

STALL = """

import os as _kp_os, time as _kp_time  # noqa: E401 - stall_once_agent: the scoring of this task stalls here
with open({pids!r}, "a") as _kp_f:
    _kp_f.write(f"{{_kp_os.getpid()}}\\n")
_kp_time.sleep(300)
"""


def main(mark_dir: str, stall_task: str, where: str, task_id: str, workspace: str) -> int:
    mark = Path(mark_dir) / task_id
    if task_id != stall_task or mark.exists():
        return 0
    mark.write_text(str(os.getpid()))
    if where == "agent":
        time.sleep(300)
        return 0
    kernel = Path(workspace) / "kernel.py"
    kernel.write_text(kernel.read_text() + STALL.format(pids=str(mark) + ".pids"))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
