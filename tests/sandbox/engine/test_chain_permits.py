"""The simulated chain: units, pool addresses, permit templates and permit verification."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from tests.sandbox.kit import Kit, expect_error
from tui.api.models import BaseAllowance, ErrorCode, PermitTemplateRequest, SubmitPermitRequest
from tui.sandbox.engine.chain import (
    CHAIN_ID,
    USDC_TOKEN_ADDRESS,
    from_units,
    pool_address,
    to_units,
)

D = Decimal


@pytest.fixture
def kit(tmp_path):
    k = Kit(tmp_path / "chain.db")
    yield k
    k.close()


def test_units_round_up_and_back():
    assert to_units(D("1.5")) == 1_500_000
    assert to_units(D("0.0000001")) == 1  # an allowance must cover: round up
    assert from_units(2_500_001) == D("2.500001")


def test_pool_address_is_a_stable_lowercase_h160():
    address = pool_address("some-pool")
    assert re.fullmatch(r"0x[0-9a-f]{40}", address)
    assert pool_address("some-pool") == address
    assert pool_address("other-pool") != address


def test_template_is_erc2612_typed_data(kit):
    pool = kit.pool("DESK", kit.seed_pool_id())
    template = kit.template("DESK", pool.data.address, D("12.5"), seconds=90)
    assert template["primaryType"] == "Permit"
    assert [f["name"] for f in template["types"]["Permit"]] == [
        "owner",
        "spender",
        "value",
        "nonce",
        "deadline",
    ]
    assert template["domain"] == {
        "name": "USD Coin",
        "version": "2",
        "chainId": hex(CHAIN_ID),
        "verifyingContract": USDC_TOKEN_ADDRESS,
    }
    message = template["message"]
    assert message["owner"] == kit.creds["DESK"]["wallet_address"]
    assert message["spender"] == pool.data.address
    assert message["value"] == 12_500_000
    assert message["nonce"] == 0
    assert message["deadline"] == kit.clock.now_ms() // 1000 + 90


def test_template_takes_base_unit_allowances(kit):
    pool = kit.pool("DESK", kit.seed_pool_id())
    template = kit.ex.transfers_permit_template(
        kit["DESK"],
        PermitTemplateRequest(
            pool_address=pool.data.address, allowance=BaseAllowance(value="0x10")
        ),
    )
    assert template["message"]["value"] == 16


def test_template_for_a_pool_the_caller_is_not_in_is_not_found(kit):
    pool = kit.pool("DESK", kit.seed_pool_id())
    with expect_error(ErrorCode.NOT_FOUND, "pool_address"):
        kit.template("BORE", pool.data.address, D(1))
    with expect_error(ErrorCode.NOT_FOUND, "pool_address"):
        kit.template("DESK", "0x" + "ab" * 20, D(1))


def test_a_permit_sets_the_allowance_and_uses_the_nonce(kit):
    pool = kit.pool("DESK", kit.seed_pool_id())
    owner = kit.creds["DESK"]["wallet_address"]
    assert kit.permit("DESK", pool.data.address, D(100)) is True
    assert kit.ex.chain.allowance(owner, pool.data.address) == D(100)
    assert kit.ex.chain.nonce(owner) == 1
    # A second permit *sets* the allowance (ERC-2612), it does not add to it.
    kit.permit("DESK", pool.data.address, D(40))
    assert kit.ex.chain.allowance(owner, pool.data.address) == D(40)
    assert kit.ex.chain.nonce(owner) == 2


def _submit(kit, name, template, signature):
    return kit.ex.transfers_permit(
        kit[name], SubmitPermitRequest(message=template, signature=signature)
    )


def test_a_permit_is_used_once(kit):
    pool = kit.pool("DESK", kit.seed_pool_id())
    template = kit.template("DESK", pool.data.address, D(5))
    signature = kit.sign(template, kit.creds["DESK"]["wallet_private_key"])
    assert _submit(kit, "DESK", template, signature)
    with expect_error(ErrorCode.CONFLICT, "nonce"):
        _submit(kit, "DESK", template, signature)


def test_a_tampered_permit_is_refused(kit):
    pool = kit.pool("DESK", kit.seed_pool_id())
    template = kit.template("DESK", pool.data.address, D(5))
    signature = kit.sign(template, kit.creds["DESK"]["wallet_private_key"])
    tampered = {**template, "message": {**template["message"], "value": 5_000_000_000}}
    with expect_error(ErrorCode.OUT_OF_RANGE, "signature"):
        _submit(kit, "DESK", tampered, signature)
    owner = kit.creds["DESK"]["wallet_address"]
    assert kit.ex.chain.allowance(owner, pool.data.address) == 0


def test_a_permit_signed_by_another_key_is_refused(kit):
    pool = kit.pool("DESK", kit.seed_pool_id())
    with expect_error(ErrorCode.OUT_OF_RANGE, "signature"):
        kit.permit("DESK", pool.data.address, D(5), signer="ALPHA")


def test_a_permit_of_another_company_wallet_is_forbidden(kit):
    # ALPHA signs its own (valid) permit; DESK may not submit it as its own.
    pool = kit.pool("ALPHA", kit.seed_pool_id())
    template = kit.template("ALPHA", pool.data.address, D(5))
    signature = kit.sign(template, kit.creds["ALPHA"]["wallet_private_key"])
    with expect_error(ErrorCode.FORBIDDEN, "owner"):
        _submit(kit, "DESK", template, signature)


def test_an_expired_permit_is_refused(kit):
    pool = kit.pool("DESK", kit.seed_pool_id())
    template = kit.template("DESK", pool.data.address, D(5), seconds=30)
    signature = kit.sign(template, kit.creds["DESK"]["wallet_private_key"])
    kit.advance(31)
    with expect_error(ErrorCode.OUT_OF_RANGE, "deadline"):
        _submit(kit, "DESK", template, signature)


def test_a_permit_for_someone_elses_pool_is_not_found(kit):
    other = kit.new_pool("BORE", "CBLT")
    kit.advance(2)
    template = kit.template("BORE", other.data.address, D(5))
    template["message"]["owner"] = kit.creds["DESK"]["wallet_address"]
    template["message"]["nonce"] = 0
    signature = kit.sign(template, kit.creds["DESK"]["wallet_private_key"])
    with expect_error(ErrorCode.NOT_FOUND, "spender"):
        _submit(kit, "DESK", template, signature)


@pytest.mark.parametrize(
    ("mutate", "code", "fragment"),
    [
        (lambda t: t.pop("domain"), ErrorCode.BAD_REQUEST, "message.domain"),
        (lambda t: t["message"].pop("value"), ErrorCode.BAD_REQUEST, "message.message.value"),
        (lambda t: t["message"].update(owner="0x12"), ErrorCode.BAD_REQUEST, "owner"),
        (lambda t: t["domain"].update(chainId="0x1"), ErrorCode.OUT_OF_RANGE, "message.domain"),
        (lambda t: t.update(primaryType="Mail"), ErrorCode.OUT_OF_RANGE, "primaryType"),
        (lambda t: t["message"].update(value=0), ErrorCode.OUT_OF_RANGE, "value"),
    ],
)
def test_malformed_permits_name_the_field(kit, mutate, code, fragment):
    pool = kit.pool("DESK", kit.seed_pool_id())
    template = kit.template("DESK", pool.data.address, D(5))
    signature = kit.sign(template, kit.creds["DESK"]["wallet_private_key"])
    mutate(template)
    with expect_error(code, fragment):
        _submit(kit, "DESK", template, signature)


def test_garbage_signature_is_refused(kit):
    pool = kit.pool("DESK", kit.seed_pool_id())
    template = kit.template("DESK", pool.data.address, D(5))
    with expect_error(ErrorCode.OUT_OF_RANGE, "signature"):
        _submit(kit, "DESK", template, "0xdeadbeef")
