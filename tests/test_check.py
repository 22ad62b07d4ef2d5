"""kernelpilot check, llvm engine: FlyDSL kernels' LLVM IR run lane by lane on the CPU, BEFORE vs AFTER."""

from __future__ import annotations

import numpy as np
import pytest

from tools.check import xlane
from tools.check.cli import parse_shape
from tools.check.compare import check
from tools.check.engine import Launch, Machine, lay_out
from tools.check.ir import load_kernel
from tools.cli import main
from tools.errors import InputError

from .conftest import EXAMPLES, REPO

MFMA = EXAMPLES / "prefetch" / "flydsl_mfma"
PAGED = EXAMPLES / "prefetch" / "flydsl_paged_decode"
PLANTED = REPO / "tests" / "data" / "check"


# ------------------------------------------------------------------------------------------------ reference models
def _mfma_by_the_table(a_mat, b_mat, m, k):
    """Lane arrays written element by element from the ISA guide's layout (not the vectorised index code)."""
    groups, kpl = 64 // m, k // (64 // m)
    a = np.zeros((64, kpl), np.float32)
    b = np.zeros((64, kpl), np.float32)
    for i in range(m):
        for kk in range(k):
            a[i + m * (kk // kpl), kk % kpl] = a_mat[i, kk]
            b[i + m * (kk // kpl), kk % kpl] = b_mat[kk, i]
    return a, b, groups


@pytest.mark.parametrize(("m", "k"), [(16, 16), (32, 8), (16, 32), (32, 16)])
def test_mfma_reference_equals_numpy_matmul(m, k):
    rng = np.random.default_rng(1)
    a_mat = rng.standard_normal((m, k)).astype(np.float16).astype(np.float32)
    b_mat = rng.standard_normal((k, m)).astype(np.float16).astype(np.float32)
    a, b, groups = _mfma_by_the_table(a_mat, b_mat, m, k)
    d = xlane.mfma(a, b, np.zeros((64, m * m // 64), np.float32), m, k)
    want = a_mat.astype(np.float64) @ b_mat.astype(np.float64)
    for i in range(m):  # D[i][j] sits in lane j + m*((i//4) % G), item i%4 + 4*(i // (4G))
        for j in range(m):
            assert d[j + m * ((i // 4) % groups), i % 4 + 4 * (i // (4 * groups))] == np.float32(want[i, j])


def test_dpp_row_shr_reads_the_lane_n_below_within_its_row():
    src = np.arange(64, dtype=np.uint64)
    out = xlane.dpp(np.full(64, 99, np.uint64), src, 0x111, 0xF, 0xF, bound_ctrl=False)
    # lane 17 reads lane 16; lane 16 is the first of row 1, its source is invalid and keeps 'old'
    assert out[17] == 16 and out[16] == 99 and out[0] == 99


def test_swizzle_bitmask_mode_swaps_neighbours():
    src = np.arange(64, dtype=np.uint64)
    xor1 = 0x1F | (1 << 10)  # and 0x1f, or 0, xor 1
    assert list(xlane.gather_in_wave(src, xlane.swizzle_source_lanes(xor1))[:4]) == [1, 0, 3, 2]


DIVERGENT = """
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %odd = and i32 %tid, 1
  %c = icmp eq i32 %odd, 0
  br i1 %c, label %even, label %oddb
even:
  %a = mul i32 %tid, 10
  br label %join
oddb:
  %b = sub i32 0, %tid
  br label %join
join:
  %v = phi i32 [ %a, %even ], [ %b, %oddb ]
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %v, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"""


def test_divergent_branches_run_masked_and_phis_read_each_lanes_predecessor():
    kernel = load_kernel(DIVERGENT)
    mem = lay_out([("out", bytes(4 * 128))])
    m = Machine(kernel, Launch((1, 1, 1), (128, 1, 1)), mem.memory, mem.allocations, [mem.address(0)], "gfx942")
    m.run()
    out = mem.memory[:512].view(np.int32)
    tid = np.arange(128)
    assert np.array_equal(out, np.where(tid % 2 == 0, tid * 10, -tid))


def test_an_unmodelled_intrinsic_is_an_error_naming_it():
    ir = DIVERGENT.replace("call i32 @llvm.amdgcn.workitem.id.x()", "call i32 @llvm.amdgcn.s.getpc.x()").replace(
        "declare i32 @llvm.amdgcn.workitem.id.x()", "declare i32 @llvm.amdgcn.s.getpc.x()"
    )
    mem = lay_out([("out", bytes(512))])
    m = Machine(load_kernel(ir), Launch((1, 1, 1), (64, 1, 1)), mem.memory, mem.allocations, [mem.address(0)], "gfx942")
    with pytest.raises(InputError, match=r"unsupported in check: intrinsic llvm\.amdgcn\.s\.getpc\.x"):
        m.run()


def test_shape_option_parses_ints_and_floats():
    assert parse_shape("k_tiles=4,eps=0.5,name=x") == {"k_tiles": 4, "eps": 0.5, "name": "x"}


# ------------------------------------------------------------------------------------------------ real FlyDSL pairs
@pytest.mark.slow
def test_flydsl_mfma_pair_agrees_on_several_shapes_and_seeds():
    rep = check(MFMA / "baseline.py", MFMA / "prefetched.py", shapes=[{"k_tiles": 1}, {"k_tiles": 3}, {"k_tiles": 8}],
                seeds=[0, 1])  # fmt: skip
    assert rep.verdict == "same", rep.reason
    assert len(rep.cases) == 6 and all(c.verdict == "same" for c in rep.cases)
    # C is 1024 f32: 256 lanes x one f32x4 accumulator each, all written by both kernels
    assert all(c.buffers[0].elements == 1024 and c.buffers[0].written_by == ["before", "after"] for c in rep.cases)


@pytest.mark.slow
def test_flydsl_paged_decode_pair_agrees_on_several_shapes():
    rep = check(PAGED / "baseline.py", PAGED / "prefetched.py", shapes=[{"n_blocks": 2}, {"n_blocks": 5}], seeds=[3])
    assert rep.verdict == "same", rep.reason
    assert [b.name for b in rep.cases[0].buffers] == ["Out"]  # only Out is written; KV, table, scale are read


@pytest.mark.slow
def test_prefetch_one_tile_past_the_end_is_out_of_bounds_at_the_prefetch_line():
    rep = check(MFMA / "baseline.py", PLANTED / "mfma_past_end.py", shapes=[{"k_tiles": 4}])
    case = rep.cases[0]
    # the extra tile reads 0 here, so C agrees; the verdict comes from the access past A's 4 tiles (16384 bytes)
    assert case.buffers[0].verdict == "same"
    assert rep.verdict == "different" and "past-allocation" in rep.reason
    first = case.events[0]
    assert (first.kernel, first.kind, first.offset, first.bytes) == ("after", "past-allocation", 16384, 8)
    assert first.count == 256  # every lane of the last iteration's first A load
    # the load is load_tile's line 32, inlined at the loop body's prefetch call, line 45
    assert first.line.startswith("mfma_past_end.py:32:") and first.user_line == "mfma_past_end.py:45"


@pytest.mark.slow
def test_wrong_tile_index_gives_mismatch_indices():
    rep = check(MFMA / "baseline.py", PLANTED / "mfma_wrong_tile.py", shapes=[{"k_tiles": 4}])
    case = rep.cases[0]
    assert rep.verdict == "different" and not case.events
    assert case.buffers[0].mismatches == 1024  # tile 0 replaced by tile 1: every dot product changes
    assert case.mismatches[0].index == [0] and case.mismatches[0].before != case.mismatches[0].after


@pytest.mark.slow
def test_dropped_epilogue_is_a_mismatch():
    rep = check(MFMA / "baseline.py", PLANTED / "mfma_no_epilogue.py", shapes=[{"k_tiles": 2}])
    assert rep.verdict == "different" and rep.cases[0].buffers[0].mismatches > 0


@pytest.mark.slow
def test_cli_exit_codes_say_the_verdict(capsys):
    assert main(["check", str(MFMA / "baseline.py"), str(MFMA / "prefetched.py"), "--shape", "k_tiles=2"]) == 0
    assert "check: SAME" in capsys.readouterr().out
    assert main(["check", str(MFMA / "baseline.py"), str(MFMA / "hoisted_wrong.py"), "--shape", "k_tiles=3"]) == 1
    assert "check: DIFFERENT" in capsys.readouterr().out


@pytest.mark.slow
def test_cli_bad_shape_key_is_an_error_with_a_hint(capsys):
    assert main(["check", str(MFMA / "baseline.py"), str(MFMA / "prefetched.py"), "--shape", "tiles=2"]) == 2
    err = capsys.readouterr().err
    assert "takes no parameter 'tiles'" in err and "hint:" in err


LDS_EXCHANGE = """
@smem = internal addrspace(3) global [256 x i32] undef, align 4

define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %shift, i32 %mod) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %w = getelementptr [256 x i32], ptr addrspace(3) @smem, i32 0, i32 %tid
  store i32 %tid, ptr addrspace(3) %w
  BARRIER
  %s = add i32 %tid, %shift
  %src = urem i32 %s, %mod
  %r = getelementptr [256 x i32], ptr addrspace(3) @smem, i32 0, i32 %src
  %v = load i32, ptr addrspace(3) %r
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %v, ptr addrspace(1) %o
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()
"""


def _lds_run(barrier: bool, shift: int, threads: int = 128, mod: int = 128):
    ir = LDS_EXCHANGE.replace("BARRIER", "call void @llvm.amdgcn.s.barrier()" if barrier else "")
    mem = lay_out([("out", bytes(4 * threads))])
    m = Machine(load_kernel(ir), Launch((1, 1, 1), (threads, 1, 1)), mem.memory, mem.allocations,
                [mem.address(0), shift, mod], "gfx942")  # fmt: skip
    run = m.run()
    return mem.memory[: 4 * threads].view(np.int32), run


def test_lds_exchange_across_waves_after_a_barrier_is_clean():
    out, run = _lds_run(barrier=True, shift=64)
    assert np.array_equal(out, (np.arange(128) + 64) % 128) and not run.events  # 2 waves swap halves


def test_lds_read_of_another_waves_write_without_a_barrier_is_a_race():
    _, run = _lds_run(barrier=False, shift=64)
    races = [e for e in run.events if e.kind == "lds-race"]
    # all 128 lanes read what the other wave wrote in the same barrier interval
    assert run.event_counts[("lds-race", races[0].instruction)] == 128 and races[0].access == "load"


def test_lds_read_within_the_own_wave_needs_no_barrier():
    _, run = _lds_run(barrier=False, shift=1, threads=64, mod=64)  # one wave: lanes read their neighbour's slot
    assert not run.events


def test_lds_bytes_nobody_wrote_are_reported_uninitialised():
    _, run = _lds_run(barrier=True, shift=128, mod=256)  # lanes read slots 128..255, which no lane wrote
    assert {e.kind for e in run.events} == {"lds-uninitialised"}
    assert run.event_counts[("lds-uninitialised", run.events[0].instruction)] == 128


@pytest.mark.parametrize(
    ("fmt", "torch_dtype"),
    [("fp8_fnuz", "float8_e4m3fnuz"), ("bf8_fnuz", "float8_e5m2fnuz"), ("fp8_ocp", "float8_e4m3fn"),
     ("bf8_ocp", "float8_e5m2")],
)  # fmt: skip
def test_fp8_operand_decoding_matches_torch(fmt, torch_dtype):
    torch = pytest.importorskip("torch")
    raw = np.arange(256, dtype=np.uint8)
    want = torch.from_numpy(raw).view(getattr(torch, torch_dtype)).float().numpy()
    got = xlane.fp8_decode(raw, fmt)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)])


@pytest.mark.slow
def test_flydsl_lds_exchange_through_shared_allocator_runs_as_written():
    from tools.check.compare import outputs

    got = outputs(PLANTED / "lds_swap.py", "llvm", seed=2)
    assert np.array_equal(got["Out"], np.roll(got["Inp"], -64))  # thread t stores Inp[t], reads slot (t+64) % 128


@pytest.mark.slow
def test_flydsl_lds_exchange_without_barrier_is_a_race_at_the_read_line():
    rep = check(PLANTED / "lds_swap.py", PLANTED / "lds_swap_no_barrier.py")
    case = rep.cases[0]
    assert case.buffers[0].verdict == "same"  # lock step hides it in the values ...
    race = case.events[0]
    # ... but every one of the 128 lanes reads a slot the other wave wrote in the same barrier interval
    assert rep.verdict == "different" and (race.kind, race.access, race.count) == ("lds-race", "load", 128)
    assert race.user_line == "lds_swap_no_barrier.py:23"  # w = smem[(tid + 64) % 128]


@pytest.mark.slow
def test_flydsl_mfma_kernel_output_equals_numpy_matmul_of_its_fragments():
    from tools.check.compare import outputs

    got = outputs(MFMA / "baseline.py", "llvm", seed=4, shape={"k_tiles": 2})
    a = got["A"].astype(np.float64)  # A and B are the same tensor in this example
    c = got["C"]
    for w in range(4):  # each wave computes its own 16x16 tile: D = sum over tiles and both MFMAs of A_frag @ B_frag
        d = np.zeros((16, 16))
        for kt in range(2):
            for half in range(2):
                frag = [a[kt * 2048 + (64 * w + lane) * 8 + 4 * half :][:4] for lane in range(64)]
                amat = np.array([[frag[i + 16 * (k // 4)][k % 4] for k in range(16)] for i in range(16)])
                bmat = np.array([[frag[j + 16 * (k // 4)][k % 4] for j in range(16)] for k in range(16)])
                d += amat @ bmat
        for lane in range(64):  # lane stores D[4*(lane//16) + item][lane % 16], item 0..3, at C[4*thread + item]
            for item in range(4):
                want = d[4 * (lane // 16) + item, lane % 16]
                assert abs(c[4 * (64 * w + lane) + item] - want) <= 1e-5 * max(1.0, abs(want))


@pytest.mark.slow
def test_before_may_be_a_git_revision_of_after(tmp_path):
    import subprocess

    kernel = tmp_path / "kernel.py"
    kernel.write_text((MFMA / "baseline.py").read_text())
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "kernel.py"], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=tmp_path, check=True)
    kernel.write_text((PLANTED / "mfma_wrong_tile.py").read_text())  # the working tree holds the rewrite
    rep = check("HEAD:./kernel.py", kernel, shapes=[{"k_tiles": 2}])
    assert rep.verdict == "different" and rep.kernels == ["mfma_loop_baseline_0 → mfma_wrong_tile_0"]
    with pytest.raises(InputError, match="neither a file nor a git revision"):
        check("HEAD:./missing.py", kernel)


def test_int8_mfma_reference_is_exact_integer_matmul():
    rng = np.random.default_rng(3)
    a_mat = rng.integers(-128, 128, (16, 32)).astype(np.float64)
    b_mat = rng.integers(-128, 128, (32, 16)).astype(np.float64)
    a, b, groups = _mfma_by_the_table(a_mat, b_mat, 16, 32)
    d = xlane.mfma_exact(a.astype(np.float64), b.astype(np.float64), np.zeros((64, 4)), 16, 32)
    want = a_mat.astype(np.int64) @ b_mat.astype(np.int64)
    for i in range(16):
        for j in range(16):
            assert d[j + 16 * ((i // 4) % groups), i % 4] == want[i, j]


RUNNING_MAX = """
define amdgpu_kernel void @k(ptr addrspace(1) %x, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %m = phi float [ -inf, %entry ], [ %m1, %loop ]
  %idx = add i32 %i, %tid
  %p = getelementptr float, ptr addrspace(1) %x, i32 %idx
  %v = load float, ptr addrspace(1) %p
  %m1 = call float @llvm.maximum.f32(float %m, float %v)
  %i1 = add i32 %i, 1
  %done = icmp eq i32 %i1, 4
  br i1 %done, label %exit, label %loop
exit:
  %o = getelementptr float, ptr addrspace(1) %out, i32 %tid
  store float %m1, ptr addrspace(1) %o
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare float @llvm.maximum.f32(float, float)
"""


def test_a_float_phi_starting_at_minus_infinity_parses_and_runs():
    # newer LLVM prints `phi float [ -inf, %entry ]` (an online-softmax running max); llvmlite reads only hex there
    x = np.array([3.0, -1.0, 7.5, 2.0, -4.0, 0.5, 1.0, 6.0, 9.0], dtype=np.float32)
    mem = lay_out([("x", x.tobytes()), ("out", bytes(4 * 64))])
    m = Machine(load_kernel(RUNNING_MAX), Launch((1, 1, 1), (64, 1, 1)), mem.memory, mem.allocations,
                [mem.address(0), mem.address(1)], "gfx942")  # fmt: skip
    m.run()
    out = mem.memory[mem.allocations[1].start :][:16].view(np.float32)
    assert out.tolist() == [7.5, 7.5, 7.5, 2.0]  # lane t: max of x[t .. t+3]; lane 3: max(2, -4, 0.5, 1)
