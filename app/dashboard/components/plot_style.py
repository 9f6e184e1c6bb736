"""The charts' colours and base layout, the same on every page: the Okabe-Ito palette and the
light and dark themes."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

from engine.hardware import catalogue

# Eight accelerators, eight colours that stay apart for readers with and without a colour-vision
# deficiency: Okabe & Ito's palette (Color Universal Design, 2008) with Paul Tol's wine, indigo,
# green, rose and sand ("Colour Schemes", SRON/EPS/TN/09-002) where Okabe-Ito's own shades fall
# under WCAG's 3:1 for graphics on the theme's background or sit too close to another (the old
# light palette had two blues, 3 apart in CIELAB). Every pair is >= 17 apart in CIELAB as seen
# with normal vision, protanopia and deuteranopia (Machado, Oliveira & Fernandes 2009), and every
# entry is >= 3:1 on its page (tests/dashboard/test_palette.py).
PALETTES = {
    "light": ("#0072B2", "#D55E00", "#CC79A7", "#882255", "#117733", "#000000", "#332288", "#009E73"),
    "dark": ("#56B4E9", "#E69F00", "#EE6677", "#E5E7EB", "#117733", "#CC79A7", "#0072B2", "#DDCC77"),
}


THEMES = {
    "light": {
        "paper": "#ffffff",
        "plot": "#ffffff",
        "font": "#1f2328",
        "grid": "#e5e7eb",
        "muted": "#6b7280",
        "danger": "#c62828",
    },
    "dark": {
        "paper": "#0f172a",
        "plot": "#0f172a",
        "font": "#e5e7eb",
        "grid": "#334155",
        "muted": "#94a3b8",
        "danger": "#f87171",
    },
}


# The page's type (assets/01-variables.css), the CJK subset the dashboard ships first (it holds
# no Latin letter; after a generic family that family would claim the CJK characters and draw
# boxes): a chart drawn where no CJK font is installed shows its Chinese words.
FONT_FAMILY = (
    '"Noto Sans SC subset", system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "PingFang SC", sans-serif'
)
# The range of characters the subset covers (scripts/subset_cjk_font.is_cjk): an @font-face for it.
CJK_UNICODE_RANGE = "U+2E80-9FFF, U+F900-FAFF, U+FE30-FE4F, U+FF00-FFEF"


def color_for(index: int, theme: str = "light") -> str:
    palette = PALETTES.get(theme, PALETTES["light"])
    return palette[index % len(palette)]


def card_slots(ids: Sequence[str]) -> list[int]:
    """Each accelerator's place in the palette (color_for), in the order given. A catalogue
    card's own place follows its position in the catalogue, so it keeps its colour when another
    card is added or removed (by position in the selection, removing the first card recoloured
    every other one mid-demo); a what-if card starts from the card its id begins with, any other
    name from a checksum of it. A place already taken goes to the next free one, in the order
    given; past eight cards the places repeat."""
    size = len(PALETTES["light"])
    own = {hw: i % size for i, hw in enumerate(catalogue())}
    taken: set[int] = set()
    slots = []
    for hw in ids:
        base = max((c for c in own if hw.startswith(c)), key=len, default=None)
        slot = own[base] if base is not None else zlib.crc32(hw.encode()) % size
        for step in range(size):
            if (slot + step) % size not in taken:
                slot = (slot + step) % size
                break
        taken.add(slot)
        slots.append(slot)
    return slots


def card_colors(ids: Sequence[str], theme: str = "light") -> list[str]:
    """Each accelerator's colour, in the order given (card_slots)."""
    return [color_for(slot, theme) for slot in card_slots(ids)]


def log_axis(title: str, rng: list[float], ticks: list[float], labels: list[str], colors: dict) -> dict:
    return {
        "type": "log",
        # the margin grows to hold the tick labels and the title: in presentation mode's larger
        # font the title sat on the tick labels ("1,000" under "Attainable performance")
        "automargin": True,
        "title": {"text": title, "standoff": 8},
        "range": rng,
        "tickvals": ticks,
        "ticktext": labels,
        "gridcolor": colors["grid"],
        "zeroline": False,
        "autorange": False,
        "fixedrange": False,
    }


def base_layout(lang: str, theme: str, present: bool) -> dict:
    colors = THEMES.get(theme, THEMES["light"])
    return {
        "paper_bgcolor": colors["paper"],
        "plot_bgcolor": colors["plot"],
        "font": {"color": colors["font"], "size": 20 if present else 13, "family": FONT_FAMILY},
        "margin": {"l": 70, "r": 20, "t": 30, "b": 55},
        "hovermode": "closest",
        # Plotly draws hover labels in Arial, not the layout's font: without this, a machine
        # with no CJK font of its own shows a Chinese hover as boxes
        "hoverlabel": {"font": {"family": FONT_FAMILY}},
        "legend": {"orientation": "h", "y": -0.18, "x": 0},
        # Keeps zoom/pan and legend clicks while the sliders move.
        "uirevision": "keep",
    }


def foot_legend(present: bool, **extra) -> dict:
    """A horizontal legend at the foot of the figure, pinned to it (not to the plot, whose height
    varies): Plotly grows the bottom margin to hold it, under the x axis's labels and title."""
    size = 16 if present else 11
    return {
        "orientation": "h",
        "yref": "container",
        "y": 0,
        "yanchor": "bottom",
        "x": 0,
        **extra,
        "font": {"size": size},
    }


def message_figure(message: str) -> dict:
    """An empty plot that says why there is nothing to draw."""
    return {
        "data": [],
        "layout": {
            "xaxis": {"visible": False},
            "yaxis": {"visible": False},
            "annotations": [{"text": message, "showarrow": False, "font": {"size": 15}}],
        },
    }
