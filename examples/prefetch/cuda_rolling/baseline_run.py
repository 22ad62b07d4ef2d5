"""kernelpilot_run for baseline.cu (the file-mode convention for a non-Python kernel: ``<stem>_run.py`` beside it)."""

from harness import cuda_run


def kernelpilot_run(device):
    return cuda_run("baseline.cu", "row_dot_baseline", device)
