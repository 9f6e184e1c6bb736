"""The Serving charts' log axes: labels a reader takes in at a glance, never a bare minor "2" or
"5" beside "1000" (Plotly's default minor labels read "5, 2, 1000, 5, 2, 100").

Over at most TWO_FIVE_DECADES decades each label is 1, 2 or 5 times a power of ten, written whole
("20", "50", "100", "200"); over more, the decades alone ("1", "10", "100", "1,000"). The labels
are the tick values themselves, formatted as the page formats numbers (app.units.plain)."""

from __future__ import annotations

import math
from collections.abc import Iterable

from app.units import plain

TWO_FIVE_DECADES = 2.2  # past this, 1-2-5 labels crowd a phone's 300 px axis


def log_ticks(values: Iterable[float]) -> tuple[list[float], list[str]]:
    """(tick values, their labels) covering the positive finite values given."""
    shown = [v for v in values if isinstance(v, (int, float)) and math.isfinite(v) and v > 0]
    if not shown:
        return [], []
    low, high = min(shown), max(shown)
    steps = (1, 2, 5) if math.log10(high / low) <= TWO_FIVE_DECADES else (1,)
    first, last = math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1
    ticks = [m * 10.0**e for e in range(first, last + 1) for m in steps]
    # one tick either side of the data: the axis pads its range a little past the values
    below = [t for t in ticks if t <= low][-1:]
    above = [t for t in ticks if t >= high][:1]
    ticks = below + [t for t in ticks if low < t < high] + above
    return ticks, [plain(t) for t in ticks]


def label_log_axis(axis: dict, values: Iterable[float]) -> dict:
    """A log axis labelled at its ticks (log_ticks), the margin grown to hold labels and title."""
    ticks, labels = log_ticks(values)
    return {**axis, "type": "log", "tickvals": ticks, "ticktext": labels, "automargin": True}
