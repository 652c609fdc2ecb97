"""Settlement pools and USDC transfers: creation, visibility, deposits and withdrawals."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from tests.sandbox.kit import Kit, expect_error, margin_params
from tui.api.models import (
    BaseAllowance,
    ErrorCode,
    NewSettlementPoolRequest,
    NewTransferRequest,
    PermitTemplateRequest,
    SubmitPermitRequest,
    TransferType,
)

D = Decimal
UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"


@pytest.fixture
def kit(tmp_path):
    k = Kit(tmp_path / "pools.db")
    yield k
    k.close()


def test_new_pool_is_pending_then_open_and_seen_by_both_parties_only(kit):
    pool = kit.new_pool("BORE", "EMBR", name="bore-embr", params=margin_params("0.05"))
    assert pool.company_id == kit.id("BORE")
    assert pool.data.status == "pending"
    assert pool.data.company_creator == kit.id("BORE")
    assert re.fullmatch(r"0x[0-9a-f]{40}", pool.data.address)
    assert pool.data.confirmed_by_transaction_id is None
    kit.advance(2)
    for name in ("BORE", "EMBR"):
        seen = kit.pool(name, pool.pool_id)
        assert seen.company_id == kit.id(name)
        assert seen.data.status == "open"
        parties = {p.company: p for p in seen.data.parties}
        assert set(parties) == {kit.id("BORE"), kit.id("EMBR")}
        assert parties[kit.id("EMBR")].address == kit.creds["EMBR"]["wallet_address"]
        usage = parties[kit.id("BORE")].margin_usage
        assert usage.balance == 0 and usage.max_withdrawable_amount == 0
        assert usage.margin_params.params.default_asset_param.futures_initial_margin == D("0.05")
    for outsider in ("DESK", "ALPHA"):
        assert (
            kit.ex.settlement_pools(kit[outsider], limit=10, offset=0, id=pool.pool_id).items == []
        )


def _pool_body(kit, **changes):
    body = {
        "pool_name": "x",
        "company_other": kit.id("ALPHA"),
        "creator_params": margin_params(),
        "other_params": margin_params(),
    }
    body.update(changes)
    return NewSettlementPoolRequest.model_validate(body)


def test_bad_pools_are_refused(kit):
    with expect_error(ErrorCode.OUT_OF_RANGE, "company_other: must be another company"):
        kit.ex.settlement_pools_new(kit["DESK"], _pool_body(kit, company_other=kit.id("DESK")))
    with expect_error(ErrorCode.OUT_OF_RANGE, "company_other: unknown company"):
        kit.ex.settlement_pools_new(kit["DESK"], _pool_body(kit, company_other=UNKNOWN_ID))
    with expect_error(ErrorCode.OUT_OF_RANGE, "pool_name: a pool named"):
        kit.ex.settlement_pools_new(
            kit["ALPHA"], _pool_body(kit, pool_name="desk-alpha MAIN", company_other=kit.id("DESK"))
        )


def _transfer(kit, name, pool_id, qty, kind="deposit", counterparty=None):
    return kit.ex.transfers_new(
        kit[name],
        NewTransferRequest(
            qty=D(qty),
            target_pool_location=pool_id,
            counterparty=counterparty or kit.id("ALPHA"),
            transfer_type=TransferType(kind),
        ),
    )


def test_deposit_needs_a_permit_and_the_money_then_confirms_after_a_block(kit):
    pool = kit.pool("DESK", kit.seed_pool_id())
    with expect_error(ErrorCode.CONFLICT, "sign a permit first"):
        _transfer(kit, "DESK", pool.pool_id, "100")
    kit.permit("DESK", pool.data.address, D(10_000_000))
    with expect_error(ErrorCode.CONFLICT, "qty: the wallet holds only 750,000 USDC"):
        _transfer(kit, "DESK", pool.pool_id, "750000.5")
    wallet = kit.wallet("DESK")
    transfer = _transfer(kit, "DESK", pool.pool_id, "1000.25")
    assert transfer.status == "pending" and transfer.confirmed_by_transaction_id is None
    assert kit.wallet("DESK") == wallet - D("1000.25")
    assert kit.balance("DESK", pool.pool_id) == 250_000  # not mined yet
    kit.advance(2)
    assert kit.balance("DESK", pool.pool_id) == D("251000.25")
    (mine,) = kit.ex.transfers(kit["DESK"], limit=10, offset=0, id=transfer.id).items
    assert mine.status == "confirmed"
    assert re.fullmatch(r"0x[0-9a-f]{64}", mine.confirmed_by_transaction_id)
    owner = kit.creds["DESK"]["wallet_address"]
    assert kit.ex.chain.allowance(owner, pool.data.address) == D(10_000_000) - D("1000.25")


def test_transfer_refusals_name_the_field(kit):
    seed = kit.seed_pool_id()
    with expect_error(ErrorCode.NOT_FOUND, "target_pool_location: pool not found"):
        _transfer(kit, "BORE", seed, "1")
    with expect_error(ErrorCode.NOT_FOUND, "target_pool_location"):
        _transfer(kit, "DESK", UNKNOWN_ID, "1")
    with expect_error(ErrorCode.OUT_OF_RANGE, "counterparty: must be the other company"):
        _transfer(kit, "DESK", seed, "1", counterparty=kit.id("BORE"))
    with expect_error(ErrorCode.OUT_OF_RANGE, "qty: at most 6 decimal places"):
        _transfer(kit, "DESK", seed, "1.0000001")
    pending = kit.new_pool("DESK", "BORE", name="later")
    with expect_error(ErrorCode.CONFLICT, "pending, not open"):
        _transfer(kit, "DESK", pending.pool_id, "1", counterparty=kit.id("BORE"))


def test_withdrawal_up_to_the_free_balance(kit):
    seed = kit.seed_pool_id()
    rfq = kit.rfq(qty="1")
    quote = kit.quote("ALPHA", rfq)
    kit.accept("DESK", quote)
    kit.last_look("ALPHA", quote)
    party = next(
        p for p in kit.pool("DESK", seed).data.parties if p.company == kit.id("DESK")
    ).margin_usage
    free = party.max_withdrawable_amount
    assert 0 < free < 250_000  # the BTC position locks initial margin
    with expect_error(ErrorCode.OUT_OF_RANGE, "qty: at most"):
        _transfer(kit, "DESK", seed, str(free + D("0.000001")), "withdrawal")
    wallet = kit.wallet("DESK")
    transfer = _transfer(kit, "DESK", seed, "1000", "withdrawal")
    assert transfer.transfer_type == "withdrawal"
    assert kit.balance("DESK", seed) == 249_000  # leaves the pool at once
    assert kit.wallet("DESK") == wallet  # reaches the wallet when mined
    kit.advance(2)
    assert kit.wallet("DESK") == wallet + 1000


def test_transfers_are_the_callers_own(kit):
    seed = kit.seed_pool_id()
    desk = kit.ex.transfers(kit["DESK"], limit=10, offset=0).items
    alpha = kit.ex.transfers(kit["ALPHA"], limit=10, offset=0).items
    assert [t.company for t in desk] == [kit.id("DESK")]
    assert [t.company for t in alpha] == [kit.id("ALPHA")]
    assert kit.ex.transfers(kit["ALPHA"], limit=10, offset=0, id=desk[0].id).items == []
    assert kit.ex.transfers(kit["BORE"], limit=10, offset=0, pool=seed).items == []


def test_oversized_transfer_and_unlimited_permit(kit):
    pool = kit.pool("DESK", kit.seed_pool_id())
    with expect_error(ErrorCode.OUT_OF_RANGE, "qty: at most 1000000000000"):
        _transfer(kit, "DESK", pool.pool_id, "1e15")
    # The customary "unlimited" approval (2**256 - 1 base units) is taken and capped.
    template = kit.ex.transfers_permit_template(
        kit["DESK"],
        PermitTemplateRequest(
            pool_address=pool.data.address, allowance=BaseAllowance(value=2**256 - 1)
        ),
    )
    signature = kit.sign(template, kit.creds["DESK"]["wallet_private_key"])
    kit.ex.transfers_permit(kit["DESK"], SubmitPermitRequest(message=template, signature=signature))
    owner = kit.creds["DESK"]["wallet_address"]
    assert kit.ex.chain.allowance_units(owner, pool.data.address) == 2**63 - 1
    assert _transfer(kit, "DESK", pool.pool_id, "10").status == "pending"
