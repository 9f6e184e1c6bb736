"""Property-based fuzzing through HTTP (issue 11): every answer is < 500 and JSON for measurement
files, config.json objects, raw bodies and Dash callback envelopes."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.test_fuzz import config_json, json_values, measurement_file

FUZZ = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


def post(client, path: str, body: object):
    # json.dumps lets NaN, Infinity and lone surrogates through, as a careless client would send them
    return client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


@FUZZ
@given(measurement_file, st.integers(min_value=-1, max_value=200000), st.sampled_from(["llama-3-8b", None]))
def test_measurements_never_5xx(client, file, steps, model):
    fmt, content = file
    r = post(
        client,
        "/api/v1/measurements",
        {"format": fmt, "content": content, "hardware": "h100-sxm5", "steps": steps, "model": model},
    )
    assert r.status_code < 500, r.text[:300]
    assert r.status_code in (200, 413, 422) and r.json()


@FUZZ
@given(config_json, json_values)
def test_custom_configs_never_5xx(client, config, measured):
    r = post(
        client, "/api/v1/analyze", {"model": config, "hardware": ["h100-sxm5"], "measured_decode_step_s": measured}
    )
    assert r.status_code < 500, r.text[:300]
    assert r.status_code in (200, 404, 422) and r.json()


@FUZZ
@given(
    st.sampled_from(["/api/v1/analyze", "/api/v1/sweep", "/api/v1/ops", "/api/v1/measurements"]),
    st.one_of(st.binary(max_size=200), json_values.map(lambda v: json.dumps(v).encode())),
)
def test_raw_bodies_never_5xx(client, path, body):
    r = client.post(path, content=body, headers={"content-type": "application/json"})
    assert r.status_code in (400, 404, 413, 422), (r.status_code, r.text[:300])


envelope = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {},
        optional={
            "output": json_values | st.text(max_size=30),
            "outputs": json_values,
            "inputs": json_values
            | st.lists(st.fixed_dictionaries({"id": json_values, "property": json_values}), max_size=3),
            "state": json_values,
            "changedPropIds": json_values,
        },
    ),
)


@FUZZ
@given(envelope)
def test_dash_envelopes_never_5xx(client, body):
    r = post(client, "/_dash-update-component", body)
    assert r.status_code < 500, r.text[:300]


# ---- every numeric field of every endpoint, and markup in every user string --------------
# A legal body per endpoint that carries every numeric field the schema has (top level and
# inside an inline accelerator, a teaching model, a config.json, an op); each numeric leaf is
# replaced in turn by a subnormal or a huge value. The answer is a 2xx or a 4xx, never a 500,
# and never a non-finite number in the JSON.
CARD = {
    "id": "fuzz-card",
    "name": "Fuzz card",
    "vendor": "ACME",
    "memory_bytes": 85899345920,
    "memory_bandwidth_bytes_per_s": 3.352e12,
    "tensor_flops_per_s": {"bf16": 9.894e14},
    "l2_bytes": 5.0e7,
    "cache_roofs": [
        {"level": "l1", "bandwidth_bytes_per_s": 3.0e13, "capacity_bytes": 3.3e7, "kind": "measured",
         "source": "a microbenchmark, table 1"},
    ],
    "interconnect_bytes_per_s_per_direction": 4.5e11,
    "pcie_bytes_per_s_per_direction": 6.4e10,
    "scale_up_domain_size": 8,
    "sources": [{"document": "datasheet v1"}],
}  # fmt: skip
SCENARIO = {
    "batch_size": 8,
    "context_length": 4096,
    "num_kv_heads": 8,
    "tensor_parallel": 1,
    "kv_block_size": 16,
    "shared_prefix_length": 0,
    "bandwidth_efficiency": 0.9,
    "compute_efficiency": 0.9,
    "memory_utilization": 0.9,
    "output_tokens": 256,
    "gpu_hour_price": 2.5,
}
LLAMA_CONFIG = {
    "model_type": "llama",
    "_name_or_path": "fuzz-llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
}
TEACHING = {"num_params": 7e9, "num_layers": 32, "num_heads": 32, "head_dim": 128}
BODIES = {
    "/api/v1/analyze": [
        {"model": "llama-3-8b", "hardware": ["h100-sxm5", CARD], **SCENARIO, "measured_decode_step_s": 0.01},
        {"model": LLAMA_CONFIG, "hardware": ["h100-sxm5"], "measured_tokens_per_s": 2000.0},
    ],
    "/api/v1/sweep": [
        {"model": "llama-3-8b", "hardware": ["h100-sxm5"], **SCENARIO, "batch_sizes": [1, 64]},
        {"model": "llama-3-8b", "hardware": [CARD], "context_lengths": [128, 4096]},
    ],
    "/api/v1/training": [
        {"model": TEACHING, "hardware": "h100-sxm5", "gpus": 8, "sequence_length": 4096, "tokens_per_step": 262144,
         "step_time_s": 3.64, "micro_batch_size": 8, "bus_bandwidth_bytes_per_s": 4.5e11, "gpus_per_node": 8,
         "zero_stage": 1},
        {"model": "llama-3-8b", "hardware": "h100-sxm5", "gpus": 1, "sequence_length": 4096,
         "tokens_per_step": 4096, "tokens_per_s": 1000.0},
    ],
    "/api/v1/ops": [
        {"hardware": ["h100-sxm5", CARD], "op": {"kind": "gemm", "m": 8192, "n": 8192, "k": 8192},
         "launch_overhead_s": 5e-6},
        {"hardware": ["h100-sxm5"], "op": {"kind": "elementwise", "shape": [4096, 4096], "count": 2}},
        {"hardware": ["h100-sxm5"], "op": {"kind": "elementwise", "elements": 1048576}},
        {"hardware": ["h100-sxm5"], "op": {"kind": "conv2d", "batch": 8, "height": 56, "width": 56,
         "in_channels": 64, "out_channels": 64, "kernel": 3, "stride": 1, "padding": 1, "groups": 1}},
    ],
    "/api/v1/ops/chart": [{"hardware": ["h100-sxm5", CARD], "model": "llama-3-8b", "context_length": 4096}],
    "/api/v1/serving": [
        {"model": "llama-3-8b", "hardware": "h100-sxm5", "input_tokens": 1024, "output_tokens": 1024,
         "tensor_parallel": 1, "attention_data_parallel": 1, "moe_tensor_parallel": 1, "expert_parallel": 1,
         "memory_utilization": 0.9, "concurrency": 16,
         "speculative": {"method": "eagle", "draft_tokens": 3, "acceptance_rate": [0.6, 0.8]}},
        {"model": "llama-3-8b", "hardware": "h100-sxm5", "input_tokens": 1024, "output_tokens": 1024,
         "memory_utilization": 0.9, "concurrency": 16,
         "disaggregated": {"prefill": {"workers": 1, "tensor_parallel": 1, "attention_data_parallel": 1,
                                       "moe_tensor_parallel": 1, "expert_parallel": 1, "batch": 1},
                           "decode": {"workers": 1, "tensor_parallel": 1, "attention_data_parallel": 1,
                                      "moe_tensor_parallel": 1, "expert_parallel": 1},
                           "kv_link": {"bandwidth_gb_s": 50, "latency_us": 20}}},
    ],
    "/api/v1/plan": [
        {"model": "llama-3-8b", "hardware": ["h100-sxm5"], "gpus": 2, "input_tokens": 512, "output_tokens": 256,
         "ttft_s": 1.0, "tpot_s": 0.05, "top": 2, "precisions": ["fp8"], "backends": ["vllm"],
         "memory_utilization": 0.9, "gpu_hour_price": {"h100-sxm5": 2.5}},
    ],
    "/api/v1/serving/curve": [
        {"model": "llama-3-8b", "hardware": "h100-sxm5", "input_tokens": 512, "output_tokens": 256,
         "tensor_parallel": 2, "attention_data_parallel": 1, "moe_tensor_parallel": 1, "expert_parallel": 1,
         "memory_utilization": 0.9, "concurrencies": [1, 64]},
    ],
    "/api/v1/measurements": [
        {"format": "csv", "content": "name,flops,bytes,time_s\ngemm,1e12,1e9,0.002\n", "hardware": CARD,
         "model": "llama-3-8b", "steps": 2, "batch_size": 8, "context_length": 4096, "tensor_parallel": 1},
    ],
}  # fmt: skip
HOSTILE_NUMBERS = (5e-324, 1e-320, 1e308, -1.7976931348623157e308, 2**64)


def numeric_leaves(value: object, path: tuple = ()) -> list[tuple]:
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in numeric_leaves(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in numeric_leaves(v, (*path, i))]
    return []


def replaced(body: object, path: tuple, new: object) -> object:
    copy = json.loads(json.dumps(body))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return copy


def strict_json(text: str) -> object:
    def refuse(constant: str) -> None:
        raise AssertionError(f"non-finite number {constant} in the answer")

    return json.loads(text, parse_constant=refuse)


NUMERIC_CASES = [
    (path, i, leaf, number)
    for path, bodies in BODIES.items()
    for i, body in enumerate(bodies)
    for leaf in numeric_leaves(body)
    for number in HOSTILE_NUMBERS
]


def test_the_bodies_carry_every_numeric_field_of_their_schema(client):
    """A new endpoint or numeric field must join the fuzz: every POST endpoint has bodies, and
    each request schema's numeric properties appear in them."""
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    names = {
        path: ops["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"].split("/")[-1]
        for path, ops in spec["paths"].items()
        if "post" in ops
    }
    assert set(names) == set(BODIES)
    for path, name in names.items():
        given = {leaf[0] for body in BODIES[path] for leaf in numeric_leaves(body)}
        for field, spec in schemas[name]["properties"].items():
            kinds = json.dumps(spec)
            if field not in ("hardware", "model", "op") and ('"integer"' in kinds or '"number"' in kinds):
                assert field in given, f"{path}: {field} is not fuzzed"


