"""HTTP tests of issue #13's API fields: memory_utilization, the request block, the
throughput-interactivity series of /sweep, and GET /published-measurements."""

import json

import pytest

from engine.analysis import Scenario
from engine.hardware import get_accelerator
from engine.model_catalog import get_model
from engine.request import request_block

ANALYZE = {"model": "llama-3-8b", "hardware": ["h100-sxm5", "rtx-4090"], "batch_size": 32, "context_length": 4096}


def test_memory_utilization_and_usable_bytes(client):
    """Unset, memory_utilization is vLLM's default 0.9; 1 asks for the whole card."""
    full = client.post("/api/v1/analyze", json=ANALYZE | {"memory_utilization": 1}).json()["results"][0]["memory"]
    part = client.post("/api/v1/analyze", json=ANALYZE).json()["results"][0]["memory"]
    assert full["capacity_bytes"] == part["capacity_bytes"] == 85899345920
    assert full["usable_bytes"] == 85899345920 and part["usable_bytes"] == pytest.approx(0.9 * 85899345920)
    assert (full["max_batch_size"], part["max_batch_size"]) == (129, 113)
    explicit = client.post("/api/v1/analyze", json=ANALYZE | {"memory_utilization": 0.9}).json()["results"][0]
    assert explicit["memory"]["max_batch_size"] == 113


@pytest.mark.parametrize("value", [0, -0.5, 1.2, "0.9", True, None])
def test_memory_utilization_out_of_range_is_422(client, value):
    r = client.post("/api/v1/analyze", json=ANALYZE | {"memory_utilization": value})
    assert r.status_code == 422
    assert r.json()["errors"][0]["field"].startswith("memory_utilization")


def test_request_block_through_http_equals_engine(client):
    r = client.post("/api/v1/analyze", json=ANALYZE | {"output_tokens": 512, "gpu_hour_price": 2.5})
    assert r.status_code == 200, r.text
    got = r.json()["results"][0]["request"]
    want = request_block(
        get_model("llama-3-8b"), get_accelerator("h100-sxm5"), Scenario(batch_size=32, context_length=4096), 512, 2.5
    )
    assert got == json.loads(json.dumps(want))
    assert set(got) >= {
        "ttft_s",
        "tpot_s",
        "e2e_s",
        "output_tokens_per_s_per_sequence",
        "output_tokens_per_s",
        "cost_per_million_output_tokens",
    }
    assert got["e2e_s"] == pytest.approx(got["ttft_s"] + 512 * got["tpot_s"], rel=1e-12)
    assert got["cost_per_million_output_tokens"] == pytest.approx(2.5 * got["e2e_s"] / 3600 / (32 * 512) * 1e6)
    rtx = r.json()["results"][1]["request"]
    assert rtx["fits_at_end"] is False and rtx["tpot_s"] > got["tpot_s"]


def test_request_block_absent_without_output_tokens_and_null_cost_without_price(client):
    plain = client.post("/api/v1/analyze", json=ANALYZE).json()["results"][0]
    assert "request" not in plain
    r = client.post("/api/v1/analyze", json=ANALYZE | {"output_tokens": 8}).json()["results"][0]["request"]
    assert r["cost_per_million_output_tokens"] is None and r["gpu_hour_price"] is None


@pytest.mark.parametrize(
    "patch, field",
    [
        ({"output_tokens": 0}, "output_tokens"),
        ({"output_tokens": 1.5}, "output_tokens"),
        ({"output_tokens": 16_777_216}, "output_tokens"),  # 4096 + N - 1 > the context limit
        ({"output_tokens": 10, "gpu_hour_price": 0}, "gpu_hour_price"),
        ({"output_tokens": 10, "gpu_hour_price": 1e9}, "gpu_hour_price"),
        ({"gpu_hour_price": 2.0}, "gpu_hour_price"),  # a price needs output_tokens
    ],
)
def test_request_inputs_422_name_the_field(client, patch, field):
    r = client.post("/api/v1/analyze", json=ANALYZE | patch)
    assert r.status_code == 422, r.text
    assert field in r.json()["detail"]


def test_sweep_request_series_is_the_throughput_interactivity_curve(client):
    body = {
        "model": "llama-3-8b",
        "hardware": ["h100-sxm5"],
        "context_length": 2048,
        "batch_sizes": [1, 8, 64, 128],
        "output_tokens": 256,
        "gpu_hour_price": 2.0,
    }
    r = client.post("/api/v1/sweep", json=body)
    assert r.status_code == 200, r.text
    q = r.json()["results"][0]["request"]
    assert q["output_tokens_per_s_per_sequence"] == pytest.approx([1 / t for t in q["tpot_s"]])
    assert q["output_tokens_per_s_per_gpu"] == sorted(q["output_tokens_per_s_per_gpu"])
    assert q["cost_per_million_output_tokens"] == sorted(q["cost_per_million_output_tokens"], reverse=True)
    one = request_block(
        get_model("llama-3-8b"), get_accelerator("h100-sxm5"), Scenario(batch_size=64, context_length=2048), 256, 2.0
    )
    assert q["tpot_s"][2] == pytest.approx(one["tpot_s"], rel=1e-12)
    plain = client.post("/api/v1/sweep", json=body | {"output_tokens": None, "gpu_hour_price": None}).json()
    assert plain["results"][0]["request"] is None
    r = client.post(
        "/api/v1/sweep", json={k: v for k, v in body.items() if k != "batch_sizes"} | {"context_lengths": [128, 256]}
    )
    assert r.status_code == 422 and "output_tokens" in r.json()["detail"]


def test_openapi_documents_the_new_fields(client):
    spec = client.get("/openapi.json").json()["components"]["schemas"]
    for name in ("RequestResult", "RequestSeries"):
        for field, prop in spec[name]["properties"].items():
            assert prop.get("description"), (name, field)
    assert "usable_bytes" in spec["MemoryResult"]["properties"]


def test_published_measurements_endpoint(client):
    from engine.published import published_measurements

    r = client.get("/api/v1/published-measurements")
    assert r.status_code == 200
    items = r.json()["items"]
    assert items == json.loads(json.dumps(published_measurements()))
    assert len(items) >= 12 and len({i["accelerator"] for i in items}) >= 4
    for i in items:
        assert 0.05 < i["mbu"] <= 1 and 0 < i["fraction_of_bound"] <= 1
        assert i["source"]["quote"] and i["source"]["url"].startswith("https://")
    spec = client.get("/openapi.json").json()
    assert "/api/v1/published-measurements" in spec["paths"]
    assert client.post("/api/v1/published-measurements").status_code == 405
