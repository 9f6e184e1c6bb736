"""The ops table as the browser draws it from the server's text (components/table.drawn_table):
one row per op with the server's formatted cells, a header click orders the rows by that column
(numbers descending first, again: ascending), and a change of accelerator redraws the rows."""

from playwright.sync_api import Page, expect

from .helpers import wait_for_figure


def column(page: Page, index: int) -> list[str]:
    return page.locator("#ops-tbody tr").evaluate_all(f"rows => rows.map(r => r.cells[{index}].textContent)")


def seconds(text: str) -> float:
    return float(text.replace(",", ""))


def test_the_rows_are_drawn_and_a_header_click_sorts_them(page: Page, base_url):
    page.goto(f"{base_url}/?hw=h100-sxm5,rtx-4090&model=llama-3-8b&batch=32&ctx=4096")
    wait_for_figure(page)
    rows = page.locator("#ops-tbody tr")
    expect(rows.first).to_be_visible()
    count = rows.count()
    assert count >= 10 and page.locator("#ops-tbody tr:first-child td").count() == 9
    assert page.locator("#ops-tbody td").evaluate_all("cells => cells.every(c => c.children.length === 0)")
    page.locator("#ops-sort-time_us").click()
    expect(page.locator("#ops-table th").nth(6)).to_have_attribute("aria-sort", "descending")
    times = [seconds(t) for t in column(page, 6)]
    assert times == sorted(times, reverse=True) and rows.count() == count
    page.locator("#ops-sort-time_us").click()
    expect(page.locator("#ops-table th").nth(6)).to_have_attribute("aria-sort", "ascending")
    times = [seconds(t) for t in column(page, 6)]
    assert times == sorted(times)
    before = column(page, 6)
    page.locator("#ops-gpu").click()
    page.get_by_role("option", name="GeForce RTX 4090").click()
    expect(page.locator("#ops-title")).to_contain_text("GeForce RTX 4090")
    first_time = "document.querySelector('#ops-tbody tr td:nth-child(7)').textContent"
    page.wait_for_function(f"() => {first_time} !== {before[0]!r}")
    times = [seconds(t) for t in column(page, 6)]
    assert times == sorted(times), "the accelerator's rows keep the order the user chose"
