"""Defects a new-user walkthrough of the desk found, each pinned by a test that failed first.

The quote board keeps its cursor on a quote id through a refresh that re-sorts it (and trades
no quote the trader did not look at when theirs is gone); a negative price is never cut off;
the history log is per venue profile; the sent toast counts in good English; the offset of a
long reads as selling it, and the accept confirmation says what the taker trades.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.widgets import Select, Static
from textual.widgets.data_table import ColumnKey

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tests.desk.kit.fakes import NOW, settle
from tests.desk.kit.journaled import JournaledHost as RoleHost
from tests.desk.kit.journaled import WritingClient as FakeClient
from tests.desk.kit.records import ME, OTHER, taker_book
from tests.desk.kit.records import rfq as an_rfq
from tests.desk.kit.venue import perp_rfq, quote_near
from tui.api.models import Leg, PerpetualFutureInstrument, TradeSide
from tui.desk.messages import Topic
from tui.desk.roles.journals import history_path_for
from tui.desk.roles.taker import you_trade
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.screens.new_rfq import NewRfqScreen
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.rfq_inbox import RfqInbox


async def _two_makers_quote(sandbox: Any, app: Any, pilot: Any) -> tuple[Any, dict[str, Any]]:
    """ALPHA and another maker quote DESK's RFQ, ALPHA tighter; the board shows it."""
    makers = [name for name in sandbox.company_ids if name not in ("DESK", "ALPHA")][:1]
    other = makers[0]
    async with sandbox.client("DESK") as mine:
        rfq = await mine.rfqs_new(
            perp_rfq(
                [sandbox.company_ids["ALPHA"], sandbox.company_ids[other]],
                "1",
                sandbox.clock.now(),
            )
        )
    quotes = {}
    for name, ask in (("ALPHA", "10"), (other, "20")):
        async with sandbox.client(name) as maker:
            (received,) = (await maker.rfqs_received(id=rfq.rfq_id)).result
            quotes[name] = await quote_near(
                maker, received, sandbox.clock.now(), "-30", ask, new_pool=f"{name} pool"
            )
    await refresh(app, pilot, Topic.COMPANIES, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
    app.query_one(RfqInbox).select("sent", rfq.rfq_id)
    await pilot.pause()
    return rfq, {"ALPHA": quotes["ALPHA"], "other": quotes[other], "other_name": other}


async def test_a_resort_keeps_the_cursor_on_the_same_makers_quote(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        rfq, quotes = await _two_makers_quote(sandbox, app, pilot)
        board = app.query_one(QuoteBoard)
        alpha, other = quotes["ALPHA"].parent_quote_id, quotes["other"].parent_quote_id
        assert board.table.row_keys == [alpha, other]
        board.table.focus()
        board.select_quote(other)
        await pilot.pause()
        # ALPHA requotes wider: its new quote sorts below the other maker's, which moves up.
        async with sandbox.client("ALPHA") as maker:
            await maker.quotes_cancel(alpha)
            (received,) = (await maker.rfqs_received(id=rfq.rfq_id)).result
            requote = await quote_near(
                maker, received, sandbox.clock.now(), "-30", "40", new_pool="ALPHA pool"
            )
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        assert board.table.row_keys == [other, requote.parent_quote_id]
        assert board.table.selected_key == other
        await pilot.press("b")
        await pilot.pause()
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)
        name = app.book.company_name(quotes["other"].maker_company)
        assert name in confirm.body and "ALPHA" not in confirm.body


async def test_b_trades_no_quote_when_the_one_under_the_cursor_went(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        _rfq, quotes = await _two_makers_quote(sandbox, app, pilot)
        board = app.query_one(QuoteBoard)
        alpha = quotes["ALPHA"].parent_quote_id
        board.table.focus()
        board.select_quote(alpha)
        await pilot.pause()
        # ALPHA pulls the quote under the cursor: the row that slides under it is not traded.
        async with sandbox.client("ALPHA") as maker:
            await maker.quotes_cancel(alpha)
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        assert board.table.row_keys == [quotes["other"].parent_quote_id]
        await pilot.press("b")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        assert board.selected_quote is None
        await pilot.press("down")  # a fresh look: the trader moves onto a quote on purpose
        await pilot.press("up")
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)


async def test_a_requote_keeps_the_cursor_on_the_same_maker_and_b_confirms_it(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        rfq, quotes = await _two_makers_quote(sandbox, app, pilot)
        board = app.query_one(QuoteBoard)
        alpha = quotes["ALPHA"].parent_quote_id
        board.table.focus()
        board.select_quote(alpha)
        await pilot.pause()
        # ALPHA requotes wider: the refresh re-sorts the board, the other maker moves up.
        async with sandbox.client("ALPHA") as maker:
            await maker.quotes_cancel(alpha)
            (received,) = (await maker.rfqs_received(id=rfq.rfq_id)).result
            requote = await quote_near(
                maker, received, sandbox.clock.now(), "-30", "40", new_pool="ALPHA pool"
            )
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        assert board.table.row_keys == [quotes["other"].parent_quote_id, requote.parent_quote_id]
        assert board.table.selected_key == requote.parent_quote_id  # still on ALPHA's row
        await pilot.press("b")
        await pilot.pause()
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert app.book.company_name(requote.maker_company) in confirm.body
        assert requote.parent_quote_id[:8] in confirm.body


async def test_a_negative_best_price_is_never_cut_off(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
            request = perp_rfq([sandbox.company_ids["ALPHA"]], "1", sandbox.clock.now())
            request.structure.legs[0].side = TradeSide.SELL  # priced below zero
            rfq = await mine.rfqs_new(request)
            (received,) = (await alpha.rfqs_received(id=rfq.rfq_id)).result
            quote = await quote_near(alpha, received, sandbox.clock.now(), "-30", "10")
        await refresh(app, pilot, Topic.COMPANIES, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        app.query_one(RfqInbox).select("sent", rfq.rfq_id)
        await pilot.pause()
        board = app.query_one(QuoteBoard)
        key = quote.parent_quote_id
        for column in ("bid", "ask"):
            text = str(board.table.cell_value(key, column)).strip()
            assert text.startswith("★ -"), text
            assert len(text) <= board.table.columns[ColumnKey(column)].width, text


def test_each_venue_profile_keeps_its_own_history_log(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    folder = app.export_dir.parent
    label = app.link.connector.label
    assert app.book.history_path == history_path_for(folder, label)
    assert history_path_for(folder, "prod") != history_path_for(folder, "sandbox")
    assert history_path_for(folder, "a/b").parent == history_path_for(folder, "x").parent


async def test_the_sent_toast_counts_companies_in_good_english() -> None:
    sent = an_rfq()
    client = FakeClient(rfqs_new=sent)
    host = RoleHost(client, book=taker_book())
    async with host.run_test(size=(100, 40)) as pilot:
        host.taker.send_rfq(object(), perp_rfq([OTHER], "2", NOW))  # type: ignore[arg-type]
        await settle(host, pilot)
        host.taker.send_rfq(object(), perp_rfq([OTHER, ME], "2", NOW))  # type: ignore[arg-type]
        await settle(host, pilot)
    one, two = host.outcomes
    assert one.summary == "RFQ 11111111 sent to 1 company"
    assert two.summary == "RFQ 11111111 sent to 2 companies"


async def test_the_offset_of_a_long_reads_as_selling_it(sandbox: Any, desk: DeskFactory) -> None:
    closing = [
        Leg(side=TradeSide.SELL, ratio=1, instrument=PerpetualFutureInstrument(underlying="BTC"))
    ]
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS, Topic.POOLS)
        app.taker.offset(closing, Decimal(1), None, None)
        await pilot.pause()
        await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        # The structure is BTC-PERP as held (a buy, priced above zero); the trader sells it.
        assert builder.query_one("#side-0", Select).value == "buy"
        note = str(builder.query_one("#builder-note", Static).render())
        assert "to close your long 1 BTC-PERP you sell" in note
        assert "press s" in note


def test_the_accept_confirmation_says_what_the_taker_trades_leg_by_leg() -> None:
    held = an_rfq()  # qty 2 of "buy 1 BTC-PERP"
    assert you_trade(held, TradeSide.SELL) == "sell 2 BTC-PERP"
    assert you_trade(held, TradeSide.BUY) == "buy 2 BTC-PERP"
