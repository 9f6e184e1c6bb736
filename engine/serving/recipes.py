"""The worker counts a benchmark's published recipe ran, for a measured run that leaves them empty.

Most measured disaggregated runs (the aiconfigurator silicon data's 2026 source files) record
each side's layout but not how many prefill and decode workers ran. Those runs come from the
InferenceX benchmark (SemiAnalysis), whose NVIDIA configuration publishes every disaggregated
deployment it runs: per GPU, precision, framework and lengths, the concurrencies, and for each
side the workers, the GPUs per worker (`tp`) and whether speculative decoding (MTP) was on.
published/serving/deployment-recipes.csv holds those entries (its README names the commits).

A run is matched on its GPU, precision, backend, lengths, concurrency and each side's GPUs per
worker; among matches, those of the run's own container image are preferred. The counts are
used only where they are one answer: a run that two recipes of different worker counts
describe stays unknown. A match also says whether the recipe decodes with MTP, and of how many
draft tokens where its name says.

A run the counts are not one answer for still has its candidates (published_candidates): the
recipes that match it, or, where none lists its concurrency, those of the same deployment (GPU,
precision, backend, lengths, GPUs per worker) at the listed concurrencies either side of it. The run
is one of those; engine.serving.validate answers each and spans them.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

RECIPES_CSV = Path(__file__).resolve().parent.parent.parent / "published" / "serving" / "deployment-recipes.csv"


@dataclass(frozen=True)
class Recipe:
    prefill_workers: int
    decode_workers: int
    speculative: str  # "mtp" or "none" ("unknown" in an answer whose recipes list both)
    image: str
    source: str  # repository@commit:configuration key
    # each side's attention data parallelism (dp-attn): None in an answer whose recipes differ
    prefill_attention_dp: bool | None = None
    decode_attention_dp: bool | None = None
    # the MTP recipe's draft tokens, from its srt-slurm recipe's name (`..._mtp3.yaml`): None where
    # the name does not say (SGLang's recipes) or the answer's recipes differ
    draft_tokens: int | None = None


def _image(name: str) -> str:
    """A container image's name as one string: registries write nvcr.io#nvidia and nvcr.io/nvidia."""
    return name.replace("#", "/").strip().strip('"')


@lru_cache(maxsize=1)
def _index(path: Path = RECIPES_CSV) -> dict[tuple, tuple[Recipe, ...]]:
    index: dict[tuple, list[Recipe]] = {}
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            recipe = Recipe(
                int(r["prefill_workers"]),
                int(r["decode_workers"]),
                r["speculative"],
                _image(r["image"]),
                r["source"],
                r["prefill_attention_dp"] == "true",
                r["decode_attention_dp"] == "true",
                _draft_tokens(r),
            )
            if recipe.decode_workers < 1 or recipe.prefill_workers < 1:  # an aggregated entry in the same list
                continue
            if _placeholder_layout(r):
                continue
            for concurrency in r["concurrency"].split():
                key = (
                    r["system"],
                    r["precision"],
                    r["backend"],
                    int(r["isl"]),
                    int(r["osl"]),
                    int(concurrency),
                    int(r["prefill_gpus"]),
                    int(r["decode_gpus"]),
                )
                index.setdefault(key, []).append(recipe)
    return {key: tuple(recipes) for key, recipes in index.items()}


_MTP_NAME = re.compile(r"_mtp(\d+)(?:_\d+)?\.yaml$")


def _draft_tokens(r: dict) -> int | None:
    """k of an MTP entry whose recipe file names it (`ctx1_gen4_dep8_batch128_eplb0_mtp3.yaml`,
    `..._mtp3_1024.yaml`: the last number is the concurrency); 0 (`mtp0`) is no MTP."""
    found = _MTP_NAME.search(r["config_file"]) if r["speculative"] == "mtp" else None
    return int(found.group(1)) if found and int(found.group(1)) > 0 else None


