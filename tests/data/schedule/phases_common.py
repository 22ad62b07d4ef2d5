"""What the phase kernels of this folder share: buffer-op value unwrapping, the no-unroll compile hint and the
example arguments (A and B f16 tiles, one f32 per lane and iteration in X, C for the results)."""

import torch

TILE_BYTES = 4096  # bytes of A (and B) one iteration reads: 256 lanes x 16
NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration is one k-tile


def raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


def entry(jit_fn, k_tiles: int, extra_tiles: int = 0):
    """kernelpilot_entry's answer: a launcher compiling ``jit_fn`` without runtime unrolling, and its arguments."""
    from flydsl.compiler.kernel_function import CompilationContext

    def launch(*args):
        with CompilationContext.compile_hints(NO_UNROLL):
            return jit_fn(*args)

    a = torch.empty((k_tiles + extra_tiles) * TILE_BYTES // 2, dtype=torch.float16)
    return launch, (a, a, torch.empty(k_tiles * 256), torch.empty(2048), k_tiles)
