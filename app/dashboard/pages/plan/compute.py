"""The Planner page's engine calls: one search per question (engine.planner.search, the slow
part), kept in a cache bounded in bytes, and the answer for the page's targets
(engine.planner.answer, milliseconds), so a target slider re-filters the candidates already
scored instead of searching again. Every number is the engine's: the figures, verdict and
table only format what `answered` returns.

The cache's key is what a search depends on (engine.planner.SEARCH_FIELDS, the model and the
accelerators); the targets, the target mode and the prices are the answer's.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.dashboard.pages.plan.params import PlanArgs
from app.dashboard.pages.plan.state import plan_request
from engine.cache import ByteLRU
from engine.hardware import get_accelerator
from engine.model_catalog import load_model
from engine.planner import SEARCH_FIELDS, Search, answer, search

# A search holds ~420 bytes of columns per candidate: DeepSeek-R1 on 8 x H200 and 8 x B200 is
# 16,000 candidates, 6.7 MiB; on 16 of each, 93,000 and 39 MiB. 128 MiB keeps the last few
# questions a reader moves between, and no more (a larger search is answered, not kept).
SEARCHES = ByteLRU(128 * 2**20)


@dataclass(frozen=True)
class Planned:
    """The page's answer: the engine's (frontier included unless re-filtered) and the search
    it came from (its key names what is drawn, for the re-filter's patch)."""

    answer: dict
    search: Search
    key: str


def search_key(a: PlanArgs) -> tuple:
    req = plan_request(a)
    return (a.model, a.hardware, *(getattr(req, f) for f in SEARCH_FIELDS))


def found(a: PlanArgs) -> Search:
    """The search for the page's question, from the cache when it was asked before
    (EngineInputError when the engine refuses it: said in the page's words)."""

    def run() -> Search:
        return search(load_model(a.model), [get_accelerator(h) for h in a.hardware], plan_request(a))

    return SEARCHES.get_or_compute(search_key(a), run)


def answered(a: PlanArgs, frontier: bool = True) -> Planned:
    """The engine's answer for the page's targets, prices and target mode."""
    s = found(a)
    return Planned(answer(s, plan_request(a), frontier=frontier), s, drawn_key(a))


def drawn_key(a: PlanArgs) -> str:
    """A short name of the search a chart draws: a target's move patches a chart of the same
    search, and redraws any other."""
    return repr(search_key(a))
