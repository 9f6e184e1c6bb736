"""Reading the controls back (lib/params.py): a refused value is reported once, by the table,
with what was typed and why; each page only words it."""

from app.dashboard.lib.params import Float, Int, Param, Why, read_controls, typed_text
from app.dashboard.pages.ops.params import BY_NAME as OPS_PARAMS
from app.dashboard.pages.training.params import BY_NAME as TRAINING_PARAMS

LAYERS = Param("layers", "layers", Int(1, 100), control=("layers", "value"))
PRICE = Param("price", "price", Float(0, 10, open_low=True), control=("price", "value"))


def test_a_refused_value_comes_back_with_its_why_and_what_was_typed():
    assert LAYERS.read({"layers.value": 0}) == ({}, [("0", Why("int_range", {"low": "1", "high": "100"}))])
    assert PRICE.read({"price.value": 12.5}) == ({}, [("12.5", Why("number_range", {"low": "0", "high": "10"}))])


def test_a_usable_value_comes_back_as_its_field():
    assert LAYERS.read({"layers.value": 32}) == ({"layers": 32}, [])
    assert LAYERS.read({"layers.value": 32.0}) == ({"layers": 32}, [])


def test_a_control_not_sent_is_neither_a_value_nor_a_refusal():
    assert LAYERS.read({}) == ({}, [])
    assert Param("embed", "embed", Int(0, 1)).read({"embed.value": 1}) == ({}, [])  # no control: the link's alone


def test_read_controls_tells_each_refusal_to_bad_and_keeps_the_rest():
    told = []
    controls = {"layers.value": 500, "price.value": 2.5}
    changes = read_controls((LAYERS, PRICE), controls, lambda *refusal: told.append(refusal))
    assert changes == {"price": 2.5}
    assert told == [("layers", "500", Why("int_range", {"low": "1", "high": "100"}))]
    assert read_controls((LAYERS, PRICE), controls) == {"price": 2.5}  # no one to tell: dropped as before


def test_the_browser_s_null_is_a_refusal_with_nothing_to_quote():
    """An empty box, or a number outside its min and max, arrives as null: refused, typed None;
    whether that is said or is an unset optional box is the page's."""
    assert LAYERS.read({"layers.value": None}) == ({}, [(None, Why("int_range", {"low": "1", "high": "100"}))])


def test_what_was_typed_is_quoted_as_the_reader_typed_it():
    assert [typed_text(v) for v in (None, "", 0, 5.0, 2.5, float("nan"), 1e20, "12x")] == [
        None,
        None,
        "0",
        "5",
        "2.5",
        "nan",
        "1e+20",
        "12x",
    ]
    assert typed_text("9" * 100) == "9" * 24 and typed_text(["add"] * 20) == str(["add"] * 20)[:40]


def test_a_measured_box_is_quoted_not_the_radio_that_names_its_measure():
    step = TRAINING_PARAMS["step_s"]
    values, problems = step.read({"train-measure.value": "step", "train-measured.value": 0})
    assert values == {} and [(typed, why.code) for typed, why in problems] == [("0", "number_range")]
    assert step.read({"train-measure.value": "step", "train-measured.value": 2.5}) == (
        {"measure": "step", "measured": 2.5},
        [],
    )


def test_a_list_kind_keeps_its_good_items_and_names_each_refused_one():
    values, problems = OPS_PARAMS["xhw"].read({"lab-what-if.value": ["fast:3.35:1979:80", "slow:abc"]})
    assert values == {"what_if": ("fast:3.35:1979:80",)} and [typed for typed, _ in problems] == ["slow:abc"]


def test_a_number_comes_back_from_its_own_link_as_typed():
    """The canonical link writes a number so it reads back the same (a 1,000,001 ms step once
    came back as 1e+06 = 1,000,000 ms)."""
    kind = Float(0, 3.6e6, open_low=True)
    for typed in (1_000_001.0, 0.85, 123456.789, 3.6e6, 1e-9, 9.19188115486849e-278, 2.2250738585072014e-308):
        assert kind.parse(kind.write(typed)) == typed
    assert kind.write(0.85) == "0.85" and kind.write(1_000_001.0) == "1000001"
