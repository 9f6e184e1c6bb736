"""`llm-roofline serving`, `llm-roofline validate serving` (real subprocesses) and the fit
script reproducing the shipped calibration file."""

import json
import re
import subprocess
import sys
from pathlib import Path

from engine.hardware import get_accelerator
from engine.model_catalog import get_model
from engine.serving import ServingScenario, serving_estimate

ROOT = Path(__file__).resolve().parents[3]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True, timeout=300)


def test_serving_json_equals_the_engine():
    out = cli("serving", "--model", "Qwen/Qwen3-32B", "--hardware", "h100-sxm5", "--backend", "vllm",
              "--concurrency", "32", "--tp", "2", "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    engine = serving_estimate(
        get_model("qwen3-32b"), get_accelerator("h100-sxm5"),
        ServingScenario(concurrency=32, tensor_parallel=2, backend="vllm"),
    )  # fmt: skip
    assert data == json.loads(json.dumps(engine))
    assert data["calibration"]["backend"] == "vllm"


def test_serving_table_says_bound_and_estimate():
    out = cli("serving", "--model", "llama-3.1-8b", "--hardware", "h200-sxm", "--concurrency", "8")
    assert out.returncode == 0, out.stderr
    assert "bound" in out.stdout and "estimate" in out.stdout and "TPOT ms" in out.stdout
    curve = cli("serving", "--model", "llama-3.1-8b", "--hardware", "h200-sxm", "--curve", "1", "16", "256")
    assert curve.returncode == 0 and len(curve.stdout.strip().splitlines()) == 5


def test_serving_bad_input_names_the_field():
    out = cli("serving", "--model", "llama-3.1-8b", "--hardware", "h200-sxm", "--concurrency", "0")
    assert out.returncode == 2 and "concurrency" in out.stderr


def test_a_disaggregated_request_refuses_what_it_would_ignore():
    """An instance's layout flag, a curve or an empty decode accelerator beside the disaggregated
    flags is refused, naming the flag (the API refuses the same); a side that cannot be names
    its own field."""
    split = ("serving", "--model", "deepseek-r1", "--hardware", "gb200", "--weight-dtype", "fp8",
             "--prefill-dp", "8", "--prefill-ep", "8", "--decode-dp", "16", "--decode-ep", "16")  # fmt: skip
    assert cli(*split).returncode == 0
    for extra, flag in ((("--tp", "4"), "--tp"), (("--curve", "1", "2"), "--curve"), (("--decode-hardware", ""), None)):
        out = cli(*split, *extra)
        assert out.returncode == 2 and out.stderr.startswith(f"llm-roofline: error: {flag or extra[0]}: "), out.stderr
    out = cli("serving", "--model", "deepseek-r1", "--hardware", "h100-sxm5", "--prefill-tp", "1", "--decode-tp", "8")
    assert out.returncode == 2 and "disaggregated.prefill.tensor_parallel: " in out.stderr


def test_validate_serving_json_has_the_overall_fractions(tmp_path):
    data = tmp_path / "runs.csv"
    lines = (ROOT / "published/serving/measured-serving-train.csv").read_text(encoding="utf-8").splitlines()
    data.write_text("\n".join(lines[:41]) + "\n", encoding="utf-8")  # header + 40 runs
    out = cli("validate", "serving", "--data", str(data), "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["rows"] == report["answered"] == 40
    for key in ("tpot_median_abs_error", "ttft_median_abs_error"):
        assert 0.0 <= report["overall"][key] < 1.0
    assert set(report) >= {"by_backend", "by_gpu", "by_model", "bound_above_measured_tpot"}
    table = cli("validate", "serving", "--data", str(data))
    assert table.returncode == 0 and "TPOT med" in table.stdout and "by model" in table.stdout


def test_validate_serving_names_a_run_that_beats_its_ttft_bound(tmp_path):
    """The B300 disaggregated run at concurrency 2,048, recorded with a first token faster than its
    prompt's forward at the roofs (1 ms; it measured 5.07 s), and without its worker counts, which
    its published recipe supplies."""
    data = tmp_path / "runs.csv"
    lines = (ROOT / "published/serving/measured-disagg-train.csv").read_text(encoding="utf-8").splitlines()
    (chosen,) = [line for line in lines if "b300_sxm_trtllm_fp4_disagg_8192x1024_c2048_tp2_0_ep2_0_1201" in line]
    fields = chosen.split(",")
    fields[lines[0].split(",").index("silicon_ttft_ms")] = "1"
    data.write_text("\n".join([lines[0], ",".join(fields)]) + "\n", encoding="utf-8")
    out = cli("validate", "serving", "--data", str(data))
    assert out.returncode == 0, out.stderr
    assert re.search(
        r"warning: 2026_03_25_deepseek_r1_b300\S*: measured TTFT 1 ms is below the bound \d+(\.\d+)? ms", out.stdout
    )
    # its worker counts are empty and come from the recipe: the table scores it apart
    assert re.search(r"^  worker counts from the recipe +1 ", out.stdout, re.M)
    report = json.loads(cli("validate", "serving", "--data", str(data), "--json").stdout)
    assert report["bound_above_measured_ttft_count"] == 1 == len(report["bound_above_measured_ttft"])


def test_validate_serving_unreadable_data_is_a_named_error(tmp_path):
    out = cli("validate", "serving", "--data", str(tmp_path / "missing.csv"))
    assert out.returncode == 2 and "--data" in out.stderr


def test_fit_script_reproduces_the_calibration_file():
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts/fit_serving.py"), "--check"], capture_output=True, text=True, timeout=900
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "reproduced" in out.stdout
