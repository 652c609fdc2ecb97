"""The maker and taker roles against a fake client: each action's calls, and its outcome.

No venue and no desk: a small host app runs the roles (`tests.desk.kit.fakes`), the fake
client answers from a table or refuses with an `ApiError`, and every test reads the one
`ActionOutcome` an action ends in: its kind, the records it is bound to, what the venue
returned or why not, and what it asks the feed to poll again.
"""

from __future__ import annotations

from decimal import Decimal

from tests.desk.kit.fakes import NOW, settle
from tests.desk.kit.journaled import JournaledHost as RoleHost
from tests.desk.kit.journaled import WritingClient as FakeClient
from tests.desk.kit.records import (
    ME,
    NEW_QUOTE_ID,
    OLD_RFQ,
    OTHER,
    POOL_ADDRESS,
    POOL_ID,
    QUOTE_ID,
    RFQ_ID,
    quote,
    quote_request,
    rfq,
    taker_book,
    waiting_trade,
)
from tests.desk.kit.venue import perp_rfq
from tui.api.errors import ApiError, Conflict, OutOfRange
from tui.api.models import (
    AcceptQuoteRequest,
    MakerLastLookRequest,
    MakerLastLookResponse,
    Page,
    PendingSettlementPool,
    Quote,
    QuoteAcceptResponse,
    ReplaceQuoteRequest,
    RequestAction,
    TradeSide,
)
from tui.desk.book import DeskBook
from tui.desk.messages import ActionKind, RecordIds, Topic
from tui.desk.pool_facts import DepositHint
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.widgets.common import fmt

SIZE = (100, 40)


# -- the maker ------------------------------------------------------------------------------


async def test_the_maker_sends_replaces_and_pulls_quotes() -> None:
    client = FakeClient(quotes_new=quote(), quotes_replace=quote(NEW_QUOTE_ID), quotes_cancel=True)
    host = RoleHost(client)
    async with host.run_test(size=SIZE) as pilot:
        request = quote_request()
        host.maker.send_quote(request)
        await settle(host, pilot)
        host.maker.send_quote(request, replaces=QUOTE_ID)
        await settle(host, pilot)
        host.maker.pull_quote(NEW_QUOTE_ID)
        await settle(host, pilot)

    assert client.names == ["quotes_new", "quotes_replace", "quotes_cancel"]
    # Issue 10: a quote goes out with a client_quote_id of its own, by which a quote whose
    # answer was lost is found again; the rest is the ticket's request as it was.
    sent_body = client.calls[0][1]
    assert sent_body.client_quote_id and request.client_quote_id is None
    assert sent_body == request.model_copy(update={"client_quote_id": sent_body.client_quote_id})
    replace = client.calls[1][1]
    assert isinstance(replace, ReplaceQuoteRequest) and replace.parent_quote_id == QUOTE_ID
    assert replace.leg_quotes == request.leg_quotes
    assert client.calls[2][1] == NEW_QUOTE_ID

    sent, replaced, pulled = host.outcomes
    assert [o.kind for o in host.outcomes] == [
        ActionKind.NEW_QUOTE,
        ActionKind.REPLACE_QUOTE,
        ActionKind.CANCEL_QUOTE,
    ]
    assert all(o.ok and not o.crashed for o in host.outcomes)
    assert sent.record.parent_quote_id == QUOTE_ID and sent.ids.rfq_id == RFQ_ID
    assert sent.summary == "quote 22222222 sent: bid 99 ask 101"
    assert sent.refresh == (Topic.QUOTES_SENT, Topic.RFQS_RECEIVED) and not sent.money
    assert replaced.ids == RecordIds(rfq_id=RFQ_ID, quote_id=QUOTE_ID)
    assert "replaced" in replaced.summary
    assert pulled.ids.quote_id == NEW_QUOTE_ID and pulled.summary == "quote 22222222 pulled"


