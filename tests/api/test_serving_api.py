"""POST /api/v1/serving and /api/v1/serving/curve over real HTTP (Starlette's TestClient)."""

import math

import pytest

from engine.serving.calibration import load_calibration

BODY = {
    "model": "meta-llama/Llama-3.1-70B",
    "hardware": "h200-sxm",
    "backend": "trtllm",
    "concurrency": 32,
    "input_tokens": 1024,
    "output_tokens": 1024,
    "tensor_parallel": 4,
    "attention_data_parallel": 1,
    "moe_tensor_parallel": 1,
    "expert_parallel": 1,
    "weight_dtype": "fp8",
    "compute_dtype": "fp8",
    "kv_dtype": "fp8",
    "memory_utilization": 0.9,
}


def _finite(node) -> bool:
    if isinstance(node, dict):
        return all(_finite(v) for v in node.values())
    if isinstance(node, list):
        return all(_finite(v) for v in node)
    return not isinstance(node, float) or math.isfinite(node)


def test_serving_answers_bound_estimate_breakdown_calibration(client):
    r = client.post("/api/v1/serving", json=BODY)
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["running_batch"] == 32 and data["queued"] == 0 and data["gpus"] == 4
    for key in ("ttft_s", "tpot_s", "output_tokens_per_s_per_gpu", "tokens_per_s_per_user"):
        assert data["bound"][key] > 0 and data["estimate"][key] > 0
    assert data["estimate"]["tpot_s"] >= data["bound"]["tpot_s"]
    assert data["bound"]["tokens_per_s_per_user"] == pytest.approx(1 / data["bound"]["tpot_s"])
    lo, hi = data["estimate"]["tpot_s_range"]
    assert lo <= data["estimate"]["tpot_s"] <= hi
    assert set(data["breakdown"]["tpot"]["estimate"]) >= {
        "decode_s",
        "prefill_share_s",
        "communication_s",
        "overhead_s",
    }
    # fitted on both shipped splits' runs that map, less those measured faster than their bound
    fitted = load_calibration().data["fitted_on"]
    assert data["calibration"]["backend"] == "trtllm" and data["calibration"]["rows"] == fitted["rows"]
    assert fitted["rows"] + fitted["rows_faster_than_bound"] + fitted["rows_not_mapped"] == 1862 + 677
    assert data["calibration"]["id"].startswith("serving-v")
    assert isinstance(data["warnings"], list) and _finite(data)


def test_null_backend_uses_the_any_backend_calibration(client):
    r = client.post("/api/v1/serving", json=BODY | {"backend": None})
    assert r.status_code == 200 and r.json()["calibration"]["backend"] == "any"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"concurrency": 0}, "concurrency"),
        ({"concurrency": "32"}, "concurrency"),
        ({"backend": "tgi"}, "backend"),
        ({"memory_utilization": 1.2}, "memory_utilization"),
        ({"kv_dtype": "fp7"}, "kv_dtype"),
        ({"tensor_parallel": 3}, "tensor_parallel"),
        # 141 GB of weights over vLLM's 0.9 x 150.8 GB (TensorRT-LLM's rule would fit 16 requests)
        ({"tensor_parallel": 1, "weight_dtype": "bf16", "backend": "vllm"}, "tensor_parallel"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_bad_input_is_a_422_naming_the_field(client, change, field):
    r = client.post("/api/v1/serving", json=BODY | change)
    assert r.status_code == 422, r.text
    assert any(field in e["field"] for e in r.json()["errors"])


def test_moe_layout_must_cover_the_gpus(client):
    body = BODY | {"model": "deepseek-ai/DeepSeek-R1", "hardware": "b200", "tensor_parallel": 8, "expert_parallel": 4}
    r = client.post("/api/v1/serving", json=body)
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "expert_parallel"


def test_curve_gives_bound_and_estimate_per_point(client):
    body = {k: v for k, v in BODY.items() if k != "concurrency"} | {"concurrencies": [1, 8, 64, 512]}
    r = client.post("/api/v1/serving/curve", json=body)
    assert r.status_code == 200, r.text
    points = r.json()["points"]
    assert [p["concurrency"] for p in points] == [1, 8, 64, 512]
    for p in points:
        assert p["estimate"]["tpot_s"] >= p["bound"]["tpot_s"] > 0
    assert client.post("/api/v1/serving/curve", json=body | {"concurrencies": []}).status_code == 422
