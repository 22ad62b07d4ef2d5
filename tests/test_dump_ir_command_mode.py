"""Command mode: run any script with the dump environment set and collect every kernel it compiled."""

from __future__ import annotations

import sys
import textwrap

import pytest

from tests.conftest import EXAMPLES
from tools.dump_ir import dump_ir_command


def test_flydsl_script_is_compiled_compile_only_for_the_requested_arch(tmp_path):
    script = tmp_path / "run_saxpy.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(EXAMPLES / "flydsl")!r})
            import torch
            from saxpy import saxpy
            saxpy(torch.empty(64, 128), torch.empty(64, 128), 3.0)
            """
        )
    )
    result = dump_ir_command([sys.executable, str(script)], "gfx950", frontend="flydsl", out=tmp_path / "out")
    (k,) = result.kernels
    assert k.name == "saxpy_kernel_0" and k.arch == "gfx950"
    assert k.final_isa.endswith("final_isa.s") and "amdgcn-amd-amdhsa-unknown-gfx950" in open(k.final_isa).read()
    assert k.binary and k.resources.vgpr_count is not None


@pytest.mark.slow
def test_triton_script_kernels_are_collected_from_its_cache(tmp_path):
    script = tmp_path / "two_targets.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(EXAMPLES / "triton")!r})
            import triton
            from triton.backends.compiler import GPUTarget
            from vector_add import vector_add_kernel
            signature = {{"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}}
            src = triton.compiler.ASTSource(fn=vector_add_kernel, signature=signature, constexprs={{"BLOCK": 1024}})
            triton.compile(src, target=GPUTarget("hip", "gfx942", 64))
            triton.compile(src, target=GPUTarget("cuda", 90, 32))
            """
        )
    )
    result = dump_ir_command([sys.executable, str(script)], "gfx942", frontend="triton", out=tmp_path / "out")
    # the sm_90 compile is left out: only kernels for the requested arch are collected
    assert [(k.name, k.arch) for k in result.kernels] == [("vector_add_kernel", "gfx942")]
    assert [s.name for s in result.kernels[0].stages] == ["ttir", "ttgir", "llir", "amdgcn", "hsaco"]
