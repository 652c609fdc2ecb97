"""History's outcomes and search, against the sandbox, in the order the desk's polls come.

A received RFQ on which my quote traded reads ``traded`` even when the RFQ poll tells of the
close before the quotes poll tells of my booked quote. An RFQ I sent that traded names the
maker I traded with and the price traded, not the best quote still on the board when it closed
(another maker's). A trader pastes an RFQ id (or its short form) into History's search and
finds the RFQ and the quotes on it.
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tests.desk.kit.venue import accept, perp_rfq, pool_between, quote_near, their_view
from tui.api.models import MakerLastLookRequest, RequestAction, TradeSide
from tui.desk.analytics.history import Outcome
from tui.desk.app import DeskApp
from tui.desk.messages import Topic
from tui.desk.widgets.common import fmt
from tui.desk.widgets.history import HistoryPane

HISTORY_KEY = "6"


async def history_tab(app: DeskApp, pilot: Pilot[Any]) -> HistoryPane:
    """Press 6; the History pane once it is on screen."""
    await pilot.press(HISTORY_KEY)
    for _ in range(50):
        await pilot.pause()
        found = app.query(HistoryPane)
        if found and found.first().is_mounted and found.first().display:
            return found.first()
    raise AssertionError("History did not show")


async def test_a_received_rfq_my_quote_traded_on_reads_traded(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        me = sandbox.company_ids["DESK"]
        async with sandbox.client("ALPHA") as alpha, sandbox.client("DESK") as mine:
            rfq = await alpha.rfqs_new(perp_rfq([me], "1", sandbox.clock.now()))
            pool = await pool_between(mine, sandbox.company_ids["ALPHA"])
            received = await their_view(mine, rfq)
            quote = await quote_near(
                mine, received, sandbox.clock.now(), "-5", "5", pool_id=pool.pool_id
            )
            await accept(alpha, quote, TradeSide.BUY)
            # The desk sees my quote waiting for its last look ...
            await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.QUOTES_SENT)
            await mine.quotes_maker_last_look(
                MakerLastLookRequest(
                    parent_quote_id=quote.parent_quote_id,
                    rfq_id=rfq.rfq_id,
                    action=RequestAction.ACCEPT,
                )
            )
        sandbox.advance(3)
        # ... then the RFQ poll tells of the close before the quotes poll tells of the booking.
        await refresh(app, pilot, Topic.RFQS_RECEIVED)
        await refresh(app, pilot, Topic.QUOTES_SENT)
        history = app.book.history
        made = history.entry(f"quote made:{quote.parent_quote_id}")
        assert made is not None and made.outcome is Outcome.TRADED
        asked = history.entry(f"rfq received:{rfq.rfq_id}")
        assert asked is not None and asked.outcome is Outcome.TRADED
        assert asked.maker == me
        # Built again once the booked quote came: its prices, and the side I took.
        assert (asked.bid, asked.ask) == (quote.aggregated_bid, quote.aggregated_ask)
        pane = await history_tab(app, pilot)
        assert dict(pane.table.row_fields(asked.key))["Outcome"] == "traded, sold at ask"


async def test_an_rfq_i_sent_names_whom_i_traded_with_and_the_price(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        ids = sandbox.company_ids
        async with (
            sandbox.client("DESK") as mine,
            sandbox.client("ALPHA") as alpha,
            sandbox.client("CBLT") as cblt,
        ):
            rfq = await mine.rfqs_new(
                perp_rfq([ids["ALPHA"], ids["CBLT"]], "1", sandbox.clock.now())
            )
            pool = await pool_between(alpha, ids["DESK"])
            alphas = await quote_near(
                alpha,
                await their_view(alpha, rfq),
                sandbox.clock.now(),
                "-5",
                "5",
                pool_id=pool.pool_id,
            )
            await quote_near(
                cblt,
                await their_view(cblt, rfq),
                sandbox.clock.now(),
                "-500",
                "10",
                new_pool="CBLT pool",
            )
            await accept(mine, alphas, TradeSide.BUY)
            # While ALPHA's quote clears, only CBLT's is left on the RFQ's board.
            await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
            await alpha.quotes_maker_last_look(
                MakerLastLookRequest(
                    parent_quote_id=alphas.parent_quote_id,
                    rfq_id=rfq.rfq_id,
                    action=RequestAction.ACCEPT,
                )
            )
        sandbox.advance(3)
        await refresh(app, pilot, Topic.QUOTES_RECEIVED)  # the booking closes the RFQ
        await refresh(app, pilot, Topic.RFQS_SENT)
        sent = app.book.history.entry(f"rfq sent:{rfq.rfq_id}")
        assert sent is not None and sent.outcome is Outcome.TRADED
        assert sent.maker == ids["ALPHA"]
        # ALPHA's quote, not CBLT's (the best left on the board when the RFQ closed).
        assert (sent.bid, sent.ask) == (alphas.aggregated_bid, alphas.aggregated_ask)
        assert sent.traded_price == alphas.aggregated_ask and sent.my_side == "buy"
        pane = await history_tab(app, pilot)
        fields = dict(pane.table.row_fields(sent.key))
        assert fields["Cpty"] == "ALPHA"
        assert (fields["Bid"], fields["Ask"]) == (
            fmt.price(alphas.aggregated_bid),
            fmt.price(alphas.aggregated_ask),
        )
        assert fields["Outcome"] == "traded, bought at ask"
        # The quote it traded on says the same from its side.
        got = dict(pane.table.row_fields(f"quote received:{alphas.parent_quote_id}"))
        assert got["Outcome"] == "traded, bought at ask"


async def test_history_search_finds_an_rfq_by_its_id_and_short_id(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        ids = sandbox.company_ids
        async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
            rfq = await mine.rfqs_new(perp_rfq([ids["ALPHA"]], "1", sandbox.clock.now()))
            other = await mine.rfqs_new(perp_rfq([ids["ALPHA"]], "2", sandbox.clock.now()))
            pool = await pool_between(alpha, ids["DESK"])
            quote = await quote_near(
                alpha,
                await their_view(alpha, rfq),
                sandbox.clock.now(),
                "-5",
                "5",
                pool_id=pool.pool_id,
            )
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        pane = await history_tab(app, pilot)
        assert pane.table.has_row(f"rfq sent:{other.rfq_id}")
        wanted = {f"rfq sent:{rfq.rfq_id}", f"quote received:{quote.parent_quote_id}"}
        for typed in (fmt.short_id(rfq.rfq_id), rfq.rfq_id, rfq.rfq_id[:4].upper()):
            await pilot.press("slash")
            await pilot.press(*typed)
            await pilot.pause()
            assert set(pane.table.row_ids()) == wanted, typed
            await pilot.press("escape")
            await pilot.pause()
