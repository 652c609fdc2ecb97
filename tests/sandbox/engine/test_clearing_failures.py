"""Nothing a pool's creator writes can break the other party, and no trade hangs for good:
margin parameters are bounded, views degrade when margin cannot be computed, a clearing step
that fails ends its trade with a final status, and pool creation has a deadline."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.sandbox.kit import Kit, expect_error, margin_params
from tui.api.models import (
    CancelRequest,
    ClearingStatus,
    CreateNewPool,
    ErrorCode,
    MarginMode,
    NewQuoteRequest,
    NewSettlementPoolRequest,
    PortfolioAsset,
    PortfolioMarginParams,
    PortfolioMarginSettings,
    RFQStatus,
    SimpleAsset,
    SimpleMarginParams,
)
from tui.sandbox.engine.clearing import POOL_CREATION_S
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.margin_rules import check_margin_params
from tui.sandbox.engine.records import load_quote, save_quote

D = Decimal
S = ClearingStatus


@pytest.fixture
def kit(tmp_path):
    k = Kit(tmp_path / "failures.db")
    yield k
    k.close()


def with_leverage(leverage: str) -> SimpleMarginParams:
    params = margin_params()
    asset = params.params.default_asset_param.model_copy(update={"futures_leverage": D(leverage)})
    return params.model_copy(
        update={"params": params.params.model_copy(update={"default_asset_param": asset})}
    )


def portfolio_params(factor: str) -> PortfolioMarginParams:
    asset = PortfolioAsset(
        vol_range_up=D("0.3"),
        vol_range_down=D("0.3"),
        short_vega_power=D("0.5"),
        long_vega_power=D("0.5"),
        price_range=D("0.1"),
        opt_sum_contingency=D("0.01"),
        opt_contingency=D("0.01"),
        futures_contingency=D("0.01"),
        atm_range=D("0.05"),
    )
    return PortfolioMarginParams(
        margin_mode=MarginMode.PORTFOLIO,
        params=PortfolioMarginSettings(
            default_asset_param=asset,
            decorrelation_risk=D("0.1"),
            initial_margin_factor=D(factor),
            liquidation_penalty=D("0.01"),
            auto_liquidation=True,
        ),
    )


@pytest.mark.parametrize("leverage", ["0.5", "100.5", "1000"])
def test_quotes_creating_a_pool_with_leverage_margin_cannot_use_are_refused(kit, leverage):
    rfq = kit.rfq()
    field = r"pool_strategy.other_params.params.default_asset_param.futures_leverage"
    with expect_error(ErrorCode.OUT_OF_RANGE, field + ": must be between 1 and 100"):
        _quote_new_pool(kit, rfq, with_leverage(leverage))


def _quote_new_pool(kit, rfq, other):
    return kit.ex.quotes_new(
        kit["ALPHA"],
        NewQuoteRequest(
            rfq_id=rfq.rfq_id,
            expires_at=kit.later(60),
            leg_quotes=kit.leg_quotes(rfq),
            pool_strategy=CreateNewPool(
                name="lev", creator_params=margin_params(), other_params=other
            ),
        ),
    )


def test_new_pools_with_margin_parameters_margin_cannot_use_are_refused(kit):
    def new_pool(creator, other):
        return kit.ex.settlement_pools_new(
            kit["CBLT"],
            NewSettlementPoolRequest(
                pool_name="bounded",
                company_other=kit.id("FJRD"),
                creator_params=creator,
                other_params=other,
            ),
        )

    with expect_error(ErrorCode.OUT_OF_RANGE, "other_params.params.initial_margin_factor"):
        new_pool(margin_params(), portfolio_params("11"))
    with expect_error(ErrorCode.OUT_OF_RANGE, "creator_params.params.default_asset_param.futures"):
        new_pool(with_leverage("0.001"), margin_params())
    assert new_pool(portfolio_params("10"), with_leverage("100")).data.name == "bounded"


def test_margin_numbers_with_absurd_precision_are_refused():
    asset = SimpleAsset.model_construct(
        **{
            **margin_params().params.default_asset_param.model_dump(),
            "option_initial_margin": D("1E-999999"),
        }
    )
    params = margin_params()
    odd = params.model_copy(
        update={"params": params.params.model_copy(update={"asset_params": {"BTC": asset}})}
    )
    with pytest.raises(ServiceError, match=r"x.params.asset_params.BTC.option_initial_margin"):
        check_margin_params(odd, "x")


def _poison_margin(kit, quote_id: str) -> None:
    """Write leverage 1E-999999 into a stored quote's new-pool parameters (as a sandbox that
    did not bound them would have stored it)."""
    stored = load_quote(kit.ex.store, quote_id)
    for key in ("creator_params", "other_params"):
        stored["_pool_strategy"][key]["params"]["default_asset_param"]["futures_leverage"] = (
            "1E-999999"
        )
    with kit.ex.store.transaction():
        save_quote(kit.ex.store, stored)


def test_a_pool_whose_margin_overflows_degrades_reads_and_fails_its_trade(kit):
    rfq = kit.rfq(targets=("CBLT",))
    quote = kit.quote("CBLT", rfq, new_pool="evil")
    _poison_margin(kit, quote.parent_quote_id)
    seen = kit.my_rfq("DESK", rfq.rfq_id)  # no 500: the margin figures are unknown
    assert seen.asks and seen.asks[0].existing_margin_requirements is None
    assert seen.asks[0].counter_factual_margin_requirements is None
    accepted = kit.accept("DESK", quote)
    assert accepted.new_clearing_status == S.PENDING_POOL_CREATION
    kit.advance(2)  # the creation block: the taker's margin check overflows
    assert kit.my_quote("DESK", quote.parent_quote_id).clearing_status == (
        S.REJECTED_FAILED_POOL_CREATION
    )
    pool = kit.pool("DESK", accepted.pending_settlement_pool.id)
    assert pool.data.status == "canceled"
    assert kit.ex.rfqs_cancel(kit["DESK"], CancelRequest(id=rfq.rfq_id)) is True


def test_a_pool_view_degrades_when_its_margin_cannot_be_computed(kit):
    pool_id = kit.seed_pool_id()
    rfq = kit.rfq()
    quote = kit.quote("ALPHA", rfq)
    kit.accept("DESK", quote)
    kit.last_look("ALPHA", quote)  # a position, so margin has something to compute
    stored = kit.ex.store.data("pools", "id = ?", (pool_id,))
    creator = stored["company_creator"]
    other = next(p["company"] for p in stored["parties"] if p["company"] != creator)
    stored["other_params"]["params"]["default_asset_param"]["futures_leverage"] = "1E-999999"
    with kit.ex.store.transaction():
        kit.ex.store.update("pools", "id", pool_id, {"data": stored})
    for viewer in ("DESK", "ALPHA"):
        pool = kit.pool(viewer, pool_id)
        usage = {p.company: p.margin_usage for p in pool.data.parties}
        assert usage[creator].margin_usage is not None  # the other side is fine
        assert usage[other].margin_usage is None
        assert usage[other].max_withdrawable_amount == 0


def test_pool_creation_has_a_deadline(kit):
    rfq = kit.rfq(targets=("CBLT",))
    quote = kit.quote("CBLT", rfq, new_pool="slow", expires_in=200)
    pending = kit.accept("DESK", quote).pending_settlement_pool
    with kit.ex.store.transaction():  # the creation block never comes
        kit.ex.store.execute(
            "DELETE FROM timers WHERE kind = 'pool_open' AND ref = ?", (pending.id,)
        )
    kit.advance(POOL_CREATION_S - 1)
    assert kit.my_quote("DESK", quote.parent_quote_id).clearing_status == S.PENDING_POOL_CREATION
    kit.advance(1)
    assert kit.my_quote("DESK", quote.parent_quote_id).clearing_status == (
        S.REJECTED_FAILED_POOL_CREATION
    )
    assert kit.my_rfq("DESK", rfq.rfq_id).rfq_status == RFQStatus.OPEN


def test_a_failing_atomic_deposit_ends_its_trade_and_moves_no_money(kit):
    pool = kit.new_pool("DESK", "DUNE", name="p")
    kit.advance(2)
    kit.deposit("DESK", pool.pool_id, "100000")
    rfq = kit.rfq(targets=("DUNE",))
    quote = kit.quote("DUNE", rfq, pool=pool.pool_id)
    kit.accept("DESK", quote)
    kit.permit("DUNE", pool.data.address, D(20_000))
    assert kit.last_look("DUNE", quote).new_clearing_status == S.PENDING_ATOMIC_DEPOSIT
    wallet = kit.wallet("DUNE")

    def broken_book(*_args, **_kwargs):
        raise RuntimeError("booking failed")

    kit.ex.clearing.book = broken_book
    kit.advance(2)
    assert kit.my_quote("DUNE", quote.parent_quote_id).clearing_status == (
        S.REJECTED_FAILED_ATOMIC_DEPOSIT
    )
    assert kit.wallet("DUNE") == wallet  # the deposit of the failed step was undone
    assert kit.balance("DUNE", pool.pool_id) == 0
    assert kit.my_rfq("DESK", rfq.rfq_id).rfq_status == RFQStatus.OPEN


def test_a_failing_transfer_confirmation_fails_the_transfer_and_returns_the_money(kit):
    pool = kit.pool("DESK", kit.seed_pool_id())
    wallet, balance = kit.wallet("DESK"), kit.balance("DESK", pool.pool_id)
    kit.permit("DESK", pool.data.address, D(100))
    transfer = kit.transfer("DESK", pool.pool_id, "100")
    assert kit.wallet("DESK") == wallet - 100

    def broken_confirm(_transfer_id):
        raise RuntimeError("the block could not be read")

    kit.ex._confirm_transfer = broken_confirm
    kit.advance(2)
    (seen,) = kit.ex.transfers(kit["DESK"], limit=10, offset=0, id=transfer.id).items
    assert seen.status == "failed"
    assert kit.wallet("DESK") == wallet
    assert kit.balance("DESK", pool.pool_id) == balance


def test_a_trade_left_hanging_by_an_older_sandbox_is_ended_on_the_next_open(kit):
    rfq = kit.rfq(targets=("CBLT",))
    quote = kit.quote("CBLT", rfq, new_pool="stuck", expires_in=200)
    kit.accept("DESK", quote)
    with kit.ex.store.transaction():  # the pool_open timer crashed and was dropped, long ago
        kit.ex.store.execute("DELETE FROM timers WHERE kind != 'rfq_expiry'")
    kit.reopen()
    kit.advance(0)
    assert kit.my_quote("DESK", quote.parent_quote_id).clearing_status == (
        S.REJECTED_FAILED_POOL_CREATION
    )
    assert kit.ex.rfqs_cancel(kit["DESK"], CancelRequest(id=rfq.rfq_id)) is True
