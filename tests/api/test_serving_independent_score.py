"""The validator's score, checked by an independent scoring: every measured run in the training
split is mapped here by the data README's rules (written again in this file, not imported),
asked of the public API (`POST /api/v1/serving`) one request at a time, and scored with the
standard library. `llm-roofline validate serving --json` must agree with it: the same rows
answered and the same median and p90 errors, to a tenth of a point (the two differ only in
how a percentile is interpolated).

The API refuses a tensor-parallel degree past the accelerator's scale-up domain (issue 34: the
serving page's rule, everywhere a user describes an instance), while the validator scores the
recorded runs as recorded; the split holds 31 such runs (TP 16 and 64 on 8-GPU B200 boards). So
the validator is run on the rows the API answers, and the refused ones are checked to be
exactly those."""

import csv
import json
import math
import statistics
import subprocess
import sys

import pytest

from engine.serving.mapping import TRAINING_CSV

# published/serving/README.md, "How a row maps onto a scenario"
SYSTEMS = {"h100_sxm": "h100-sxm5", "h200_sxm": "h200-sxm", "b200_sxm": "b200", "b300_sxm": "b300",
           "gb200": "gb200", "gb300": "gb300"}  # fmt: skip
QUANT = {"fp8": ("fp8", "fp8"), "fp8_block": ("fp8", "fp8"), "nvfp4": ("fp4", "fp4"),
         "w4a16_mxfp4": ("fp4", "bf16"), "int4_wo": ("int4", "bf16"), "float16": ("bf16", "bf16"),
         "": ("bf16", "bf16")}  # fmt: skip


def degree(text: str) -> int:
    return int(float(text)) if text.strip() and float(text) > 0 else 1


def concurrency(row: dict) -> int:
    """The benchmark's concurrency: silicon_concurrency=N in the source column, else batch_size."""
    for part in row["silicon_data_source"].split(";"):
        key, _, value = part.strip().partition("=")
        if key == "silicon_concurrency":
            return int(value)
    return int(row["batch_size"])


def request_body(row: dict) -> dict:
    weights, compute = QUANT[row["gemm_quant_mode"].strip()]
    return {
        "model": row["model_path"],
        "hardware": SYSTEMS[row["system"]],
        "backend": row["backend"],
        "concurrency": concurrency(row),
        "input_tokens": int(row["isl"]),
        "output_tokens": int(row["osl"]),
        "tensor_parallel": degree(row["tp_size"]),
        "attention_data_parallel": degree(row["attention_dp_size"]),
        "moe_tensor_parallel": degree(row["moe_tp_size"]),
        "expert_parallel": degree(row["moe_ep_size"]),
        "weight_dtype": weights,
        "compute_dtype": compute,
        "kv_dtype": "bf16" if weights in ("bf16", "fp16") else "fp8",
    }


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile, linear between closest ranks (numpy's default, written out)."""
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


@pytest.fixture(scope="module")
def independent(client, tmp_path_factory) -> dict:
    with open(TRAINING_CSV, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        columns, rows = reader.fieldnames, list(reader)
    errors = {"tpot": [], "ttft": []}
    answered, refused = [], []
    for row in rows:
        r = client.post("/api/v1/serving", json=request_body(row))
        if r.status_code != 200:
            refused.append((row, r))
            continue
        answered.append(row)
        estimate = r.json()["estimate"]
        errors["tpot"].append(abs(estimate["tpot_s"] / (float(row["silicon_tpot_ms"]) / 1e3) - 1))
        errors["ttft"].append(abs(estimate["ttft_s"] / (float(row["silicon_ttft_ms"]) / 1e3) - 1))
    path = tmp_path_factory.mktemp("independent") / "answered-by-the-api.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, columns)
        writer.writeheader()
        writer.writerows(answered)
    return {"rows": len(rows), "errors": errors, "refused": refused, "answered_csv": path}


@pytest.fixture(scope="module")
def validator(independent) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "app.cli", "validate", "serving", "--data", str(independent["answered_csv"]), "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(out.stdout)


def test_the_validator_answers_the_same_rows_as_the_api(independent, validator):
    assert independent["rows"] == 1862
    assert validator["rows"] == validator["answered"] == len(independent["errors"]["tpot"])
    assert validator["answered"] >= 0.95 * independent["rows"]


def test_the_api_refuses_only_the_runs_past_the_scale_up_domain(independent):
    assert independent["refused"]
    for row, r in independent["refused"]:
        error = r.json()["errors"][0]
        assert r.status_code == 422 and error["code"] == "tp_domain" and error["params"]["size"] == 8, r.text
        assert degree(row["tp_size"]) > 8


@pytest.mark.parametrize("key", ["tpot", "ttft"])
def test_the_validators_errors_agree_with_an_independent_scoring(independent, validator, key):
    errors = independent["errors"][key]
    overall = validator["overall"]
    assert overall[f"{key}_median_abs_error"] == pytest.approx(statistics.median(errors), abs=1e-3)
    assert overall[f"{key}_p90_abs_error"] == pytest.approx(percentile(errors, 90), abs=1e-3)
