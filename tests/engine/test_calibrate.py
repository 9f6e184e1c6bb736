"""CPU calibration on a small size: a correctness test (plausible positive numbers, a file
that validates against the hardware schema), not a timing threshold."""

import subprocess
import sys

import yaml

from app.calibrate import calibrate_cpu, to_accelerator
from engine.analysis import Scenario, analyze_one
from engine.hardware import load_file
from engine.model_catalog import get_model


def test_cpu_calibration_small(tmp_path):
    result = calibrate_cpu("small")
    for kind in ("bandwidth", "gemm", "vector"):
        for r in result[kind].values():
            assert 0 < r["worst"] <= r["median"] <= r["best"] < 1e15
    acc = to_accelerator(result, "cpu-calibrated")
    assert acc.measured is not None and acc.measured.tensor_flops_per_s.fp32 > 1e8
    path = tmp_path / "cpu-calibrated.yaml"
    path.write_text(yaml.safe_dump(acc.model_dump()))
    loaded = load_file(path)  # the same validation as any catalogue file
    assert loaded.measured.memory_bandwidth_bytes_per_s == acc.measured.memory_bandwidth_bytes_per_s
    # the engine can use it: its roofs are the measured ones. (Not which bound decode lands in:
    # on a loaded machine the measured GEMM rate drops and batch-1 decode can turn compute-bound.)
    r = analyze_one(get_model("llama-3-8b"), loaded, Scenario(batch_size=1, context_length=256, roofs="measured"))
    assert r["roofs"] == "measured" and r["tensor_dtype"] == "fp32"
    assert r["memory_bandwidth_bytes_per_s"] == loaded.measured.memory_bandwidth_bytes_per_s
    assert r["tensor_flops_per_s"] == loaded.measured.tensor_flops_per_s.fp32


def test_calibration_beside_a_datasheet():
    acc = to_accelerator(calibrate_cpu("small"), "h200-sxm-calibrated", base="h200-sxm")
    assert acc.memory_bandwidth_bytes_per_s == 4.8e12  # the datasheet roof stays
    assert acc.measured.memory_bandwidth_bytes_per_s < 4.8e12
    nominal = analyze_one(get_model("llama-3-8b"), acc, Scenario(roofs="nominal"))
    measured = analyze_one(get_model("llama-3-8b"), acc, Scenario(roofs="measured"))
    assert measured["decode"]["time_s"] > nominal["decode"]["time_s"]
    assert nominal["measured_roofs"]["memory_bandwidth_bytes_per_s"] == acc.measured.memory_bandwidth_bytes_per_s


def test_calibrate_command_writes_a_valid_file(tmp_path):
    out = tmp_path / "cpu-calibrated.yaml"
    run = subprocess.run(
        [sys.executable, "-m", "app.cli", "calibrate", "--size", "small", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "copy_" in run.stdout and "gemm fp32" in run.stdout
    assert load_file(out).id == "cpu-calibrated"


def test_cuda_without_torch_is_a_clear_error():
    run = subprocess.run(
        [sys.executable, "-m", "app.cli", "calibrate", "--device", "cuda", "--size", "small"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    try:
        import torch  # noqa: F401

        has_cuda = torch.cuda.is_available()
    except ImportError:
        has_cuda = False
    if not has_cuda:
        assert run.returncode == 2 and "calibrate --device cuda" in run.stderr and "Traceback" not in run.stderr