def test_the_fuzz_bodies_are_legal(client):
    for path, bodies in BODIES.items():
        for body in bodies:
            r = post(client, path, body)
            assert r.status_code == 200, (path, r.text[:300])


@pytest.mark.parametrize("path, i, leaf, number", NUMERIC_CASES)
def test_a_subnormal_or_huge_number_in_any_field_is_never_5xx(client, path, i, leaf, number):
    r = post(client, path, replaced(BODIES[path][i], leaf, number))
    assert r.status_code in (200, 404, 422), (leaf, number, r.status_code, r.text[:300])
    strict_json(r.text)


MARKUP = '<a href="//evil.example/x" target="_blank">link</a><img src=x onerror=alert(1)>'
STRING_FIELDS = [
    ("/api/v1/analyze", 0, ("hardware", 1, "name")),
    ("/api/v1/analyze", 0, ("hardware", 1, "vendor")),
    ("/api/v1/analyze", 0, ("hardware", 1, "id")),
    ("/api/v1/analyze", 0, ("hardware", 1, "cache_roofs", 0, "source")),
    ("/api/v1/analyze", 0, ("model",)),
    ("/api/v1/analyze", 1, ("model", "_name_or_path")),
    ("/api/v1/sweep", 1, ("hardware", 0, "name")),
    ("/api/v1/training", 0, ("model", "id")),
    ("/api/v1/training", 0, ("hardware",)),
    ("/api/v1/ops", 0, ("hardware", 1, "name")),
    ("/api/v1/ops", 2, ("op", "name")),
    ("/api/v1/ops/chart", 0, ("model",)),
    ("/api/v1/measurements", 0, ("content",)),
]


