"""Trades along the whole clearing path: existing and new pools, with and without deposits."""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, Decimal

import pytest

from tests.sandbox.kit import Kit, margin_params
from tui.api.models import ClearingStatus, PayoffType, RFQStatus

D = Decimal
S = ClearingStatus


@pytest.fixture
def kit(tmp_path):
    k = Kit(tmp_path / "paths.db")
    yield k
    k.close()


def usdc_up(value: Decimal) -> Decimal:
    return value.quantize(D("0.000001"), rounding=ROUND_CEILING)


def test_existing_pool_without_deposits_books_at_last_look(kit):
    rfq = kit.rfq(targets=("ALPHA", "BORE"))
    quote = kit.quote("ALPHA", rfq)
    other = kit.quote("BORE", rfq, new_pool="desk-bore")
    ask = quote.aggregated_ask

    accepted = kit.accept("DESK", quote, "buy")
    assert accepted.new_clearing_status == S.PENDING_MAKER_LAST_LOOK
    assert accepted.pending_deposits_sum_qty == 0
    assert accepted.pending_settlement_pool is None
    assert kit.my_rfq("DESK", rfq.rfq_id).clearing_status == S.PENDING_MAKER_LAST_LOOK

    answer = kit.last_look("ALPHA", quote)
    assert answer.new_clearing_status == S.SUCCESS_TRADES_BOOKED_INTO_POOL
    assert answer.pending_deposits_sum_qty == 0
    assert answer.settlement_pool_address == kit.pool("DESK", kit.seed_pool_id()).data.address

    pool_id = kit.seed_pool_id()
    (desk_trade,) = kit.ex.portfolio_trades(kit["DESK"], limit=10, offset=0).items
    (alpha_trade,) = kit.ex.portfolio_trades(kit["ALPHA"], limit=10, offset=0).items
    assert (desk_trade.side, desk_trade.role, desk_trade.price) == ("buy", "taker", ask)
    assert (alpha_trade.side, alpha_trade.role, alpha_trade.price) == ("sell", "maker", ask)
    for trade, counterparty in ((desk_trade, "ALPHA"), (alpha_trade, "DESK")):
        assert trade.counterparty == kit.id(counterparty)
        assert trade.pool_location == pool_id
        assert trade.source_rfq == rfq.rfq_id
        assert trade.source_quote == quote.parent_quote_id
        assert trade.source_rfq_leg_id == rfq.rfq_legs[0].rfq_leg_id
        assert trade.status == S.SUCCESS_TRADES_BOOKED_INTO_POOL
        assert trade.qty == 1

    (desk_pos,) = kit.ex.portfolio_positions(kit["DESK"], limit=10, offset=0).items
    (alpha_pos,) = kit.ex.portfolio_positions(kit["ALPHA"], limit=10, offset=0).items
    assert (desk_pos.qty, desk_pos.avg_entry_price, desk_pos.taker_qty) == (1, ask, 1)
    assert (alpha_pos.qty, alpha_pos.avg_entry_price, alpha_pos.taker_qty) == (-1, ask, 0)
    assert desk_pos.counterparty == kit.id("ALPHA")

    closed = kit.my_rfq("DESK", rfq.rfq_id)
    assert closed.rfq_status == RFQStatus.CLOSED
    assert closed.clearing_status == S.SUCCESS_TRADES_BOOKED_INTO_POOL
    assert closed.bids == [] and closed.asks == []
    assert kit.my_quote("BORE", other.parent_quote_id).model_extra["quote_status"] == "void"
    assert kit.statuses("ALPHA", quote.parent_quote_id) == [
        S.PENDING_MAKER_LAST_LOOK,
        S.SUCCESS_TRADES_BOOKED_INTO_POOL,
    ]
    # Trading moves no cash: balances are what was deposited.
    assert kit.balance("DESK", pool_id) == 250_000
    assert kit.balance("ALPHA", pool_id) == 1_000_000


