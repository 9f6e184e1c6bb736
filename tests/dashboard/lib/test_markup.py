"""Hover text wrapped to a phone's chart (app/dashboard/lib/markup.py): Plotly never wraps a
hover, and cuts one wider than its chart at the chart's edges."""

from app.dashboard.lib.markup import HOVER_LINE_UNITS, _display_width, hover_box, hover_text, wrap


def test_a_short_line_is_kept_whole():
    assert wrap("TPOT 12.3 ms · TTFT 456 ms", 44) == ["TPOT 12.3 ms · TTFT 456 ms"]


def test_a_long_line_breaks_at_its_last_space_that_fits():
    text = "the benchmark's published recipes it may have been: 1P3D MTP 2, 1P3D, 2P5D, 3P5D MTP 3"
    lines = wrap(text, 44)
    assert lines == ["the benchmark's published recipes it may", "have been: 1P3D MTP 2, 1P3D, 2P5D, 3P5D MTP", "3"]
    assert " ".join(lines) == text
    assert all(len(line) <= 44 for line in lines)


def test_a_chinese_character_counts_two_columns_and_a_sentence_without_spaces_breaks_anywhere():
    text = "工作节点数未记录：按一个预填充和一个解码工作节点读取，这是映射对空计数的规则"
    lines = wrap(text, 20)
    assert "".join(lines) == text
    assert [_display_width(line) for line in lines] == [20, 20, 20, 16]


def test_a_hover_wraps_each_line_and_each_part_of_a_line_that_holds_its_own_break():
    long = "x " * 30
    text = hover_text(["<b>H200</b> · measured", f"a<br>{long}"])
    lines = text.split("<br>")
    assert lines[:2] == ["<b>H200</b> · measured", "a"]
    assert all(_display_width(line) <= HOVER_LINE_UNITS for line in lines)
    assert len(lines) == 4


def test_a_hover_box_hides_the_trace_names_box():
    assert hover_box("H200 · tensor roof (fp8) 1.98 PFLOP/s") == "H200 · tensor roof (fp8) 1.98 PFLOP/s<extra></extra>"


def test_markup_takes_the_room_it_is_drawn_in():
    """A tag none, an entity one column, a template's value slot SLOT_COLUMNS."""
    assert wrap("<b>%{customdata[0]}</b> (measured) on H100 SXM5 80GB", 44) == [
        "<b>%{customdata[0]}</b> (measured) on H100 SXM5 80GB"
    ]
    assert wrap("a &amp; " + "b" * 40, 44) == ["a &amp; " + "b" * 40]
    assert wrap("%{x} " * 6, 44) == ["%{x} %{x} %{x} %{x}", "%{x} %{x} "]
