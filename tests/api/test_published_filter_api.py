"""GET /api/v1/published-measurements with a scenario's model, precision and accelerators:
only the runs that match, and how many were left out and why."""

import json

from engine.published import published_for, published_measurements

URL = "/api/v1/published-measurements"


def test_filters_keep_the_chosen_model_and_precision_and_count_the_rest(client):
    r = client.get(URL, params={"model": "llama-2-7b", "weight_dtype": "fp8", "compute_dtype": "fp8"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body == json.loads(json.dumps(published_for("llama-2-7b", "fp8", "fp8")))
    assert body["items"] and all(i["model"] == "llama-2-7b" and i["weight_dtype"] == "fp8" for i in body["items"])
    assert body["left_out"]["other_model"] > 0 and body["left_out"]["other_precision"] > 0
    assert len(body["items"]) + body["left_out_count"] == len(published_measurements())
    assert body["note"].startswith(f"{len(body['items'])} published runs match; {body['left_out_count']} left out")


def test_a_model_with_no_runs_gets_none_and_the_reason(client):
    body = client.get(URL, params={"model": "llama-3-8b", "weight_dtype": "bf16"}).json()
    assert body["items"] == [] and body["left_out"] == {
        "other_model": len(published_measurements()),
        "other_precision": 0,
        "other_accelerator": 0,
    }


def test_repeated_hardware_filters_by_accelerator(client):
    r = client.get(URL, params=[("hardware", "h100-sxm5"), ("hardware", "l40s")])
    accelerators = {i["accelerator"] for i in r.json()["items"]}
    assert accelerators == {"h100-sxm5", "l40s"} and r.json()["left_out"]["other_accelerator"] > 0


def test_unknown_ids_and_dtypes_are_4xx_naming_the_field(client):
    r = client.get(URL, params={"model": "llama-9"})
    assert r.status_code == 422 and "llama" in r.text and r.json()["errors"][0]["field"] == "model"
    assert client.get(URL, params={"hardware": "h1000"}).status_code == 404
    r = client.get(URL, params={"weight_dtype": "fp7"})
    assert r.status_code == 422 and "weight_dtype" in r.json()["errors"][0]["field"]
