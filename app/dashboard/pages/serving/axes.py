"""The Serving charts' log axes: labels a reader takes in at a glance, never a bare minor "2" or
"5" beside "1000" (Plotly's default minor labels read "5, 2, 1000, 5, 2, 100").

Over at most `two_five` decades (2.2 across, where labels sit side by side; 3.2 up, where they
are stacked) each label is 1, 2 or 5 times a power of ten, written whole ("20", "50", "100",
"200"); over more, the decades alone ("1", "10", "100", "1,000"). The labels are the tick
values themselves, formatted as the page formats numbers (app.units.plain).

The range is the values' own with a margin (RANGE_PAD of its span, at least MIN_PAD decades),
so the end of a curve or a marker at the edge is drawn inside the plot, on the page and in an
export of another size."""

from __future__ import annotations

import math
from collections.abc import Iterable

from app.units import plain

ACROSS, UP = 2.2, 3.2  # past these, 1-2-5 labels crowd a phone's 300 px axis
# the latency chart's three stacked rows are ~150 px each: over 3.2 decades the labels 1 and 2
# (0.3 decades apart, 14 px) overlapped by 3-6 px; over 1.8 they are 25 px apart
STACKED = 1.8
RANGE_PAD, MIN_PAD = 0.04, 0.05


def _positive(values: Iterable[float]) -> list[float]:
    return [v for v in values if isinstance(v, (int, float)) and math.isfinite(v) and v > 0]


def log_ticks(values: Iterable[float], two_five: float = ACROSS) -> tuple[list[float], list[str]]:
    """(tick values, their labels) covering the positive finite values given."""
    shown = _positive(values)
    if not shown:
        return [], []
    low, high = min(shown), max(shown)
    steps = (1, 2, 5) if math.log10(high / low) <= two_five else (1,)
    first, last = math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1
    ticks = [m * 10.0**e for e in range(first, last + 1) for m in steps]
    # one tick either side of the data: the axis pads its range a little past the values
    below = [t for t in ticks if t <= low][-1:]
    above = [t for t in ticks if t >= high][:1]
    ticks = below + [t for t in ticks if low < t < high] + above
    return ticks, [plain(t) for t in ticks]


def label_log_axis(axis: dict, values: Iterable[float], two_five: float = ACROSS) -> dict:
    """A log axis over the values with a margin, labelled at its ticks (log_ticks), the figure's
    margin grown to hold labels and title."""
    shown = _positive(values)
    ticks, labels = log_ticks(shown, two_five)
    out = {**axis, "type": "log", "tickvals": ticks, "ticktext": labels, "automargin": True}
    if shown:
        low, high = math.log10(min(shown)), math.log10(max(shown))
        pad = max(RANGE_PAD * (high - low), MIN_PAD)
        out |= {"range": [low - pad, high + pad], "autorange": False}
    return out
