"""POST /api/v1/training over HTTP: seed 000's 7B example and 422s that name the field."""

import pytest

SEED = {
    "model": {"num_params": 7e9, "num_layers": 32, "num_heads": 32, "head_dim": 128},
    "hardware": "h100-sxm5",
    "gpus": 8,
    "sequence_length": 4096,
    "tokens_per_step": 262144,
    "step_time_s": 3.64,
    "optimizer": "adamw",
    "zero_stage": 0,
    "recompute": "none",
}


def test_seed_000_example(client):
    r = client.post("/api/v1/training", json=SEED | {"recompute": "full"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["mfu"] == pytest.approx(0.382, abs=5e-4)
    assert body["mfu_with_attention"] == pytest.approx(0.441, abs=5e-4)
    assert body["hfu"] == pytest.approx(0.510, abs=5e-4)
    assert body["mfu_sparse_peak"] == pytest.approx(0.191, abs=5e-4)
    assert body["allreduce_time_s"] == pytest.approx(14e9 / 450e9 * 2 * 7 / 8, rel=1e-9)
    assert body["model_state_bytes"] == 112e9  # 16 B/param x 7e9, ZeRO-0
    assert body["fits"] is False and body["overflow"].startswith("model_states")
    assert "6N" in body["counted"]["mfu"]


def test_issue_request_shape_and_fix(client):
    body = client.post("/api/v1/training", json=SEED).json()
    assert body["hfu"] == body["mfu"]  # nothing recomputed
    fix = body["smallest_fix"]
    assert (fix["zero_stage"], fix["recompute"], fix["micro_batch_size"]) == (1, "selective", 2)
    again = client.post(
        "/api/v1/training", json=SEED | {"zero_stage": 1, "recompute": "selective", "micro_batch_size": 2}
    ).json()
    assert again["fits"] is True and again["overflow"] is None and again["smallest_fix"] is None
    assert again["memory"]["total_bytes"] == fix["total_bytes"]


def test_preset_and_measured_busbw(client):
    r = client.post(
        "/api/v1/training",
        json=SEED
        | {"model": "llama-3.1-8b", "gpus": 16, "tokens_per_step": 16 * 4096, "bus_bandwidth_bytes_per_s": 50e9},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    n = body["model"]["num_params"]
    assert body["allreduce_time_s"] == pytest.approx(2 * n / 50e9 * 2 * 15 / 16, rel=1e-9)


@pytest.mark.parametrize(
    "change, field",
    [
        ({"step_time_s": -3.64}, "step_time_s"),
        ({"gpus": 0}, "gpus"),
        ({"zero_stage": 4}, "zero_stage"),
        ({"zero_stage": True}, "zero_stage"),
        ({"recompute": "partial"}, "recompute"),
        ({"optimizer": "lion"}, "optimizer"),
        ({"tokens_per_step": 1000}, "tokens_per_step"),
        ({"micro_batch_size": 3}, "micro_batch_size"),
        ({"tokens_per_s": 72018.0}, "step_time_s"),
        ({"model": {"num_params": 7e9, "num_layers": 32}}, "model.num_heads"),
        ({"gpus": 16, "tokens_per_step": 16 * 4096}, "bus_bandwidth_bytes_per_s"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_bad_values_are_422_naming_the_field(client, change, field):
    r = client.post("/api/v1/training", json=SEED | change)
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == field


def test_unknown_hardware_is_404(client):
    r = client.post("/api/v1/training", json=SEED | {"hardware": "h999"})
    assert r.status_code == 404


def test_measurements_response_has_triage(client):
    from tests.engine.test_triage import PROFILE

    r = client.post("/api/v1/measurements", json={"format": "csv", "content": PROFILE, "hardware": "h100-sxm5"})
    assert r.status_code == 200, r.text
    triage = r.json()["triage"]
    assert [t["name"] for t in triage] == ["gemm_8192", "big_add", "tiny_add"]
    assert [t["regime"] for t in triage] == ["compute", "memory", "overhead"]
    assert triage[0]["recoverable_time_s"] > triage[1]["recoverable_time_s"] > triage[2]["recoverable_time_s"]


def test_hardware_hierarchy_roofs(client):
    h200 = client.get("/api/v1/hardware/h200-sxm/hierarchy").json()
    levels = {r["level"]: r for r in h200["roofs"]}
    assert levels["l2"]["uid"] == "roof--h200-sxm--l2"
    assert levels["l2"]["bandwidth_bytes_per_s"] == 9.77e12 and levels["l2"]["kind"] == "measured"
    assert levels["l2"]["capacity_bytes"] == 40e6 and "gpu-benches" in levels["l2"]["source"]
    assert levels["l2"]["ridge_point"] == pytest.approx(989.4e12 / 9.77e12)
    card = client.get("/api/v1/hardware/h200-sxm").json()
    assert card["cache_roofs"][0]["level"] == "l2"  # the catalogue entry itself
    b200 = client.get("/api/v1/hardware/b200/hierarchy").json()
    assert [r["level"] for r in b200["roofs"]] == ["hbm"]  # no source, no L2 roof
    assert client.get("/api/v1/hardware/h999/hierarchy").status_code == 404


@pytest.mark.parametrize(
    "change, field",
    [
        ({"step_time_s": 1e-320}, "step_time_s"),
        ({"step_time_s": 5e-324}, "step_time_s"),
        ({"step_time_s": None, "tokens_per_s": 5e-324}, "tokens_per_s"),
        ({"step_time_s": None, "tokens_per_s": 1e-2}, "tokens_per_s"),  # a step of 26 million s
        ({"bus_bandwidth_bytes_per_s": 5e-324}, "bus_bandwidth_bytes_per_s"),
        (
            {"step_time_s": 1e-300, "model": {"num_params": 1e16, "num_layers": 100000, "num_heads": 128,
                                              "head_dim": 128}},
            "step_time_s",
        ),
        ({"model": SEED["model"] | {"id": "\ud800"}}, "model.id"),
    ],
)  # fmt: skip
def test_subnormal_and_odd_values_are_422_never_500(client, change, field):
    """Values that once gave a 500 (an inf in the JSON, or a lone surrogate it could not encode)."""
    import json

    body = {k: v for k, v in (SEED | change).items() if v is not None}
    r = client.post("/api/v1/training", content=json.dumps(body), headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == field


def test_the_largest_legal_rates_stay_finite(client):
    """The fastest step the schema takes, with the largest teaching model: every figure finite."""
    import math

    huge = {"num_params": 1e16, "num_layers": 100000, "num_heads": 128, "head_dim": 128}
    r = client.post("/api/v1/training", json=SEED | {"model": huge, "step_time_s": 1e-6})
    assert r.status_code == 200, r.text
    assert math.isfinite(r.json()["mfu"]) and "Infinity" not in r.text