def test_existing_pool_with_taker_and_maker_deposits(kit):
    pool = kit.new_pool("DESK", "BORE", name="desk-bore")
    assert pool.data.status == "pending"
    kit.advance(2)
    pool = kit.pool("DESK", pool.pool_id)
    assert pool.data.status == "open"
    wallet_desk, wallet_bore = kit.wallet("DESK"), kit.wallet("BORE")

    rfq = kit.rfq(targets=("BORE",))
    quote = kit.quote("BORE", rfq, pool=pool.pool_id)
    mark = kit.mark(kit.perp())
    accepted = kit.accept("DESK", quote, "buy")
    assert accepted.new_clearing_status == S.PENDING_TAKER_DEPOSIT_APPROVAL
    # IM 10 % of notional, plus the half spread the taker pays over the mark.
    taker_need = usdc_up(mark * D("0.1") + (quote.aggregated_ask - mark))
    assert accepted.pending_deposits_sum_qty == taker_need

    kit.permit("DESK", pool.data.address, taker_need - 1)  # not enough: still waiting
    assert kit.my_quote("DESK", quote.parent_quote_id).clearing_status == (
        S.PENDING_TAKER_DEPOSIT_APPROVAL
    )
    kit.permit("DESK", pool.data.address, taker_need)
    assert kit.my_quote("DESK", quote.parent_quote_id).clearing_status == (
        S.PENDING_MAKER_LAST_LOOK
    )

    answer = kit.last_look("BORE", quote)
    maker_need = usdc_up(mark * D("0.1") - (quote.aggregated_ask - mark))
    assert answer.new_clearing_status == S.PENDING_MAKER_DEPOSIT_APPROVAL
    assert answer.pending_deposits_sum_qty == maker_need
    kit.permit("BORE", pool.data.address, maker_need)
    assert kit.my_quote("BORE", quote.parent_quote_id).clearing_status == (S.PENDING_ATOMIC_DEPOSIT)
    kit.advance(1)  # the block is not mined yet
    assert kit.my_quote("BORE", quote.parent_quote_id).clearing_status == (S.PENDING_ATOMIC_DEPOSIT)
    kit.advance(1)
    assert kit.statuses("DESK", quote.parent_quote_id) == [
        S.PENDING_TAKER_DEPOSIT_APPROVAL,
        S.PENDING_MAKER_LAST_LOOK,
        S.PENDING_MAKER_DEPOSIT_APPROVAL,
        S.PENDING_ATOMIC_DEPOSIT,
        S.SUCCESS_TRADES_BOOKED_INTO_POOL,
    ]
    assert kit.balance("DESK", pool.pool_id) == taker_need
    assert kit.balance("BORE", pool.pool_id) == maker_need
    assert kit.wallet("DESK") == wallet_desk - taker_need
    assert kit.wallet("BORE") == wallet_bore - maker_need
    owner = kit.creds["DESK"]["wallet_address"]
    assert kit.ex.chain.allowance(owner, pool.data.address) == 0  # used up by the deposit
    (deposit,) = kit.ex.transfers(kit["DESK"], limit=10, offset=0, pool=pool.pool_id).items
    assert deposit.transfer_type == "deposit" and deposit.status == "confirmed"
    assert deposit.qty == taker_need
    assert deposit.rfq_id == rfq.rfq_id and deposit.parent_quote_id == quote.parent_quote_id
    assert re.fullmatch(r"0x[0-9a-f]{64}", deposit.confirmed_by_transaction_id)
    assert len(kit.ex.portfolio_trades(kit["BORE"], limit=10, offset=0).items) == 1


def test_new_pool_is_created_then_funded_then_booked(kit):
    rfq = kit.rfq(targets=("CBLT",))
    quote = kit.quote("CBLT", rfq, new_pool="desk-cblt", params=margin_params("0.2"))
    assert quote.new_pool_name == "desk-cblt" and quote.pool_location is None
    accepted = kit.accept("DESK", quote, "sell")
    assert accepted.new_clearing_status == S.PENDING_POOL_CREATION
    pending = accepted.pending_settlement_pool
    assert pending.status == "pending" and pending.company_creator == kit.id("CBLT")
    assert re.fullmatch(r"0x[0-9a-f]{40}", pending.address)

    pool = kit.pool("DESK", pending.id)
    assert pool.data.status == "pending"
    assert [p.status for p in pool.data.parties] == ["pending", "pending"]
    # The maker may allow its deposit before the pool even exists on-chain.
    kit.permit("CBLT", pending.address, D(50_000))

    kit.advance(2)
    pool = kit.pool("CBLT", pending.id)
    assert pool.data.status == "open"
    assert pool.data.confirmed_by_transaction_id.startswith("0x")
    assert [p.status for p in pool.data.parties] == ["confirmed", "confirmed"]
    seen = kit.my_quote("DESK", quote.parent_quote_id)
    assert seen.clearing_status == S.PENDING_TAKER_DEPOSIT_APPROVAL
    assert seen.pool_location == pending.id

    mark = kit.mark(kit.perp())
    taker_need = usdc_up(mark * D("0.2") + (mark - quote.aggregated_bid))
    # The taker learns the amount to permit from its view of the quote.
    assert D(seen.model_extra["pending_deposits_sum_qty"]) == taker_need
    assert (
        kit.my_quote("CBLT", quote.parent_quote_id).model_extra["pending_deposits_sum_qty"] == "0"
    )
    kit.permit("DESK", pending.address, taker_need)
    answer = kit.last_look("CBLT", quote)
    assert answer.new_clearing_status == S.PENDING_ATOMIC_DEPOSIT  # allowance already there
    kit.advance(2)
    assert kit.my_quote("CBLT", quote.parent_quote_id).clearing_status == (
        S.SUCCESS_TRADES_BOOKED_INTO_POOL
    )
    assert kit.statuses("CBLT", quote.parent_quote_id) == [
        S.PENDING_POOL_CREATION,
        S.PENDING_TAKER_DEPOSIT_APPROVAL,
        S.PENDING_MAKER_LAST_LOOK,
        S.PENDING_ATOMIC_DEPOSIT,
        S.SUCCESS_TRADES_BOOKED_INTO_POOL,
    ]
    pool = kit.pool("DESK", pending.id)
    (position,) = pool.data.positions
    assert position.position_info.qty == -1  # DESK sold
    desk_party = next(p for p in pool.data.parties if p.company == kit.id("DESK"))
    assert desk_party.margin_usage.balance == taker_need
    assert desk_party.margin_usage.margin_usage.initial_margin > 0
    assert desk_party.margin_usage.max_withdrawable_amount >= 0


