"""Model presets: Hugging Face config.json data with published counts and sources.

Each `engine/presets/<id>.json` holds {"id", "hf_repo", "published_params",
"exact_param_count", "sources", "config": <config.json>}; values come from
shared/reference/models.yaml (see scripts/import_reference_models.py).
"""

from __future__ import annotations

import hashlib
import json
from functools import cache, lru_cache
from pathlib import Path

from .cache import ByteLRU, approx_size
from .errors import EngineInputError, UnknownIdError
from .hf_config import parse_hf_config
from .model import ModelConfig

PRESET_DIR = Path(__file__).resolve().parent / "presets"


@lru_cache(maxsize=1)
def preset_records() -> dict[str, dict]:
    records = {}
    for path in sorted(PRESET_DIR.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        records[record["id"]] = record
    return records


@cache
def get_model(model_id: str) -> ModelConfig:
    records = preset_records()
    if model_id not in records:
        raise UnknownIdError("model", str(model_id), sorted(records))
    record = records[model_id]
    return parse_hf_config(record["config"], model_id=model_id, published_params=record["published_params"])


def model_ids() -> list[str]:
    return list(preset_records())


def native_precision(model_id: str) -> str | None:
    """The dashboard precision a preset is released in when it is not 16-bit ("fp8" for
    DeepSeek-V3, "int4" = 4-bit weights with 16-bit math for gpt-oss's MXFP4), with its source
    in the preset file (`native_precision_source`); None for a 16-bit release."""
    return preset_records().get(model_id, {}).get("native_precision")


MAX_CONFIG_BYTES = 256 * 1024
# Parsed custom configs, keyed by a digest of their canonical JSON and bounded in bytes: the
# raw config (up to 256 KiB of it) is never kept, only the normalised ModelConfig.
MODEL_CACHE_BYTES = 16 * 1024 * 1024
# A model grows up to 4 tensor-parallel shards of about its own size after it is cached
# (ModelConfig.shard): counted up front.
_SHARD_ALLOWANCE = 5
model_cache = ByteLRU(MODEL_CACHE_BYTES, sizeof=lambda v: approx_size(v) * _SHARD_ALLOWANCE)


def _model_id(cfg: dict) -> str:
    name = cfg.get("_name_or_path") or cfg.get("model_type") or "custom"
    if not isinstance(name, str):
        raise EngineInputError("config._name_or_path", f"{str(name)[:40]} is not a string")
    name = name[:64]
    if any(ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) <= 0xDFFF for c in name):
        # a lone surrogate cannot be encoded as UTF-8: it would fail when the answer is sent
        raise EngineInputError(
            "config._name_or_path", "contains a control character or invalid Unicode", "printable text"
        )
    return name


def _parse_config(cfg: dict) -> ModelConfig:
    return parse_hf_config(cfg, model_id=_model_id(cfg))


def load_model(spec: object) -> ModelConfig:
    """A preset id, a config.json mapping (parsed as data, cached by content) or a
    ModelConfig already resolved."""
    if isinstance(spec, ModelConfig):
        return spec
    if isinstance(spec, str):
        return get_model(spec)
    if isinstance(spec, dict):
        try:
            text = json.dumps(spec, sort_keys=True)
        except (TypeError, ValueError, RecursionError):  # non-string keys, nesting past the recursion limit
            raise EngineInputError("model", "is not a JSON object of plain values") from None
        if len(text) > MAX_CONFIG_BYTES:
            raise EngineInputError("model", f"config larger than {MAX_CONFIG_BYTES} bytes")
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
        return model_cache.get_or_compute(key, lambda: _parse_config(spec))
    raise EngineInputError("model", "must be a preset id or a config.json object", ", ".join(model_ids()))


def load_model_file(path: str) -> ModelConfig:
    """A config.json on disk: size-limited, parsed as JSON only."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_CONFIG_BYTES:
            raise EngineInputError("model", f"{path} is larger than {MAX_CONFIG_BYTES} bytes")
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EngineInputError("model", f"cannot read {path} as JSON: {exc}") from None
    return load_model(data)
