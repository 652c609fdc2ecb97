"""Requests checked strictly, whatever classes they are built from: record parts re-checked
as request parts, keys the caller invented dropped at every depth, caller-chosen names and
underlyings refused when odd, a null refused where a value is due.

Regression tests of review findings #10 (records reused request validation) and #1 (caller
invented keys were kept inside nested request parts).
"""

from __future__ import annotations

import copy

import pytest
from pydantic import ValidationError

from tests.api.kit import records as rec
from tests.api.kit.records import odd_rfq
from tui.api import models
from tui.api.models import (
    CreateNewPool,
    DecimalAllowance,
    Leg,
    LegInput,
    LegQuote,
    LegQuoteInput,
    NewQuoteRequest,
    NewRfqRequest,
    NewSettlementPoolRequest,
    PermitTemplateRequest,
    PerpetualFutureInstrument,
    PerpetualFutureInstrumentInput,
    RequestPart,
    SimpleMarginParams,
    SimpleMarginParamsInput,
    Structure,
    StructureInput,
    TradeSide,
    VanillaOptionInstrument,
    VanillaOptionInstrumentInput,
)

LATER = "2030-01-01T00:00:00Z"


def _rfq_request(structure: object) -> NewRfqRequest:
    return NewRfqRequest(
        structure=structure, qty="1", expires_at=LATER, target_companies=[rec.MAKER]
    )


def _locations(error: ValidationError) -> set[tuple[int | str, ...]]:
    return {tuple(e["loc"]) for e in error.errors()}


def test_request_parts_are_strict_subclasses_of_the_records() -> None:
    for strict, lenient in [
        (StructureInput, Structure),
        (LegInput, Leg),
        (LegQuoteInput, LegQuote),
        (VanillaOptionInstrumentInput, VanillaOptionInstrument),
        (PerpetualFutureInstrumentInput, PerpetualFutureInstrument),
        (SimpleMarginParamsInput, SimpleMarginParams),
    ]:
        assert issubclass(strict, lenient) and issubclass(strict, RequestPart)
    public = [getattr(models, name) for name in models.__all__]
    parts = [c for c in public if isinstance(c, type) and issubclass(c, RequestPart)]
    assert len(parts) > 15
    assert all(part.model_config.get("extra") == "ignore" for part in parts)
    request = _rfq_request({"legs": [{"side": "buy", "instrument": rec.OPTION}]})
    leg = request.structure.legs[0]
    assert isinstance(request.structure, StructureInput) and isinstance(leg, Leg)
    assert leg.side is TradeSide.BUY
    assert isinstance(leg.instrument, VanillaOptionInstrumentInput)
    assert isinstance(leg.instrument, VanillaOptionInstrument)


def test_a_structure_built_from_record_classes_is_checked_strictly() -> None:
    good = Structure(legs=[Leg(side="buy", instrument=PerpetualFutureInstrument(underlying="BTC"))])
    request = _rfq_request(good)
    assert isinstance(request.structure.legs[0], LegInput)
    assert request.to_wire()["structure"]["legs"][0]["side"] == "buy"
    odd = Structure.model_validate(odd_rfq()["structure"])
    with pytest.raises(ValidationError) as caught:
        _rfq_request(odd)
    assert ("structure", "legs") in _locations(caught.value)  # 12 legs: at most 10
    with pytest.raises(ValidationError) as caught:
        _rfq_request(Structure.model_validate({"legs": odd.model_dump()["legs"][:2]}))
    where = _locations(caught.value)
    option = ("structure", "legs", 0, "instrument", "vanilla_option")
    perp = ("structure", "legs", 1, "instrument", "perpetual_future")
    assert ("structure", "legs", 0, "side") in where
    assert ("structure", "legs", 0, "ratio") in where
    for field in ("underlying", "strike", "payoff", "exercise"):
        assert (*option, field) in where
    assert (*perp, "underlying") in where
    assert (*perp, "funding_interval_s") in where


@pytest.mark.parametrize(
    ("bid", "ask", "message"),
    [
        ("101", "100", "bid must not be above ask"),
        ("0", None, "greater than 0"),
        (None, None, "needs a bid, an ask, or both"),
    ],
)
def test_a_leg_quote_record_in_a_quote_request_is_checked(
    bid: str | None, ask: str | None, message: str
) -> None:
    leg_quote = LegQuote(target_rfq_leg_id=rec.LEG_ID, bid=bid, ask=ask)  # a record: reads
    with pytest.raises(ValidationError) as caught:
        NewQuoteRequest(
            rfq_id=rec.RFQ_ID,
            expires_at=LATER,
            leg_quotes=[leg_quote],
            pool_strategy={"strategy": "use_existing", "pool_id": rec.POOL_ID},
        )
    assert caught.value.errors()[0]["loc"][:2] == ("leg_quotes", 0)
    assert message in str(caught.value)


