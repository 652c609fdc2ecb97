"""Records read leniently, requests checked strictly: one odd value never fails a whole page.

Regression tests of review finding #10 (records reused request validation) and #1 (caller
invented keys were kept inside nested request parts).
"""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any, Literal, get_origin

import pytest
from pydantic import ValidationError

from tests.api.kit import FakeTime, FakeVenue, make_client, page
from tests.api.kit import records as rec
from tui.api import models
from tui.api.models import (
    RFQ,
    Company,
    CreateNewPool,
    DecimalAllowance,
    ExerciseType,
    Leg,
    LegInput,
    LegQuote,
    LegQuoteInput,
    NewQuoteRequest,
    NewRfqRequest,
    NewSettlementPoolRequest,
    PayoffType,
    PermitTemplateRequest,
    PerpetualFutureInstrument,
    PerpetualFutureInstrumentInput,
    PortfolioMarginParams,
    Quote,
    Record,
    RequestPart,
    SettlementPool,
    SimpleMarginParams,
    SimpleMarginParamsInput,
    Structure,
    StructureInput,
    Trade,
    TradeSide,
    UnknownVariant,
    VanillaOptionInstrument,
    VanillaOptionInstrumentInput,
    instrument_label,
)

LATER = "2030-01-01T00:00:00Z"
ODD_OPTION: dict[str, Any] = dict(
    rec.OPTION,
    underlying="A-VERY-LONG-UNDERLYING-NAME",
    strike="-1",
    payoff="digital_call",
    exercise="bermudan",
)
ODD_PERP: dict[str, Any] = dict(rec.PERP, underlying="X" * 30, funding_interval_s=0)


def _odd_rfq() -> dict[str, Any]:
    rfq = copy.deepcopy(rec.RFQ)
    legs = [{"side": "sideways", "ratio": 0, "instrument": ODD_OPTION}] + [
        {"side": "buy", "ratio": 1, "instrument": ODD_PERP}
    ] * 11
    rfq["structure"] = {"legs": legs}
    rfq["rfq_legs"][0]["side"] = "sideways"
    return rfq


# -- records: lenient ------------------------------------------------------------------------


def test_a_structure_with_odd_values_reads_and_keeps_them() -> None:
    rfq = RFQ.model_validate(_odd_rfq())
    first = rfq.structure.legs[0]
    assert first.side == "sideways" and not isinstance(first.side, TradeSide)
    assert first.ratio == 0
    assert len(rfq.structure.legs) == 12
    option = first.instrument
    assert isinstance(option, VanillaOptionInstrument)
    assert option.payoff == "digital_call" and not isinstance(option.payoff, PayoffType)
    assert option.exercise == "bermudan" and not isinstance(option.exercise, ExerciseType)
    assert option.strike == Decimal(-1)
    assert option.underlying == "A-VERY-LONG-UNDERLYING-NAME"
    perp = rfq.structure.legs[1].instrument
    assert isinstance(perp, PerpetualFutureInstrument) and perp.funding_interval_s == 0
    assert rfq.rfq_legs[0].side == "sideways"
    assert instrument_label(option).endswith("-D")
    assert rfq.model_dump(mode="json")["structure"]["legs"][0]["side"] == "sideways"


def test_known_enum_values_in_records_stay_members() -> None:
    rfq = RFQ.model_validate(
        dict(rec.RFQ, structure={"legs": [{"side": "sell", "instrument": rec.OPTION}]})
    )
    leg = rfq.structure.legs[0]
    assert leg.side is TradeSide.SELL
    assert isinstance(leg.instrument, VanillaOptionInstrument)
    assert leg.instrument.payoff is PayoffType.CALL
    assert leg.instrument.exercise is ExerciseType.EUROPEAN