async def test_a_refused_quote_ends_in_the_venues_reason_not_a_crash() -> None:
    refusal = OutOfRange("expires_at: must not outlive the RFQ")
    client = FakeClient(quotes_new=refusal)
    host = RoleHost(client)
    async with host.run_test(size=SIZE) as pilot:
        host.maker.send_quote(quote_request())
        await settle(host, pilot)
    (outcome,) = host.outcomes
    assert not outcome.ok and not outcome.crashed
    assert outcome.error is refusal
    assert outcome.problem == outcome.text == "expires_at: must not outlive the RFQ"
    assert outcome.refresh == () and outcome.record is None


async def test_the_maker_answers_a_last_look_and_the_book_keeps_the_deposit_hint() -> None:
    answer = MakerLastLookResponse(
        new_clearing_status="pending_maker_deposit_approval",
        pending_deposits_sum_qty=Decimal("1234.5"),
        settlement_pool_address=POOL_ADDRESS,
    )
    client = FakeClient(quotes_maker_last_look=answer)
    host = RoleHost(client)
    trade = waiting_trade("pending_maker_last_look")
    async with host.run_test(size=SIZE) as pilot:
        host.maker.last_look(trade, RequestAction.ACCEPT)
        await settle(host, pilot)
        client.answers["quotes_maker_last_look"] = Conflict("the quote has expired")
        host.maker.last_look(trade, RequestAction.REJECT)
        await settle(host, pilot)

    asked = client.calls[0][1]
    assert asked == MakerLastLookRequest(
        parent_quote_id=QUOTE_ID, rfq_id=RFQ_ID, action=RequestAction.ACCEPT
    )
    accepted, refused = host.outcomes
    assert accepted.ok and accepted.record is answer and accepted.money
    assert accepted.ids == RecordIds(rfq_id=RFQ_ID, quote_id=QUOTE_ID)
    assert accepted.summary == (
        f"last look accept: {fmt.status_words('pending_maker_deposit_approval')}"
    )
    assert Topic.TRADES in accepted.refresh and Topic.POOLS in accepted.refresh
    # A refused last look still looks at the quotes again: the trade may have moved on.
    assert not refused.ok and refused.refresh == (Topic.QUOTES_SENT,) and not refused.money

    book = DeskBook()
    book.apply(accepted)
    book.apply(refused)
    assert book.deposit_hints == {QUOTE_ID: DepositHint(Decimal("1234.5"), POOL_ADDRESS)}


# -- the taker ------------------------------------------------------------------------------


