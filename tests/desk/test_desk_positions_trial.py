"""Positions before and after the venue valued them (new-user trial, defects 7 and 9).

The first visit to Positions showed every total as 0.00 next to ``book never``: figures for
what was not known yet. The book's line read ``Book $ … notional 204,258.80``, its unit a
``$`` sign and not the USDC it is summed in.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tests.desk.kit.scenes import build_world
from tests.desk.test_desk_positions import CALL, PERP, T0, position, valued
from tui.desk.analytics.positions import build_positions
from tui.desk.messages import Topic
from tui.desk.widgets.positions import WAITING, PositionsPane, underlying_lines


def _totals(pane: PositionsPane) -> str:
    return str(pane.query_one("#positions-totals", Static).render())


async def test_the_first_visit_waits_for_the_venue_rather_than_showing_zeros(
    sandbox: Any, desk: DeskFactory
) -> None:
    await build_world(sandbox)  # a trade DESK bought from ALPHA: a BTC position
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS, Topic.TRADES, Topic.POSITIONS)
        assert not app.book.aggregated, "the positions were never valued"
        await app.action_show_tab("positions")
        await pilot.pause()
        pane = app.query_one(PositionsPane)
        totals = _totals(pane)
        assert "waiting for the venue" in totals and "0.00" not in totals, totals
        assert str(pane.query_one("#positions-totals", Static).render()) in WAITING
        assert pane.table.row_count == 0, "no line reads 0 for a position not valued yet"

        await refresh(app, pilot, Topic.AGGREGATED)
        totals = _totals(pane)
        assert "waiting" not in totals and pane.table.row_count > 0, totals
        book_line = totals.splitlines()[-1]
        assert book_line.startswith("Book · USDC, every underlying"), book_line
        assert "notional" in book_line and "$" not in book_line.split("·")[0], book_line


async def test_a_valuation_read_while_the_tab_was_hidden_shows_at_once(
    sandbox: Any, desk: DeskFactory
) -> None:
    await build_world(sandbox)
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot)
        await refresh(app, pilot, Topic.AGGREGATED)  # valued before the tab shows
        assert app.book.aggregated
        await app.action_show_tab("positions")
        await pilot.pause()
        pane = app.query_one(PositionsPane)
        assert "waiting" not in _totals(pane) and pane.table.row_count > 0


def test_a_total_missing_a_mark_is_not_shown_as_the_part_known() -> None:
    btc = position("p1", "c1", PERP, "2", "98000")
    eth = position("p1", "c1", CALL, "-10", "150")  # no mark for it yet
    book = build_positions([btc, eth], [valued(btc, "100000", "100000", "2")], [], T0)
    assert not book.book.valued
    lines = underlying_lines(book).splitlines()
    btc_line, eth_line, book_line = lines
    assert "uPNL +4,000.00" in btc_line and "notional 200,000.00" in btc_line
    assert "uPNL -" in eth_line and "notional -" in eth_line
    assert "uPNL -" in book_line and "notional -" in book_line, book_line
    assert "4,000.00" not in book_line, "the BTC part is not the book's whole"
