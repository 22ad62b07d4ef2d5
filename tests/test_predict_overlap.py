"""A round's latency chain and its DRAM transfer overlap only as far as other resident blocks fill the gaps
(tools/predict/model.py closed_round_us): with one resident block per SM nothing overlaps, with many the
SM's share of the bandwidth is approached smoothly. Designs of one memory-bound problem that keep the same bytes
moving but differ in how many blocks an SM holds are no longer predicted the same time."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.dump_ir.dump import dump_ir
from tools.isa.sass import parse_sass
from tools.predict import predict_launch
from tools.predict.model import closed_round_us
from tools.predict.nvidia import block_synced, find_function

HEADER = "import torch\nimport triton\nimport triton.language as tl\n\n\n"

# RMSNorm forward over a 16384 x 4096 bf16 matrix, ROWS whole rows per program: the same 268 MB move whatever ROWS
# and num_warps are; 8 rows of 16 warps hold 64 KB per program in registers (one block an SM), 1 row of 4 warps little
RMSNORM = """
@triton.jit
def rmsnorm_rows(x_ptr, w_ptr, y_ptr, M, N, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    offs = rows[:, None].to(tl.int64) * N + cols[None, :]
    x = tl.load(x_ptr + offs).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / N + 1e-6)
    w = tl.load(w_ptr + cols).to(tl.float32)
    tl.store(y_ptr + offs, (x * rstd[:, None] * w[None, :]).to(tl.bfloat16))


@triton.jit
def scale_copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2)


def kernelpilot_entry():
    m, n = 16384, 4096
    x, w, y = torch.empty((m, n), dtype=torch.bfloat16), torch.empty(n, dtype=torch.bfloat16), torch.empty((m, n), dtype=torch.bfloat16)
    return [{"kernel": rmsnorm_rows, "args": (x, w, y, m, n), "kwargs": {"ROWS": r, "BLOCK": n, "num_warps": nw},
             "grid": (m // r,)} for r, nw in ((8, 16), (1, 4))] + [
            {"kernel": scale_copy, "args": (x, y), "kwargs": {"BLOCK": 4096, "num_warps": 4}, "grid": (m * n // 4096,)}]
"""


def test_one_customer_overlaps_nothing_and_many_approach_the_bandwidth_bound():
    # one resident block: its chain, then its transfer, one after the other
    assert closed_round_us(2.0, 3.0, 1) == pytest.approx(5.0)
    # never below the old hard bound, and rising with the blocks towards their transfers at the SM's bandwidth
    previous = 0.0
    for n in (1, 2, 4, 8, 32, 128):
        t = closed_round_us(2.0, 3.0 / n, n)  # the same bytes split over n blocks
        assert t >= max(2.0, 3.0) - 1e-12
        assert previous == 0.0 or t <= previous + 1e-12  # more blocks fill more gaps
        previous = t
    assert closed_round_us(2.0, 3.0 / 128, 128) == pytest.approx(3.0, rel=0.02)
    # no DRAM transfer: the chain alone
    assert closed_round_us(2.0, 0.0, 4) == 2.0


@pytest.mark.slow
def test_few_resident_blocks_of_one_memory_bound_problem_are_predicted_slower(tmp_path):
    path = tmp_path / "rmsnorm.py"
    path.write_text(HEADER + RMSNORM)
    kernels = dump_ir(path, "sm_90").kernels
    big, small, _ = (predict_launch(k, device="h200") for k in kernels)
    # the row's sum synchronises a block's warps (a BAR between its loads and its stores); the copy's warps do not
    synced = [block_synced(find_function(parse_sass(Path(k.final_isa).read_text()), k.name).insts, []) for k in kernels]
    assert synced == [True, True, False]
    fb, fs = big.figures, small.figures
    assert fb.bytes_moved == pytest.approx(fs.bytes_moved, rel=0.01)  # the same bytes either way
    assert fb.resident_blocks_per_cu < fs.resident_blocks_per_cu
    # the hard max of the two terms would tie them on the HBM time; the closed network does not
    assert big.predicted_us > 1.05 * small.predicted_us
    assert big.predicted_us > max(fb.hbm_us, fb.latency_us) + fb.launch_overhead_us
    assert any("overlap only partly" in n for n in big.notes)