async def test_the_taker_accepts_only_after_the_confirmation() -> None:
    answer = QuoteAcceptResponse(
        new_clearing_status="pending_taker_deposit_approval",
        pending_deposits_sum_qty=Decimal(500),
        pending_settlement_pool=PendingSettlementPool(
            id=POOL_ID,
            created_at=NOW,
            status="open",
            company_creator=OTHER,
            address=POOL_ADDRESS,
        ),
    )
    # On y the quote is looked at again on the venue (issue 9): unchanged, so it is taken.
    fresh = Page[Quote](result=[quote(new_pool_name="DESK-ALPHA", quote_status="open")])
    client = FakeClient(quotes_accept=answer, quotes_received=fresh)
    host = RoleHost(client, book=taker_book())
    async with host.run_test(size=SIZE) as pilot:
        # Backing out sends nothing.
        host.taker.accept(RFQ_ID, QUOTE_ID, TradeSide.BUY, Decimal("101"))
        await pilot.pause()
        assert isinstance(host.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(host, pilot)
        assert client.calls == [] and host.outcomes == []

        host.taker.accept(RFQ_ID, QUOTE_ID, TradeSide.BUY, Decimal("101"))
        await pilot.pause()
        confirm = host.screen
        assert isinstance(confirm, ConfirmScreen)
        assert "BUY" in confirm.body and "ask of ALPHA" in confirm.body
        assert "premium   none (no option legs)" in confirm.body  # a perpetual has none
        assert "new pool 'DESK-ALPHA'" in confirm.body
        await pilot.press("y")
        await settle(host, pilot)

    assert client.calls == [
        ("quotes_received", {"id": QUOTE_ID}),
        (
            "quotes_accept",
            AcceptQuoteRequest(parent_quote_id=QUOTE_ID, rfq_id=RFQ_ID, side=TradeSide.BUY),
        ),
    ]
    (outcome,) = host.outcomes
    assert outcome.kind is ActionKind.ACCEPT_QUOTE and outcome.ok and outcome.money
    assert outcome.ids == RecordIds(rfq_id=RFQ_ID, quote_id=QUOTE_ID)
    assert outcome.record is answer
    assert outcome.refresh == (Topic.QUOTES_RECEIVED, Topic.RFQS_SENT, Topic.POOLS, Topic.TRADES)
    book = host.book
    book.apply(outcome)
    assert book.deposit_hints[QUOTE_ID] == DepositHint(Decimal(500), POOL_ADDRESS)


async def test_a_refused_accept_still_refreshes_the_board() -> None:
    client = FakeClient(quotes_accept=Conflict("the quote is no longer open"))
    host = RoleHost(client, book=taker_book())
    async with host.run_test(size=SIZE) as pilot:
        host.taker.accept_now(RFQ_ID, QUOTE_ID, TradeSide.SELL)
        await settle(host, pilot)
    (outcome,) = host.outcomes
    assert not outcome.ok and outcome.problem == "the quote is no longer open"
    assert outcome.refresh == (Topic.RFQS_SENT, Topic.QUOTES_RECEIVED) and not outcome.money
    host.book.apply(outcome)
    assert host.book.deposit_hints == {}


async def test_the_taker_cancels_an_rfq_and_files_a_sent_one_at_once() -> None:
    sent = rfq()
    client = FakeClient(rfqs_cancel=True, rfqs_new=sent)
    host = RoleHost(client, book=taker_book())
    builder = object()  # the form that waits for the answer
    async with host.run_test(size=SIZE) as pilot:
        host.taker.cancel_rfq(OLD_RFQ)
        await pilot.pause()
        assert isinstance(host.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(host, pilot)
        request = perp_rfq([OTHER, ME], "2", NOW)
        host.taker.send_rfq(builder, request)  # type: ignore[arg-type]
        await settle(host, pilot)

    assert client.calls == [("rfqs_cancel", OLD_RFQ), ("rfqs_new", request)]
    cancelled, filed = host.outcomes
    assert cancelled.ok and cancelled.ids.rfq_id == OLD_RFQ
    assert cancelled.summary == "RFQ 11111111 cancelled"
    assert cancelled.refresh == (Topic.RFQS_SENT,)
    assert filed.kind is ActionKind.NEW_RFQ and filed.form is builder
    assert filed.record is sent and filed.summary == "RFQ 11111111 sent to 2 companies"

    # The venue's answer is in the book before any poll; a poll that lists it takes over.
    book = DeskBook()
    book.apply(filed)
    assert list(book.rfqs_sent) == [RFQ_ID] and book.filed_rfqs == {RFQ_ID: sent}


# -- the runner -----------------------------------------------------------------------------


async def test_not_connected_and_a_crash_are_outcomes_too() -> None:
    host = RoleHost(None)
    async with host.run_test(size=SIZE) as pilot:
        host.maker.pull_quote(QUOTE_ID)
        await settle(host, pilot)
        host.client = FakeClient(quotes_cancel=RuntimeError("boom"))
        host.maker.pull_quote(QUOTE_ID)
        (worker,) = host.workers
        await settle(host, pilot)
        assert isinstance(worker.error, RuntimeError)  # the desk reports a failed worker

    offline, crashed = host.outcomes
    assert isinstance(offline.error, ApiError) and offline.problem == "not connected"
    assert not offline.crashed
    # A crash reaches a waiting form (as a reason under its fields), and fails the worker.
    assert crashed.crashed and crashed.problem == "not sent: boom" and not crashed.ok
    assert crashed.kind is ActionKind.CANCEL_QUOTE