def test_margin_records_in_a_pool_request_are_checked() -> None:
    params = SimpleMarginParams.model_validate(rec.MARGIN_PARAMS)
    accepted = NewSettlementPoolRequest(
        pool_name="Desk / Alpha",
        company_other=rec.MAKER,
        creator_params=params,
        other_params=params,
    )
    assert isinstance(accepted.creator_params, SimpleMarginParamsInput)
    odd = copy.deepcopy(rec.MARGIN_PARAMS)
    odd["params"]["default_asset_param"] = dict(rec.SIMPLE_ASSET, futures_initial_margin="1.5")
    odd["params"]["asset_params"] = {"BTC": dict(rec.SIMPLE_ASSET, futures_leverage="0")}
    lenient = SimpleMarginParams.model_validate(odd)
    with pytest.raises(ValidationError) as caught:
        CreateNewPool(name="p", creator_params=lenient, other_params=params)
    base = ("creator_params", "simple", "params")
    assert _locations(caught.value) == {
        (*base, "default_asset_param", "futures_initial_margin"),
        (*base, "asset_params", "BTC", "futures_leverage"),
    }


def test_nested_request_parts_drop_keys_the_caller_invented() -> None:
    invented = {"evil\ud800": "x", "note": "kept nowhere"}
    leg = dict({"side": "buy", "instrument": dict(rec.PERP, **invented)}, **invented)
    request = _rfq_request(dict({"legs": [leg]}, **invented))
    wire = request.to_wire()
    assert wire["structure"] == {"legs": [{"side": "buy", "ratio": 1, "instrument": rec.PERP}]}
    margin = copy.deepcopy(rec.MARGIN_PARAMS)
    margin.update(invented)
    margin["params"].update(invented)
    margin["params"]["default_asset_param"].update(invented)
    pool = NewSettlementPoolRequest.model_validate(
        {
            "pool_name": "p",
            "company_other": rec.MAKER,
            "creator_params": margin,
            "other_params": margin,
            **invented,
        }
    )
    assert pool.to_wire()["creator_params"] == rec.MARGIN_PARAMS
    quote = NewQuoteRequest.model_validate(
        {
            "rfq_id": rec.RFQ_ID,
            "expires_at": LATER,
            "leg_quotes": [dict(rec.LEG_QUOTE, **invented)],
            "pool_strategy": {
                "strategy": "create_new",
                "name": "p",
                "creator_params": margin,
                "other_params": margin,
                **invented,
            },
        }
    )
    quote_wire = quote.to_wire()
    assert quote_wire["leg_quotes"] == [rec.LEG_QUOTE]
    assert set(quote_wire["pool_strategy"]) == {
        "strategy",
        "name",
        "creator_params",
        "other_params",
    }
    permit = PermitTemplateRequest.model_validate(
        {
            "pool_address": rec.POOL_ADDRESS,
            "allowance": {"type": "decimal", "value": "5", **invented},
        }
    )
    assert permit.to_wire()["allowance"] == {"type": "decimal", "value": "5"}
    assert DecimalAllowance.model_validate({"value": "5", **invented}).model_extra in (None, {})
    # Records keep what they are sent.
    record = Leg.model_validate({"side": "buy", "instrument": rec.PERP, "note": "shown"})
    assert record.model_extra == {"note": "shown"}


@pytest.mark.parametrize("name", ["bad\ud800name", "tab\there", ""])
def test_caller_chosen_names_refuse_control_characters_and_surrogates(name: str) -> None:
    with pytest.raises(ValidationError) as caught:
        NewSettlementPoolRequest.model_validate(
            {
                "pool_name": name,
                "company_other": rec.MAKER,
                "creator_params": rec.MARGIN_PARAMS,
                "other_params": rec.MARGIN_PARAMS,
            }
        )
    assert _locations(caught.value) == {("pool_name",)}


@pytest.mark.parametrize("underlying", ["", "X" * 21, "BTC\ud800", "BT C", "éth"])
def test_request_underlyings_are_short_ascii_tickers(underlying: str) -> None:
    with pytest.raises(ValidationError) as caught:
        _rfq_request(
            {"legs": [{"side": "buy", "instrument": dict(rec.PERP, underlying=underlying)}]}
        )
    assert _locations(caught.value) == {
        ("structure", "legs", 0, "instrument", "perpetual_future", "underlying")
    }


def test_requests_still_refuse_a_null_where_a_value_is_due() -> None:
    # Issue 10: an *optional* key sent as null means left out (``ratio`` and
    # ``funding_interval_s`` have defaults); a key with no default still refuses null.
    with pytest.raises(ValidationError) as caught:
        _rfq_request({"legs": [{"side": None, "ratio": 1, "instrument": rec.PERP}]})
    assert _locations(caught.value) == {("structure", "legs", 0, "side")}
    with pytest.raises(ValidationError):
        _rfq_request({"legs": [{"side": "buy", "instrument": dict(rec.PERP, underlying=None)}]})
