"""A scripted agent that records its pid in PID_DIR/TASK_ID and then sleeps for five minutes without touching the
workspace. It stands for a long agent run that a driver's Ctrl-C must stop on the worker.

usage: sleepy_agent.py PID_DIR TASK_ID
"""

import os
import sys
import time
from pathlib import Path


def main(pid_dir: str, task_id: str) -> int:
    (Path(pid_dir) / task_id).write_text(str(os.getpid()))
    time.sleep(300)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
