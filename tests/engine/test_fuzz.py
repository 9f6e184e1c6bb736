"""Property-based fuzzing of the engine's inputs (issue 11): measurement files in the five
formats, config.json objects and accelerator YAML files. The only exception that may escape
is EngineInputError, and whatever is accepted comes out finite."""

import json
import math
import string
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.analysis import Scenario, analyze
from engine.errors import EngineInputError
from engine.hardware import BUILTIN_DIR, get_accelerator, load_file
from engine.hf_config import READ_KEYS
from engine.measurement import parse_measurements, place
from engine.model_catalog import load_model, preset_records

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
H100 = get_accelerator("h100-sxm5")
PEAKS = {"tensor": 989e12, "vector": 67e12}

# ---- building blocks ---------------------------------------------------------------------

# number-like text: ASCII and Arabic-Indic digits, separators, exponents, words a parser may meet
number_text = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**400), max_value=10**400).map(str),
    st.text(alphabet="0123456789.eE+-_,١٠ ", min_size=0, max_size=12),
    st.sampled_from(["nan", "inf", "-0", "1e-324", "5e-324", "1e308", "1.2.3", "--", "", "0x10", "1_000"]),
)
cell = st.one_of(number_text, st.text(alphabet=string.printable + "\x00\u00b5\ud7ff", max_size=20))
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


def csv_line(cells: list[str]) -> str:
    return ",".join(cells)


# ---- the five measurement formats --------------------------------------------------------

own_columns = st.lists(
    st.sampled_from(["name", "flops", "bytes", "time_s", "phase", "hardware", "unit", "x"]), min_size=1, max_size=8
)
csv_text = st.builds(
    lambda header, rows: "\n".join([csv_line(header)] + [csv_line(r) for r in rows]),
    own_columns,
    st.lists(st.lists(cell, max_size=8), max_size=6),
)
json_text = st.one_of(
    st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "name": json_values,
                "flops": json_values,
                "bytes": json_values,
                "time_s": json_values,
                "unit": json_values,
            },
        ),
        max_size=5,
    ).map(json.dumps),
    json_values.map(json.dumps),
    st.text(alphabet='[]{},:"0123456789', max_size=40),
)
torch_text = st.builds(
    lambda cols, rows: (
        "-" * 20 + "\n" + "  ".join(cols) + "\n" + "-" * 20 + "\n" + "\n".join("  ".join(r) for r in rows)
    ),
    st.lists(
        st.sampled_from(["Name", "Self CPU", "Self CUDA", "CUDA total", "Total GFLOPs", "# of Calls"]),
        min_size=1,
        max_size=5,
    ),
    st.lists(
        st.lists(st.one_of(cell, st.sampled_from(["aten::mm", "1.5ms", "3us", "0ns", "1.2.3ms", "12 s"])), max_size=5),
        max_size=5,
    ),
)
chrome_text = st.builds(
    lambda events: json.dumps({"traceEvents": events}),
    st.lists(
        st.fixed_dictionaries(
            {"ph": st.sampled_from(["X", "B", 5]), "cat": st.sampled_from(["kernel", "cpu"])},
            optional={"dur": json_values, "name": json_values},
        ),
        max_size=6,
    ),
)
NCU_COLUMNS = ["ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value"]
ncu_text = st.builds(
    lambda rows: csv_line([f'"{c}"' for c in NCU_COLUMNS]) + "\n" + "\n".join(csv_line(r) for r in rows),
    st.lists(
        st.lists(
            st.one_of(
                cell,
                st.sampled_from(
                    ["gpu__time_duration.sum", "dram__bytes_read.sum", "nsecond", "byte", "Kbyte", "0", "1"]
                ),
            ),
            max_size=6,
        ),
        max_size=8,
    ),
)
# plausible files with extreme numbers: most are accepted, so placement is fuzzed too
extreme = st.one_of(
    st.floats(min_value=0, max_value=1e308),
    st.floats(min_value=1e-16, max_value=1e-3),
    st.integers(min_value=0, max_value=10**40),
)
name = st.text(alphabet=string.ascii_letters + "_:", min_size=1, max_size=12)
csv_plausible = st.lists(st.tuples(name, extreme, extreme, extreme), min_size=1, max_size=5).map(
    lambda rows: "name,flops,bytes,time_s\n" + "\n".join(f"{n},{f!r},{b!r},{t!r}" for n, f, b, t in rows)
)
json_plausible = st.lists(
    st.fixed_dictionaries({"name": name, "flops": extreme, "bytes": extreme, "time_s": extreme}), min_size=1, max_size=5
).map(json.dumps)
torch_plausible = st.lists(
    st.tuples(st.sampled_from(["aten::mm", "flash_attn", "aten::add", "x"]), extreme), min_size=1, max_size=5
).map(lambda rows: "Name  Self CPU  Self CUDA\n" + "\n".join(f"{n}  1ms  {t:.6f}us" for n, t in rows))
chrome_plausible = st.lists(st.tuples(name, extreme), min_size=1, max_size=5).map(
    lambda rows: json.dumps({"traceEvents": [{"ph": "X", "cat": "kernel", "name": n, "dur": d} for n, d in rows]})
)
ncu_plausible = st.lists(
    st.tuples(
        st.sampled_from(
            ["gpu__time_duration.sum", "dram__bytes_read.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"]
        ),
        st.sampled_from(["nsecond", "byte", "inst"]),
        extreme,
    ),
    min_size=1,
    max_size=6,
).map(
    lambda rows: (
        csv_line([f'"{c}"' for c in NCU_COLUMNS])
        + "\n"
        + "\n".join(f'"0","gemm","{m}","{u}","{v!r}"' for m, u, v in rows)
    )
)
FORMATS = {
    "csv": csv_text | csv_plausible,
    "json": json_text | json_plausible,
    "torch_table": torch_text | torch_plausible,
    "chrome_trace": chrome_text | chrome_plausible,
    "ncu_csv": ncu_text | ncu_plausible,
}
measurement_file = st.sampled_from(sorted(FORMATS)).flatmap(lambda fmt: st.tuples(st.just(fmt), FORMATS[fmt]))


