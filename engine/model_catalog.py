"""Model presets: Hugging Face config.json data with published counts and sources.

Each `engine/presets/<id>.json` holds {"id", "hf_repo", "hf_ids", "published_params",
"exact_param_count", "sources", "config": <config.json>}; the first presets' values come from
shared/reference/models.yaml (see scripts/import_reference_models.py).

A model name is a preset id or a Hugging Face repo id, case-insensitive (`resolve_model_id`):
`hf_repo` and `hf_ids` name the releases of each preset's architecture. A quantised release
(`…-FP8`, `…-Instruct-FP8`, `nvidia/…-NVFP4`) has its base model's shapes, so its one
quantisation suffix is dropped and the rest matched, by full id or, for a re-publisher's copy,
by repo name. Nothing else is stripped: a name with a space or newline around it, or with the
suffix twice (`…-FP8-FP8`), is not a known name.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
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


# The suffix of a quantised release (Hugging Face naming of NVIDIA ModelOpt, Qwen, RedHatAI/Neural
# Magic, AutoAWQ and AutoGPTQ checkpoints); the shapes are the base model's. One suffix, each
# part at most once: fp8 with its scaling (-Dynamic, -Block, -Static) and granularity
# (-PerTensor), as Qwen3-32B-FP8-Static-PerTensor, or one other scheme.
_QUANT_SUFFIX = re.compile(
    r"-(fp8(-(dynamic|block|static))?(-per-?tensor)?|nvfp4|fp4|mxfp4|w4a16|w8a8|w4a8|int4|int8|awq|"
    r"gptq(-int[48])?|quantized\.w4a16|quantized\.w8a8)$"
)
NEAREST_COUNT = 5


class UnknownModelError(UnknownIdError):
    """A model name that is neither a preset id nor a known Hugging Face repo id; the message
    names the nearest known names (difflib), `nearest` lists them and `params["nearest"]` joins
    them for a catalogue message. The API answers it with a 422 naming the field `model`."""

    def __init__(self, given: str, known: list[str], nearest: list[str], *, code: str | None = None):
        super().__init__("model", given, known, code=code, params={"nearest": ", ".join(nearest)})
        self.nearest = nearest
        hint = f"; nearest known: {', '.join(nearest)}" if nearest else ""
        ValueError.__init__(self, f"unknown model id '{self.given}'{hint}")


def _first_repo(hf_repo: str) -> str:
    return hf_repo.split()[0] if hf_repo else ""


@lru_cache(maxsize=1)
def _name_index() -> tuple[dict[str, str], dict[str, set[str]], dict[str, str]]:
    """(lower-case name -> preset id, lower-case repo name -> preset ids, lower-case -> display
    name): preset ids, every `hf_repo` and `hf_ids` entry."""
    exact: dict[str, str] = {}
    by_repo_name: dict[str, set[str]] = {}
    display: dict[str, str] = {}
    for pid, record in preset_records().items():
        names = [pid, _first_repo(record.get("hf_repo", "")), *record.get("hf_ids", [])]
        for name in filter(None, names):
            exact[name.lower()] = pid
            display[name.lower()] = name
            if "/" in name:
                by_repo_name.setdefault(name.lower().rsplit("/", 1)[1], set()).add(pid)
    return exact, by_repo_name, display


def _strip_quant_suffix(name: str) -> str:
    return _QUANT_SUFFIX.sub("", name)


def resolve_model_id(name: str) -> str:
    """The preset id a model name stands for: a preset id or a Hugging Face repo id,
    case-insensitive; a quantised release resolves to its base architecture's preset
    (Qwen/Qwen3-235B-A22B-FP8 -> qwen3-235b-a22b, nvidia/DeepSeek-R1-NVFP4 -> deepseek-r1).
    Raises UnknownModelError naming the nearest known names."""
    if not isinstance(name, str):
        given = str(name)[:80]
        raise UnknownModelError(given, model_ids(), nearest_model_names(given), code="unknown_model")
    exact, by_repo_name, display = _name_index()
    key = name.lower()
    if key in exact:
        return exact[key]
    base = _strip_quant_suffix(key)
    if base != key:
        if base in exact:
            return exact[base]
        # a re-publisher's quantised copy (nvidia/…, RedHatAI/…): the base's repo name, when unique
        owners = by_repo_name.get(base.rsplit("/", 1)[-1], set())
        if len(owners) == 1:
            return next(iter(owners))
    raise UnknownModelError(name[:200], model_ids(), nearest_model_names(base[:200]), code="unknown_model")


def nearest_model_names(name: str, count: int = NEAREST_COUNT) -> list[str]:
    """Known names most like `name` (difflib's ratio), best first; always `count` of them."""
    display = _name_index()[2]
    key = _strip_quant_suffix(name.strip().lower())
    close = difflib.get_close_matches(key, list(display), n=count, cutoff=0.5)
    if not close:
        close = difflib.get_close_matches(key, list(display), n=count, cutoff=0.0)
    return [display[c] for c in close]


def preset_id_or_none(name: object) -> str | None:
    """The preset id `name` resolves to, or None: for callers that fall back to a default
    (a dashboard link) instead of answering an error."""
    try:
        return resolve_model_id(name)  # type: ignore[arg-type]
    except UnknownIdError:
        return None


def model_names(model_id: str) -> list[str]:
    """The Hugging Face repo ids that resolve to preset `model_id` (besides quantised releases)."""
    record = preset_records()[resolve_model_id(model_id)]
    names = [_first_repo(record.get("hf_repo", "")), *record.get("hf_ids", [])]
    return list(dict.fromkeys(n for n in names if n))


def preset_record(name: str) -> dict:
    """The preset file's record of a preset id or Hugging Face repo id."""
    return preset_records()[resolve_model_id(name)]


def hf_repo(model_id: str) -> str:
    """The Hugging Face repo a preset is served from (its first `hf_repo`); a custom model's id."""
    try:
        return _first_repo(preset_record(model_id).get("hf_repo", "")) or model_id
    except UnknownIdError:
        return model_id


def get_model(name: str) -> ModelConfig:
    """The preset a preset id or Hugging Face repo id names (see `resolve_model_id`); its id is
    the preset id."""
    return _preset_model(resolve_model_id(name))


@cache
def _preset_model(model_id: str) -> ModelConfig:
    record = preset_records()[model_id]
    return parse_hf_config(record["config"], model_id=model_id, published_params=record["published_params"])


def model_ids() -> list[str]:
    return list(preset_records())


def native_precision(model_id: str) -> str | None:
    """The dashboard precision a preset is released in when it is not 16-bit ("fp8" for
    DeepSeek-V3, "int4" = 4-bit weights with 16-bit math for gpt-oss's MXFP4), with its source
    in the preset file (`native_precision_source`); None for a 16-bit release or an unknown name."""
    try:
        return preset_record(model_id).get("native_precision")
    except UnknownIdError:
        return None


def native_format(model_id: str) -> str | None:
    """The format a preset ships in, by its own name: "MXFP4" for gpt-oss (modelled as the
    precision int4, W4A16, so a page must not say it was "released in int4"), else
    native_precision; None for a 16-bit release or an unknown name."""
    try:
        record = preset_record(model_id)
    except UnknownIdError:
        return None
    return record.get("native_format") or record.get("native_precision")


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
        raise EngineInputError(
            "config._name_or_path",
            f"{str(name)[:40]} is not a string",
            code="config_name",
            params={"value": str(name)[:40]},
        )
    name = name[:64]
    if any(ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) <= 0xDFFF for c in name):
        # a lone surrogate cannot be encoded as UTF-8: it would fail when the answer is sent
        raise EngineInputError(
            "config._name_or_path",
            "contains a control character or invalid Unicode",
            "printable text",
            code="config_name_text",
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
            raise EngineInputError("model", "is not a JSON object of plain values", code="config_plain") from None
        if len(text) > MAX_CONFIG_BYTES:
            raise EngineInputError(
                "model",
                f"config larger than {MAX_CONFIG_BYTES} bytes",
                code="config_size",
                params={"n": MAX_CONFIG_BYTES},
            )
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
        return model_cache.get_or_compute(key, lambda: _parse_config(spec))
    raise EngineInputError(
        "model", "must be a preset id or a config.json object", ", ".join(model_ids()), code="model_spec"
    )


def load_model_file(path: str) -> ModelConfig:
    """A config.json on disk: size-limited, parsed as JSON only."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_CONFIG_BYTES:
            raise EngineInputError(
                "model",
                f"{path} is larger than {MAX_CONFIG_BYTES} bytes",
                code="config_size",
                params={"n": MAX_CONFIG_BYTES},
            )
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EngineInputError(
            "model",
            f"cannot read {path} as JSON: {exc}",
            code="config_file",
            params={"value": repr(str(path))[:200], "detail": str(exc)[:200]},
        ) from None
    return load_model(data)
