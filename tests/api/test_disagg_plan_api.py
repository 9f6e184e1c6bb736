"""POST /api/v1/serving with a disaggregated deployment or speculative decoding, and POST
/api/v1/plan, over HTTP: the answers, and a 422 naming the field for what cannot be."""

import pytest

DISAGG = {
    "model": "deepseek-ai/DeepSeek-R1",
    "hardware": "gb200",
    "backend": "trtllm",
    "concurrency": 256,
    "weight_dtype": "fp8",
    "compute_dtype": "fp8",
    "kv_dtype": "fp8",
    "disaggregated": {
        "prefill": {"workers": 2, "tensor_parallel": 1, "attention_data_parallel": 4, "expert_parallel": 4},
        "decode": {"workers": 1, "tensor_parallel": 1, "attention_data_parallel": 16, "expert_parallel": 16},
        "kv_link": "auto",
    },
}


def test_a_disaggregated_deployment_keeps_the_answers_shape(client):
    r = client.post("/api/v1/serving", json=DISAGG)
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["gpus"] == 24
    d = data["disaggregated"]
    assert d["limited_by"] in ("prefill", "decode", "kv_link")
    assert {"prefill_capacity_rps", "decode_capacity_rps", "balanced_ratio", "memory_rule"} <= set(d)
    assert d["figures"] == "estimate"  # its rates are the estimate's, and say so
    assert data["breakdown"]["ttft"]["estimate"]["kv_transfer_s"] > 0
    assert data["estimate"]["tpot_s"] >= data["bound"]["tpot_s"]
    link = {**DISAGG["disaggregated"], "kv_link": {"bandwidth_gb_s": 25, "latency_us": 50}}
    r = client.post("/api/v1/serving", json=DISAGG | {"disaggregated": link})
    assert r.status_code == 200 and r.json()["breakdown"]["kv_transfer"]["link_bytes_per_s"] == 25e9


@pytest.mark.parametrize(
    "change, field",
    [
        ({"tensor_parallel": 8}, "tensor_parallel"),  # a top-level layout beside disaggregated would be ignored
        ({"disaggregated": {**DISAGG["disaggregated"], "prefill": {"workers": 0}}}, "workers"),
        ({"disaggregated": {**DISAGG["disaggregated"], "kv_link": {"bandwidth_gb_s": 0}}}, "bandwidth_gb_s"),
        ({"disaggregated": {**DISAGG["disaggregated"], "decode": {"expert_parallel": 3}}}, "expert_parallel"),
    ],
)
def test_a_deployment_that_cannot_be_is_a_422_naming_the_field(client, change, field):
    r = client.post("/api/v1/serving", json=DISAGG | change)
    assert r.status_code == 422, r.text
    assert field in r.text


def test_speculative_decoding_over_http(client):
    body = {k: v for k, v in DISAGG.items() if k != "disaggregated"} | {
        "hardware": "b200", "tensor_parallel": 8, "moe_tensor_parallel": 8, "concurrency": 8,
        "speculative": {"method": "mtp", "draft_tokens": 1, "acceptance_rate": [0.6, 0.9]},
    }  # fmt: skip
    r = client.post("/api/v1/serving", json=body)
    assert r.status_code == 200, r.text
    spec = r.json()["speculative"]
    assert spec["tokens_per_step"]["low"] == pytest.approx(1.6) and spec["tokens_per_step"]["high"] == pytest.approx(
        1.9
    )
    bad = client.post("/api/v1/serving", json=body | {"speculative": {"method": "mtp", "acceptance_rate": 1.5}})
    assert bad.status_code == 422 and "acceptance_rate" in bad.text


def test_plan_answers_and_its_best_reproduces_through_serving(client):
    body = {"model": "meta-llama/Llama-3.1-8B", "hardware": ["h100-sxm5"], "gpus": 4, "tpot_s": 0.02,
            "ttft_s": 1.0, "precisions": ["fp8"], "top": 3}  # fmt: skip
    r = client.post("/api/v1/plan", json=body)
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["candidates"]["evaluated"] > 0 and len(data["top"]) == 3 and data["best"]["launch"]
    served = client.post("/api/v1/serving", json=data["best"]["serving_request"])
    assert served.status_code == 200, served.text
    assert served.json()["estimate"]["tpot_s"] == pytest.approx(data["best"]["estimate"]["tpot_s"], rel=1e-12)
    bad = client.post("/api/v1/plan", json=body | {"gpus": 0})
    assert bad.status_code == 422 and "gpus" in bad.text
    bad = client.post("/api/v1/plan", json=body | {"gpu_hour_price": {"b200": 4.0}})
    assert bad.status_code == 422 and "gpu_hour_price" in bad.text