@FUZZ
@given(measurement_file, st.integers(min_value=1, max_value=100000))
def test_measurement_files_only_raise_engine_input_error(file, steps):
    fmt, text = file
    try:
        records = parse_measurements(fmt, text, steps)
        points, _ = place(records, PEAKS, 3.35e12)
    except EngineInputError:
        return
    for point in points:
        for key, value in point.items():
            assert not isinstance(value, float) or math.isfinite(value), (key, value)


# ---- config.json -------------------------------------------------------------------------

PRESETS = preset_records()
config_json = st.builds(
    lambda preset, changes, drops: {k: v for k, v in (PRESETS[preset]["config"] | changes).items() if k not in drops},
    st.sampled_from(sorted(PRESETS)),
    st.dictionaries(st.sampled_from(READ_KEYS), json_values | st.integers(min_value=-5, max_value=300), max_size=3),
    st.sets(st.sampled_from(READ_KEYS), max_size=2),
)


@FUZZ
@given(config_json, st.integers(min_value=1, max_value=4096), st.sampled_from([1, 2, 8]))
def test_configs_only_raise_engine_input_error(config, batch, tp):
    try:
        model = load_model(config)
        result = analyze(model, [H100], Scenario(batch_size=batch, tensor_parallel=tp))
    except EngineInputError:
        return
    assert model.num_params > 0 and model.num_active_params > 0
    decode = result["results"][0]["decode"]
    assert math.isfinite(decode["time_s"]) and decode["time_s"] > 0
    json.dumps(result, allow_nan=False)  # what the API sends must be valid JSON


# ---- accelerator YAML --------------------------------------------------------------------

GOOD = yaml.safe_load((BUILTIN_DIR / "h100-sxm5.yaml").read_text()) | {"id": "fuzz-card"}
yaml_scalars = st.one_of(
    json_values,
    st.sampled_from(["&a [1]", "*a", "!!python/object:os.system", "1e999", "9" * 5000, ".nan", "~", "[[[[[[[["]),
)
yaml_text = st.one_of(
    st.dictionaries(st.sampled_from(sorted(GOOD)), yaml_scalars, max_size=3).map(
        lambda changes: yaml.safe_dump(GOOD | changes, allow_unicode=True)
    ),
    st.text(alphabet=string.printable + "&*!|>", max_size=200),
    st.builds(
        lambda raw, key: yaml.safe_dump(GOOD) + f"\n{key}: {raw}\n",
        yaml_scalars.map(str),
        st.sampled_from(["notes", "memory_bytes", "measured", "x"]),
    ),
)


@FUZZ
@given(yaml_text)
def test_accelerator_files_only_raise_engine_input_error(text):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz-card.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            acc = load_file(path)
        except EngineInputError as exc:
            assert str(path) in str(exc)  # every refusal names the file
            return
    assert acc.memory_bandwidth_bytes_per_s > 0


