"""Issue 11's repros, through HTTP: each hostile input gets a 4xx whose message names the field
(or line) and what is allowed, never a 500."""

import json

import pytest

H100 = "h100-sxm5"
NCU_HEADER = '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
MIXTRAL = {
    "model_type": "mixtral",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "intermediate_size": 14336,
    "vocab_size": 32000,
    "num_local_experts": 8,
}
QWEN3_MOE = {
    "model_type": "qwen3_moe",
    "hidden_size": 2048,
    "num_hidden_layers": 4,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "intermediate_size": 6144,
    "moe_intermediate_size": 768,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "vocab_size": 151936,
}


def post_raw(client, path: str, body: dict):
    """json.dumps without ensure_ascii tricks: lets a test send lone surrogates and NaN as JSON."""
    return client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


def measurements(client, fmt: str, content: str, **extra):
    return client.post("/api/v1/measurements", json={"format": fmt, "content": content, "hardware": H100, **extra})


# ---- 1. measurement import ------------------------------------------------------------


@pytest.mark.parametrize(
    "fmt, content, extra, field, allowed",
    [
        ("csv", "name,flops,bytes,time_s\nx,1e308,1,1e-308\n", {}, "line 2: flops", "<= 1e+30"),
        ("csv", "name,flops,bytes,time_s\nx,1,1,5e-324\n", {"steps": 2}, "line 2: time_s", "1e-15 .. 86400 s"),
        (
            "ncu_csv",
            NCU_HEADER + '"0","gemm","gpu__time_duration.sum","nsecond","0"\n'
            '"0","gemm","dram__bytes_read.sum","byte","100"\n',
            {},
            "ncu_csv line 2: gpu__time_duration.sum",
            "1e-15 .. 86400 s",
        ),
        ("json", "[" * 3000, {}, "json", "a list of flat records"),
        ("chrome_trace", "[" * 3000, {}, "chrome_trace", "a list of flat records"),
        ("csv", "name,flops,bytes,time_s\n" + "x" * 140_000 + ",1,1,1\n", {}, "line 2", "131072 characters"),
        (
            "torch_table",
            "Name    Self CPU    Self CUDA\n---------\naten::mm    1ms    1.2.3ms\n",
            {},
            "torch_table line 3",
            "13.504ms",
        ),
        ("ncu_csv", NCU_HEADER + "1\n", {}, "ncu_csv line 2", "Metric Value"),
        (
            "json",
            '[{"name": "x", "flops": ' + "9" * 5000 + ', "bytes": 1, "time_s": 1}]',
            {},
            "measurements[0]: flops",
            "<= 1e+30",
        ),
        # 3. nonsense that used to be accepted
        ("csv", "name,flops,bytes,time_s\nx,١٠,1,1\n", {}, "line 2: flops", "ASCII digits"),
        ("csv", "name,flops,bytes,time_s\nx,1_000,1,1\n", {}, "line 2: flops", "ASCII digits"),
        ("csv", "name,flops,bytes,time_s,flops\nx,1,1,1,2\n", {}, "line 1", "each column once"),
        ("csv", "name,flops,bytes,time_s\nx\x00y,1,1,1\n", {}, "line 2: name", "printable text"),
        (
            "json",
            '[{"name": "a\\u0000b", "flops": 1, "bytes": 1, "time_s": 1}]',
            {},
            "measurements[0]: name",
            "printable text",
        ),
    ],
)
def test_hostile_measurements_are_422_naming_the_line(client, fmt, content, extra, field, allowed):
    r = measurements(client, fmt, content, **extra)
    assert r.status_code == 422, r.text[:300]
    body = r.json()
    assert body["errors"][0]["field"] == field, body
    assert allowed in body["detail"], body["detail"]


def test_overflowing_ratio_is_refused_not_infinite(client):
    """Each number in range, their ratio not: 1e30 FLOP in a femtosecond over 1e-5 bytes."""
    r = measurements(client, "csv", "name,flops,bytes,time_s\nx,1e30,1e-300,1e-15\n")
    assert r.status_code == 422
    assert r.json()["errors"][0]["field"].startswith("line 2: ")


def test_sane_measurements_still_place(client):
    r = measurements(client, "csv", "name,flops,bytes,time_s\ngemm,1.5e12,3e9,2e-3\n")
    assert r.status_code == 200 and r.json()["points"][0]["time_s"] == 2e-3


# ---- 2. custom config.json -------------------------------------------------------------


@pytest.mark.parametrize("value", ["two", -5, 1e9, float("nan"), 2.5, 0, -1, 9, True])
def test_experts_per_token_must_be_a_positive_integer_up_to_the_experts(client, value):
    r = post_raw(client, "/api/v1/analyze", {"model": MIXTRAL | {"experts_per_token": value}, "hardware": [H100]})
    assert r.status_code == 422, r.text[:300]
    assert r.json()["errors"][0]["field"] == "config.experts_per_token"
    assert "is not an integer in [1, 8]" in r.json()["detail"]


def test_experts_per_token_is_used_when_valid(client):
    two = post_raw(client, "/api/v1/analyze", {"model": MIXTRAL | {"experts_per_token": 2}, "hardware": [H100]})
    one = post_raw(client, "/api/v1/analyze", {"model": MIXTRAL | {"experts_per_token": 1}, "hardware": [H100]})
    assert two.status_code == one.status_code == 200
    assert two.json()["model"]["num_active_params"] > one.json()["model"]["num_active_params"] > 0


