"""Trip evidence for FlyDSL loops whose bounds are runtime values (trips "from evidence ... the loop bounds
evaluated on the example arguments, or a stated assumption"; the hot loop is the one with the most executed
instructions). FlyDSL bakes constexprs into the IR, but a runtime scalar (``n: fx.Int32``) is only an argument of
the host function: the runner records the @flyc.jit call's values, and the predictor evaluates the origin stage's
host ``func.func`` → ``gpu.launch_func`` → ``gpu.func`` ``scf.for`` bounds on them.

The kernels are ours, written here and compiled for gfx942 on the CPU (COMPILE_ONLY).
"""

from __future__ import annotations

import pytest

from tools.dump_ir.dump import dump_ir
from tools.predict import predict_launch

HEAD = """
import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v
"""

# an outer loop of n iterations around an inner one of m (one f32x4 load per inner iteration), then a loop bounded
# by a count loaded from Lens[workgroup]; 64 threads per workgroup, `wgs` workgroups (a runtime value too)
LOOPS = (
    HEAD
    + """

@flyc.kernel
def loops(X: fx.Tensor, Lens: fx.Tensor, Out: fx.Tensor, n: fx.Int32, m: fx.Int32):
    i32 = ir.IntegerType.get_signless(32)
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    wg = fx.Int32(fx.block_idx.x)
    rsrc_x = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(X)))
    rsrc_l = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Lens)))
    rsrc_o = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Out)))
    zero = fx.arith.constant_vector(0.0, f32x4)
    for i, acc in range(fx.Int32(0), n, fx.Int32(1), init=[zero]):
        for j, acc2 in range(fx.Int32(0), m, fx.Int32(1), init=[acc[0]]):
            off = ((fx.Int32(i) * 8 + fx.Int32(j)) * 64 + tid) * 16
            inner = yield [_raw(fx.Vector(acc2[0]) + fx.Vector(fx.rocdl.raw_ptr_buffer_load(f32x4, rsrc_x, off, 0)))]
        outer = yield [_raw(inner)]
    count = fx.Int32(fx.rocdl.raw_ptr_buffer_load(i32, rsrc_l, wg * 4, 0))
    for k, acc3 in range(fx.Int32(0), count, fx.Int32(1), init=[outer]):
        x = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f32x4, rsrc_x, (fx.Int32(k) * 64 + tid) * 16, 0))
        last = yield [_raw(fx.Vector(acc3[0]) * x)]
    fx.rocdl.raw_ptr_buffer_store(_raw(fx.Vector(last)), _raw(rsrc_o), _raw((wg * 64 + tid) * 16), _raw(fx.Int32(0)))


@flyc.jit
def run(X, Lens, Out, wgs: fx.Int32, n: fx.Int32, m: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    loops(X, Lens, Out, n, m).launch(grid=(wgs, 1, 1), block=(64, 1, 1), stream=stream)


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints({"llvm_options": {"unroll-runtime": False}}):  # one ISA loop per scf.for
        return run(*args)


def kernelpilot_entry():
    x = torch.empty(64 * 64 * 4, dtype=torch.float32)
    lens = torch.zeros(2, dtype=torch.int32)
    out = torch.empty(2 * 64 * 4, dtype=torch.float32)
    return launch, (x, lens, out, 2, 5, 3)
"""
)

# one loop of n iterations, LLVM free to unroll it
ONE_LOOP = (
    HEAD
    + """

@flyc.kernel
def one_loop(X: fx.Tensor, Out: fx.Tensor, n: fx.Int32):
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    rsrc_x = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(X)))
    rsrc_o = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Out)))
    for i, acc in range(fx.Int32(0), n, fx.Int32(1), init=[fx.arith.constant_vector(0.0, f32x4)]):
        x = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f32x4, rsrc_x, (fx.Int32(i) * 64 + tid) * 16, 0))
        total = yield [_raw(fx.Vector(acc[0]) + x)]
    fx.rocdl.raw_ptr_buffer_store(_raw(fx.Vector(total)), _raw(rsrc_o), _raw(tid * 16), _raw(fx.Int32(0)))


@flyc.jit
def run(X, Out, n: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    one_loop(X, Out, n).launch(grid=(1, 1, 1), block=(64, 1, 1), stream=stream)


def kernelpilot_entry():
    return run, (torch.empty(40 * 64 * 4, dtype=torch.float32), torch.empty(64 * 4, dtype=torch.float32), 40)
"""
)


