"""Figures shown exactly: a price or an amount the trader typed, or the venue sent, keeps every
significant decimal it has wherever the desk shows it, and an amount of USDC is never shown
smaller than it is.

The tester's case: as maker, bid 167.60001 on SOL-PERP; the journal said ``167.60001`` but the
toast and the last look said ``167.6000`` (a price rounded to four places).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from textual.widgets import Input, Select

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import accept, perp_rfq
from tui.api.models import TradeSide
from tui.desk.clearing import NextStep
from tui.desk.messages import Topic
from tui.desk.widgets.common import fmt
from tui.desk.widgets.quote_form import NEW_POOL
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.trade_tracker import TradeTracker

D = Decimal


@pytest.mark.parametrize(
    ("value", "in_a_column", "in_a_sentence"),
    [
        ("167.60001", "167.60001", "167.60001"),
        ("98342.123456", "98,342.123456", "98,342.123456"),
        ("0.000184125317", "0.000184125317", "0.000184125317"),
        ("167.6000", "167.60", "167.6"),
        ("2500", "2,500.00", "2,500"),
        ("-3.25", "-3.25", "-3.25"),
    ],
)
def test_a_price_keeps_every_significant_decimal(
    value: str, in_a_column: str, in_a_sentence: str
) -> None:
    assert fmt.price(D(value)) == in_a_column  # zeros only to line a column up
    assert fmt.exact(D(value)) == in_a_sentence  # no zero added


def test_an_amount_of_usdc_is_never_shown_smaller_than_it_is() -> None:
    assert fmt.usdc(D("2343.367749")) == "2,343.367749"
    assert fmt.usdc(D("738470.19")) == "738,470.19"
    assert fmt.usdc(D("500")) == "500.00"
    # A figure finer than USDC's 6 places is shown as it is, not rounded down.
    assert fmt.usdc(D("0.0000004")) == "0.0000004"
    # A figure derived to be read is rounded; it is never an amount of an asset.
    assert fmt.money(D("23604.7841408")) == "23,604.78"


def test_a_column_lines_up_without_dropping_a_digit() -> None:
    assert fmt.places_of(D("167.6"), D("0.123456789012")) == 12
    assert fmt.places_of(D("1E+3"), D("2.50")) == 2
    # Past the context's 28 digits of precision, nothing is rounded either.
    long = D("1234567890.123456789012345678901")
    assert fmt.exact(long) == "1,234,567,890.123456789012345678901"


async def test_a_maker_bid_reads_as_typed_in_the_toast_and_the_last_look(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        async with sandbox.client("ALPHA") as alpha:
            rfq = await alpha.rfqs_new(
                perp_rfq([sandbox.company_ids["DESK"]], "140.84", sandbox.clock.now(), "SOL")
            )
            await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS, Topic.STATS)
            app.query_one(RfqInbox).select("received", rfq.rfq_id)
            await pilot.pause()
            ticket = app.query_one(QuoteTicket)
            assert ticket.query_one("#pool", Select).value != NEW_POOL  # ALPHA's funded pool
            prefilled = D(ticket.query_one("#bid-0", Input).value)
            bid = prefilled.quantize(D("0.01")) + D("0.00001")  # five places, as typed
            ticket.set_leg_prices(0, str(bid), ticket.query_one("#ask-0", Input).value)
            ticket.query_one("#bid-0", Input).focus()
            await pilot.press("ctrl+s")
            await settle(app, pilot)
            toasts = [n.message for n in app._notifications]
            typed = f"{bid:,f}"  # every place, as typed
            assert any(f"bid {typed} ask" in toast for toast in toasts), toasts

            await refresh(app, pilot, Topic.QUOTES_SENT)
            (quote,) = app.book.my_quotes_on(rfq.rfq_id)
            assert quote.aggregated_bid == bid
            await accept(alpha, quote, TradeSide.SELL)  # ALPHA sells: DESK buys at its bid
        await refresh(app, pilot, Topic.QUOTES_SENT)
        (trade,) = app.book.needs_me()
        assert trade.next_step is NextStep.LAST_LOOK
        prompt = str(app.query_one(TradeTracker).options.get_option_at_index(0).prompt)
        assert f"x140.84 @ {bid:,f} vs" in prompt, prompt
