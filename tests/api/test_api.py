"""HTTP-level tests of /api/v1 (starlette TestClient over the real ASGI app)."""

import json

import pytest

from app.dashboard.lib.i18n import t
from engine.analysis import Scenario, analyze_one
from engine.hardware import get_accelerator
from engine.model_catalog import get_model, preset_records

ANALYZE = {"model": "llama-3-8b", "hardware": ["h100-sxm5", "rtx-4090"], "batch_size": 32, "context_length": 4096}


def test_healthz(client):
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json()["status"] == "ok" and r.json()["version"]


def test_hardware_list_and_one(client):
    items = client.get("/api/v1/hardware").json()["items"]
    assert len(items) >= 20
    h100 = client.get("/api/v1/hardware/h100-sxm5").json()
    assert h100["memory_bandwidth_bytes_per_s"] == 3.352e12
    assert h100["ridge_points"]["bf16"] == pytest.approx(295.17, rel=1e-3)
    assert h100["sources"][0]["document"].startswith("NVIDIA H100")


def test_unknown_hardware_is_404_with_known_ids(client):
    r = client.get("/api/v1/hardware/x")
    assert r.status_code == 404
    assert r.json()["detail"] == "unknown hardware id 'x'"
    assert "h100-sxm5" in r.json()["known_ids"]
    r = client.post("/api/v1/analyze", json=ANALYZE | {"hardware": ["nope"]})
    assert r.status_code == 404 and r.json()["detail"] == "unknown hardware id 'nope'"


def test_models(client):
    items = {m["id"]: m for m in client.get("/api/v1/models").json()["items"]}
    assert items["llama-3-8b"]["num_params"] == 8030261248 and items["llama-3-8b"]["num_kv_heads"] == 8
    detail = client.get("/api/v1/models/llama-3-8b").json()
    assert detail["config"]["model_type"] == "llama" and detail["family"] == "llama"
    r = client.get("/api/v1/models/gpt-5")
    assert r.status_code == 422 and r.json()["detail"].startswith("unknown model id 'gpt-5'; nearest known: ")


def test_tensor_parallel_up_to_the_scale_up_domain(client):
    """TP 64 on an NVL72 part answers; on an 8-GPU HGX board it is a 422 naming the field."""
    body = ANALYZE | {"model": "deepseek-ai/DeepSeek-R1", "tensor_parallel": 64, "hardware": ["gb200"]}
    r = client.post("/api/v1/analyze", json=body)
    assert r.status_code == 200 and r.json()["results"][0]["tensor_parallel"] == 64
    r = client.post("/api/v1/analyze", json=body | {"hardware": ["h100-sxm5"]})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "tensor_parallel"


def test_hugging_face_repo_id_as_model(client):
    """A Hugging Face repo id (any case, quantised release included) is the preset it names."""
    by_preset = client.post("/api/v1/analyze", json=ANALYZE | {"model": "qwen3-32b"}).json()
    for name in ("Qwen/Qwen3-32B", "nvidia/qwen3-32b-nvfp4"):
        r = client.post("/api/v1/analyze", json=ANALYZE | {"model": name})
        assert r.status_code == 200 and r.json()["results"] == by_preset["results"]
    r = client.post("/api/v1/analyze", json=ANALYZE | {"model": "Qwen/Qwen3-33B"})
    assert r.status_code == 422 and "nearest known: Qwen/Qwen3-32B" in r.json()["detail"]


def test_analyze_equals_engine(client):
    r = client.post("/api/v1/analyze", json=ANALYZE)
    assert r.status_code == 200
    body = r.json()
    assert [x["hardware_id"] for x in body["results"]] == ["h100-sxm5", "rtx-4090"]
    engine = analyze_one(
        get_model("llama-3-8b"), get_accelerator("rtx-4090"), Scenario(batch_size=32, context_length=4096)
    )
    assert body["results"][1] == json.loads(json.dumps(engine))
    assert body["results"][1]["memory"]["fits"] is False  # not an error


