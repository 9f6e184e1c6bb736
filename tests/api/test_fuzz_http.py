"""Property-based fuzzing through HTTP (issue 11): every answer is < 500 and JSON for measurement
files, config.json objects, raw bodies and Dash callback envelopes."""

import json

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
