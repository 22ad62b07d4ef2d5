"""--call 'FN(NAME=DTYPE[SHAPE], ..., NAME=VALUE)': the user's kernel file as it is, its host function as the entry.

The kernel files are tests/data/call/: a weight-only int8 GEMV (Triton kernel + host function ``w8a16_gemv``, no
``kernelpilot_entry()``), the same with 16 columns per program (same result), and one that reads the int8 weights as
uint8 (a wrong result whenever a weight is negative).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tools.callspec import CallSpec, TensorArg, ValueArg, parse_call, resolve_call
from tools.cli import main
from tools.errors import InputError

DATA = Path(__file__).parent / "data" / "call"
GEMV = DATA / "w8a16.py"
CALL = "w8a16_gemv(a=bf16[64], w=int8[64,64], scale=fp32[64])"


# ------------------------------------------------------------------------------------------ the spec, parsed (fast)
def test_tensors_and_scalars_parse_without_evaluation():
    spec = parse_call(
        "f(bf16[16, 8192], w=int8[8192,8192], s=fp8e4nv[()], n=-3, eps=1e-5, name='x', flag=True, o=None, t=(1, 2))"
    )
    assert spec.fn == "f"
    assert spec.args == (TensorArg(dtype="bf16", shape=(16, 8192)),)
    assert spec.kwargs["w"] == TensorArg(dtype="int8", shape=(8192, 8192))
    assert spec.kwargs["s"] == TensorArg(dtype="fp8e4nv", shape=())
    assert [spec.kwargs[k] for k in ("n", "eps", "name", "flag", "o")] == [
        ValueArg(value=-3),
        ValueArg(value=1e-5),
        ValueArg(value="x"),
        ValueArg(value=True),
        ValueArg(value=None),
    ]
    assert spec.kwargs["t"] == ValueArg(value=[1, 2], is_tuple=True)
    # the canonical spelling round-trips, so reports and cache keys do not depend on spacing
    assert parse_call(spec.text()) == spec
    assert (
        spec.text()
        == "f(bf16[16,8192], w=int8[8192,8192], s=fp8e4nv[()], n=-3, eps=1e-05, name='x', flag=True, o=None, t=(1, 2))"
    )


def test_torch_dtype_names_mean_the_same_tensor():
    assert parse_call("f(a=bfloat16[4], b=float16[2])") == parse_call("f(a=bf16[4], b=fp16[2])")


@pytest.mark.parametrize(
    ("text", "message", "hint"),
    [
        ("f(a=bf17[4])", "unknown dtype 'bf17' for a", "dtypes: bf16 fp16 fp32 fp64 fp8e4nv fp8e5 int8 uint8"),
        (
            "f(a=bf16[4, -1])",
            "the shape of a holds '-1'; each dimension must be a non-negative integer",
            "e.g. a=bf16[16,8192]",
        ),
        ("f(a=bf16[4.5])", "the shape of a holds '4.5'", "a 0-d tensor: fp32[()]"),
        ("f(a=bf16)", "a=bf16 has no shape", "a=bf16[16,8192]"),
        (
            "f(a=__import__('os').system('true'))",
            "neither a tensor (DTYPE[SHAPE]) nor a literal value",
            "nothing is evaluated",
        ),
        ("f(a=x)", "a=x is neither a tensor", "values are numbers"),
        ("f(a=1, a=2)", "", ""),  # Python's own parser refuses a repeated keyword
        ("f(*xs)", "*args cannot be given", "NAME=DTYPE[SHAPE]"),
        ("mod.f(a=1)", "not a call of a function by its name", "FN(NAME=DTYPE[SHAPE]"),
        ("f(a=bf16[4]", "not a call", "FN(NAME=DTYPE[SHAPE], ..., NAME=VALUE)"),
    ],
)
def test_a_bad_spec_names_what_is_wrong(text, message, hint):
    with pytest.raises(InputError) as info:
        parse_call(text)
    assert info.value.message.startswith(f"--call '{text}':")
    assert message in info.value.message
    assert hint in info.value.hint


@pytest.mark.parametrize(
    ("text", "message", "hint"),
    [
        ("nope(a=bf16[4])", "w8a16.py defines no function 'nope'", "host functions in w8a16.py: w8a16_gemv"),
        (
            "w8a16_gemv_kernel(a_ptr=bf16[4])",
            "w8a16_gemv_kernel is a kernel; --call takes the host function that launches it",
            "host functions in w8a16.py",
        ),
        (
            "w8a16_gemv(a=bf16[4], w=int8[4,4])",
            "w8a16_gemv() in w8a16.py needs scale too",
            "its parameters: w8a16_gemv(a, w, scale, out, block_n)",
        ),
        (
            "w8a16_gemv(a=bf16[4], w=int8[4,4], scale=fp32[4], bias=fp32[4])",
            "takes no argument 'bias'",
            "w8a16_gemv(a, w, scale, out, block_n)",
        ),
        ("w8a16_gemv(bf16[4], a=bf16[4], w=int8[4,4], scale=fp32[4])", "a is given twice", ""),
        ("w8a16_gemv(bf16[4], int8[4,4], fp32[4], None, 32, 1)", "6 positional arguments, but", "name the arguments"),
    ],
)
def test_the_call_is_checked_against_the_file_before_anything_compiles(text, message, hint):
    with pytest.raises(InputError) as info:
        resolve_call(text, GEMV)
    assert message in info.value.message
    assert hint in info.value.hint


def test_a_flydsl_kernel_is_refused_and_its_jit_host_function_offered():
    saxpy = Path(__file__).parents[1] / "examples" / "flydsl" / "saxpy.py"
    with pytest.raises(InputError) as info:
        resolve_call("saxpy_kernel(X=fp32[4])", saxpy)
    assert info.value.hint == "host functions in saxpy.py: saxpy"  # @flyc.kernel is a kernel, @flyc.jit a host
    # the jit function's stream has a default: X, Y and alpha are all it needs
    assert resolve_call("saxpy(X=fp32[256,512], Y=fp32[256,512], alpha=2.0)", saxpy).fn == "saxpy"


def test_positional_arguments_fill_the_parameters_in_order():
    spec = resolve_call("w8a16_gemv(bf16[4], int8[4,4], scale=fp32[4], block_n=16)", GEMV)
    assert isinstance(spec, CallSpec) and len(spec.args) == 2 and spec.kwargs["block_n"] == ValueArg(value=16)


def test_the_cli_refuses_a_bad_spec_with_exit_2_before_compiling(capsys):
    assert main(["dump-ir", str(GEMV), "--arch", "gfx942", "--call", "w8a16_gemv(a=bf16[64], w=int9[64,64])"]) == 2
    err = capsys.readouterr().err
    assert "error: --call 'w8a16_gemv(a=bf16[64], w=int9[64,64])': unknown dtype 'int9' for w" in err
    assert "hint: dtypes: bf16" in err and "Traceback" not in err


# ------------------------------------------------------------------------------------------------- dump-ir --call
@pytest.mark.slow
def test_dump_ir_call_compiles_every_launch_of_the_host_function():
    from tools.dump_ir import dump_ir

    result = dump_ir(GEMV, "gfx942", call=CALL)
    (k,) = result.kernels
    assert k.name == "w8a16_gemv_kernel"
    # the host function's launch: N = 64 columns / BLOCK_N 32 = 2 programs, recorded as a call's launch
    assert k.launch.source == "call" and k.launch.grid == [2]
    assert k.launch.specialization["N"] == "div16" and k.launch.specialization["BLOCK_N"] == "constexpr=32"
    args = {a.name: a for a in k.launch.arguments}
    assert (args["w_ptr"].dtype, args["w_ptr"].shape) == ("int8", [64, 64])
    assert (args["a_ptr"].dtype, args["scale_ptr"].dtype) == ("bfloat16", "float32")


@pytest.mark.slow
def test_call_wins_over_an_entry_and_is_part_of_the_cache_key(tmp_path):
    from tools.dump_ir import dump_ir

    kernel = tmp_path / "gemv.py"
    shutil.copy(GEMV, kernel)
    with kernel.open("a") as f:  # an entry at N = 64 columns (divisible by 16)
        f.write(
            "\n\ndef kernelpilot_entry():\n"
            "    a, w, s = torch.empty(64, dtype=torch.bfloat16), torch.empty(64, 64, dtype=torch.int8), torch.empty(64)\n"
            "    return {'call': w8a16_gemv, 'args': (a, w, s), 'kwargs': {}}\n"
        )
    by_entry = dump_ir(kernel, "gfx942").kernels[0].launch
    by_call = dump_ir(kernel, "gfx942", call="w8a16_gemv(a=bf16[64], w=int8[64,60], scale=fp32[60])").kernels[0].launch
    assert by_entry.specialization["N"] == "div16"
    assert by_call.specialization["N"] == ""  # 60 columns: not divisible by 16, another compile, another entry
    assert {a.name: a.shape for a in by_call.arguments}["w_ptr"] == [64, 60]


@pytest.mark.slow
def test_dump_ir_call_runs_a_flydsl_jit_function():
    from tools.dump_ir import dump_ir

    saxpy = Path(__file__).parents[1] / "examples" / "flydsl" / "saxpy.py"
    result = dump_ir(saxpy, "gfx942", call="saxpy(X=fp32[256,512], Y=fp32[256,512], alpha=2.0)")
    assert [k.name for k in result.kernels] == ["saxpy_kernel_0"]
    assert result.kernels[0].resources.vgpr_count is not None


@pytest.mark.slow
def test_dump_ir_cli_call_on_sm_90(capsys):
    assert main(["dump-ir", str(GEMV), "--arch", "sm_90", "--call", CALL, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    (k,) = got["kernels"]
    assert k["arch"] == "sm_90" and k["launch"]["source"] == "call" and k["launch"]["grid"] == [2]
    assert k["resources"]["registers_per_thread"] is not None


# --------------------------------------------------------------------------------------------------- check --call
SMALL = "w8a16_gemv(a=bf16[16], w=int8[16,32], scale=fp32[32])"  # one K step, 32 columns: 1 or 2 programs


@pytest.mark.slow  # the inputs child imports torch and triton: ~8 s on 2 shared cores
def test_check_inputs_are_drawn_by_dtype(tmp_path):
    """The inputs child alone (no compile): each tensor of the call refilled from the seed by its dtype."""
    import numpy as np

    from tools.check.inputs import generate_inputs

    kernel = tmp_path / "fills.py"
    kernel.write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(x_ptr):\n    pass\n\n\n"
        "def host(w, u, h, idx, m, x):\n    k[(1,)](w)\n"
    )
    call = resolve_call("host(w=int8[4096], u=uint8[4096], h=int16[4096], idx=int32[64], m=bool[2], x=fp32[8])", kernel)
    ((desc, bufs, _, _),) = generate_inputs(kernel, "triton", [(0, {})], tmp_path / "in", call=call.key())
    fills = {b["name"]: b["fill"] for b in desc["buffers"]}
    assert fills == {
        "w": "integers uniform in [-128, 127] (the int8 range)",
        "u": "integers uniform in [0, 255] (the uint8 range)",
        "h": "integers uniform in [-32768, 32767] (the int16 range)",
        "idx": "integers uniform in [0, numel) = [0, 64) (int32: read as indices)",
        "m": "fair coin, both values present",
        "x": "standard normal",
    }
    w, u, h = (np.frombuffer(bufs[i], dtype) for i, dtype in ((0, np.int8), (1, np.uint8), (2, np.int16)))
    # 4096 uniform draws reach both ends of 256 values (each end missed with probability (255/256)^4096 ~ 1e-7)
    assert (w.min(), w.max(), u.min(), u.max()) == (-128, 127, 0, 255)
    assert h.min() < -16384 and h.max() > 16384  # not [0, numel): negative and past 4096
    assert sorted(np.frombuffer(bufs[4], np.bool_).tolist()) == [False, True]


def test_check_refuses_shape_with_call():
    from tools.check.compare import check

    with pytest.raises(InputError, match="--shape and --call do not go together"):
        check(GEMV, DATA / "w8a16_block16.py", call=SMALL, shapes=[{"K": 16}])


def test_check_call_checks_both_files_before_compiling(tmp_path):
    from tools.check.compare import check

    other = tmp_path / "other.py"
    other.write_text("import triton\n\n\ndef gemv(a, w, scale):\n    pass\n")
    with pytest.raises(InputError) as info:
        check(GEMV, other, call=SMALL)
    assert "other.py defines no function 'w8a16_gemv'" in info.value.message
    assert info.value.hint == "host functions in other.py: gemv"


@pytest.mark.slow
def test_check_call_finds_int8_weights_read_as_uint8(capsys):
    # the weights span [-128, 127]: every negative one reads as w + 256 in the buggy kernel, so every output differs
    assert main(["check", str(GEMV), str(DATA / "w8a16_uint8_bug.py"), "--call", SMALL]) == 1
    out = capsys.readouterr().out
    assert out.startswith("check: DIFFERENT — 32 element(s) differ in return")
    assert f"  call: {SMALL}\n" in out
    assert "  input w (int8, 512 elements): integers uniform in [-128, 127] (the int8 range)\n" in out
    assert "  input a (bfloat16, 16 elements): standard normal\n" in out


@pytest.mark.slow
def test_check_call_against_a_git_revision(tmp_path):
    from tools.check.compare import check

    repo = _repo_with(tmp_path, GEMV)
    shutil.copy(DATA / "w8a16_block16.py", repo / "gemv.py")  # the rewrite: 16 columns per program
    rep = check("HEAD:./gemv.py", repo / "gemv.py", call=SMALL)
    assert rep.verdict == "same", rep.reason  # one program of 32 columns vs two of 16: the same sums
    assert rep.call == SMALL
    assert rep.kernels == ["w8a16_gemv_kernel → w8a16_gemv_kernel"]


# ------------------------------------------------------------------------------------------------- predict --call
def _repo_with(tmp_path, committed: Path, name: str = "gemv.py") -> Path:
    """A git repository holding ``committed`` as ``name`` in its first commit."""
    import subprocess

    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(committed, repo / name)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    for step in (["init", "-q"], ["add", name], ["commit", "-qm", "first"]):
        subprocess.run([*git, *step], check=True)
    return repo


@pytest.mark.slow
def test_predict_call_on_sm_90_predicts_the_host_functions_launch():
    from tools.predict.cli import predict_file

    r = predict_file(GEMV, "sm_90", call=CALL)
    (launch,) = r.launches
    # 64 columns / 32 per program = 2 programs; K = 64 in steps of BLOCK_K = 16: 4 trips, from TTIR's loop bounds
    # evaluated on the call's arguments
    assert (launch.name, launch.grid) == ("w8a16_gemv_kernel", [2])
    assert (launch.trips.source, launch.trips.trips) == ("loop-bounds", 4)
    assert r.predicted_us is not None and r.device == "h100"


@pytest.mark.slow
def test_predict_call_with_a_git_revision_as_baseline(tmp_path, monkeypatch):
    from tools.predict.cli import predict_file

    repo = _repo_with(tmp_path, DATA / "w8a16_block16.py")
    shutil.copy(GEMV, repo / "gemv.py")  # the working copy: 32 columns per program
    monkeypatch.chdir(repo)
    r = predict_file("gemv.py", "gfx942", baseline="HEAD:gemv.py", call=SMALL)
    # 32 columns: one program of 32 now, two of 16 in HEAD; an AMD launch this small runs on check's CPU engine
    assert [lp.grid for lp in r.launches] == [[1]] and [lp.grid for lp in r.baseline_launches] == [[2]]
    assert {lp.trips.source for lp in r.launches + r.baseline_launches} == {"check"}
    assert r.predicted_speedup is not None


# ------------------------------------------------------------------------------ vgpr-pressure, prefetch-data-load
@pytest.mark.slow
def test_vgpr_pressure_call_with_a_git_revision_as_baseline(tmp_path, monkeypatch, capsys):
    repo = _repo_with(tmp_path, GEMV)
    shutil.copy(DATA / "w8a16_block16.py", repo / "gemv.py")
    monkeypatch.chdir(repo)
    # both sides compiled from the call; the outcome's CPU check and prediction run the same call
    assert main(["vgpr-pressure", "gemv.py", "--arch", "gfx942", "--call", SMALL, "--baseline", "HEAD:gemv.py"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("w8a16_gemv_kernel")
    assert "  against the baseline: ok (" in out
    assert "  correctness: check (CPU, gfx942): same: gemv.py vs gemv.py" in out


@pytest.mark.slow
def test_prefetch_call_reports_the_hot_loop_of_the_host_functions_kernel(capsys):
    argv = ["prefetch-data-load", str(GEMV), "--arch", "gfx942", "--call", CALL, "--json"]
    assert main([*argv, "--baseline", str(DATA / "w8a16_block16.py")]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["kernel"] == "w8a16_gemv_kernel"
    assert rep["loops"][0]["verdict"] == "exposed-latency"
    assert rep["baseline"]["baseline"] == str(DATA / "w8a16_block16.py")


def test_call_on_an_isa_input_is_refused(tmp_path, capsys):
    isa = tmp_path / "k.s"
    isa.write_text("\t.text\n")
    assert main(["prefetch-data-load", str(isa), "--call", "f(x=fp32[4])"]) == 2
    err = capsys.readouterr().err
    assert "error: --call applies to a kernel file, not to ISA or a dump" in err and "hint: pass the kernel file" in err
