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


# ---- the page: Dash's layout and callbacks over HTTP, as the browser sends them ---------------
MARKUP_NAME = '<a href="//evil.example/x" target="_blank">link</a>'


def components(node: object):
    if isinstance(node, list):
        for item in node:
            yield from components(item)
    elif isinstance(node, dict) and "props" in node and "type" in node:
        yield node
        for value in node["props"].values():
            yield from components(value)


def layout(client, search: str) -> dict:
    r = client.get("/_dash-layout", headers={"referer": f"http://testserver/?{search}"})
    assert r.status_code == 200, r.text[:300]
    return r.json()


def layout_values(tree: dict) -> dict:
    values = {}
    for node in components(tree):
        props = node["props"]
        if isinstance(props.get("id"), str):
            values.update({(props["id"], prop): value for prop, value in props.items()})
    return values


def fire(client, tree: dict, output_part: str, overrides: dict | None = None):
    """The callback whose output names `output_part`, with the layout's values (and overrides)."""
    deps = client.get("/_dash-dependencies").json()
    dep = next(d for d in deps if output_part in d["output"] and not d.get("clientside_function"))
    values = layout_values(tree) | (overrides or {})
    parts = dep["output"].strip(".").split("...") if dep["output"].startswith("..") else [dep["output"]]
    outputs = [dict(zip(("id", "property"), p.rsplit(".", 1), strict=True)) for p in parts]

    def filled(items):
        return [
            {"id": d["id"], "property": d["property"], "value": values.get((d["id"], d["property"]))} for d in items
        ]

    inputs = filled(dep["inputs"])
    body = {
        "output": dep["output"],
        "outputs": outputs if dep["output"].startswith("..") else outputs[0],
        "inputs": inputs,
        "state": filled(dep.get("state", [])),
        "changedPropIds": [f"{inputs[0]['id']}.{inputs[0]['property']}"],
    }
    r = post(client, "/_dash-update-component", body)
    assert r.status_code == 200, r.text[:500]
    return r.json()["response"]


def figures(tree: object) -> list[dict]:
    found = []
    if isinstance(tree, dict):
        if isinstance(tree.get("data"), list) and isinstance(tree.get("layout"), dict):
            return [tree]
        for value in tree.values():
            found += figures(value)
    elif isinstance(tree, list):
        for value in tree:
            found += figures(value)
    return found


L1_CARD = """id: myl1
name: My L1 card
vendor: ACME
memory_bytes: 85899345920
memory_bandwidth_bytes_per_s: 3.352e12
tensor_flops_per_s: {bf16: 9.894e14}
sources: [{document: "datasheet v1"}]
cache_roofs:
  - {level: l1, bandwidth_bytes_per_s: 3.0e13, capacity_bytes: 3.3e7, kind: measured,
     source: "my microbenchmark, table 1"}
"""


@pytest.fixture
def l1_client(tmp_path, monkeypatch):
    (tmp_path / "myl1.yaml").write_text(L1_CARD)
    monkeypatch.setenv("LLM_ROOFLINE_HARDWARE_DIR", str(tmp_path))
    return TestClient(create_app(Settings()), raise_server_exceptions=False)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_l1_cache_roof_is_drawn_and_named(l1_client, lang):
    """`level: l1` is in the hardware schema; the page once failed with KeyError 'level_l1'
    (layout, roofline callback and HTML export)."""
    tree = layout(l1_client, f"hw=myl1&roofs=hierarchy&lang={lang}")
    drawn = [trace for fig in figures(tree) for trace in fig["data"] if "l1" in str(trace.get("uid", ""))]
    assert drawn and "L1" in json.dumps(drawn, ensure_ascii=False)
    response = fire(l1_client, tree, "roofline-graph.figure")
    assert "roof--myl1--l1" in json.dumps(response)
    export = fire(l1_client, tree, "download-html.data")
    assert "L1" in json.dumps(export)


def _props(tree: object, component_id: str) -> dict | None:
    if isinstance(tree, dict):
        if isinstance(tree.get("props"), dict) and tree["props"].get("id") == component_id:
            return tree["props"]
        tree = list(tree.values())
    if isinstance(tree, list):
        for value in tree:
            found = _props(value, component_id)
            if found is not None:
                return found
    return None


def test_a_card_without_a_link_opens_at_tp_1(l1_client):
    """The default scenario runs at TP 4; a catalogue card that lists no GPU-to-GPU link opened
    on "Cannot analyse this view" until the user found TP 1. Without `tp` in the link it opens
    at TP 1, as a what-if card does; a `tp` the link asks for opens at TP 1 too, and says why
    (the engine's refusal had blanked every panel, the linked cards' too)."""
    tree = layout(l1_client, "hw=myl1")
    assert _props(tree, "tensor-parallel")["value"] == 1
    text = json.dumps(tree, ensure_ascii=False)
    assert "Cannot analyse" not in text and "point--myl1--decode" in text
    asked = layout(l1_client, "hw=myl1&tp=4")
    assert _props(asked, "tensor-parallel")["value"] == 1
    text = json.dumps(asked, ensure_ascii=False)
    assert "Cannot analyse" not in text and "point--myl1--decode" in text
    assert "TP 4 needs a GPU-to-GPU link for its all-reduce" in text and "lists none: the page shows TP 1." in text
