"""Fair value, edge and implied vol on every quote (issue 12): the board shows each quote's edge
against the structure price in price and bps and, on an option, its implied vol beside the mark
vol; the ticket shows the same for the maker's own quote and derives leg prices from a vol or a
package price typed into it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from textual.widgets import Input, Static

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import mark_plus, perp_rfq, pool_between, quote_at
from tui.api.models import (
    Leg,
    NewRfqRequest,
    Structure,
    TradeSide,
    VanillaOptionInstrument,
)
from tui.desk.analytics.black_scholes import option_value, years_between
from tui.desk.analytics.edge import structure_legs
from tui.desk.analytics.implied_vol import VOL_TOLERANCE, leg_prices, package_value
from tui.desk.messages import Topic
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.quote_figures import round_price
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox

EXPIRY = datetime(2026, 1, 30, 8, tzinfo=UTC)
STRIKE = Decimal(100000)
SANDBOX_BTC_OPTION_VOL = Decimal("0.55")
"""The vol the sandbox prices BTC options at (its listing's vol plus five points)."""


def call_rfq(targets: list[str], now: datetime, *legs: tuple[TradeSide, Decimal]) -> NewRfqRequest:
    """An RFQ for BTC calls (one leg per side and strike given), open five minutes."""
    return NewRfqRequest(
        structure=Structure(
            legs=[
                Leg(
                    side=side,
                    ratio=1,
                    instrument=VanillaOptionInstrument(
                        underlying="BTC", expiry=EXPIRY, strike=strike, payoff="call"
                    ),
                )
                for side, strike in legs
            ]
        ),
        qty=Decimal(1),
        expires_at=now + timedelta(minutes=5),
        target_companies=targets,
    )


def cell(board: QuoteBoard, quote_id: str, column: str) -> str:
    return str(board.table.cell_value(quote_id, column)).strip()


def btc_mark(app: Any) -> Decimal:
    return next(x.mark_price for x in app.book.stats.listings if x.ticker == "BTC")


async def test_the_board_shows_each_quotes_edge_in_bps_and_in_price(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS, Topic.STATS)
        async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
            rfq = await mine.rfqs_new(
                perp_rfq([sandbox.company_ids["ALPHA"]], "1", sandbox.clock.now())
            )
            (received,) = (await alpha.rfqs_received(id=rfq.rfq_id)).result
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            bid, ask = mark_plus(received, "-19.7"), mark_plus(received, "9.85")
            quote = await quote_at(
                alpha, received, sandbox.clock.now(), bid, ask, pool_id=pool.pool_id
            )
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        app.query_one(RfqInbox).select("sent", rfq.rfq_id)
        await pilot.pause()
        board = app.query_one(QuoteBoard)
        sent = app.book.rfqs_sent[rfq.rfq_id]
        assert sent.structure_price is not None and sent.structure_price.price is not None
        fair = sent.structure_price.price
        # Worked by hand: the maker earns fair - bid on the bid and ask - fair on the ask.
        bid_bps = ((fair - bid) / fair * 10_000).quantize(Decimal("0.1"))
        ask_bps = ((ask - fair) / fair * 10_000).quantize(Decimal("0.1"))
        assert cell(board, quote.parent_quote_id, "bid_bps") == f"{bid_bps:+}bp"
        assert cell(board, quote.parent_quote_id, "ask_bps") == f"{ask_bps:+}bp"
        assert cell(board, quote.parent_quote_id, "bid_edge") == f"{fair - bid:+,.2f}"
        assert cell(board, quote.parent_quote_id, "ask_edge") == f"{ask - fair:+,.2f}"
        # A perpetual has no vol: its board leaves the IV columns out, its edges in bps stay.
        shown = {str(key.value) for key in board.table.columns}
        assert "iv_bid" not in shown and {"bid_bps", "ask_bps"} <= shown
        assert "fair" in str(board.query_one("#board-head", Static).render())


async def test_an_option_quotes_implied_vol_round_trips_through_black_scholes(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS, Topic.STATS)
        now = sandbox.clock.now()
        spot = btc_mark(app)
        async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
            rfq = await mine.rfqs_new(
                call_rfq([sandbox.company_ids["ALPHA"]], now, (TradeSide.BUY, STRIKE))
            )
            (received,) = (await alpha.rfqs_received(id=rfq.rfq_id)).result
            legs = structure_legs(received.structure, spot, now)
            bid = package_value(legs, spot, Decimal("0.50"))
            ask = package_value(legs, spot, Decimal("0.61"))
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            quote = await quote_at(alpha, received, now, bid, ask, pool_id=pool.pool_id)
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        app.query_one(RfqInbox).select("sent", rfq.rfq_id)
        await pilot.pause()
        board = app.query_one(QuoteBoard)
        pricing = board.pricing_of(app.book.rfqs_sent[rfq.rfq_id])
        solved = pricing.implied_vol(ask)
        assert solved is not None and abs(solved - Decimal("0.61")) < Decimal(VOL_TOLERANCE)
        # ... and Black-Scholes at the solved vol gives the quote's price back.
        years = years_between(now, EXPIRY)
        again = option_value("call", spot, STRIKE, years, solved).price
        assert abs(again - ask) < Decimal("0.0001")
        # The mark vol is the sandbox's own option vol, solved from the structure price.
        assert pricing.mark_vol is not None
        assert abs(pricing.mark_vol - SANDBOX_BTC_OPTION_VOL) < Decimal(VOL_TOLERANCE)
        assert cell(board, quote.parent_quote_id, "iv_bid") == "50.00%"
        assert cell(board, quote.parent_quote_id, "iv_ask") == "61.00%"
        assert "mark vol 55.00%" in str(board.query_one("#board-head", Static).render())


async def _option_ticket(
    sandbox: Any, app: Any, pilot: Any, *legs: tuple[TradeSide, Decimal]
) -> Any:
    """ALPHA asks DESK for an option structure; DESK's ticket is on it."""
    await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
    async with sandbox.client("ALPHA") as alpha:
        rfq = await alpha.rfqs_new(
            call_rfq([sandbox.company_ids["DESK"]], sandbox.clock.now(), *legs)
        )
    await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS)
    app.query_one(RfqInbox).select("received", rfq.rfq_id)
    await pilot.pause()
    ticket = app.query_one(QuoteTicket)
    assert ticket.rfq is not None and ticket.rfq.rfq_id == rfq.rfq_id
    return ticket


