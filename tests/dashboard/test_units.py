from app.units import duration, grouped, si


def test_si_never_scientific():
    assert si(1.68e11, "B", 2) == "168 GB"
    assert si(1.234e12, "FLOP/s") == "1.23 TFLOP/s"
    assert si(15.4e9, "B", 2) == "15 GB"
    assert si(999, "B") == "999 B"


def test_duration_and_grouping():
    assert duration(0.00972) == "9.72 ms" and duration(2.23) == "2.23 s" and duration(4.5e-6) == "4.5 µs"
    assert grouped(3290.99) == "3,291"
