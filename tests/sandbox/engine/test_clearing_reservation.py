"""Margin is reserved from accept to booking: two trades cannot both count on one balance, a
withdrawal cannot take money a trade under way counts on, and each side is re-checked just
before booking."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.sandbox.kit import Kit, expect_error
from tui.api.models import ClearingStatus, ErrorCode
from tui.sandbox.engine.seed import SEED_POOL_DEPOSITS

D = Decimal
S = ClearingStatus


@pytest.fixture
def kit(tmp_path):
    k = Kit(tmp_path / "reservation.db")
    yield k
    k.close()


def desk_margin(kit, pool_id):
    pool = kit.pool("DESK", pool_id)
    return next(p.margin_usage for p in pool.data.parties if p.company == kit.id("DESK"))


def test_a_second_trade_cannot_count_on_the_margin_of_one_still_clearing(kit):
    pool_id = kit.seed_pool_id()
    mark = kit.ex.market.mark_price("BTC")
    first_rfq, second_rfq = kit.rfq(qty="20"), kit.rfq(qty="20")
    first = kit.quote("ALPHA", first_rfq)
    second = kit.quote("ALPHA", second_rfq)
    # 20 BTC at 10 % initial margin fits the 250,000 USDC DESK holds ...
    assert kit.accept("DESK", first).new_clearing_status == S.PENDING_MAKER_LAST_LOOK
    # ... but not twice: the second trade waits for a deposit of the difference.
    accepted = kit.accept("DESK", second)
    assert accepted.new_clearing_status == S.PENDING_TAKER_DEPOSIT_APPROVAL
    both_im = 40 * mark * D("0.1")
    assert accepted.pending_deposits_sum_qty >= both_im - SEED_POOL_DEPOSITS["DESK"]
    with expect_error(ErrorCode.CONFLICT, "not pending_maker_last_look"):
        kit.last_look("ALPHA", second)
    assert kit.last_look("ALPHA", first).new_clearing_status == S.SUCCESS_TRADES_BOOKED_INTO_POOL
    kit.advance(120)  # no permit for the second trade's deposit
    assert kit.my_quote("DESK", second.parent_quote_id).clearing_status == (
        S.REJECTED_FAILED_TAKER_DEPOSIT_APPROVAL
    )
    usage = desk_margin(kit, pool_id)
    assert usage.margin_usage.initial_margin <= usage.balance + 1  # one trade's margin, covered


def test_money_a_clearing_trade_counts_on_cannot_be_withdrawn(kit):
    pool_id = kit.seed_pool_id()
    rfq = kit.rfq(qty="20")
    quote = kit.quote("ALPHA", rfq)
    before = desk_margin(kit, pool_id).max_withdrawable_amount
    assert before == SEED_POOL_DEPOSITS["DESK"]
    kit.accept("DESK", quote)
    reserved = desk_margin(kit, pool_id).max_withdrawable_amount
    im = 20 * kit.ex.market.mark_price("BTC") * D("0.1")
    assert reserved <= before - im
    with expect_error(ErrorCode.OUT_OF_RANGE, "trades still clearing"):
        kit.transfer("DESK", pool_id, "100000", "withdrawal")
    maker = next(
        p.margin_usage
        for p in kit.pool("ALPHA", pool_id).data.parties
        if p.company == kit.id("ALPHA")
    )
    # Both sides: the maker's margin is held back too (less its gain from the spread).
    assert maker.max_withdrawable_amount < SEED_POOL_DEPOSITS["ALPHA"] - im * D("0.95")
    kit.transfer("DESK", pool_id, str(reserved), "withdrawal")  # what is free still moves
    assert kit.last_look("ALPHA", quote).new_clearing_status == S.SUCCESS_TRADES_BOOKED_INTO_POOL


def test_each_side_is_rechecked_just_before_booking(kit):
    pool_id = kit.seed_pool_id()
    rfq = kit.rfq(qty="20")
    quote = kit.quote("ALPHA", rfq)
    assert kit.accept("DESK", quote).new_clearing_status == S.PENDING_MAKER_LAST_LOOK
    with kit.ex.store.transaction():  # the taker's money went away by a path the checks miss
        kit.ex.portfolio.move_balance(pool_id, kit.id("DESK"), D(-240_000))
    answer = kit.last_look("ALPHA", quote)
    assert answer.new_clearing_status == S.REJECTED_FAILED_TAKER_FUNDING
    assert kit.ex.portfolio_trades(kit["DESK"], limit=10, offset=0).items == []
