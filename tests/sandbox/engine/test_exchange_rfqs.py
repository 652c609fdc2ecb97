"""RFQs: validation naming the field, scoping, cancel, expiry, strikes and sizes."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.sandbox.kit import Kit, expect_error
from tui.api.models import (
    CancelRequest,
    ErrorCode,
    LegQuote,
    NewRfqRequest,
    RFQStatus,
    SpotInstrument,
    Structure,
    UnknownVariant,
)
from tui.sandbox.engine.errors import ServiceError

D = Decimal
UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"


@pytest.fixture
def kit(tmp_path):
    k = Kit(tmp_path / "rfqs.db")
    yield k
    k.close()


# -- RFQs ------------------------------------------------------------------------------------


def test_new_rfq_has_legs_price_and_an_open_status(kit):
    rfq = kit.rfq(targets=("ALPHA", "BORE"), legs=[("buy", kit.perp(), 2)], qty="0.5")
    assert rfq.rfq_status == RFQStatus.OPEN
    assert rfq.taker_company == kit.id("DESK")
    assert rfq.clearing_status is None
    (leg,) = rfq.rfq_legs
    assert (leg.side, leg.qty, leg.rfq_id) == ("buy", D("1.0"), rfq.rfq_id)
    assert rfq.structure_price is not None and rfq.structure_price.price > 0
    assert rfq.model_extra["target_companies"] == [kit.id("ALPHA"), kit.id("BORE")]
    assert rfq.rfq_expires_at == kit.later(300)


def _rfq_body(kit, **changes):
    body = {
        "structure": Structure.model_validate(
            {"legs": [{"side": "buy", "ratio": 1, "instrument": kit.perp()}]}
        ),
        "qty": D(1),
        "expires_at": kit.later(300),
        "target_companies": [kit.id("ALPHA")],
    }
    body.update(changes)
    return NewRfqRequest.model_validate(body)


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"expires_at": "past"}, "expires_at: must be in the future"),
        ({"expires_at": "far"}, "expires_at: must be at most 3600 s ahead"),
        ({"target_companies": ["self"]}, "target_companies: must not include your own"),
        ({"target_companies": [UNKNOWN_ID]}, r"target_companies\[0\]: unknown company"),
        ({"qty": D("0.00001")}, r"qty: must be a multiple of 0.0001 \(min_qty_tick of BTC\)"),
        ({"underlying": "NOPE"}, r"structure.legs\[0\].instrument.underlying"),
        ({"instrument": "unknown"}, r"structure.legs\[0\].instrument.instrument_type"),
        ({"instrument": "expired"}, r"structure.legs\[0\].instrument.expiry"),
        ({"instrument": "eur"}, r"structure.legs\[0\].instrument.settlement_asset"),
    ],
)
def test_bad_rfqs_are_refused_naming_the_field(kit, changes, fragment):
    if changes.get("expires_at") == "past":
        changes["expires_at"] = kit.later(-1)
    elif changes.get("expires_at") == "far":
        changes["expires_at"] = kit.later(3601)
    if changes.get("target_companies") == ["self"]:
        changes["target_companies"] = [kit.id("ALPHA"), kit.id("DESK")]
    instrument = None
    if "underlying" in changes:
        instrument = kit.perp(changes.pop("underlying"))
    elif changes.get("instrument") == "unknown":
        changes.pop("instrument")
        instrument = UnknownVariant.model_validate(
            {"instrument_type": "variance_swap", "underlying": "BTC"}
        )
    elif changes.get("instrument") == "expired":
        changes.pop("instrument")
        instrument = kit.option(expires_in_s=-60)
    elif changes.get("instrument") == "eur":
        changes.pop("instrument")
        instrument = SpotInstrument(underlying="BTC", settlement_asset="EUR")
    if instrument is not None:
        changes["structure"] = Structure.model_validate(
            {"legs": [{"side": "buy", "ratio": 1, "instrument": instrument}]}
        )
    with expect_error(ErrorCode.OUT_OF_RANGE, fragment):
        kit.ex.rfqs_new(kit["DESK"], _rfq_body(kit, **changes))


def test_rfqs_are_scoped_to_taker_and_targets(kit):
    rfq = kit.rfq(targets=("ALPHA",))
    assert [r.rfq_id for r in kit.ex.rfqs_sent(kit["DESK"], limit=10, offset=0).items] == [
        rfq.rfq_id
    ]
    assert kit.ex.rfqs_received(kit["DESK"], limit=10, offset=0).items == []
    received = kit.ex.rfqs_received(kit["ALPHA"], limit=10, offset=0).items
    assert [r.rfq_id for r in received] == [rfq.rfq_id]
    assert "target_companies" not in (received[0].model_extra or {})
    for outsider in ("BORE", "EMBR"):
        assert kit.ex.rfqs_received(kit[outsider], limit=10, offset=0).items == []
        assert kit.ex.rfqs_sent(kit[outsider], limit=10, offset=0, id=rfq.rfq_id).items == []


def test_rfq_price_flag_and_id_filter(kit):
    first = kit.rfq()
    kit.rfq()
    page = kit.ex.rfqs_sent(kit["DESK"], limit=10, offset=0, id=first.rfq_id, price=False)
    assert [r.rfq_id for r in page.items] == [first.rfq_id]
    assert page.items[0].structure_price is None


def test_rfq_cancel_by_the_taker_voids_its_quotes(kit):
    rfq = kit.rfq()
    quote = kit.quote("ALPHA", rfq)
    with expect_error(ErrorCode.NOT_FOUND, "id: RFQ not found"):
        kit.ex.rfqs_cancel(kit["ALPHA"], CancelRequest(id=rfq.rfq_id))
    assert kit.ex.rfqs_cancel(kit["DESK"], CancelRequest(id=rfq.rfq_id)) is True
    assert kit.my_rfq("DESK", rfq.rfq_id).rfq_status == RFQStatus.CANCELED
    assert kit.my_quote("ALPHA", quote.parent_quote_id).model_extra["quote_status"] == "void"
    with expect_error(ErrorCode.CONFLICT, "canceled"):
        kit.ex.rfqs_cancel(kit["DESK"], CancelRequest(id=rfq.rfq_id))


def test_rfq_cannot_be_canceled_while_a_trade_clears(kit):
    rfq = kit.rfq()
    kit.accept("DESK", kit.quote("ALPHA", rfq))
    with expect_error(ErrorCode.CONFLICT, "trade is clearing"):
        kit.ex.rfqs_cancel(kit["DESK"], CancelRequest(id=rfq.rfq_id))


def test_rfq_expires_on_the_clock(kit):
    rfq = kit.rfq(expires_in=30)
    quote = kit.quote("ALPHA", rfq, expires_in=30)
    kit.advance(29)
    assert kit.my_rfq("DESK", rfq.rfq_id).rfq_status == RFQStatus.OPEN
    kit.advance(1)
    assert kit.my_rfq("DESK", rfq.rfq_id).rfq_status == RFQStatus.EXPIRED
    assert kit.my_quote("ALPHA", quote.parent_quote_id).model_extra["quote_status"] == "void"
    with expect_error(ErrorCode.CONFLICT, "rfq_id: RFQ is expired"):
        kit.quote("ALPHA", rfq, expires_in=10)


def test_oversized_numbers_are_refused_not_crashed(kit):
    with expect_error(ErrorCode.OUT_OF_RANGE, "qty: qty x structure.legs"):
        kit.ex.rfqs_new(kit["DESK"], _rfq_body(kit, qty=D("1e15")))
    huge_ratio = Structure.model_validate(
        {"legs": [{"side": "buy", "ratio": 10**12, "instrument": kit.perp()}]}
    )
    with expect_error(ErrorCode.OUT_OF_RANGE, r"structure.legs\[0\].ratio"):
        kit.ex.rfqs_new(kit["DESK"], _rfq_body(kit, structure=huge_ratio))
    rfq = kit.rfq()
    legs = [LegQuote(target_rfq_leg_id=rfq.rfq_legs[0].rfq_leg_id, bid=D(1), ask=D("1e15"))]
    with expect_error(ErrorCode.OUT_OF_RANGE, r"leg_quotes\[0\].ask: at most"):
        kit.quote("ALPHA", rfq, leg_quotes=legs)


@pytest.mark.parametrize(
    ("strike", "fragment"),
    [
        ("1e15", r"structure.legs\[0\].instrument.strike: must be between \d+(\.\d+)? and"),
        ("10", r"structure.legs\[0\].instrument.strike: must be between"),
        ("100000.123456789", r"structure.legs\[0\].instrument.strike: at most 8 decimal places"),
    ],
)
def test_absurd_strikes_are_refused_naming_the_strike(kit, strike, fragment):
    from tui.api.models import PayoffType

    option = kit.option(strike=strike, payoff=PayoffType.PUT)
    with expect_error(ErrorCode.OUT_OF_RANGE, fragment):
        kit.rfq(legs=[("buy", option)], qty="100000")


def test_strikes_from_1_to_1000_percent_of_the_mark_are_taken(kit):
    mark = kit.ex.market.mark_price("BTC")
    for strike in (
        (mark / 100).quantize(D("0.1"), "ROUND_UP"),
        (mark * 10).quantize(D(1), "ROUND_DOWN"),
    ):
        assert kit.rfq(legs=[("buy", kit.option(strike=str(strike)))]).rfq_status == "open"


def test_an_instrument_that_cannot_be_priced_is_refused_in_words(kit):
    from datetime import UTC, datetime

    from tui.api.models import DatedFutureInstrument

    far = DatedFutureInstrument(underlying="BTC", expiry=datetime(9999, 12, 31, tzinfo=UTC))
    with pytest.raises(ServiceError) as caught:
        kit.rfq(legs=[("buy", far)])
    assert caught.value.code == ErrorCode.OUT_OF_RANGE
    assert caught.value.message == (
        "structure.legs[0].instrument: cannot be priced; check its strike and expiry"
    )
