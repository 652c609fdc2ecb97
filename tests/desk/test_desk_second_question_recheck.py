"""The guardrails' second question looks at the venue again on its own ``s``, as the first
confirmation does on ``y`` (trial #5): a quote replaced, pulled or expired between the key and
the ``s`` is shown again, never traded.

The tester's case: b → y → "Check again … (quote 5feced35)"; the maker replaced the quote while
the question was open; ``s`` sent the accept on the dead quote and the venue refused it.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import alpha_quotes_my_rfq
from tui.api.models import LegQuote, ReplaceQuoteRequest, UseExistingPool
from tui.api.writes import WriteKind
from tui.desk.guardrails import GuardrailSettings
from tui.desk.messages import Topic
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.rfq_inbox import RfqInbox


async def _second_question(app: Any, pilot: Any, rfq: Any) -> ConfirmScreen:
    """b on ALPHA's quote, y to the first confirmation: the notional guardrail asks again."""
    await refresh(app, pilot, Topic.COMPANIES, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED, Topic.POOLS)
    app.query_one(RfqInbox).select("sent", rfq.rfq_id)
    await pilot.pause()
    app.query_one(QuoteBoard).table.focus()
    await pilot.press("b", "y")
    await settle(app, pilot)
    check = app.screen
    assert isinstance(check, ConfirmScreen) and check.second_question
    return check


def _accepts(app: Any) -> list[Any]:
    return [e for e in app.writes.entries() if e.intent.kind is WriteKind.ACCEPT]


async def test_a_quote_replaced_before_the_s_is_shown_again_not_traded(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk(guardrails=GuardrailSettings(max_notional=Decimal(1000)))
    rfq, quote = await alpha_quotes_my_rfq(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        check = await _second_question(app, pilot, rfq)
        async with sandbox.client("ALPHA") as alpha:  # the maker moves while the trader reads
            (seen,) = (await alpha.rfqs_received(id=rfq.rfq_id)).result
            price = quote.aggregated_ask + 7
            newer = await alpha.quotes_replace(
                ReplaceQuoteRequest(
                    parent_quote_id=quote.parent_quote_id,
                    rfq_id=rfq.rfq_id,
                    expires_at=sandbox.clock.now() + timedelta(seconds=60),
                    leg_quotes=[
                        LegQuote(target_rfq_leg_id=leg.rfq_leg_id, bid=price - 20, ask=price)
                        for leg in seen.rfq_legs
                    ],
                    pool_strategy=UseExistingPool(pool_id=quote.pool_location),
                )
            )
        await pilot.press("s")
        await settle(app, pilot)
        assert _accepts(app) == []  # nothing sent on the replaced quote
        assert app.screen is check
        assert "Not sent: ALPHA replaced the quote" in check.body
        assert str(price) in check.body.replace(",", "")  # the new ask, shown again

        # The newer quote is a new question: y re-checks it, then the guardrail asks again.
        await pilot.press("y")
        await settle(app, pilot)
        again = app.screen
        assert isinstance(again, ConfirmScreen) and again.second_question
        assert newer.parent_quote_id[:8] in again.title_text
        await pilot.press("s")
        await settle(app, pilot)
        (entry,) = _accepts(app)
        assert entry.outcome == "landed"
        assert entry.intent.payload["parent_quote_id"] == newer.parent_quote_id


async def test_a_quote_pulled_before_the_s_sends_nothing(sandbox: Any, desk: DeskFactory) -> None:
    app = desk(guardrails=GuardrailSettings(max_notional=Decimal(1000)))
    rfq, quote = await alpha_quotes_my_rfq(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        check = await _second_question(app, pilot, rfq)
        async with sandbox.client("ALPHA") as alpha:
            assert await alpha.quotes_cancel(quote.parent_quote_id)
        await pilot.press("s")
        await settle(app, pilot)
        assert _accepts(app) == []
        assert app.screen is check and "Not sent: ALPHA pulled the quote" in check.body
        await pilot.press("s", "y")  # nothing left to trade: neither key sends
        await settle(app, pilot)
        assert _accepts(app) == []
        await pilot.press("n")
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmScreen)
