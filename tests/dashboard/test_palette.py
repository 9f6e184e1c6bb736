"""Eight accelerators in eight colours a reader can tell apart, in both themes and with the
common colour-vision deficiencies, each >= 3:1 against the plot (WCAG 2.1, 1.4.11)."""

import itertools
import math

import pytest

from app.dashboard.components.plot_style import PALETTES, THEMES

# Machado, Oliveira & Fernandes (2009), "A Physiologically-based Model for Simulation of Color
# Vision Deficiency", severity 1.0, on linear RGB.
PROTANOPIA = ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998))
DEUTERANOPIA = ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881))
IDENTITY = ((1, 0, 0), (0, 1, 0), (0, 0, 1))


def _linear(hex_colour: str) -> list[float]:
    c = [int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    return [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in c]


def _luminance(hex_colour: str) -> float:
    r, g, b = _linear(hex_colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _lab(hex_colour: str, matrix) -> tuple[float, float, float]:
    rgb = [max(0.0, min(1.0, sum(m * v for m, v in zip(row, _linear(hex_colour), strict=True)))) for row in matrix]
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


@pytest.mark.parametrize("theme", sorted(PALETTES))
def test_eight_colours_apart_for_every_reader(theme):
    palette = PALETTES[theme]
    assert len(palette) == 8 and len(set(palette)) == 8
    for name, matrix in (("normal", IDENTITY), ("protanopia", PROTANOPIA), ("deuteranopia", DEUTERANOPIA)):
        for a, b in itertools.combinations(palette, 2):
            distance = math.dist(_lab(a, matrix), _lab(b, matrix))
            assert distance >= 15, f"{theme}, {name}: {a} and {b} are {distance:.1f} apart"


@pytest.mark.parametrize("theme", sorted(PALETTES))
def test_every_colour_stands_out_from_the_plot(theme):
    background = _luminance(THEMES[theme]["plot"])
    for colour in PALETTES[theme]:
        high, low = sorted((_luminance(colour), background), reverse=True)
        assert (high + 0.05) / (low + 0.05) >= 3.0, (theme, colour)


def test_each_card_keeps_its_slot_and_no_two_cards_share_one():
    from app.dashboard.components.plot_style import card_slots
    from engine.hardware import catalogue

    every = list(catalogue())
    assert len(set(card_slots(every[:8]))) == 8  # the first eight of any selection: eight colours
    for chosen in (["h100-sxm5", "h200-sxm", "b200", "gb200"], ["a100-40gb-sxm", "h100-sxm5", "rtx-4090"]):
        slots = dict(zip(chosen, card_slots(chosen), strict=True))
        assert len(set(slots.values())) == len(chosen)
        for gone in chosen:  # remove any one: the ones left keep theirs while none collided
            rest = [hw for hw in chosen if hw != gone]
            kept = dict(zip(rest, card_slots(rest), strict=True))
            assert all(kept[hw] == slots[hw] for hw in rest if slots[hw] == every.index(hw) % 8)
    # a what-if card begins from its card's colour and takes the next when the card is shown
    assert card_slots(["h200-sxm-0.7xbw"]) == card_slots(["h200-sxm"])
    assert len(set(card_slots(["h200-sxm", "h200-sxm-0.7xbw"]))) == 2
