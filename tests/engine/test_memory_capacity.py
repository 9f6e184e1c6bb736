"""Every accelerator's capacity is in real bytes, with a source; the driver's
visible total, where recorded, sits just under it."""

import pytest

from engine.hardware import BUILTIN_DIR, load_directory

CARDS = load_directory(BUILTIN_DIR)


@pytest.mark.parametrize("card_id", sorted(CARDS))
def test_capacity_is_whole_gib_with_a_source(card_id):
    acc = CARDS[card_id]
    assert acc.memory_bytes % 2**30 == 0, "vendors' GB of HBM/GDDR are GiB (README 'Memory capacity')"
    assert any("memory_bytes" in s.supports for s in acc.sources), "a source line must support memory_bytes"


@pytest.mark.parametrize("card_id", sorted(c for c in CARDS if CARDS[c].memory_visible_bytes))
def test_visible_total_is_at_most_the_capacity(card_id):
    """nvidia-smi shows 93.75-100% of the capacity: ECC on GDDR keeps 1/16 (L4, L40S), HBM
    parts lose a few hundred MiB to reserved regions (H100 81,559 of 81,920 MiB)."""
    acc = CARDS[card_id]
    assert 15 / 16 * acc.memory_bytes * 0.999 <= acc.memory_visible_bytes <= acc.memory_bytes
    assert acc.memory_visible_bytes % 2**20 == 0


def test_the_figures_the_issue_names():
    assert CARDS["h100-sxm5"].memory_bytes == 85_899_345_920
    assert CARDS["h100-sxm5"].memory_visible_bytes == 81_559 * 2**20
    assert CARDS["h200-sxm"].memory_visible_bytes == 143_771 * 2**20
    assert CARDS["a100-80gb-sxm"].memory_visible_bytes == 81_920 * 2**20
    assert CARDS["rtx-4090"].memory_visible_bytes == 24_564 * 2**20
    assert CARDS["mi300x"].memory_bytes == 192 * 2**30
