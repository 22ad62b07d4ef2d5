"""kernelpilot_run for prefetched.cu (the file-mode convention for a non-Python kernel: ``<stem>_run.py`` beside it)."""

from harness import cuda_run


def kernelpilot_run(device):
    return cuda_run("prefetched.cu", "row_dot_prefetched", device)
