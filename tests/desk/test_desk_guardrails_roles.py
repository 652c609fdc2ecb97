"""The guardrails in the roles, against the sandbox: a quote or an accept past them is asked a
second time, saying why, and "no" sends nothing (the journal and the venue both show it);
within them, no second question.

The sums the roles check (a quote's package price and notional, a spread's reference) are
tested here too, on records.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from textual.widgets import Input

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.fakes import NOW
from tests.desk.kit.records import POOL_ID, RFQ_ID
from tests.desk.kit.venue import alpha_quotes_my_rfq, perp_rfq
from tui.api.models import (
    RFQ,
    DatedFutureInstrument,
    Leg,
    MarketStats,
    NewQuoteRequest,
    PerpetualFutureInstrument,
    Structure,
    TradeSide,
)
from tui.api.writes import WriteKind
from tui.desk.book import DeskBook
from tui.desk.guardrails import GuardrailSettings
from tui.desk.messages import Topic
from tui.desk.roles.guard import fair_reference, quoted_notional, quoted_package
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.quote_figures import listing_marks, structure_pricing
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox

CENT = Decimal("0.01")


async def _ticket_on_embr_rfq(sandbox: Any, app: Any, pilot: Any) -> tuple[RFQ, QuoteTicket]:
    """EMBR asks DESK for 1 BTC perpetual; the ticket opens on it."""
    await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
    async with sandbox.client("EMBR") as embr:
        rfq = await embr.rfqs_new(perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now()))
    await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS, Topic.STATS)
    app.query_one(RfqInbox).select("received", rfq.rfq_id)
    await pilot.pause()
    ticket = app.query_one(QuoteTicket)
    assert ticket.rfq is not None and ticket.rfq.rfq_id == rfq.rfq_id
    return app.book.rfqs_received[rfq.rfq_id], ticket


async def _quotes_on(sandbox: Any, rfq_id: str) -> list[Any]:
    async with sandbox.client("EMBR") as embr:
        return [q for q in (await embr.quotes_received()).result if q.target_rfq_id == rfq_id]


async def test_a_quote_500_bps_off_fair_asks_again_saying_why_and_no_sends_nothing(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        rfq, ticket = await _ticket_on_embr_rfq(sandbox, app, pilot)
        assert rfq.structure_price is not None and rfq.structure_price.price is not None
        fair = rfq.structure_price.price
        ticket.set_leg_prices(0, str((fair * Decimal("0.95")).quantize(CENT)), str(fair + 5))
        ticket.query_one("#bid-0", Input).focus()
        await pilot.press("ctrl+s")
        await pilot.pause()

        check = app.screen
        assert isinstance(check, ConfirmScreen) and check.danger
        assert check.title_text.startswith("Check again: quote on RFQ")
        assert "is 500 bps below fair value" in check.body and "(limit 300 bps)" in check.body
        assert "notional" not in check.body  # 1 BTC is well under the notional limit
        await pilot.press("n")
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        assert app.writes.entries() == []  # nothing journaled: nothing left
        assert await _quotes_on(sandbox, rfq.rfq_id) == []

        # Within the guardrails (the ticket's own prices, 10 bps either side): no question.
        ticket.set_leg_prices(0, str(fair - 10), str(fair + 10))
        ticket.query_one("#bid-0", Input).focus()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        await settle(app, pilot)
        (entry,) = app.writes.entries()
        assert entry.intent.kind is WriteKind.QUOTE and entry.outcome == "landed"
        assert len(await _quotes_on(sandbox, rfq.rfq_id)) == 1


async def test_yes_to_the_second_question_sends_the_quote(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        rfq, ticket = await _ticket_on_embr_rfq(sandbox, app, pilot)
        assert rfq.structure_price is not None and rfq.structure_price.price is not None
        fair = rfq.structure_price.price
        ticket.set_leg_prices(0, str(fair - 10), str((fair * Decimal("1.05")).quantize(CENT)))
        ticket.query_one("#bid-0", Input).focus()
        await pilot.press("ctrl+s")
        await pilot.pause()
        check = app.screen
        assert isinstance(check, ConfirmScreen) and "bps above fair value" in check.body
        await pilot.press("s")
        await settle(app, pilot)
        (entry,) = app.writes.entries()
        assert entry.intent.kind is WriteKind.QUOTE
        assert len(await _quotes_on(sandbox, rfq.rfq_id)) == 1


async def _buy_from_the_board(app: Any, pilot: Any, rfq: RFQ) -> None:
    """Select my RFQ, buy its quote at the ask, and say yes to the first confirmation."""
    await refresh(app, pilot, Topic.COMPANIES, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED, Topic.POOLS)
    app.query_one(RfqInbox).select("sent", rfq.rfq_id)
    await pilot.pause()
    app.query_one(QuoteBoard).table.focus()
    await pilot.press("b")
    await pilot.pause()
    first = app.screen
    assert isinstance(first, ConfirmScreen) and not first.danger
    await pilot.press("y")
    await settle(app, pilot)  # the re-check of the quote on the venue


async def test_an_accept_over_the_notional_limit_asks_again_and_no_sends_nothing(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk(guardrails=GuardrailSettings(max_notional=Decimal(1000)))
    rfq, quote = await alpha_quotes_my_rfq(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        await _buy_from_the_board(app, pilot, rfq)
        check = app.screen
        assert isinstance(check, ConfirmScreen) and check.danger
        assert check.title_text.startswith("Check again: BUY at")
        assert "is over the limit of 1,000 USDC" in check.body
        assert "fair value" not in check.body  # ALPHA's ask is 10 bps from fair
        await pilot.press("n")
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        assert [e for e in app.writes.entries() if e.intent.kind is WriteKind.ACCEPT] == []
        async with sandbox.client("DESK") as mine:
            (seen,) = (await mine.quotes_received(id=quote.parent_quote_id)).result
        assert seen.clearing_status is None  # the venue has no accept

        # Asked again and confirmed twice, it goes.
        await _buy_from_the_board(app, pilot, rfq)
        assert isinstance(app.screen, ConfirmScreen) and app.screen.danger
        await pilot.press("s")
        await settle(app, pilot)
        (entry,) = [e for e in app.writes.entries() if e.intent.kind is WriteKind.ACCEPT]
        assert entry.outcome == "landed"


async def test_a_y_typed_ahead_never_answers_the_second_question(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk(guardrails=GuardrailSettings(max_notional=Decimal(1000)))
    rfq, _quote = await alpha_quotes_my_rfq(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        await refresh(
            app, pilot, Topic.COMPANIES, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED, Topic.POOLS
        )
        app.query_one(RfqInbox).select("sent", rfq.rfq_id)
        await pilot.pause()
        app.query_one(QuoteBoard).table.focus()
        await pilot.press("b", "y", "y", "y")  # the trader hammers y through both questions
        await settle(app, pilot)
        check = app.screen
        assert isinstance(check, ConfirmScreen) and check.danger  # still asking, unanswered
        assert [e for e in app.writes.entries() if e.intent.kind is WriteKind.ACCEPT] == []
        await pilot.press("s")  # read, then answered with its own key
        await settle(app, pilot)
        (entry,) = [e for e in app.writes.entries() if e.intent.kind is WriteKind.ACCEPT]
        assert entry.outcome == "landed"


async def test_an_accept_within_the_guardrails_is_asked_once(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    rfq, _quote = await alpha_quotes_my_rfq(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        await _buy_from_the_board(app, pilot, rfq)
        assert not isinstance(app.screen, ConfirmScreen)
        (entry,) = app.writes.entries()
        assert entry.intent.kind is WriteKind.ACCEPT and entry.outcome == "landed"


# -- the sums the roles check --------------------------------------------------------------


def _calendar(fair: str) -> RFQ:
    """Buy 1 BTC perpetual, sell 1 BTC future (qty 2), priced at ``fair``."""
    structure = Structure(
        legs=[
            Leg(
                side=TradeSide.BUY, ratio=1, instrument=PerpetualFutureInstrument(underlying="BTC")
            ),
            Leg(
                side=TradeSide.SELL,
                ratio=1,
                instrument=DatedFutureInstrument(underlying="BTC", expiry=NOW + timedelta(days=30)),
            ),
        ]
    )
    return RFQ.model_validate(
        {
            "rfq_id": "r-1",
            "created_at": NOW,
            "structure": structure.model_dump(mode="json"),
            "rfq_expires_at": NOW + timedelta(minutes=5),
            "taker_company": "c-1",
            "rfq_status": "open",
            "qty": "2",
            "structure_price": {"price": fair},
            "rfq_legs": [
                {"rfq_leg_id": "a", "rfq_id": "r-1", "side": "buy", "qty": "2", "instrument": {}},
                {"rfq_leg_id": "b", "rfq_id": "r-1", "side": "sell", "qty": "2", "instrument": {}},
            ],
        }
    )


def _quote(legs: dict[str, tuple[str | None, str | None]]) -> NewQuoteRequest:
    return NewQuoteRequest(
        rfq_id=RFQ_ID,
        expires_at=NOW + timedelta(seconds=30),
        leg_quotes=[
            {"target_rfq_leg_id": leg, "bid": bid, "ask": ask} for leg, (bid, ask) in legs.items()
        ],
        pool_strategy={"strategy": "use_existing", "pool_id": POOL_ID},
    )


def test_a_spread_is_priced_as_the_venue_aggregates_it_and_its_notional_is_gross() -> None:
    rfq = _calendar("-150")
    request = _quote({"a": ("100000", "100010"), "b": ("100140", "100160")})
    # Bid: buy the perp at its bid, sell the future at its ask; ask: the other way round.
    assert quoted_package(rfq, request) == (Decimal(-160), Decimal(-130))
    # Taker buys: perp at 100010 and future at 100140, 2 each; sells: 100000 and 100160.
    assert quoted_notional(rfq, request) == Decimal(400320)
    one_sided = _quote({"a": ("100000", None), "b": ("100140", "100160")})
    assert quoted_package(rfq, one_sided) == (Decimal(-160), None)
    assert quoted_notional(rfq, one_sided) == Decimal(400320)  # only the taker selling trades
    assert quoted_package(rfq, _quote({"a": ("1", "2")})) == (None, None)  # a leg unpriced


def test_a_spread_takes_its_bps_against_the_base_the_board_shows() -> None:
    book = DeskBook()
    book.stats = MarketStats.model_validate(
        {
            "total_volume_24h": "0",
            "cumulative_volume": "0",
            "tvl": "0",
            "open_interest": "0",
            "num_markets": 1,
            "listings": [
                {
                    "ticker": "BTC",
                    "name": "Bitcoin",
                    "mark_price": "100000",
                    "volume_24h": "0",
                    "open_interest": {"long_open_interest": "0", "short_open_interest": "0"},
                    "funding_rate": "0",
                    "funding_interval_s": 3600,
                    "base_spread_bps": "1",
                    "quotes": {},
                }
            ],
        }
    )
    # The base of the board's and the ticket's edge (one home): the legs' gross value at the
    # mark, whatever the spread's own price; none without a mark.
    board = structure_pricing(_calendar("-150"), listing_marks(book.stats), NOW).reference
    assert board is not None and board > Decimal(200000)  # perp + future, 1 each, at ~100,000
    assert fair_reference(_calendar("-150"), book, NOW) == board
    assert fair_reference(_calendar("2500"), book, NOW) == board
    assert fair_reference(_calendar("-150"), DeskBook(), NOW) is None  # no mark known
