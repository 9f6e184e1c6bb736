"""Human-readable numbers (SI prefixes) for tables, hover text and insight sentences."""

_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def _digits(value: float, digits: int) -> str:
    """`digits` significant digits, but never scientific notation for the integer part:
    168 with 2 digits is '168', not '1.7e+02'."""
    return f"{value:.{max(digits, len(str(int(abs(value)))))}g}"


def si(value: float, unit: str = "", digits: int = 3) -> str:
    """1.234e12, 'FLOP/s' -> '1.23 TFLOP/s'."""
    magnitude = abs(value)
    for scale, prefix in _PREFIXES:
        if magnitude >= scale:
            return f"{_digits(value / scale, digits)} {prefix}{unit}"
    return f"{_digits(value, digits)} {unit}".rstrip()


def duration(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.3g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def grouped(value: float) -> str:
    """3290.9 -> '3,291'."""
    return f"{value:,.0f}"
