"""What several command groups read the same way."""

from __future__ import annotations

import json
import math

from engine.model_catalog import load_model_file, model_ids


def model_spec(value: str):
    """A preset id or Hugging Face repo id as given; a path ending in .json, read as a config.json."""
    return value if value in model_ids() or not value.endswith(".json") else load_model_file(value)


def finite_or_null(value: object) -> object:
    """`value` with every float that is not finite replaced by None, in dicts, lists and tuples."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_or_null(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_or_null(v) for v in value]
    return value


def print_json(value: object) -> None:
    """`value` as JSON on stdout, always valid JSON: json.dumps would write NaN or Infinity for a
    float that is not finite, which no JSON reader takes; such a float is written as null."""
    print(json.dumps(finite_or_null(value), indent=2, allow_nan=False))
