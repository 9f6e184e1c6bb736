"""The charts' colours and base layout, the same on every page: the Okabe-Ito palette and the
light and dark themes."""

from __future__ import annotations

# Okabe & Ito colour-blind-safe palette (Color Universal Design, 2008), black last.
# Okabe-Ito, colour-blind safe; on white its orange, sky blue and yellow fall under WCAG's 3:1
# for graphics (2.25, 2.31, 1.32), so the light theme takes darker shades of those hues, and the
# dark theme a light grey for black (1.18 on its background). Every entry is >= 3:1 on its page.
PALETTES = {
    "light": ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#B07800", "#2B8CC4", "#8F8600", "#000000"),
    "dark": ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#E5E7EB"),
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


def color_for(index: int, theme: str = "light") -> str:
    palette = PALETTES.get(theme, PALETTES["light"])
    return palette[index % len(palette)]


def log_axis(title: str, rng: list[float], ticks: list[float], labels: list[str], colors: dict) -> dict:
    return {
        "type": "log",
        "title": {"text": title},
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
        "font": {"color": colors["font"], "size": 20 if present else 13, "family": "system-ui, sans-serif"},
        "margin": {"l": 70, "r": 20, "t": 30, "b": 55},
        "hovermode": "closest",
        "legend": {"orientation": "h", "y": -0.18, "x": 0},
        # Keeps zoom/pan and legend clicks while the sliders move.
        "uirevision": "keep",
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
