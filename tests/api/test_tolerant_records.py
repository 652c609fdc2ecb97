"""Records read leniently: one odd value never fails a whole page, and a null where the client
has a default means "not given" (the catalogue test holds every record field to that).

Regression tests of review finding #10 (records reused request validation).
"""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any, Literal, get_origin

import pytest

from tests.api.kit import FakeTime, FakeVenue, make_client, page
from tests.api.kit import records as rec
from tests.api.kit.records import ODD_OPTION, odd_rfq
from tui.api import models
from tui.api.models import (
    RFQ,
    Company,
    ExerciseType,
    PayoffType,
    PerpetualFutureInstrument,
    PortfolioMarginParams,
    Quote,
    Record,
    RequestPart,
    SettlementPool,
    SimpleMarginParams,
    Trade,
    TradeSide,
    UnknownVariant,
    VanillaOptionInstrument,
    instrument_label,
)


def test_a_structure_with_odd_values_reads_and_keeps_them() -> None:
    rfq = RFQ.model_validate(odd_rfq())
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
        .on("GET", "/v1/rfqs/received", page([rec.RFQ, odd_rfq()]))
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