async def test_the_ticket_derives_leg_prices_from_a_typed_vol_and_sends_them(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        ticket = await _option_ticket(sandbox, app, pilot, (TradeSide.BUY, STRIKE))
        now = sandbox.clock.now()
        spot = btc_mark(app)
        legs = structure_legs(ticket.rfq.structure, spot, now)
        # Half a vol point either side of the mark vol keeps the quote inside the guardrail.
        ticket.query_one("#vol-bid", Input).focus()
        await pilot.press(*"54.5")
        ticket.query_one("#vol-ask", Input).focus()
        await pilot.press(*"55.5")
        await pilot.pause()
        bid = round_price(leg_prices(legs, spot, Decimal("0.545"))[0])
        ask = round_price(leg_prices(legs, spot, Decimal("0.555"))[0])
        assert ticket.query_one("#bid-0", Input).value == str(bid)
        assert ticket.query_one("#ask-0", Input).value == str(ask)
        assert ticket.query_one("#vol-bid", Input).value == "54.5"  # as typed
        figures = str(ticket.query_one("#ticket-figures", Static).render())
        assert "mark vol 55.00%" in figures and "54.50%" in figures and "55.50%" in figures

        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await refresh(app, pilot, Topic.QUOTES_SENT)
        (sent,) = app.book.my_quotes_on(ticket.rfq.rfq_id)
        assert (sent.aggregated_bid, sent.aggregated_ask) == (bid, ask)


async def test_a_package_price_fills_the_legs_and_a_bad_vol_is_refused_under_its_field(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        spread = ((TradeSide.BUY, STRIKE), (TradeSide.SELL, Decimal(110000)))
        ticket = await _option_ticket(sandbox, app, pilot, *spread)
        before = ticket.query_one("#bid-0", Input).value

        ticket.query_one("#vol-bid", Input).focus()
        await pilot.press("x", "5")
        await pilot.pause()
        assert "'x5' is not a number" in str(ticket.query_one("#err-vol-bid", Static).render())
        assert ticket.query_one("#bid-0", Input).value == before  # nothing derived

        # The package ask: the buy leg's ask and the sell leg's bid make it, at one vol.
        ticket.query_one("#pkg-ask", Input).focus()
        await pilot.press(*"2000")
        await pilot.pause()
        now = sandbox.clock.now()
        spot = btc_mark(app)
        legs = structure_legs(ticket.rfq.structure, spot, now)
        vol = ticket.query_one("TicketPricing").pricing.implied_vol(Decimal(2000))
        assert vol is not None
        long_call, short_call = (round_price(p) for p in leg_prices(legs, spot, vol))
        assert ticket.query_one("#ask-0", Input).value == str(long_call)
        assert ticket.query_one("#bid-1", Input).value == str(short_call)
        assert abs(long_call - short_call - Decimal(2000)) <= Decimal("0.01")
        assert not ticket.query_one("#err-pkg-ask", Static).display

        # A leg typed by hand decides its side again: that side's package price is emptied.
        ticket.query_one("#ask-0", Input).focus()
        await pilot.press("backspace")
        await pilot.pause()
        assert ticket.query_one("#pkg-ask", Input).value == ""