@pytest.mark.parametrize("path, i, leaf", STRING_FIELDS)
@pytest.mark.parametrize("text", [MARKUP, "\ud800" + MARKUP, MARKUP * 40])
def test_markup_in_any_user_string_is_answered_as_json(client, path, i, leaf, text):
    """Markup (and a lone surrogate, and a long string) in every string a user controls: a 2xx
    or 4xx JSON answer, never a 500 and never HTML (nosniff keeps it JSON in a browser)."""
    if leaf == ("content",):
        text = "name,flops,bytes,time_s\n" + text.replace(",", ";") + ",1e12,1e9,0.002\n"
    r = post(client, path, replaced(BODIES[path][i], leaf, text))
    assert r.status_code in (200, 404, 422), (leaf, r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("application/json") and r.headers["x-content-type-options"] == "nosniff"
    strict_json(r.text)


# ---- issue 34: model ids with a decoration, curves in any order ------------------------------

decorated_id = st.builds(
    lambda name, before, after: before + name + after,
    st.sampled_from(["llama-3-8b", "meta-llama/Llama-3.1-70B", "Qwen/Qwen3-32B-FP8", "deepseek-ai/DeepSeek-R1"]),
    st.sampled_from(["", " ", "\t", "\u202e", "\u2066", "\x00"]),
    st.sampled_from(["\n", " ", "\u202e", "-FP8-FP8", "-NVFP4-NVFP4", "-FP8-FP8-FP8-FP8", "\u200f"]),
)


@FUZZ
@given(decorated_id)
def test_a_decorated_model_id_is_refused_and_echoed_escaped(client, name):
    r = post(client, "/api/v1/serving", {"model": name, "hardware": "h100-sxm5"})
    assert r.status_code == 422 and r.json()["errors"][0]["code"] == "unknown_model", r.text[:300]
    echoed = json.dumps(r.json(), ensure_ascii=False)
    assert not any(c in echoed for c in "\n\t\x00\u202e\u2066\u200f"), echoed[:300]


@FUZZ
@given(st.lists(st.sampled_from([1, 2, 8, 64, 300]), min_size=1, max_size=6))
def test_curve_points_come_back_in_the_order_asked(client, concurrencies):
    body = {"model": "llama-3-8b", "hardware": "h100-sxm5", "concurrencies": concurrencies}
    r = post(client, "/api/v1/serving/curve", body)
    assert r.status_code == 200, r.text[:300]
    assert [p["concurrency"] for p in r.json()["points"]] == concurrencies
