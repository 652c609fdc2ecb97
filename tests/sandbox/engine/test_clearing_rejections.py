"""Every way a trade fails: accept refusals, deadlines, funding, risk and pool creation."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.sandbox.kit import Kit, expect_error
from tui.api.models import (
    AcceptQuoteRequest,
    ClearingStatus,
    ErrorCode,
    LegQuote,
    RFQStatus,
    TradeSide,
)
from tui.sandbox.engine.clearing import DEPOSIT_APPROVAL_S, LAST_LOOK_MIN_S

D = Decimal
S = ClearingStatus


@pytest.fixture
def kit(tmp_path):
    k = Kit(tmp_path / "rejections.db")
    yield k
    k.close()


def quote_status(kit, name, quote):
    return kit.my_quote(name, quote.parent_quote_id).model_extra["quote_status"]


def funded_pool(kit, maker, *, desk="0", maker_funds="0", name="p"):
    pool = kit.new_pool("DESK", maker, name=name)
    kit.advance(2)
    if desk != "0":
        kit.deposit("DESK", pool.pool_id, desk)
    if maker_funds != "0":
        kit.deposit(maker, pool.pool_id, maker_funds)
    return kit.pool("DESK", pool.pool_id)


# -- accept refusals -------------------------------------------------------------------------


def test_accept_after_the_rfq_expired_is_recorded_and_refused(kit):
    rfq = kit.rfq(expires_in=60)
    quote = kit.quote("ALPHA", rfq, expires_in=60)
    kit.advance(60)
    assert kit.my_rfq("DESK", rfq.rfq_id).rfq_status == RFQStatus.EXPIRED
    with expect_error(ErrorCode.CONFLICT, "rejected_failed_taker_accept_rfq_expired"):
        kit.accept("DESK", quote)
    seen = kit.my_quote("ALPHA", quote.parent_quote_id)
    assert seen.clearing_status == S.REJECTED_FAILED_TAKER_ACCEPT_RFQ_EXPIRED
    assert seen.model_extra["quote_status"] == "void"
    assert seen.clearing_events[-1].taker_side == "buy"
    assert kit.my_rfq("DESK", rfq.rfq_id).clearing_status == (
        S.REJECTED_FAILED_TAKER_ACCEPT_RFQ_EXPIRED
    )


def test_accept_after_the_quote_expired_is_recorded_and_refused(kit):
    rfq = kit.rfq()
    quote = kit.quote("ALPHA", rfq, expires_in=30)
    kit.advance(30)
    assert quote_status(kit, "ALPHA", quote) == "expired"
    with expect_error(ErrorCode.CONFLICT, "rejected_failed_taker_accept_quote_expired"):
        kit.accept("DESK", quote, "sell")
    assert kit.my_quote("DESK", quote.parent_quote_id).clearing_status == (
        S.REJECTED_FAILED_TAKER_ACCEPT_QUOTE_EXPIRED
    )
    assert kit.my_rfq("DESK", rfq.rfq_id).rfq_status == RFQStatus.OPEN


def test_accept_of_a_canceled_or_missing_quote_is_no_quote(kit):
    rfq = kit.rfq()
    quote = kit.quote("ALPHA", rfq)
    kit.ex.quotes_cancel(kit["ALPHA"], _cancel(quote.parent_quote_id))
    with expect_error(ErrorCode.CONFLICT, "rejected_failed_taker_accept_no_quote"):
        kit.accept("DESK", quote)
    assert kit.my_quote("ALPHA", quote.parent_quote_id).clearing_status == (
        S.REJECTED_FAILED_TAKER_ACCEPT_NO_QUOTE
    )
    missing = AcceptQuoteRequest(
        parent_quote_id="00000000-0000-4000-8000-000000000000",
        rfq_id=rfq.rfq_id,
        side=TradeSide.BUY,
    )
    with expect_error(ErrorCode.CONFLICT, "rejected_failed_taker_accept_no_quote"):
        kit.ex.quotes_accept(kit["DESK"], missing)


def _cancel(quote_id):
    from tui.api.models import CancelRequest

    return CancelRequest(id=quote_id)


def test_accept_of_a_side_the_quote_does_not_make_is_out_of_range(kit):
    rfq = kit.rfq()
    quote = kit.quote("ALPHA", rfq, ask=False)
    assert quote.aggregated_ask is None
    with expect_error(ErrorCode.OUT_OF_RANGE, "side"):
        kit.accept("DESK", quote, "buy")
    assert quote_status(kit, "ALPHA", quote) == "open"  # nothing recorded, still takeable
    assert kit.accept("DESK", quote, "sell").new_clearing_status == S.PENDING_MAKER_LAST_LOOK


def test_only_the_taker_may_accept(kit):
    rfq = kit.rfq(targets=("ALPHA", "BORE"))
    quote = kit.quote("ALPHA", rfq)
    with expect_error(ErrorCode.NOT_FOUND, "rfq_id"):
        kit.accept("BORE", quote)
    with expect_error(ErrorCode.NOT_FOUND, "rfq_id"):
        kit.accept("ALPHA", quote)


def test_one_trade_per_rfq_until_it_fails(kit):
    rfq = kit.rfq(targets=("ALPHA", "BORE"))
    first = kit.quote("ALPHA", rfq)
    second = kit.quote("BORE", rfq, new_pool="desk-bore")
    kit.accept("DESK", first)
    with expect_error(ErrorCode.CONFLICT, "another quote"):
        kit.accept("DESK", second)
    with expect_error(ErrorCode.CONFLICT, "already accepted"):
        kit.accept("DESK", first)
    answer = kit.last_look("ALPHA", first, "reject")
    assert answer.new_clearing_status == S.REJECTED_MAKER_LAST_LOOK_REJECTED
    assert quote_status(kit, "ALPHA", first) == "failed"
    assert kit.my_rfq("DESK", rfq.rfq_id).rfq_status == RFQStatus.OPEN
    with expect_error(ErrorCode.CONFLICT, "rejected_failed_taker_accept_no_quote"):
        kit.accept("DESK", first)  # a failed quote is not open any more
    assert kit.accept("DESK", second).new_clearing_status == S.PENDING_POOL_CREATION


def test_accepting_the_live_quote_again_after_the_rfq_expired_changes_nothing(kit):
    rfq = kit.rfq(expires_in=20)
    quote = kit.quote("ALPHA", rfq, expires_in=20)
    kit.advance(15)
    assert kit.accept("DESK", quote).new_clearing_status == S.PENDING_MAKER_LAST_LOOK
    kit.advance(6)  # past the RFQ's expiry; the last look runs until accept + 10 s
    before = kit.my_quote("ALPHA", quote.parent_quote_id)
    with expect_error(ErrorCode.CONFLICT, "parent_quote_id: the quote is already accepted"):
        kit.accept("DESK", quote)
    after = kit.my_quote("ALPHA", quote.parent_quote_id)
    assert after.clearing_status == S.PENDING_MAKER_LAST_LOOK
    assert after.clearing_events == before.clearing_events
    assert after.model_extra["quote_status"] == "accepted"
    # The trade under way is intact: the maker can still book it.
    assert kit.last_look("ALPHA", quote).new_clearing_status == S.SUCCESS_TRADES_BOOKED_INTO_POOL
    assert kit.my_rfq("DESK", rfq.rfq_id).rfq_status == RFQStatus.CLOSED


def test_accepting_a_quote_the_maker_rejected_keeps_its_final_status(kit):
    rfq = kit.rfq()
    quote = kit.quote("ALPHA", rfq)
    kit.accept("DESK", quote)
    kit.last_look("ALPHA", quote, "reject")
    before = kit.my_quote("ALPHA", quote.parent_quote_id)
    assert before.clearing_status == S.REJECTED_MAKER_LAST_LOOK_REJECTED
    with expect_error(ErrorCode.CONFLICT, "rejected_failed_taker_accept_no_quote"):
        kit.accept("DESK", quote)
    kit.advance(400)  # and once the RFQ expired too
    with expect_error(ErrorCode.CONFLICT, "rejected_failed_taker_accept_rfq_expired"):
        kit.accept("DESK", quote)
    after = kit.my_quote("ALPHA", quote.parent_quote_id)
    assert after.clearing_status == S.REJECTED_MAKER_LAST_LOOK_REJECTED
    assert after.clearing_events == before.clearing_events
    assert after.model_extra["quote_status"] == "failed"


def test_a_final_status_is_never_rewritten(kit):
    from tui.sandbox.engine.records import load_quote

    rfq = kit.rfq()
    quote = kit.quote("ALPHA", rfq)
    kit.accept("DESK", quote)
    kit.last_look("ALPHA", quote)
    stored = load_quote(kit.ex.store, quote.parent_quote_id)
    with pytest.raises(RuntimeError, match="final status"), kit.ex.store.transaction():
        kit.ex.clearing.fail(stored, S.REJECTED_FAILED_ATOMIC_DEPOSIT, kit.clock.now_ms())
    assert kit.my_quote("ALPHA", quote.parent_quote_id).clearing_status == (
        S.SUCCESS_TRADES_BOOKED_INTO_POOL
    )


def test_accept_on_closed_or_canceled_rfqs_conflicts(kit):
    rfq = kit.rfq()
    quote = kit.quote("ALPHA", rfq)
    kit.accept("DESK", quote)
    kit.last_look("ALPHA", quote)
    with expect_error(ErrorCode.CONFLICT, "closed"):
        kit.accept("DESK", quote)
    other = kit.rfq()
    other_quote = kit.quote("ALPHA", other)
    kit.ex.rfqs_cancel(kit["DESK"], _cancel(other.rfq_id))
    with expect_error(ErrorCode.CONFLICT, "canceled"):
        kit.accept("DESK", other_quote)


# -- last look --------------------------------------------------------------------------------


def test_last_look_only_by_the_maker_and_only_when_pending(kit):
    rfq = kit.rfq(targets=("ALPHA", "BORE"))
    quote = kit.quote("ALPHA", rfq)
    with expect_error(ErrorCode.CONFLICT, "not pending_maker_last_look"):
        kit.last_look("ALPHA", quote)
    kit.accept("DESK", quote)
    with expect_error(ErrorCode.NOT_FOUND, "parent_quote_id"):
        kit.last_look("BORE", quote)
    with expect_error(ErrorCode.NOT_FOUND, "parent_quote_id"):
        kit.last_look("DESK", quote)
    kit.last_look("ALPHA", quote)
    with expect_error(ErrorCode.CONFLICT, "success_trades_booked_into_pool"):
        kit.last_look("ALPHA", quote, "reject")


def test_last_look_expires_with_the_quote(kit):
    rfq = kit.rfq()
    quote = kit.quote("ALPHA", rfq, expires_in=120)
    kit.accept("DESK", quote)
    kit.advance(119)
    assert kit.my_quote("ALPHA", quote.parent_quote_id).clearing_status == (
        S.PENDING_MAKER_LAST_LOOK
    )
    kit.advance(1)
    assert kit.my_quote("ALPHA", quote.parent_quote_id).clearing_status == (
        S.REJECTED_MAKER_LAST_LOOK_EXPIRED
    )
    with expect_error(ErrorCode.CONFLICT):
        kit.last_look("ALPHA", quote)
    assert kit.my_rfq("DESK", rfq.rfq_id).rfq_status == RFQStatus.OPEN


def test_last_look_gets_a_minimum_window(kit):
    rfq = kit.rfq()
    quote = kit.quote("ALPHA", rfq, expires_in=3)
    kit.advance(2)
    kit.accept("DESK", quote)
    kit.advance(LAST_LOOK_MIN_S - 1)
    assert kit.my_quote("ALPHA", quote.parent_quote_id).clearing_status == (
        S.PENDING_MAKER_LAST_LOOK
    )
    kit.advance(1)
    assert kit.my_quote("ALPHA", quote.parent_quote_id).clearing_status == (
        S.REJECTED_MAKER_LAST_LOOK_EXPIRED
    )


def test_a_failed_trade_after_the_rfq_expiry_expires_the_rfq(kit):
    rfq = kit.rfq(expires_in=20)
    quote = kit.quote("ALPHA", rfq, expires_in=20)
    kit.accept("DESK", quote)
    kit.advance(25)  # the RFQ expiry passes while the trade waits for last look
    assert kit.my_rfq("DESK", rfq.rfq_id).rfq_status == RFQStatus.EXPIRED
    assert kit.my_quote("ALPHA", quote.parent_quote_id).clearing_status == (
        S.REJECTED_MAKER_LAST_LOOK_EXPIRED
    )


# -- deposit approvals and funding -------------------------------------------------------------


def test_taker_deposit_approval_times_out(kit):
    rfq = kit.rfq(targets=("BORE",))
    quote = kit.quote("BORE", rfq, new_pool="n1")
    kit.accept("DESK", quote)
    kit.advance(2)
    assert kit.my_quote("DESK", quote.parent_quote_id).clearing_status == (
        S.PENDING_TAKER_DEPOSIT_APPROVAL
    )
    kit.advance(DEPOSIT_APPROVAL_S - 1)
    assert kit.my_quote("DESK", quote.parent_quote_id).clearing_status == (
        S.PENDING_TAKER_DEPOSIT_APPROVAL
    )
    kit.advance(1)
    assert kit.my_quote("DESK", quote.parent_quote_id).clearing_status == (
        S.REJECTED_FAILED_TAKER_DEPOSIT_APPROVAL
    )


def test_maker_deposit_approval_times_out(kit):
    pool = funded_pool(kit, "BORE", desk="100000")
    rfq = kit.rfq(targets=("BORE",))
    quote = kit.quote("BORE", rfq, pool=pool.pool_id)
    assert kit.accept("DESK", quote).new_clearing_status == S.PENDING_MAKER_LAST_LOOK
    answer = kit.last_look("BORE", quote)
    assert answer.new_clearing_status == S.PENDING_MAKER_DEPOSIT_APPROVAL
    kit.advance(DEPOSIT_APPROVAL_S)
    assert kit.my_quote("BORE", quote.parent_quote_id).clearing_status == (
        S.REJECTED_FAILED_MAKER_DEPOSIT_APPROVAL
    )
    assert kit.ex.portfolio_trades(kit["DESK"], limit=10, offset=0).items == []


def test_taker_funding_fails_when_the_allowance_was_used_meanwhile(kit):
    pool = funded_pool(kit, "BORE", maker_funds="100000")
    rfq = kit.rfq(targets=("BORE",))
    quote = kit.quote("BORE", rfq, pool=pool.pool_id)
    need = kit.accept("DESK", quote).pending_deposits_sum_qty
    kit.permit("DESK", pool.data.address, need)
    assert kit.last_look("BORE", quote).new_clearing_status == S.PENDING_ATOMIC_DEPOSIT
    kit.transfer("DESK", pool.pool_id, str(need))  # spends the allowance before the block
    kit.advance(2)
    assert kit.my_quote("DESK", quote.parent_quote_id).clearing_status == (
        S.REJECTED_FAILED_TAKER_FUNDING
    )


def test_maker_funding_fails_when_the_allowance_was_used_meanwhile(kit):
    pool = funded_pool(kit, "DUNE", desk="100000")
    rfq = kit.rfq(targets=("DUNE",))
    quote = kit.quote("DUNE", rfq, pool=pool.pool_id)
    kit.accept("DESK", quote)
    kit.permit("DUNE", pool.data.address, D(20_000))
    answer = kit.last_look("DUNE", quote)
    assert answer.new_clearing_status == S.PENDING_ATOMIC_DEPOSIT
    kit.transfer("DUNE", pool.pool_id, "20000")
    kit.advance(2)
    assert kit.my_quote("DUNE", quote.parent_quote_id).clearing_status == (
        S.REJECTED_FAILED_MAKER_FUNDING
    )


# -- risk, reduce-only and pool creation -------------------------------------------------------


def test_fat_finger_price_fails_the_risk_check(kit):
    rfq = kit.rfq()
    mark = kit.mark(kit.perp())
    legs = [LegQuote(target_rfq_leg_id=rfq.rfq_legs[0].rfq_leg_id, bid=mark, ask=mark * 2)]
    quote = kit.quote("ALPHA", rfq, leg_quotes=legs)
    with expect_error(ErrorCode.CONFLICT, "rejected_failed_risk_checks: leg_quotes\\[0\\]"):
        kit.accept("DESK", quote)
    assert kit.my_quote("ALPHA", quote.parent_quote_id).clearing_status == (
        S.REJECTED_FAILED_RISK_CHECKS
    )
    assert quote_status(kit, "ALPHA", quote) == "failed"
    assert kit.my_rfq("DESK", rfq.rfq_id).rfq_status == RFQStatus.OPEN


def test_oversized_trade_fails_the_risk_check(kit):
    rfq = kit.rfq(qty="1100")
    quote = kit.quote("ALPHA", rfq)
    with expect_error(ErrorCode.CONFLICT, "rejected_failed_risk_checks: qty"):
        kit.accept("DESK", quote)


def test_an_expired_instrument_only_reduces_positions(kit):
    option = kit.option(strike="90000", expires_in_s=60)  # in the money: priced > 0
    rfq = kit.rfq(legs=[("buy", option)])
    quote = kit.quote("ALPHA", rfq, expires_in=200)
    kit.advance(61)
    with expect_error(ErrorCode.CONFLICT, "rejected_failed_reduce_only_check"):
        kit.accept("DESK", quote)
    assert kit.my_quote("DESK", quote.parent_quote_id).clearing_status == (
        S.REJECTED_FAILED_REDUCE_ONLY_CHECK
    )


def test_second_pool_with_the_same_name_fails_creation(kit):
    first_rfq = kit.rfq(targets=("CBLT",))
    second_rfq = kit.rfq(targets=("CBLT",))
    first = kit.quote("CBLT", first_rfq, new_pool="twin")
    second = kit.quote("CBLT", second_rfq, new_pool="twin")
    kit.accept("DESK", first)
    pending = kit.accept("DESK", second).pending_settlement_pool
    kit.advance(2)
    assert kit.my_quote("DESK", first.parent_quote_id).clearing_status == (
        S.PENDING_TAKER_DEPOSIT_APPROVAL
    )
    assert kit.my_quote("DESK", second.parent_quote_id).clearing_status == (
        S.REJECTED_FAILED_POOL_CREATION
    )
    failed = kit.pool("DESK", pending.id)
    assert failed.data.status == "canceled"
    assert "twin" in failed.error
    assert kit.my_rfq("DESK", second_rfq.rfq_id).rfq_status == RFQStatus.OPEN
