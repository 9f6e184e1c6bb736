"""An unknown model name is a 422 naming the field `model` and the known names nearest to it, on
every endpoint that takes a model; an unknown accelerator stays a 404 with the known ids."""

import pytest

from engine.model_catalog import model_ids

SCENARIO = {"hardware": ["h100-sxm5"], "batch_size": 32, "context_length": 4096}
SERVING = {"hardware": "h200-sxm", "input_tokens": 1024, "output_tokens": 1024}
TRAINING = {"hardware": "h100-sxm5", "gpus": 8, "sequence_length": 4096, "tokens_per_step": 262144}
TRAINING |= {"step_time_s": 3.64, "optimizer": "adamw", "zero_stage": 0, "recompute": "none"}
MEASURED = {"format": "csv", "content": "name,flops,bytes,time_s\ngemm,1e12,1e9,0.001\n", "hardware": "h100-sxm5"}

# (method, path, the request with `model` set to a name)
ENDPOINTS = [
    ("get", "/api/v1/models/{}", None),
    ("post", "/api/v1/analyze", lambda m: SCENARIO | {"model": m}),
    ("post", "/api/v1/sweep", lambda m: SCENARIO | {"model": m, "batch_sizes": [1, 32]}),
    ("post", "/api/v1/serving", lambda m: SERVING | {"model": m, "concurrency": 32}),
    ("post", "/api/v1/serving/curve", lambda m: SERVING | {"model": m, "concurrencies": [1, 32]}),
    ("post", "/api/v1/training", lambda m: TRAINING | {"model": m}),
    ("post", "/api/v1/measurements", lambda m: MEASURED | {"model": m}),
    ("post", "/api/v1/ops/chart", lambda m: {"hardware": ["h100-sxm5"], "model": m}),
    ("get", "/api/v1/ops/presets", lambda m: {"model": m}),
    ("get", "/api/v1/published-measurements", lambda m: {"model": m}),
]


def ask(client, method, path, body, name):
    if body is None:
        return client.get(path.format(name))
    if method == "get":
        return client.get(path, params=body(name))
    return client.post(path, json=body(name))


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS, ids=[e[1] for e in ENDPOINTS])
def test_an_unknown_model_is_a_422_naming_the_nearest_known_ones(client, method, path, body):
    r = ask(client, method, path, body, "llama3-8b")
    assert r.status_code == 422, r.text
    answer = r.json()
    params = {"field": "model", "value": "llama3-8b", "nearest": ", ".join(answer["nearest"])}
    assert answer["errors"] == [
        {"field": "model", "message": answer["detail"], "code": "unknown_model", "params": params}
    ]
    assert answer["nearest"][0] == "llama-3-8b" and len(answer["nearest"]) == 5
    assert answer["detail"] == f"unknown model id 'llama3-8b'; nearest known: {', '.join(answer['nearest'])}"
    assert set(answer["known_ids"]) == set(model_ids())


@pytest.mark.parametrize(
    ("name", "first"),
    [
        ("meta-llama/Llama-3.1-8b-instruc", "meta-llama/Llama-3.1-8B-Instruct"),  # a letter short
        ("Qwen/Qwen3-33B", "Qwen/Qwen3-32B"),
        ("DEEPSEEK-R2", "deepseek-r1"),  # case-insensitive
    ],
)
def test_the_nearest_names_are_preset_ids_or_hugging_face_ids_best_first(client, name, first):
    r = client.post("/api/v1/analyze", json=SCENARIO | {"model": name})
    assert r.status_code == 422 and r.json()["nearest"][0] == first, r.text


def test_a_known_hugging_face_id_in_any_case_is_answered(client):
    r = client.post("/api/v1/analyze", json=SCENARIO | {"model": "meta-llama/Llama-3.1-8b-instruct"})
    assert r.status_code == 200, r.text


def test_an_unknown_accelerator_stays_a_404_with_the_known_ids(client):
    r = client.post("/api/v1/analyze", json=SCENARIO | {"model": "llama-3-8b", "hardware": ["h1000"]})
    assert r.status_code == 404 and r.json()["detail"] == "unknown hardware id 'h1000'"
    assert "h100-sxm5" in r.json()["known_ids"] and "nearest" not in r.json()