def test_analyze_inline_config_and_accelerator(client):
    config = preset_records()["qwen2.5-7b-instruct"]["config"]
    card = client.get("/api/v1/hardware/l4").json()
    card.pop("ridge_points")
    card["id"] = "my-l4"
    r = client.post("/api/v1/analyze", json={"model": config, "hardware": [card, "l4"]})
    assert r.status_code == 200, r.text
    a, b = r.json()["results"]
    assert a["hardware_id"] == "my-l4" and a["decode"]["time_s"] == b["decode"]["time_s"]
    assert r.json()["model"]["num_params"] == 7615616512


@pytest.mark.parametrize(
    "patch, field",
    [
        ({"batch_size": 0}, "batch_size"),
        ({"batch_size": 10**9}, "batch_size"),
        ({"context_length": "long"}, "context_length"),
        ({"kv_dtype": "fp3"}, "kv_dtype"),
        ({"hardware": []}, "hardware"),
        ({"tensor_parallel": 3}, "tensor_parallel"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_invalid_body_422_names_field(client, patch, field):
    r = client.post("/api/v1/analyze", json=ANALYZE | patch)
    assert r.status_code == 422
    assert field in r.json()["detail"]
    assert r.json()["errors"][0]["field"].startswith(field)


def test_engine_errors_are_422_with_field(client):
    r = client.post("/api/v1/analyze", json=ANALYZE | {"num_kv_heads": 3})
    assert r.status_code == 422
    assert r.json()["detail"].startswith("num_kv_heads: 3 must divide the 32 query heads")
    r = client.post("/api/v1/analyze", json=ANALYZE | {"model": {"model_type": "llama", "hidden_size": 4096}})
    assert r.status_code == 422 and "config.num_hidden_layers: missing required field" in r.json()["detail"]


@pytest.mark.parametrize(
    ("patch", "code", "params"),
    [
        ({"batch_size": 0}, "greater_than_equal", {"ge": 1}),
        ({"kv_dtype": "fp3"}, "literal_error", None),
        ({"num_kv_heads": 3}, "kv_divides", None),
        ({"hardware": []}, "too_short", {"min_length": 1}),
    ],
)
def test_each_error_carries_its_code_and_params(client, patch, code, params):
    """A client keys on the code, not the English: a schema error has pydantic's type and ctx;
    an engine error its own code, whose catalogue message in English is the answer's words."""
    item = client.post("/api/v1/analyze", json=ANALYZE | patch).json()["errors"][0]
    assert item["code"] == code
    if params is not None:
        assert params.items() <= item["params"].items()
    if code == "kv_divides":
        words = {lang: t(f"engine_{code}", lang, **item["params"], format="") for lang in ("en", "zh")}
        head = item["message"].split(" (allowed")[0]  # the engine writes its list in brackets
        assert words["en"].startswith(head) and words["zh"] != words["en"]


def test_non_finite_numbers_rejected(client):
    body = '{"model": "llama-3-8b", "hardware": ["h100-sxm5"], "batch_size": NaN}'
    r = client.post("/api/v1/analyze", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422


def test_body_over_256_kib_is_413(client):
    r = client.post("/api/v1/analyze", content=b" " * (256 * 1024 + 1), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert r.json()["errors"][0]["field"] == "body" and "262144 bytes" in r.json()["errors"][0]["message"]


def test_unknown_api_path_is_json_404(client):
    for path in ("/api/v2/analyze", "/api/v1/nothing", "/api/"):
        r = client.get(path)
        assert r.status_code == 404 and r.headers["content-type"].startswith("application/json")


def test_ops_gemm_and_elementwise(client):
    r = client.post(
        "/api/v1/ops",
        json={"hardware": ["h100-sxm5"], "op": {"kind": "gemm", "m": 8192, "n": 8192, "k": 8192, "dtype": "bf16"}},
    )
    gemm = r.json()["results"][0]
    assert gemm["intensity"] == pytest.approx(2730.67, rel=1e-4) and gemm["bound"] == "compute"
    assert gemm["time_s"] == pytest.approx(1.11e-3, rel=1e-2) and gemm["unit"] == "tensor"
    r = client.post(
        "/api/v1/ops",
        json={"hardware": ["h100-sxm5"], "op": {"kind": "elementwise", "name": "add", "elements": 1048576}},
    )
    add = r.json()["results"][0]
    assert add["intensity"] == pytest.approx(1 / 6) and add["unit"] == "vector"
    assert add["attainable_flops_per_s"] == pytest.approx(0.5587e12, rel=1e-3)
    r = client.post(
        "/api/v1/ops",
        json={
            "hardware": ["h100-sxm5"],
            "op": {"kind": "elementwise", "name": "add", "elements": 1024, "dtype": "fp32"},
        },
    )
    assert r.json()["results"][0]["intensity"] == pytest.approx(1 / 12)
    r = client.post("/api/v1/ops", json={"hardware": ["h100-sxm5"], "op": {"kind": "conv", "m": 1}})
    assert r.status_code == 422


def test_sweep(client):
    r = client.post("/api/v1/sweep", json=ANALYZE | {"batch_sizes": [1, 32, 1000]})
    assert r.status_code == 200
    h100 = r.json()["results"][0]
    single = client.post("/api/v1/analyze", json=ANALYZE).json()["results"][0]
    assert h100["time_s"][1] == pytest.approx(single["decode"]["time_s"])
    assert h100["fits"] == [True, True, False]
    r = client.post("/api/v1/sweep", json=ANALYZE | {"context_lengths": [128, 4096]})
    assert r.json()["results"][0]["context_length"] == [128, 4096]
    r = client.post("/api/v1/sweep", json=ANALYZE)
    assert r.status_code == 422 and "batch_sizes or context_lengths" in r.json()["detail"]


def test_openapi_and_docs(client):
    spec = client.get("/openapi.json").json()
    assert "/api/v1/analyze" in spec["paths"]
    undocumented = {
        f"{name}.{field}"
        for name, schema in spec["components"]["schemas"].items()
        for field, prop in schema.get("properties", {}).items()
        if not prop.get("description")
    }
    assert not undocumented  # every field says what it is and its unit
    assert client.get("/docs").status_code == 200


def test_measurements_endpoint(client):
    from pathlib import Path

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "measurements"
    r = client.post(
        "/api/v1/measurements",
        json={"format": "csv", "content": (fixtures / "own.csv").read_text(), "hardware": "h100-sxm5"},
    )
    assert r.status_code == 200, r.text
    points = {p["name"]: p for p in r.json()["points"]}
    assert points["residual_add"]["intensity"] == pytest.approx(1 / 6)
    r = client.post(
        "/api/v1/measurements",
        json={
            "format": "torch_table",
            "content": (fixtures / "torch_table.txt").read_text(),
            "hardware": "h100-sxm5",
            "model": "llama-3-8b",
            "batch_size": 32,
            "context_length": 4096,
            "steps": 40,
        },
    )
    assert r.status_code == 200
    assert {p["name"] for p in r.json()["points"]} >= {"matmul", "attention"}
    bad = client.post(
        "/api/v1/measurements", json={"format": "csv", "content": "name,flops\nx,1", "hardware": "h100-sxm5"}
    )
    assert bad.status_code == 422 and bad.json()["detail"].startswith("line 1")


def test_analyze_with_measured_step_and_roofs(client):
    r = client.post(
        "/api/v1/analyze",
        json=ANALYZE | {"measured_decode_step_s": 0.0125, "roofs": "measured", "bandwidth_efficiency": 0.85},
    )
    assert r.status_code == 200
    h100 = r.json()["results"][0]
    # MBU is against the peak bandwidth, not the efficiency-scaled roof
    assert h100["measured_decode"]["mbu"] == pytest.approx(h100["decode"]["bytes"] / 0.0125 / 3.352e12)
    assert h100["memory_bandwidth_bytes_per_s"] == pytest.approx(3.352e12 * 0.85)
    assert h100["roofs"] == "nominal"  # the catalogue H100 has no calibration: nominal, said so
    assert client.post("/api/v1/analyze", json=ANALYZE | {"compute_efficiency": 0}).status_code == 422


def test_calibration_is_an_inline_accelerator(client):
    from app.calibrate import calibrate_cpu, to_accelerator

    acc = to_accelerator(calibrate_cpu("small"), "h200-sxm-calibrated", base="h200-sxm").model_dump()
    r = client.post("/api/v1/analyze", json={"model": "llama-3-8b", "hardware": [acc], "roofs": "measured"})
    assert r.status_code == 200, r.text
    assert r.json()["results"][0]["roofs"] == "measured"