def _placeholder_layout(r: dict) -> bool:
    """The GB200 and GB300 SGLang entries of the earlier versions give each side `tp: 1`, which the
    file says does nothing (their launch script sets the layout): no worker of DeepSeek-R1 runs on
    one GPU there, and a run recorded as `tp_size` 1 would match the placeholder."""
    rack_sglang = r["backend"] == "sglang" and r["system"] in ("gb200", "gb300")
    return rack_sglang and "1" in (r["prefill_gpus"], r["decode_gpus"])


def _matches(key: tuple, image: str) -> list[Recipe]:
    """The recipes listed at an index key, those of the run's own image where any are."""
    found = _index().get(key, ())
    same_image = [r for r in found if r.image == _image(image)] if image else []
    return same_image or list(found)


def published_recipe(
    system: str,
    precision: str,
    backend: str,
    lengths: tuple[int, int],
    concurrency: int,
    gpus: tuple[int, int],
    image: str = "",
) -> Recipe | None:
    """The one recipe (worker counts, speculative decoding) that ran this deployment, or None
    where no recipe or recipes of different worker counts match. `gpus`: (a prefill worker's,
    a decode worker's)."""
    pool = _matches((system, precision, backend, *lengths, concurrency, *gpus), image)
    counts = {(r.prefill_workers, r.decode_workers) for r in pool}
    if len(counts) != 1:
        return None
    first = pool[0]
    return Recipe(
        first.prefill_workers,
        first.decode_workers,
        _one({r.speculative for r in pool}, "unknown"),
        first.image,
        first.source,
        _one({r.prefill_attention_dp for r in pool}, None),
        _one({r.decode_attention_dp for r in pool}, None),
        _one({r.draft_tokens for r in pool}, None),
    )


def published_candidates(
    system: str,
    precision: str,
    backend: str,
    lengths: tuple[int, int],
    concurrency: int,
    gpus: tuple[int, int],
    image: str = "",
) -> tuple[Recipe, ...]:
    """The recipes a run may have been, each once (a recipe is its counts, attention DP and
    decoding: the source and image are not compared): those that match it, the run's own
    image's preferred, else the same deployment's at the listed concurrencies nearest below and
    above the run's; () where none does."""
    pool = _matches((system, precision, backend, *lengths, concurrency, *gpus), image)
    pool = pool or _neighbours((system, precision, backend, *lengths, *gpus), concurrency)
    distinct = {replace(r, image="", source=""): r for r in pool}
    return tuple(sorted(distinct.values(), key=_deployment_order))


def _neighbours(deployment: tuple, concurrency: int) -> tuple[Recipe, ...]:
    """The recipes of a deployment at the concurrencies the benchmark lists nearest below and above
    this one: the deployments it ran either side of it."""
    by_concurrency = _families().get(deployment, {})
    below = max((c for c in by_concurrency if c < concurrency), default=None)
    above = min((c for c in by_concurrency if c > concurrency), default=None)
    return tuple(r for c in (below, above) if c is not None for r in by_concurrency[c])


@lru_cache(maxsize=1)
def _families() -> dict[tuple, dict[int, tuple[Recipe, ...]]]:
    """The recipes by deployment (the index's key without its concurrency), then by concurrency."""
    families: dict[tuple, dict[int, tuple[Recipe, ...]]] = {}
    for (*deployment, concurrency, prefill_gpus, decode_gpus), recipes in _index().items():
        families.setdefault((*deployment, prefill_gpus, decode_gpus), {})[concurrency] = recipes
    return families


@lru_cache(maxsize=1)
def named_draft_lengths() -> tuple[int, ...]:
    """The draft lengths the table's MTP recipes name (TensorRT-LLM's mtp1, mtp2, mtp3): those an
    MTP recipe that names none may have run."""
    return tuple(sorted({r.draft_tokens for rs in _index().values() for r in rs if r.draft_tokens}))


def _deployment_order(r: Recipe) -> tuple:
    return (r.prefill_workers, r.decode_workers, r.speculative, r.draft_tokens or 0, bool(r.prefill_attention_dp),
            bool(r.decode_attention_dp))  # fmt: skip


def _one(values: set, otherwise):
    return next(iter(values)) if len(values) == 1 else otherwise
