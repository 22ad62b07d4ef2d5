"""Triton file mode in the example-argument form compiles the kernel Triton's JIT launches.

The kernels are ours, in tests/data/triton_jit/. The GPU side of the claim (the SASS of these compiles equals the
SASS of the JIT's own launch on an H100, Triton 3.6) is in benchmarks/RESULTS.md ("JIT-faithful Triton compiles").
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from tools.dump_ir import dump_ir
from tools.errors import InputError

DATA = Path(__file__).parent / "data" / "triton_jit"


def vector_loads(isa_path: str) -> Counter:
    """Opcode counts of the global/buffer loads in an AMDGCN listing."""
    return Counter(re.findall(r"^\s+((?:global|buffer)_load_\w+)", Path(isa_path).read_text(), re.M))


@pytest.mark.slow
def test_example_arguments_give_the_jits_specialisation_and_the_grid():
    (k,) = dump_ir(DATA / "paged_decode.py", "gfx942").kernels
    spec = k.launch.specialization
    # CPU tensors are 16-byte aligned and small: Triton's HIP backend marks them aligned and within 2 GiB (buffer ops)
    assert spec["k_cache"] == spec["q_ptr"] == "aligned16 within2GB"
    assert spec["max_blocks"] == "div16"  # 32 % 16 == 0
    assert spec["scale"] == ""  # floats are never specialised
    assert spec["BLOCK"] == "constexpr=16"
    assert (k.launch.source, k.launch.grid, k.launch.programs) == ("example-args", [64], 64)
    assert k.launch.block_threads == 128  # num_warps=2 x 64 lanes
    assert k.notes == []


@pytest.mark.slow
def test_signature_form_says_it_lacks_launch_specialisation():
    (k,) = dump_ir(DATA / "paged_decode_signature.py", "gfx942").kernels
    assert k.launch.source == "signature"
    assert k.launch.specialization == {}
    assert k.notes and k.notes[0].startswith("compiled without launch specialisation: pointers assumed unaligned")


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.slow
def test_masked_decode_loop_vectorises_only_with_example_arguments(arch):
    faithful = dump_ir(DATA / "paged_decode.py", arch).kernels[0]
    unspecialised = dump_ir(DATA / "paged_decode_signature.py", arch).kernels[0]
    # aligned fp16 rows of D=64: the JIT's kernel loads K, V and q 8 halves at a time through buffer descriptors
    assert vector_loads(faithful.final_isa) == {"buffer_load_dwordx4": 3}
    # without alignment facts every half is its own 2-byte load
    loads = vector_loads(unspecialised.final_isa)
    assert "buffer_load_dwordx4" not in loads and loads["global_load_ushort"] >= 16


@pytest.mark.slow
def test_sm90_decode_loop_uses_128_bit_loads_only_with_example_arguments():
    faithful = Path(dump_ir(DATA / "paged_decode.py", "sm_90").kernels[0].final_isa).read_text()
    unspecialised = Path(dump_ir(DATA / "paged_decode_signature.py", "sm_90").kernels[0].final_isa).read_text()
    assert faithful.count("LDG.E.128") == 4 and "LDG.E.128" not in unspecialised
    assert unspecialised.count("LDG.E.U16") > 16


@pytest.mark.slow
def test_tiled_dot_with_stages_and_softmax_compile_for_every_target():
    for arch in ("gfx942", "gfx950", "sm_90"):
        for name in ("tiled_dot.py", "row_softmax.py"):
            (k,) = dump_ir(DATA / name, arch).kernels
            assert k.launch.source == "example-args" and k.launch.programs in (16, 64)


@pytest.mark.slow
def test_arguments_that_do_not_fit_the_kernel_are_a_convention_error(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        (DATA / "row_softmax.py").read_text().replace('"args": (x, y, COLS, x.stride(0), y.stride(0))', '"args": (x,)')
    )
    with pytest.raises(InputError) as err:
        dump_ir(bad, "gfx942")
    assert "the example arguments do not fit row_softmax_kernel(x_ptr, y_ptr, n_cols" in err.value.message


def test_a_grid_of_strings_is_a_convention_error(tmp_path):
    bad = tmp_path / "bad_grid.py"
    bad.write_text((DATA / "row_softmax.py").read_text().replace('"grid": (ROWS,)', '"grid": "64"'))
    with pytest.raises(InputError) as err:
        dump_ir(bad, "gfx942")
    assert "'grid' must be a tuple of ints" in err.value.message


@pytest.mark.slow
def test_launch_option_the_target_does_not_know_is_refused_as_the_jit_would():
    # waves_per_eu is an AMD option: kernel[grid](..., waves_per_eu=4) fails the same way on an NVIDIA GPU
    with pytest.raises(InputError) as err:
        dump_ir(DATA / "rms_norm_waves_per_eu.py", "sm_90")
    assert "Keyword argument waves_per_eu was specified but unrecognised for cuda 90" in err.value.message
    assert "num_warps" in err.value.message  # the options the target does take


def test_bundled_vector_add_example_is_in_the_faithful_form():
    (k,) = dump_ir(EXAMPLES / "triton" / "vector_add.py", "gfx942").kernels
    assert k.launch.source == "example-args" and k.notes == []
    assert vector_loads(k.final_isa)["buffer_load_dwordx4"] >= 2