@pytest.fixture(scope="module")
def loops_kernel(tmp_path_factory):
    path = tmp_path_factory.mktemp("flytrips") / "loops.py"
    path.write_text(LOOPS)
    (k,) = dump_ir(path, "gfx942").kernels
    return k


@pytest.mark.slow
def test_the_jit_calls_argument_values_are_recorded_as_the_launch(loops_kernel):
    launch = loops_kernel.launch
    assert launch.source == "call" and "run()" in launch.note
    assert [(a.name, a.kind) for a in launch.arguments] == [
        ("X", "tensor"), ("Lens", "tensor"), ("Out", "tensor"),
        ("wgs", "scalar"), ("n", "scalar"), ("m", "scalar"), ("stream", "scalar"),
    ]  # fmt: skip
    assert [a.value for a in launch.arguments[3:6]] == [2, 5, 3]
    # X: 64 x 64 f32x4 = 16384 floats
    assert (launch.arguments[0].dtype, launch.arguments[0].nbytes) == ("float32", 65536)


@pytest.mark.slow
def test_runtime_bounds_give_each_loop_its_trips_and_nested_loops_multiply(loops_kernel):
    p = predict_launch(loops_kernel)
    # the grid is a runtime value too: the host function's gpu.launch_func on wgs = 2
    assert p.grid == [2, 1, 1] and p.block_threads == 64
    assert any("computed by FlyDSL's host function" in n for n in p.notes)
    outer, inner, counted = p.loops
    # outer: n = 5 iterations; inner: m = 3 per outer iteration, 5 x 3 = 15 per workgroup
    assert (outer.depth, outer.trips) == (1, 5.0)
    assert (inner.depth, inner.trips) == (2, 15.0)
    assert p.trips.source == "loop-bounds"
    assert p.trips.detail.startswith("scf.for bounds evaluated on the @flyc.jit call's arguments for 2 of 2 programs")
    # the hot loop: the most executed instructions (instructions x trips); the outer loop's own are its body less
    # the inner loop's
    assert inner.hot and p.trips.trips == 15.0
    assert inner.executed_instructions == inner.instructions * 15
    assert outer.executed_instructions == (outer.instructions - inner.instructions) * 5


@pytest.mark.slow
def test_a_loop_bounded_by_a_loaded_count_is_a_named_assumption_and_does_not_become_hot(loops_kernel):
    p = predict_launch(loops_kernel)
    counted = p.loops[2]
    # Lens[wg] is loaded: nothing before the launch gives it; one iteration assumed, and said so
    assert counted.trips == 1.0 and not counted.hot
    assert (
        "scf.for #3 (depth 1): bounds not known before the launch (a loaded, thread-dependent or loop-carried "
        "value): 1 iteration(s) per enclosing iteration assumed" in p.trips.detail
    )
    # the hot loop's trips are evidence, so the launch's evidence stays the loop bounds
    assert p.trips.source == "loop-bounds"


@pytest.mark.slow
def test_stated_trips_fill_only_the_loops_no_evidence_gives(loops_kernel):
    p = predict_launch(loops_kernel, trips=100)
    outer, inner, counted = p.loops
    assert (outer.trips, inner.trips) == (5.0, 15.0)  # evidence, not the stated figure
    assert counted.trips == 100.0
    # 100 iterations of the counted loop now execute the most instructions: the hot loop is an assumed one, and
    # the launch's evidence says so
    assert counted.hot and counted.executed_instructions == counted.instructions * 100
    assert p.trips.source == "assumption" and p.trips.trips == 100.0
    assert p.trips.detail.startswith("--trips 100 (stated) for the hot loop, whose bounds are not known")


def test_an_unrolled_flydsl_loop_is_recognised_by_its_bytes(tmp_path):
    path = tmp_path / "one_loop.py"
    path.write_text(ONE_LOOP)
    p = predict_launch(dump_ir(path, "gfx942").kernels[0])
    assert p.trips.source == "loop-bounds"
    # the source loop moves 16 B per lane x 64 lanes = 1024 B per iteration; LLVM's runtime unroll makes a copy
    # moving k x that, run 40 / k times, and a remainder loop run 40 mod k times
    unrolled = next(n for n in p.notes if "unrolled" in n)
    k = int(unrolled.split("unrolled ")[1].split("x")[0])
    assert f"{k * 1024} B per program per iteration, {k}x the source loop's 1024 B" in unrolled
    assert sorted(lp.trips for lp in p.loops) == sorted([40 / k, 40 % k])
