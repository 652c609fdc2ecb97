"""Form validation: every bad field is named, by the request models' own rules."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from tui.api.errors import OutOfRange
from tui.api.models import (
    RFQ,
    CreateNewPool,
    PerpetualFutureInstrument,
    RFQLeg,
    Structure,
    StructurePrice,
    UseExistingPool,
    VanillaOptionInstrument,
)
from tui.desk.screens.permit import MoneyAction, MoneyForm, check_amount
from tui.desk.screens.pool_create import build_pool_request
from tui.desk.screens.rfq_request import build_rfq_request
from tui.desk.widgets.common.forms import FORM, FormError, errors_from_api
from tui.desk.widgets.quote_form import (
    NEW_POOL,
    TicketValues,
    build_quote_request,
    leg_marks,
    locate_quote_field,
    prefill,
)

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
RFQ_ID = "11111111-1111-4111-8111-111111111111"
POOL_ID = "22222222-2222-4222-8222-222222222222"
COMPANY = "33333333-3333-4333-8333-333333333333"


def two_leg_rfq() -> RFQ:
    perp = PerpetualFutureInstrument(underlying="BTC")
    call = VanillaOptionInstrument(
        underlying="BTC",
        expiry=datetime(2026, 3, 27, 8, tzinfo=UTC),
        strike=Decimal(100000),
        payoff="call",
    )
    return RFQ(
        rfq_id=RFQ_ID,
        created_at=NOW,
        structure=Structure(
            legs=[
                {"side": "buy", "ratio": 1, "instrument": perp},
                {"side": "sell", "ratio": 2, "instrument": call},
            ]
        ),
        structure_price=StructurePrice(price=Decimal("90000")),
        rfq_expires_at=NOW,
        taker_company=COMPANY,
        rfq_status="open",
        qty=Decimal(1),
        rfq_legs=[
            RFQLeg(rfq_leg_id="leg-a", rfq_id=RFQ_ID, instrument=perp, side="buy", qty=Decimal(1)),
            RFQLeg(rfq_leg_id="leg-b", rfq_id=RFQ_ID, instrument=call, side="sell", qty=Decimal(2)),
        ],
    )


def values(**changes: object) -> TicketValues:
    base = TicketValues(
        bids=["99000", "4900"],
        asks=["101000", "5100"],
        expiry_s="30",
        pool=POOL_ID,
        preset="standard",
        pool_name="DESK-EMBR",
        client_quote_id="desk-1",
    )
    for key, value in changes.items():
        setattr(base, key, value)
    return base


def test_a_good_ticket_builds_the_request() -> None:
    request = build_quote_request(two_leg_rfq(), values(), NOW)
    assert [q.target_rfq_leg_id for q in request.leg_quotes] == ["leg-a", "leg-b"]
    assert request.leg_quotes[1].bid == Decimal("4900")
    assert isinstance(request.pool_strategy, UseExistingPool)
    assert (request.expires_at - NOW).total_seconds() == 30
    assert request.to_wire()["leg_quotes"][0]["ask"] == "101000"


def test_every_bad_field_is_named() -> None:
    with pytest.raises(FormError) as caught:
        build_quote_request(
            two_leg_rfq(),
            values(bids=["abc", "-5"], asks=["101000", "5100"], expiry_s="0"),
            NOW,
        )
    assert caught.value.errors == {
        "bid-0": "'abc' is not a number",
        "expiry": "must be at least 1",
    }
    with pytest.raises(FormError) as caught:
        build_quote_request(two_leg_rfq(), values(bids=["99000", "-5"]), NOW)
    assert set(caught.value.errors) == {"bid-1"}
    assert "greater than 0" in caught.value.errors["bid-1"]


def test_crossed_or_empty_legs_and_long_ids_are_refused() -> None:
    with pytest.raises(FormError) as caught:
        build_quote_request(two_leg_rfq(), values(bids=["102000", ""], asks=["101000", ""]), NOW)
    assert caught.value.errors["leg-0"] == "bid must not be above ask"
    assert "a bid, an ask, or both" in caught.value.errors["leg-1"]
    with pytest.raises(FormError) as caught:
        build_quote_request(two_leg_rfq(), values(client_quote_id="x" * 51), NOW)
    assert set(caught.value.errors) == {"client-id"}


def test_a_new_pool_needs_a_name_and_takes_the_preset() -> None:
    request = build_quote_request(two_leg_rfq(), values(pool=NEW_POOL), NOW)
    assert isinstance(request.pool_strategy, CreateNewPool)
    assert request.pool_strategy.name == "DESK-EMBR"
    with pytest.raises(FormError) as caught:
        build_quote_request(two_leg_rfq(), values(pool=NEW_POOL, pool_name=" "), NOW)
    assert set(caught.value.errors) == {"pool-name"}


def test_prefill_brackets_each_leg_mark() -> None:
    rfq = two_leg_rfq()
    marks = leg_marks(rfq, {"BTC": Decimal("98000")})
    # The option leg is solved from the structure price: 98000 - 2 x call = 90000.
    assert marks == [Decimal("98000"), Decimal("4000")]
    bid, ask = prefill(marks[0])
    assert Decimal(bid) < marks[0] < Decimal(ask)
    assert prefill(None) == ("", "")


def test_venue_errors_land_on_their_field() -> None:
    error = OutOfRange("client_quote_id: at most 50 characters")
    assert errors_from_api(error, locate_quote_field) == {"client-id": "at most 50 characters"}
    error = OutOfRange("leg_quotes[1].bid: must be positive")
    assert errors_from_api(error, locate_quote_field) == {"bid-1": "must be positive"}
    assert errors_from_api(OutOfRange("the RFQ is closed"), locate_quote_field) == {
        FORM: "the RFQ is closed"
    }


def test_rfq_builder_names_leg_qty_expiry_and_targets() -> None:
    perp = {"type": "perpetual_future", "underlying": "BTC", "side": "buy", "ratio": "1"}
    request = build_rfq_request([perp], "1.5", "300", [COMPANY], NOW, {"BTC": 3600})
    assert request.qty == Decimal("1.5")
    assert request.structure.legs[0].instrument.funding_interval_s == 3600
    option = {
        "type": "vanilla_option",
        "underlying": "ETH",
        "side": "sell",
        "ratio": "0",
        "expiry": "2026-03-27",
        "strike": "-1",
        "payoff": "put",
    }
    with pytest.raises(FormError) as caught:
        build_rfq_request([perp, option], "0", "5", [], NOW)
    errors = caught.value.errors
    assert errors["leg-1"].startswith("ratio")
    assert errors["expiry"] == "must be at least 10"
    bad_date = {**option, "ratio": "1", "expiry": "27/03/26"}
    with pytest.raises(FormError) as caught:
        build_rfq_request([bad_date], "1", "300", [COMPANY], NOW)
    assert caught.value.errors == {"leg-0": "expiry: use YYYY-MM-DD"}
    with pytest.raises(FormError) as caught:
        build_rfq_request([{**option, "ratio": "1"}], "0", "300", [], NOW)
    errors = caught.value.errors
    assert errors["leg-0"].startswith("strike")
    assert "qty" in errors and "targets" in errors


def test_pool_form_and_amount_form() -> None:
    request = build_pool_request("DESK-EMBR", COMPANY, "conservative")
    assert request.creator_params == request.other_params
    with pytest.raises(FormError) as caught:
        build_pool_request("x" * 51, None, "nope")
    assert set(caught.value.errors) == {"counterparty", "preset"}
    with pytest.raises(FormError) as caught:
        build_pool_request("x" * 51, COMPANY, "standard")
    assert set(caught.value.errors) == {"name"}

    form = MoneyForm(MoneyAction.WITHDRAW, "pool", None, "EMBR", maximum=Decimal(100))
    assert check_amount(form, "99.5") == Decimal("99.5")
    with pytest.raises(FormError) as caught:
        check_amount(form, "100.01")
    assert "at most 100.00" in caught.value.errors["amount"]
    with pytest.raises(FormError):
        check_amount(form, "0")
    deposit = MoneyForm(MoneyAction.DEPOSIT, "pool", None, "EMBR")
    with pytest.raises(FormError) as caught:
        check_amount(deposit, "10")
    assert "address" in caught.value.errors["form"]