@pytest.mark.parametrize(
    "leg_quote",
    [
        {"target_rfq_leg_id": rec.LEG_ID, "bid": "101", "ask": "100"},  # crossed
        {"target_rfq_leg_id": rec.LEG_ID, "bid": "0", "ask": "-1"},  # zero and negative
        {"target_rfq_leg_id": rec.LEG_ID, "bid": None, "ask": None},  # neither side
    ],
)
def test_a_quote_shows_any_leg_quote_the_server_sends(leg_quote: dict[str, Any]) -> None:
    quote = Quote.model_validate(dict(rec.QUOTE, per_leg_quotes=[leg_quote]))
    (shown,) = quote.per_leg_quotes
    assert shown.target_rfq_leg_id == rec.LEG_ID


def test_margin_params_out_of_request_bounds_still_read() -> None:
    pool = copy.deepcopy(rec.SETTLEMENT_POOL)
    params = pool["data"]["parties"][0]["margin_usage"]["margin_params"]["params"]
    params["default_asset_param"] = dict(
        rec.SIMPLE_ASSET, futures_initial_margin="1.5", futures_leverage="0"
    )
    params["liquidation_penalty"] = "-0.1"
    parsed = SettlementPool.model_validate(pool)
    assert parsed.data is not None
    margin = parsed.data.parties[0].margin_usage
    assert margin is not None and isinstance(margin.margin_params, SimpleMarginParams)
    assert margin.margin_params.params.default_asset_param.futures_initial_margin == Decimal("1.5")
    portfolio = {
        "margin_mode": "portfolio",
        "params": {
            "default_asset_param": {
                name: "2"
                for name in (
                    "vol_range_up",
                    "vol_range_down",
                    "short_vega_power",
                    "long_vega_power",
                    "price_range",
                    "opt_sum_contingency",
                    "opt_contingency",
                    "futures_contingency",
                    "atm_range",
                )
            },
            "decorrelation_risk": "3",
            "initial_margin_factor": "0.5",
            "liquidation_penalty": "1.1",
        },
    }
    quote = Quote.model_validate(dict(rec.QUOTE, creator_params=portfolio))
    assert isinstance(quote.creator_params, PortfolioMarginParams)
    assert quote.creator_params.params.initial_margin_factor == Decimal("0.5")


def test_a_known_kind_this_client_cannot_read_becomes_an_unknown_variant() -> None:
    no_strike = {k: v for k, v in rec.OPTION.items() if k != "strike"}
    trade = Trade.model_validate(dict(rec.TRADE, instrument=no_strike))
    assert isinstance(trade.instrument, UnknownVariant)
    assert instrument_label(trade.instrument) == "ETH vanilla_option"
    odd_mode = {"margin_mode": "simple", "params": {"liquidation_penalty": "0.1"}}
    quote = Quote.model_validate(dict(rec.QUOTE, creator_params=odd_mode))
    assert isinstance(quote.creator_params, UnknownVariant)


def test_a_trade_without_a_pool_reads() -> None:
    assert Trade.model_validate(dict(rec.TRADE, pool_location=None)).pool_location == ""
    missing = {k: v for k, v in rec.TRADE.items() if k != "pool_location"}
    assert Trade.model_validate(missing).pool_location == ""
    assert Trade.model_validate(rec.TRADE).pool_location == rec.POOL_ID


async def test_one_odd_record_does_not_fail_the_page(fake_time: FakeTime) -> None:
    odd_trade = dict(rec.TRADE, id="odd", side="short", pool_location=None, instrument=ODD_OPTION)
    venue = (
        FakeVenue()
        .on("GET", "/v1/portfolio/trades", page([rec.TRADE, odd_trade]))
        .on("GET", "/v1/rfqs/received", page([rec.RFQ, _odd_rfq()]))
        .on(
            "GET",
            "/v1/quotes",
            page([dict(rec.QUOTE, per_leg_quotes=[{"target_rfq_leg_id": "x"}])]),
        )
    )
    async with make_client(venue, fake_time) as client:
        trades = (await client.portfolio_trades()).result
        rfqs = (await client.rfqs_received()).result
        quotes = (await client.quotes()).result
    assert [t.id for t in trades] == [rec.TRADE["id"], "odd"]
    assert trades[1].side == "short"
    assert len(rfqs) == 2 and len(rfqs[1].structure.legs) == 12
    assert quotes[0].per_leg_quotes[0].bid is None