@pytest.mark.parametrize(
    "base, patch, field, allowed",
    [
        (MIXTRAL, {"hidden_act": ["silu"]}, "config.hidden_act", "silu, swish"),
        (QWEN3_MOE, {"mlp_only_layers": 5}, "config.mlp_only_layers", "integers in [0, 3]"),
        (QWEN3_MOE, {"mlp_only_layers": [0, 9]}, "config.mlp_only_layers", "integers in [0, 3]"),
        (MIXTRAL, {"_name_or_path": "\ud800"}, "config._name_or_path", "printable text"),
        (MIXTRAL, {"num_experts_per_tok": -1}, "config.num_experts_per_tok", "[1, 8]"),
    ],
)
def test_nonsense_config_values_are_422(client, base, patch, field, allowed):
    r = post_raw(client, "/api/v1/analyze", {"model": base | patch, "hardware": [H100]})
    assert r.status_code == 422, r.text[:300]
    assert r.json()["errors"][0]["field"] == field
    assert allowed in r.json()["detail"]


def test_mlp_only_layers_list_is_honoured(client):
    moe = post_raw(client, "/api/v1/analyze", {"model": QWEN3_MOE, "hardware": [H100]}).json()
    dense0 = post_raw(
        client, "/api/v1/analyze", {"model": QWEN3_MOE | {"mlp_only_layers": [0]}, "hardware": [H100]}
    ).json()
    assert dense0["model"]["num_params"] < moe["model"]["num_params"]


# ---- 3. measured step faster than the bound; strict request types ----------------------


def test_measured_step_faster_than_the_bound_warns(client):
    r = client.post(
        "/api/v1/analyze", json={"model": "llama-3-8b", "hardware": [H100], "measured_decode_step_s": 1e-200}
    )
    assert r.status_code == 200
    result = r.json()["results"][0]
    assert result["measured_decode"]["mbu"] > 1e190  # finite, and absurd: hence the warning
    assert len(result["warnings"]) == 1
    assert "faster than the bound" in result["warnings"][0] and "MBU" in result["warnings"][0]


def test_plausible_measured_step_has_no_warning(client):
    r = client.post("/api/v1/analyze", json={"model": "llama-3-8b", "hardware": [H100], "measured_decode_step_s": 0.02})
    assert r.status_code == 200 and r.json()["results"][0]["warnings"] == []


def test_measured_step_whose_rates_overflow_is_422(client):
    r = client.post(
        "/api/v1/analyze", json={"model": "llama-3-8b", "hardware": [H100], "measured_decode_step_s": 5e-324}
    )
    assert r.status_code == 422 and r.json()["errors"][0]["field"].startswith("measured")


@pytest.mark.parametrize(
    "path, patch, field",
    [
        ("/api/v1/analyze", {"batch_size": True}, "batch_size"),
        ("/api/v1/analyze", {"batch_size": "32"}, "batch_size"),
        ("/api/v1/analyze", {"batch_size": 32.0}, "batch_size"),
        ("/api/v1/analyze", {"tensor_parallel": True}, "tensor_parallel"),
        ("/api/v1/analyze", {"flash_attention": "yes"}, "flash_attention"),
        ("/api/v1/sweep", {"batch_sizes": ["1", 2]}, "batch_sizes.0"),
    ],
)
def test_request_bodies_are_strictly_typed(client, path, patch, field):
    r = client.post(path, json={"model": "llama-3-8b", "hardware": [H100]} | patch)
    assert r.status_code == 422, r.text[:300]
    assert r.json()["errors"][0]["field"] == field


def test_strict_types_still_accept_plain_json(client):
    r = client.post(
        "/api/v1/analyze",
        json={
            "model": "llama-3-8b",
            "hardware": [H100],
            "batch_size": 8,
            "tensor_parallel": 2,
            "bandwidth_efficiency": 1,
        },
    )
    assert r.status_code == 200, r.text[:300]


# ---- 11. malformed JSON is 400 ----------------------------------------------------------


@pytest.mark.parametrize("body", [b'{"model": ', b"not json", b'{"a": 1,}'])
def test_malformed_json_is_400(client, body):
    r = client.post("/api/v1/analyze", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400
    assert r.json()["errors"][0]["field"] == "body" and "not valid JSON" in r.json()["detail"]


@pytest.mark.parametrize(
    "body,headers,status,words",
    [
        (b"", {"content-type": "application/json"}, 400, "body is empty: send one JSON object"),
        (b'{"model": "llama-3.1-8b"}', {"content-type": "text/plain"}, 415, "body is sent as 'text/plain'"),
        (b'{"model": "llama-3.1-8b"}', {}, 415, "body is sent as no content-type"),
        (b"[1, 2]", {"content-type": "application/json"}, 422, "body must be one JSON object"),
    ],
)
def test_a_body_that_is_not_one_json_object_says_what_it_is(client, body, headers, status, words):
    """pydantic's words were 'body: Field required' and 'Input should be a valid dictionary' for a
    JSON object sent as text/plain."""
    for path in ("/api/v1/plan", "/api/v1/serving", "/api/v1/analyze"):
        r = client.post(path, content=body, headers=headers)
        assert r.status_code == status and r.json()["errors"] == [{"field": "body", "message": r.json()["detail"]}]
        assert r.json()["detail"].startswith(words), r.text


@pytest.mark.parametrize(
    "body",
    [
        b'{"model": ' + b"[" * 2000 + b"]" * 2000 + b"}",
        b'{"model": "\xff\xfe"}',
        b'{"concurrency": ' + b"9" * 5000 + b"}",
    ],
)
def test_a_body_too_deep_not_utf8_or_with_a_huge_number_is_a_400_naming_the_body(client, body):
    r = client.post("/api/v1/serving", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400
    (error,) = r.json()["errors"]
    assert error["field"] == "body" and "UTF-8 JSON" in error["message"] and "error parsing" not in r.text