def test_taker_allowance_given_before_accept_skips_the_wait(kit):
    pool = kit.new_pool("DESK", "DUNE", name="desk-dune")
    kit.advance(2)
    kit.deposit("DUNE", pool.pool_id, "500000")
    kit.permit("DESK", pool.data.address, D(50_000))
    rfq = kit.rfq(targets=("DUNE",))
    quote = kit.quote("DUNE", rfq, pool=pool.pool_id)
    accepted = kit.accept("DESK", quote)
    assert accepted.new_clearing_status == S.PENDING_MAKER_LAST_LOOK
    assert accepted.pending_deposits_sum_qty > 0
    answer = kit.last_look("DUNE", quote)
    assert answer.new_clearing_status == S.PENDING_ATOMIC_DEPOSIT
    assert answer.pending_deposits_sum_qty == 0
    kit.advance(2)
    assert kit.statuses("DESK", quote.parent_quote_id) == [
        S.PENDING_TAKER_DEPOSIT_APPROVAL,
        S.PENDING_MAKER_LAST_LOOK,
        S.PENDING_ATOMIC_DEPOSIT,
        S.SUCCESS_TRADES_BOOKED_INTO_POOL,
    ]
    assert kit.balance("DESK", pool.pool_id) == accepted.pending_deposits_sum_qty


def test_multi_leg_structure_sold_by_the_taker(kit):
    low = kit.option(strike="100000", payoff=PayoffType.CALL)
    high = kit.option(strike="110000", payoff=PayoffType.CALL)
    rfq = kit.rfq(legs=[("buy", low, 1), ("sell", high, 2)], qty="0.5")
    assert [leg.qty for leg in rfq.rfq_legs] == [D("0.5"), D("1.0")]
    quote = kit.quote("ALPHA", rfq)
    low_q, high_q = quote.per_leg_quotes
    assert quote.aggregated_ask == low_q.ask - 2 * high_q.bid
    assert quote.aggregated_bid == low_q.bid - 2 * high_q.ask

    assert kit.accept("DESK", quote, "sell").new_clearing_status == S.PENDING_MAKER_LAST_LOOK
    kit.last_look("ALPHA", quote)
    trades = kit.ex.portfolio_trades(kit["DESK"], limit=10, offset=0).items
    # Selling the structure sells the buy leg at the bid and buys the sell leg at the ask.
    assert [(t.side, t.price, t.qty) for t in trades] == [
        ("sell", low_q.bid, D("0.5")),
        ("buy", high_q.ask, D("1.0")),
    ]
    maker = kit.ex.portfolio_trades(kit["ALPHA"], limit=10, offset=0).items
    assert [t.side for t in maker] == ["buy", "sell"]
    positions = kit.ex.portfolio_positions(kit["DESK"], limit=10, offset=0).items
    assert sorted(p.qty for p in positions) == [D("-0.5"), D("1.0")]


def test_closing_a_position_realizes_pnl_between_the_two_parties(kit):
    pool_id = kit.seed_pool_id()
    first = kit.rfq()
    buy = kit.quote("ALPHA", first)
    kit.accept("DESK", buy, "buy")
    kit.last_look("ALPHA", buy)
    kit.advance(600)  # the mark walks on
    second = kit.rfq()
    sell = kit.quote("ALPHA", second)
    kit.accept("DESK", sell, "sell")
    kit.last_look("ALPHA", sell)
    pnl = sell.aggregated_bid - buy.aggregated_ask
    assert kit.ex.portfolio_positions(kit["DESK"], limit=10, offset=0).items == []
    assert kit.ex.portfolio_positions(kit["ALPHA"], limit=10, offset=0).items == []
    assert kit.balance("DESK", pool_id) == 250_000 + pnl
    assert kit.balance("ALPHA", pool_id) == 1_000_000 - pnl
