"""Human-readable numbers (SI prefixes) for tables, hover text and insight sentences.

Never scientific notation: a reader of a roofline compares magnitudes at a glance, and
"3.15e+05 s" or "1.25e+03 FLOP/byte" makes them decode exponents instead.
"""

import math

_PREFIXES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def plain(value: float, digits: int = 3) -> str:
    """`digits` significant digits in positional notation: 1250.4 -> '1,250', 16.83 -> '16.8',
    0.08333 -> '0.0833', 4.5 -> '4.5'. Integers above 10**digits keep all their digits, grouped."""
    magnitude = abs(value)
    if magnitude >= 10 ** (digits - 1):
        return f"{value:,.0f}"
    if magnitude >= 1e-4:  # where the 'g' format is positional (and fast: the slider grid formats ~30k)
        return f"{value:.{digits}g}"
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    decimals = digits - 1 - math.floor(math.log10(magnitude))
    return f"{value:.{decimals}f}".rstrip("0").rstrip(".")


def si(value: float, unit: str = "", digits: int = 3) -> str:
    """1.234e12, 'FLOP/s' -> '1.23 TFLOP/s'."""
    magnitude = abs(value)
    for scale, prefix in _PREFIXES:
        if magnitude >= scale:
            return f"{plain(value / scale, digits)} {prefix}{unit}"
    return f"{plain(value, digits)} {unit}".rstrip()


_BINARY_PREFIXES = ((2**50, "PiB"), (2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"))


def memory(value_bytes: float, digits: int = 3) -> str:
    """A memory footprint (capacity, weights or KV resident, training states) in binary units,
    as nvidia-smi and the vendors' "80GB" mean it: 80 * 2**30 -> '80 GiB', 16.06e9 -> '15 GiB'.
    Traffic (bytes moved per step, against TB/s) stays decimal: si(value, 'B')."""
    magnitude = abs(value_bytes)
    for scale, unit in _BINARY_PREFIXES:
        if magnitude >= scale:
            return f"{plain(value_bytes / scale, digits)} {unit}"
    return f"{plain(value_bytes, digits)} B"


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """'1 sequence', '2 sequences', '1,024 tokens' (English only; nouns: an irregular plural)."""
    word = noun if n == 1 else (nouns or noun + "s")
    return f"{n:,} {word}"


def duration(seconds: float) -> str:
    """9.72 ms, 2.23 s, 14.6 min, 87.5 h, 12.3 days: the unit a person would say."""
    if seconds >= 86400 * 2:
        return f"{plain(seconds / 86400)} days"
    if seconds >= 3600:
        return f"{plain(seconds / 3600)} h"
    if seconds >= 60:
        return f"{plain(seconds / 60)} min"
    if seconds >= 1:
        return f"{plain(seconds)} s"
    if seconds >= 1e-3:
        return f"{plain(seconds * 1e3)} ms"
    if seconds >= 1e-6:
        return f"{plain(seconds * 1e6)} µs"
    return f"{plain(seconds * 1e9)} ns"


def grouped(value: float) -> str:
    """3290.9 -> '3,291'."""
    return f"{value:,.0f}"


_COUNT_PREFIXES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K"))


def count(value: float, digits: int = 3) -> str:
    """Counts of things (parameters, tokens) as people say them: 8.03B, 46.7B, 560M, 7K."""
    for scale, suffix in _COUNT_PREFIXES:
        if abs(value) >= scale:
            return f"{plain(value / scale, digits)}{suffix}"
    return plain(value, digits)
