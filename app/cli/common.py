"""What several command groups read the same way."""

from __future__ import annotations

from engine.model_catalog import load_model_file, model_ids


def model_spec(value: str):
    """A preset id or Hugging Face repo id as given; a path ending in .json, read as a config.json."""
    return value if value in model_ids() or not value.endswith(".json") else load_model_file(value)
