"""Hostile requests, third round: the repros of the defects it found, at the HTTP boundary.
(Idle sockets, the connection cap and abandoned bodies are in test_connections.py.)"""

import json

import pytest
from starlette.testclient import TestClient

from app.config import Settings
from app.main import create_app
from engine.model_catalog import preset_records

TEACHING = {"num_params": 7e9, "num_layers": 32, "num_heads": 32, "head_dim": 128}
TRAINING = {"model": TEACHING, "hardware": "h100-sxm5", "gpus": 8, "sequence_length": 4096, "tokens_per_step": 262144}
HUGE_TEACHING = {"num_params": 1e16, "num_layers": 100000, "num_heads": 128, "head_dim": 128}


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(Settings()), raise_server_exceptions=False)


def post(client, path: str, body: dict):
    return client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


@pytest.mark.parametrize(
    "extra, field",
    [
        ({"step_time_s": 1e-320}, "step_time_s"),
        ({"tokens_per_s": 5e-324}, "tokens_per_s"),
        ({"step_time_s": 1.0, "bus_bandwidth_bytes_per_s": 5e-324}, "bus_bandwidth_bytes_per_s"),
        ({"step_time_s": 1e-300, "model": HUGE_TEACHING}, "step_time_s"),
        ({"step_time_s": 1.0, "model": TEACHING | {"id": "\ud800"}}, "model.id"),
    ],
)
def test_training_subnormals_and_surrogates_are_422(client, extra, field):
    r = post(client, "/api/v1/training", TRAINING | extra)
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == field


def test_torch_table_with_a_quadratic_name_is_answered(client):
    name = "vectorized_elementwise" * 11636
    content = "----  ----\nName  Self CUDA\n----  ----\n" + name + "  1.0ms\n"
    r = post(client, "/api/v1/measurements", {"format": "torch_table", "hardware": "h100-sxm5", "content": content})
    assert r.status_code in (200, 422), r.text[:300]
    assert "Infinity" not in r.text


def test_an_import_over_the_row_limit_is_refused_with_the_limit(client):
    from engine.measurement import MAX_RECORDS

    content = "name,flops,bytes,time_s\n" + "".join(f"x{i},1,1,1\n" for i in range(MAX_RECORDS + 1))
    r = post(client, "/api/v1/measurements", {"format": "csv", "hardware": "h100-sxm5", "content": content})
    assert r.status_code == 422 and f"at most {MAX_RECORDS:,} records" in r.json()["detail"]


def test_a_deep_config_with_a_kv_override_is_derived_once(client):
    from engine.analysis import kv_model_cache

    config = dict(preset_records()["llama-3-8b"]["config"]) | {"num_hidden_layers": 1024, "_name_or_path": "deep"}
    kv_model_cache.clear()
    for batch in range(1, 21):
        body = {"model": config, "hardware": ["h100-sxm5"] * 8, "batch_size": batch, "num_kv_heads": 1}
        assert post(client, "/api/v1/analyze", body).status_code == 200
    assert len(kv_model_cache) == 1