@pytest.mark.parametrize(
    "link, field, message",
    [
        ("fast", "disaggregated.kv_link", "must be one of 'auto' or an object of its fields"),
        (5, "disaggregated.kv_link", "must be one of 'auto' or an object of its fields"),
        ({"bandwidth_gb_s": 0}, "disaggregated.kv_link.bandwidth_gb_s", "greater than or equal to 0.001"),
        ({"latency_us": 3}, "disaggregated.kv_link.bandwidth_gb_s", "Field required"),
    ],
)
def test_a_bad_kv_link_is_one_error_naming_its_own_field(client, link, field, message):
    """`'auto' | {bandwidth_gb_s, latency_us}`: one error, at the field the user wrote, in the
    branch that was meant; never pydantic's union branches (literal['auto'], KvLinkFields)."""
    r = client.post("/api/v1/serving", json=DISAGG | {"disaggregated": {**DISAGG["disaggregated"], "kv_link": link}})
    assert r.status_code == 422
    (error,) = r.json()["errors"]
    assert error["field"] == field and message in error["message"]
    assert "literal[" not in r.text and "KvLinkFields" not in r.text


def test_a_side_and_speculation_over_http_name_their_fields(client):
    small = {**DISAGG["disaggregated"], "prefill": {"tensor_parallel": 1}}
    r = client.post("/api/v1/serving", json=DISAGG | {"disaggregated": small})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "disaggregated.prefill.tensor_parallel"
    past_the_board = {**DISAGG["disaggregated"], "prefill": {"tensor_parallel": 16}}
    r = client.post("/api/v1/serving", json=DISAGG | {"hardware": "h100-sxm5", "disaggregated": past_the_board})
    (error,) = r.json()["errors"]
    assert r.status_code == 422 and error["field"] == "disaggregated.prefill.tensor_parallel"
    assert "16 is too many GPUs for h100-sxm5" in error["message"]
    bad = {"method": "mtp", "draft_tokens": 1, "acceptance_rate": 1.5}
    r = client.post("/api/v1/serving", json=DISAGG | {"speculative": bad})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "speculative.acceptance_rate"
    r = client.post("/api/v1/plan", json={"model": "meta-llama/Llama-3.1-8B", "hardware": ["mi300x"], "gpus": 8,
                                          "backends": ["trtllm"]})  # fmt: skip
    assert r.status_code == 422 and "none of trtllm runs on mi300x" in r.json()["detail"]


def test_speculative_decoding_runs_on_the_decode_workers_over_http(client):
    """MTP on the disaggregated deployment: the decode workers verify and draft, each token costs
    their step over E(a); the answer says so as an aggregated one does."""
    spec = {"method": "mtp", "draft_tokens": 1, "acceptance_rate": [0.6, 0.9]}
    plain = client.post("/api/v1/serving", json=DISAGG).json()
    r = client.post("/api/v1/serving", json=DISAGG | {"speculative": spec})
    assert r.status_code == 200
    body = r.json()
    assert body["speculative"]["tokens_per_step"] == {"low": 1.6, "estimate": 1.75, "high": 1.9}
    assert body["estimate"]["tpot_s"] < plain["estimate"]["tpot_s"] and plain["speculative"] is None
    assert body["bound"]["tpot_s"] <= body["estimate"]["tpot_s"]


def test_an_unknown_draft_or_decode_accelerator_names_the_request_s_own_field(client):
    spec = {"method": "draft_model", "draft_model": "nope-1b", "draft_tokens": 3, "acceptance_rate": 0.7}
    body = {"model": "llama-3.1-70b", "hardware": "h200-sxm", "tensor_parallel": 8, "speculative": spec}
    r = client.post("/api/v1/serving", json=body)
    assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == ["speculative.draft_model"]
    sides = {"prefill": {"tensor_parallel": 4}, "decode": {"tensor_parallel": 4, "hardware": "nope"}}
    r = client.post("/api/v1/serving", json={"model": "llama-3.1-70b", "hardware": "h200-sxm", "disaggregated": sides})
    assert r.status_code == 404 and [e["field"] for e in r.json()["errors"]] == ["disaggregated.decode.hardware"]


def test_a_backend_on_an_accelerator_it_does_not_run_on_is_said(client):
    body = {"model": "llama-3.1-70b", "hardware": "mi300x", "backend": "trtllm", "concurrency": 4}
    warnings = client.post("/api/v1/serving", json=body).json()["warnings"]
    assert any("trtllm runs on NVIDIA accelerators, not on mi300x (AMD)" in w for w in warnings)
    body["backend"] = "vllm"
    assert not any("runs on" in w for w in client.post("/api/v1/serving", json=body).json()["warnings"])


def test_an_accelerator_named_twice_is_searched_once_as_the_cli_does(client):
    """Nine copies of one id were refused as more than eight items; the CLI searched one."""
    body = {"model": "llama-3.1-8b", "hardware": ["h100-sxm5"] * 9, "gpus": 8, "top": 1, "modes": ["aggregated"]}
    r = client.post("/api/v1/plan", json=body)
    assert r.status_code == 200 and r.json()["hardware"] == ["h100-sxm5"], r.text
    nine = ["h100-sxm5", "h200-sxm", "b200", "b300", "gb200", "gb300", "mi300x", "mi325x", "mi355x"]
    r = client.post("/api/v1/plan", json=body | {"hardware": nine})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "hardware"
