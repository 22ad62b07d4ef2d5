"""A wrong answer to flydsl-flash-prefill-lds-dma, kept to show the task is coupled: the tiles move by LDS DMA
(buffer_load ... lds, no ds_write), but synchronously into a single LDS stage, so every block drains the DMA with
an s_waitcnt vmcnt(0) before the barrier and nothing is in flight during the math (tests/test_eval_tasks.py)."""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

D = 64
KEYS = 32  # keys per block
TILE_HALVES = KEYS * D  # one K or V^T block, f16: 256 lanes x 8


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def flash_prefill(Q: fx.Tensor, K: fx.Tensor, Vt: fx.Tensor, Out: fx.Tensor, kv_blocks: fx.Int32,
                  scale: fx.Float32):  # fmt: skip
    i32 = ir.IntegerType.get_signless(32)
    f16x4 = ir.VectorType.get([4], ir.F16Type.get())
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    qtile = fx.Int32(fx.block_idx.x)
    wave = tid // 64
    lane = tid % 64
    col = lane % 16  # the query (S^T column) or d row this lane's fragments belong to
    quad = (lane // 16) * 4  # the 4 consecutive k of a fragment
    rsrc_q = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Q)))
    rsrc_k = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(K)))
    rsrc_v = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Vt)))
    rsrc_o = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Out)))
    smem = fx.SharedAllocator()
    lds_k = smem.allocate(fx.Array[fx.Float16, TILE_HALVES, 16]).peek().ptr
    lds_v = smem.allocate(fx.Array[fx.Float16, TILE_HALVES, 16]).peek().ptr
    # Q^T fragments (B operand): query `col` of this wave, d-step s
    q_row = ((qtile * 64 + wave * 16 + col) * D + quad) * 2
    q = [fx.rocdl.raw_ptr_buffer_load(f16x4, rsrc_q, q_row + 32 * s, 0) for s in range(D // 16)]
    # the 4 lanes holding scores of the same query: lane ^ 16 and lane ^ 32 (ds_bpermute byte addresses)
    peers = [((lane + 16 * j) % 64) * 4 for j in (1, 2)]

    def lane_max(x):
        for addr in peers:
            other = fx.rocdl.ds_bpermute(i32, _raw(addr), _raw(x.bitcast(fx.Int32)))
            x = x.maximumf(fx.Int32(other).bitcast(fx.Float32))
        return x

    zero = fx.arith.constant_vector(0.0, f32x4)
    m0 = fx.Float32(float("-inf"))
    l0 = fx.Float32(0.0)
    for kb, state in range(fx.Int32(0), kv_blocks, fx.Int32(1), init=[*([zero] * (D // 16)), m0, l0]):
        base = (fx.Int32(kb) * TILE_HALVES + tid * 8) * 2
        fx.rocdl.buffer_load_to_lds(rsrc_k, (lds_k + wave * 512).llvm_ptr, base, size_bytes=16)
        fx.rocdl.buffer_load_to_lds(rsrc_v, (lds_v + wave * 512).llvm_ptr, base, size_bytes=16)
        fx.gpu.barrier()
        s = []
        for t in fx.range_constexpr(KEYS // 16):  # S^T tile t: keys 16t..16t+15 x this wave's 16 queries
            s_t = zero
            for d in fx.range_constexpr(D // 16):
                k_frag = (lds_k + (t * 16 + col) * D + d * 16 + quad).load(f16x4)
                s_t = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [k_frag, q[d], s_t])
            s.append(fx.Vector(s_t) * scale)
        both = fx.Vector(_raw(s[0].maximumf(s[1])))
        block_max = both[0].maximumf(both[1]).maximumf(both[2].maximumf(both[3]))
        m_old, l_old = fx.Float32(state[D // 16]), fx.Float32(state[D // 16 + 1])
        m_new = m_old.maximumf(lane_max(block_max))
        alpha = fx.Float32(fx.math.exp(_raw(m_old - m_new)))
        p = [fx.Vector(fx.math.exp(_raw(s_t - m_new))) for s_t in s]
        ps = p[0] + p[1]
        l_new = l_old * alpha + (ps[0] + ps[1]) + (ps[2] + ps[3])
        p16 = [_raw(p_t.to(fx.Float16)) for p_t in p]
        acc = []
        for dm in fx.range_constexpr(D // 16):  # O^T tile dm: d 16dm..16dm+15 x queries
            a = _raw(fx.Vector(state[dm]) * alpha)
            for t in fx.range_constexpr(KEYS // 16):
                v_frag = (lds_v + (dm * 16 + col) * KEYS + t * 16 + quad).load(f16x4)
                a = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [v_frag, p16[t], a])
            acc.append(a)
        fx.gpu.barrier()
        results = yield [*acc, _raw(m_new), _raw(l_new)]
    inv_l = 1.0 / lane_sum(fx.Float32(results[D // 16 + 1]), peers, i32)
    for dm in fx.range_constexpr(D // 16):
        fx.rocdl.raw_ptr_buffer_store(
            _raw(fx.Vector(results[dm]) * inv_l),
            _raw(rsrc_o),
            _raw(((qtile * 4 + wave) * 4 + dm) * 1024 + lane * 16),
            _raw(fx.Int32(0)),
        )


def lane_sum(x, peers, i32):
    for addr in peers:
        other = fx.rocdl.ds_bpermute(i32, _raw(addr), _raw(x.bitcast(fx.Int32)))
        x = x + fx.Int32(other).bitcast(fx.Float32)
    return x


@flyc.jit
def attn(Q, K, Vt, Out, qtiles: fx.Constexpr[int], kv_blocks: fx.Int32, scale: fx.Float32,
         stream: fx.Stream = fx.Stream(None)):  # fmt: skip
    flash_prefill(Q, K, Vt, Out, kv_blocks, scale).launch(grid=(qtiles, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one key block


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return attn(*args)


def kernelpilot_entry(kv_blocks=16):
    """kernelpilot file mode: 4 query tiles of 64 over kv_blocks key blocks of 32 (512 keys), scale 1 / sqrt(64)."""
    qtiles = 4
    q = torch.empty(qtiles * 64 * D, dtype=torch.float16)
    k = torch.empty(kv_blocks * TILE_HALVES, dtype=torch.float16)
    vt = torch.empty(kv_blocks * TILE_HALVES, dtype=torch.float16)
    o = torch.empty(qtiles * 64 * D, dtype=torch.float32)
    return launch, (q, k, vt, o, qtiles, kv_blocks, 0.125)
