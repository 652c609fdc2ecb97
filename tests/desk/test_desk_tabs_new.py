"""The Positions and History tabs, the market's detail and the alerts, wired into the desk.

Against the sandbox over loopback, as a trader uses them: a trade booked shows on ``5``
Positions (and its aggregated valuation is polled only while that tab shows); ``o`` there
opens the builder with the closing leg; a position closed shows qty 0 and its realised P&L;
``6`` History lists the RFQ with its outcome; Enter on a Market row opens the listing's detail,
which the next statistics poll redraws; a new RFQ and a booking alert once each through the
panes, in the ways the config switched on.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, TypeVar, cast

import pytest
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, Select, TabbedContent, TabPane

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tests.desk.kit.venue import DAY_START, accept, alpha_quotes_my_rfq, booked_trades, perp_rfq
from tui.api.models import MakerLastLookRequest, Quote, RequestAction, TradeSide
from tui.desk.alert_settings import AlertSettings
from tui.desk.analytics.history import Outcome
from tui.desk.app import DeskApp
from tui.desk.book import DeskBook
from tui.desk.later_tabs import LaterTabs
from tui.desk.messages import Topic
from tui.desk.screens.listing_detail import ListingDetail
from tui.desk.screens.new_rfq import NewRfqScreen
from tui.desk.trade_legs import TradeLegs
from tui.desk.widgets.history import HistoryPane
from tui.desk.widgets.market_stats import MarketStatsPane
from tui.desk.widgets.positions import PositionsPane

Pane = TypeVar("Pane", bound=Widget)

POSITION_TOPICS = (Topic.POSITIONS, Topic.AGGREGATED, Topic.TRADES)


async def show(app: DeskApp, pilot: Pilot[Any], key: str, tab: str, pane: type[Pane]) -> Pane:
    """Press a tab's key; its pane once it is on screen."""
    await pilot.press(key)
    for _ in range(50):
        await pilot.pause()
        if app.query_one(TabbedContent).active == tab:
            found = app.query_one(f"#{tab}", TabPane).query(pane)
            if found and found.first().is_mounted:
                return found.first()
    raise AssertionError(f"the {tab} tab did not show")


async def trade_with_alpha(sandbox: Any, side: TradeSide) -> Quote:
    """DESK asks ALPHA for 1 BTC perpetual, takes ``side`` of its quote, ALPHA's last look
    accepts: booked into their pool. The quote traded."""
    rfq, quote = await alpha_quotes_my_rfq(sandbox, "1")
    async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
        await accept(mine, quote, side)
        await alpha.quotes_maker_last_look(
            MakerLastLookRequest(
                parent_quote_id=quote.parent_quote_id,
                rfq_id=rfq.rfq_id,
                action=RequestAction.ACCEPT,
            )
        )
    sandbox.advance(3)
    return quote


