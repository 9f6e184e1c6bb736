"""Memory in the CLI's tables: footprints in GiB (what nvidia-smi and an "80GB" card mean), the
usable share a serving engine fills, and the sentence when the card and that share disagree."""

from __future__ import annotations

from ..units import memory, plain


def usable_words(utilization: float) -> str:
    """What the 'usable' column means, printed under the table."""
    if utilization == 1.0:
        return "usable = the whole card (--memory-utilization 1)"
    return (
        f"usable = capacity x {plain(utilization)} (--memory-utilization; 0.9 is vLLM's "
        "gpu_memory_utilization default, 1 = the whole card)"
    )


def fit_sentence(hardware_id: str, mem: dict, utilization: float) -> str | None:
    """None when the scenario fits the usable share; else the one sentence that says whether
    the card itself could hold it: 'fits the card's 80 GiB, not the 72 GiB a serving engine
    uses at 0.9'."""
    total, capacity, usable = mem["total_bytes"], mem["capacity_bytes"], mem["usable_bytes"]
    if total <= usable:
        return None
    if total <= capacity:
        return (
            f"{hardware_id}: {memory(total)} fits the card's {memory(capacity)}, not the {memory(usable)} "
            f"a serving engine uses at {plain(utilization)}"
        )
    return f"{hardware_id}: {memory(total)} does not fit the card's {memory(capacity)}"


def training_verdict(mem: dict, fits: bool, overflow: str | None) -> str:
    """The training bill's last line: capacity in GiB and the verdict."""
    verdict = "fits" if fits else f"does NOT fit: {overflow} overflow"
    return f"  capacity    {memory(mem['capacity_bytes']):>10}  {verdict}"


__all__ = ["fit_sentence", "training_verdict", "usable_words"]