# -- requests: strict, whatever classes they are built from ------------------------------------


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
    odd = Structure.model_validate(_odd_rfq()["structure"])
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


# -- records: a null where the client has a default means "not given" ------------------------


def test_a_settlement_trade_without_rfq_quote_or_counterparty_reads() -> None:
    raw = dict(
        rec.TRADE,
        trade_type="settlement",
        source_rfq=None,
        source_quote=None,
        source_rfq_leg_id=None,
        counterparty=None,
        status=None,
    )
    trade = Trade.model_validate(raw)
    assert (trade.source_rfq, trade.source_quote, trade.counterparty) == ("", "", "")
    assert trade.trade_type == "settlement"
    assert trade.status == "success_trades_booked_into_pool"


def test_null_lists_flags_and_metadata_read_as_their_defaults() -> None:
    quote = Quote.model_validate(dict(rec.QUOTE, clearing_events=None, per_leg_quotes=None))
    assert quote.clearing_events == [] and quote.per_leg_quotes == []
    metadata = {rec.QUOTE_ID: {"maker_company": rec.MAKER}, "other": None, "odd": "text"}
    rfq = RFQ.model_validate(
        dict(rec.RFQ, bids=None, asks=None, rfq_legs=None, quotes_common_metadata=metadata)
    )
    assert rfq.bids == [] and rfq.asks == [] and rfq.rfq_legs == []
    assert rfq.quotes_common_metadata == {rec.QUOTE_ID: {"maker_company": rec.MAKER}}
    assert (
        RFQ.model_validate(dict(rec.RFQ, quotes_common_metadata=None)).quotes_common_metadata == {}
    )
    pool = copy.deepcopy(rec.SETTLEMENT_POOL)
    pool["data"].update(parties=None, positions=None)
    parsed = SettlementPool.model_validate(pool)
    assert parsed.data is not None and parsed.data.parties == [] and parsed.data.positions == []
    assert Company.model_validate(dict(rec.COMPANY, is_lp=None)).is_lp is False


def test_requests_still_refuse_a_null_where_a_value_is_due() -> None:
    # Issue 10: an *optional* key sent as null means left out (``ratio`` and
    # ``funding_interval_s`` have defaults); a key with no default still refuses null.
    with pytest.raises(ValidationError) as caught:
        _rfq_request({"legs": [{"side": None, "ratio": 1, "instrument": rec.PERP}]})
    assert _locations(caught.value) == {("structure", "legs", 0, "side")}
    with pytest.raises(ValidationError):
        _rfq_request({"legs": [{"side": "buy", "instrument": dict(rec.PERP, underlying=None)}]})


def test_every_record_field_with_a_default_reads_null_as_that_default() -> None:
    # The rule lives in the fields' types (`NullAsDefault`) so that pages stay on pydantic's
    # JSON path; a new record field with a default must carry it, or a null would fail a page.
    from tui.api.models.base import NULL_MEANS_DEFAULT, _null_means_default_fields

    public = [getattr(models, name) for name in models.__all__]
    records = [
        c
        for c in public
        if isinstance(c, type) and issubclass(c, Record) and not issubclass(c, RequestPart)
    ]
    assert len(records) > 30
    for record in records:
        for name in _null_means_default_fields(record):
            field = record.model_fields[name]
            if get_origin(field.annotation) is Literal:
                continue  # a union's tag: a null tag reads the whole value as UnknownVariant
            assert NULL_MEANS_DEFAULT in field.metadata, f"{record.__name__}.{name}"
    # ... and never a request part's: a request's null is dropped before it is read.
    for part in (c for c in public if isinstance(c, type) and issubclass(c, RequestPart)):
        for name, field in part.model_fields.items():
            assert NULL_MEANS_DEFAULT not in field.metadata, f"{part.__name__}.{name}"