async def test_positions_show_a_trade_and_its_realised_pnl_once_closed(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        bought = await trade_with_alpha(sandbox, TradeSide.BUY)
        feed = await app.wait_connected()
        assert Topic.AGGREGATED not in feed.polling()  # no Positions tab, no dear polls
        pane = await show(app, pilot, "5", "positions", PositionsPane)
        assert Topic.AGGREGATED in feed.hot
        await refresh(app, pilot, *POSITION_TOPICS)
        (net,) = [line for line in pane.book.positions if line.underlying == "BTC"]
        assert net.qty == Decimal(1)
        assert net.avg_entry == bought.per_leg_quotes[0].ask
        assert net.mark is not None and net.upnl is not None  # valued: the aggregated read
        assert pane.table.cursor_id == net.key
        fields = dict(pane.table.row_fields(net.key))
        assert fields["Qty"].strip() == "1" and fields["uPNL $"] != "-"

        sandbox.advance(10)  # a fresh request-token window for the second trade
        sold = await trade_with_alpha(sandbox, TradeSide.SELL)
        await refresh(app, pilot, *POSITION_TOPICS)
        (closed,) = [line for line in pane.book.positions if line.underlying == "BTC"]
        assert closed.qty == 0
        realised = sold.per_leg_quotes[0].bid - bought.per_leg_quotes[0].ask
        assert closed.realised.inception == closed.realised.today == realised
        assert pane.book.book.realised.inception == realised


async def test_o_on_a_position_opens_the_builder_with_the_closing_leg(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS, Topic.STATS)
        await trade_with_alpha(sandbox, TradeSide.BUY)
        pane = await show(app, pilot, "5", "positions", PositionsPane)
        await refresh(app, pilot, *POSITION_TOPICS)
        assert app.focused is pane.table
        await pilot.press("o")
        await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        await pilot.pause()
        assert builder.query_one("#underlying-0", Select).value == "BTC"
        assert builder.query_one("#side-0", Select).value == "buy"  # held long; sold with s
        assert builder.query_one("#qty", Input).value == "1"


async def test_history_lists_my_rfq_with_its_outcome(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        quote = await trade_with_alpha(sandbox, TradeSide.BUY)
        pane = await show(app, pilot, "6", "history", HistoryPane)
        assert pane.table.record_count == 0
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        entry = pane.table.record(f"rfq sent:{quote.target_rfq_id}")
        assert entry is not None and entry.outcome is Outcome.TRADED
        await pilot.press("s")  # the scorecards: ALPHA answered the one RFQ it was asked
        await pilot.pause()
        makers = pane.query_one("#history-makers")
        assert quote.maker_company in makers.row_ids()  # type: ignore[attr-defined]


async def test_enter_on_a_market_row_opens_its_detail_and_a_poll_redraws_it(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.STATS)
        pane = await show(app, pilot, "4", "market", MarketStatsPane)
        first = pane.table.row_ids()[0]
        assert len(app.book.market_history.marks(first)) == 1
        await pilot.press("enter")
        await pilot.pause()
        detail = app.screen
        assert isinstance(detail, ListingDetail) and detail.ticker == first
        sandbox.advance(30)
        await refresh(app, pilot, Topic.STATS)
        assert len(app.book.market_history.marks(first)) == 2
        assert app.book.stats is not None
        (now,) = [listing for listing in app.book.stats.listings if listing.ticker == first]
        assert detail.listing is now  # the detail was handed the new snapshot
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is not detail and app.focused is pane.table


async def test_alerts_fire_once_through_the_panes_in_the_ways_configured(
    sandbox: Any, desk: DeskFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = desk(alert_settings=AlertSettings(quiet=True))  # toasts only, never the bell
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        bells: list[int] = []
        toasts: list[str] = []
        monkeypatch.setattr(app, "bell", lambda: bells.append(1))
        monkeypatch.setattr(app, "notify", lambda text, **_: toasts.append(text))
        async with sandbox.client("EMBR") as embr:
            await embr.rfqs_new(perp_rfq([sandbox.company_ids["DESK"]], "3", sandbox.clock.now()))
        await refresh(app, pilot, Topic.RFQS_RECEIVED)
        assert len(toasts) == 1 and toasts[0].startswith("new RFQ from")
        await refresh(app, pilot, Topic.RFQS_RECEIVED)
        assert len(toasts) == 1  # seen again: quiet

        quote = await trade_with_alpha(sandbox, TradeSide.BUY)
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        assert toasts[1:] == [f"RFQ {quote.target_rfq_id[:8]} booked"]
        await refresh(app, pilot, Topic.QUOTES_RECEIVED)
        assert len(toasts) == 2 and bells == []  # once each; quiet mode never rings


def test_the_position_book_is_made_again_only_when_what_it_reads_changed() -> None:
    book = DeskBook()
    legs = TradeLegs()
    trades = booked_trades(4)
    book.trade_legs = legs.legs(trades[:3])
    tabs = LaterTabs(cast(Any, None), book, lambda: DAY_START)
    first = tabs.position_book()
    book.trade_legs = legs.legs(trades[:3])  # the next poll: the same trades again
    assert tabs.position_book() is first
    book.trade_legs = legs.legs(trades)  # one more trade: it closes another 0.1
    second = tabs.position_book()
    assert first.book.realised.inception == Decimal("-0.1")
    assert second.book.realised.inception == Decimal("-0.2")