# ---- the training lab: subnormal, huge and odd values in every field ------------------------
# Subnormals, the largest doubles and every float hypothesis can draw, in each numeric field of
# the teaching model and the setup; and any text (markup, lone surrogates) as the model's id.
odd_float = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([5e-324, 1e-320, 2.2250738585072014e-308, 1e-300, 1e-6, 1e308, 1.7976931348623157e308]),
)
odd_int = st.one_of(st.integers(min_value=-(2**70), max_value=2**70), st.sampled_from([0, 1, 2**50, 2**63]))


def finite_everywhere(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(finite_everywhere(v) for v in value.values())
    if isinstance(value, list):
        return all(finite_everywhere(v) for v in value)
    return True


@FUZZ
@given(
    st.fixed_dictionaries(
        {"num_params": odd_float | odd_int, "num_layers": odd_int, "num_heads": odd_int, "head_dim": odd_int},
        optional={"id": st.text(alphabet=string.printable + "<>&\"'\ud800\udfff", max_size=70)},
    ),
    st.fixed_dictionaries(
        {"gpus": odd_int, "sequence_length": odd_int, "tokens_per_step": odd_int},
        optional={
            "step_time_s": odd_float,
            "tokens_per_s": odd_float,
            "bus_bandwidth_bytes_per_s": odd_float,
            "micro_batch_size": odd_int,
            "gpus_per_node": odd_int,
        },
    ),
)
def test_training_only_raises_engine_input_error_and_stays_finite(model, setup):
    from engine.training import run_training

    try:
        out = run_training(model, H100, **setup)
    except EngineInputError:
        return
    assert finite_everywhere(out), out
    json.dumps(out, allow_nan=False).encode("utf-8")  # what the API sends: no inf, no lone surrogate


@FUZZ
@given(odd_float, st.sampled_from(["step_time_s", "tokens_per_s", "bus_bandwidth_bytes_per_s"]))
def test_a_legal_seed_run_with_one_odd_rate_is_finite_or_refused(value, field):
    from engine.training import run_training

    setup = {"gpus": 8, "sequence_length": 4096, "tokens_per_step": 262144, "step_time_s": 3.64}
    if field == "tokens_per_s":
        setup.pop("step_time_s")
    setup[field] = value
    model = {"num_params": 7e9, "num_layers": 32, "num_heads": 32, "head_dim": 128}
    try:
        out = run_training(model, H100, **setup)
    except EngineInputError as exc:
        assert exc.field == field
        return
    assert finite_everywhere(out)


# ---- measured serving runs (llm-roofline validate serving, the page's own runs) -------------

_SERVING_ROWS = None


def shipped_serving_rows() -> list[dict]:
    global _SERVING_ROWS
    if _SERVING_ROWS is None:
        from engine.serving.mapping import TRAINING_CSV, read_rows

        _SERVING_ROWS = read_rows(TRAINING_CSV)[:50]
    return _SERVING_ROWS


serving_column = st.sampled_from(
    ["batch_size", "isl", "osl", "tp_size", "attention_dp_size", "moe_tp_size", "moe_ep_size",
     "silicon_ttft_ms", "silicon_tpot_ms", "system", "gemm_quant_mode", "model_path", "backend"]
)  # fmt: skip
measured_run = st.builds(
    lambda i, changes: shipped_serving_rows()[i] | changes,
    st.integers(min_value=0, max_value=49),
    st.dictionaries(serving_column, number_text | cell, max_size=3),
)


@FUZZ
@given(st.lists(measured_run, min_size=1, max_size=3))
def test_measured_runs_are_answered_finite_or_named(rows):
    """Issue 34: a zero, inf or 1e-320 in a run was a traceback, NaN in the report, or a run
    that could not have happened counted as answered."""
    from engine.serving.mapping import MAX_MS, MIN_MS, row_scenario
    from engine.serving.validate import validate_rows

    try:
        report = validate_rows(rows)
    except EngineInputError:
        return  # no row could be mapped
    json.dumps(report, allow_nan=False)
    assert report["answered"] + report["unanswered_count"] == len(rows)
    for skipped in report["unanswered"]:
        assert skipped["line"] >= 2 and skipped["field"] and skipped["reason"]
    for row in rows:
        try:
            run = row_scenario(row)
        except EngineInputError:
            continue
        assert MIN_MS <= run.tpot_s * 1e3 <= MAX_MS and MIN_MS <= run.ttft_s * 1e3 <= MAX_MS
