"""Redraw only what changed (issue 11): a ticking text lays nothing out, the footer is rebuilt
only when the offered keys change, the ticket keeps its leg fields from RFQ to RFQ, and a tab
is built when first shown and not drawn for while hidden."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from textual.widgets import Input

from tests.desk.kit import records
from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tests.desk.kit.fakes import NOW
from tests.desk.kit.panes import PaneApp, Refreshes
from tests.desk.kit.scenes import build_world
from tests.desk.kit.tabs import show_tab
from tui.api.models import RFQ, ClearingStatus, PortfolioSummary, RFQLeg
from tui.desk.book import DeskBook
from tui.desk.messages import PaneAge
from tui.desk.widgets.blotter import Blotter
from tui.desk.widgets.live_text import LiveText
from tui.desk.widgets.market_stats import MarketStatsPane
from tui.desk.widgets.pools import PoolsPane
from tui.desk.widgets.portfolio_header import PortfolioHeader
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.status_bar import StatusBar
from tui.desk.widgets.trade_tracker import TradeTracker


def _clock() -> Any:
    return NOW


async def test_a_ticking_text_is_redrawn_without_a_layout_and_not_at_all_when_unchanged() -> None:
    text = LiveText("", id="live")
    async with PaneApp(text).run_test() as pilot:
        text.update("expires [b]41s[/b]")
        await pilot.pause()
        seen = Refreshes(text)
        text.update("expires [b]40s[/b]")  # same shape: a repaint
        text.update("expires [b]40s[/b]")  # same text: nothing
        assert seen.layouts == [False]
        text.update("expires [b]9m 40s[/b]")  # another shape: it may take another line
        assert seen.layouts == [False, True]
        assert str(text.render()) == "expires 9m 40s"


async def test_the_status_bar_ticks_without_laying_the_screen_out() -> None:
    status = StatusBar(id="status")
    async with PaneApp(status).run_test() as pilot:
        await pilot.pause()
        seen = Refreshes(status)
        for age in (1.0, 12.0, 130.0):
            status.ages = (PaneAge("inbox", age, False),)
            status.tokens_used = int(age)
        assert seen.layouts and not any(seen.layouts)
        assert "inbox 2m" in str(status.render())


def _summary() -> PortfolioSummary:
    figures = dict.fromkeys(PortfolioSummary.model_fields, Decimal("1250.5"))
    return PortfolioSummary.model_validate(figures)


async def test_news_that_changes_no_text_repaints_nothing() -> None:
    status, header = StatusBar(id="status"), PortfolioHeader(id="header")
    async with PaneApp(status, header).run_test() as pilot:
        header.summary = _summary()
        status.ages = (PaneAge("inbox", 3.0, False), PaneAge("book", 3.0, False))
        await pilot.pause()
        seen = [Refreshes(widget) for widget in (status, header, *header.query(LiveText))]
        for age in (3.1, 3.5, 3.9):  # the ages move, their text ("3s") does not
            ages = (PaneAge("inbox", age, False), PaneAge("book", age, False))
            status.ages = ages
            header.show_freshness(ages)
            status.tokens_used = 0
        header.summary = _summary()  # the same figures, polled again
        assert [spy.layouts for spy in seen] == [[] for _ in seen]
        status.ages = (PaneAge("inbox", 4.0, False),)  # a visible change: one repaint
        assert seen[0].layouts == [False]


def _last_look_book() -> DeskBook:
    book = records.taker_book()
    book.quotes_sent = {
        records.NEW_QUOTE_ID: records.quote(
            records.NEW_QUOTE_ID, clearing_status=ClearingStatus.PENDING_MAKER_LAST_LOOK
        )
    }
    return book


async def test_the_footer_is_rebuilt_only_when_the_tracker_offers_other_keys() -> None:
    book = records.taker_book()
    tracker = TradeTracker(book, _clock, id="tracker")
    async with PaneApp(tracker).run_test() as pilot:
        await pilot.pause()
        rebuilt: list[int] = []
        asked = tracker.refresh_bindings

        def rebuild() -> None:  # what rebuilds the footer
            rebuilt.append(1)
            asked()

        tracker.refresh_bindings = rebuild  # type: ignore[method-assign]
        for _ in range(3):
            tracker.refresh_trades()  # nothing new waits for me
        assert rebuilt == []
        book.quotes_sent = _last_look_book().quotes_sent
        tracker.refresh_trades()  # a last look waits: a and r are offered
        tracker.refresh_trades()
        assert rebuilt == [1]
        assert tracker.check_action("last_look", ())


def _rfqs() -> Iterator[RFQ]:
    """Three one-leg RFQs, as the venue sends them (each leg with its id)."""
    for n in range(3):
        rfq = records.rfq(f"11111111-1111-4111-8111-11111111111{n}")
        (leg,) = rfq.structure.legs
        booked = RFQLeg(
            rfq_leg_id=f"leg-{n}",
            rfq_id=rfq.rfq_id,
            instrument=leg.instrument,
            side=leg.side,
            qty=rfq.qty,
        )
        yield rfq.model_copy(update={"rfq_legs": [booked]})


async def test_the_ticket_keeps_its_leg_fields_from_rfq_to_rfq() -> None:
    book = records.taker_book()
    ticket = QuoteTicket(book, _clock, id="ticket")
    async with PaneApp(ticket).run_test(size=(140, 45)) as pilot:
        first, second, third = _rfqs()
        await ticket.show_rfq(first)
        bid = ticket.query_one("#bid-0", Input)
        bid.value = "99"
        ticket.screen.set_focus(None)  # the trader left the ticket: it follows the cursor
        await ticket.show_rfq(second)
        await pilot.pause()
        assert ticket.query_one("#bid-0", Input) is bid  # the same field, refilled
        assert bid.value == "" and len(ticket.query("#bid-0")) == 1
        await ticket.show_rfq(None)
        await ticket.show_rfq(third)
        assert ticket.query_one("#bid-0", Input) is bid
        assert ticket.values().bids == [""]


async def test_a_tab_is_built_when_first_shown_and_not_drawn_for_while_hidden(
    sandbox: Any, desk: DeskFactory
) -> None:
    await build_world(sandbox)  # a booked trade, pools, market statistics
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot)
        assert app.book.trade_legs and app.book.pools
        for later in (PoolsPane, Blotter, MarketStatsPane):
            assert not app.query(later)  # nothing built for a tab not yet shown

        blotter = await show_tab(app, pilot, "blotter", Blotter)
        assert blotter.table.row_count == len(app.book.trade_legs)  # the book's data at once
        pools = await show_tab(app, pilot, "pools", PoolsPane)
        assert set(pools.pools_table.row_keys) == set(app.book.pools)

        merged: list[int] = []
        merge = blotter.show_trades

        def spy(legs: Any) -> Any:
            merged.append(len(legs))
            return merge(legs)

        blotter.show_trades = spy  # type: ignore[method-assign]
        app.panes.trades()  # trades arrive while the Trades tab is hidden: nothing drawn
        assert merged == []
        await show_tab(app, pilot, "trade", RfqInbox)
        await show_tab(app, pilot, "blotter", Blotter)
        assert merged == [len(app.book.trade_legs)]  # shown: handed what it missed, once
        await show_tab(app, pilot, "trade", RfqInbox)
        await show_tab(app, pilot, "blotter", Blotter)
        assert merged == [len(app.book.trade_legs)]  # nothing missed: nothing redone
