"""The venue's vocabulary: pydantic models of every record, request body and enum of the API.

Everyone imports from here (``from tui.api.models import Quote``); the modules are the rooms:
`enums` (the enumerations and the error catalogue), `base` (the two base sides), `instruments`
(instruments, legs, structures), `portfolio` (companies, positions, trades, transfers),
`margin` (margin parameters, pools, allowances), `trading` (RFQs, quotes, clearing),
`metadata` (status, assets, public statistics), `envelopes` (pages, single results, errors) and
`requests` (the bodies of the writing endpoints).

Records (what the server sends) are *tolerant readers*: unknown fields are kept in
``model_extra``, unknown enum values are kept as raw strings, no bound is checked (a count of
legs, a fraction above 1, a crossed leg quote, a long ticker are shown, not refused), a null
sent where the client has a default reads as that default, and a union member of a known kind
that cannot be read parses as `UnknownVariant`. A newer or odd venue never fails a whole page.

Requests (what the client sends, and what the sandbox validates) are strict: they check every
bound the interface states, name the offending field in the error, and drop unknown keys at
every level, so nothing the caller invented is ever stored.

The two sides are separate classes. Where a request carries a record's shape, a strict class
mirrors the lenient one and subclasses it: `StructureInput`/`LegInput`, the
``*InstrumentInput`` variants, `LegQuoteInput`, `SimpleAssetInput`/`PortfolioAssetInput`, the
``*MarginSettingsInput`` and ``*MarginParamsInput`` classes (`RequestMarginParams`). Subclassing
keeps ``isinstance(leg, Leg)`` true for both and narrows the types (a request leg's ``side`` is
a `TradeSide`, a record leg's may be any string). The request models also accept instances of
the lenient record classes (code that builds a `Structure` or `SimpleMarginParams` keeps
working) and check their data strictly. Parts that exist only in requests (`UseExistingPool`,
`CreateNewPool`, `DecimalAllowance`, `BaseAllowance`) are `RequestPart` classes outright.
Separate classes were chosen over one class with context-dependent validators because pydantic
does not revalidate an already built instance, so a context switch could not re-check a record
instance passed into a request, and because the types then say which side may hold what.

Nothing is loaded until it is used: ``from tui.api.models import Trade`` loads the rooms
`Trade` needs, and ``ErrorCode`` loads no pydantic at all, so importing the client (whose
errors name codes) costs no model building (issue 11).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.api.models.base import (
        NameStr,
        PoolNameStr,
        Record,
        Request,
        RequestPart,
        UnknownVariant,
    )
    from tui.api.models.enums import (
        USDC,
        AllowanceType,
        ApiRole,
        ClearingStatus,
        ErrorCode,
        ExerciseType,
        InstrumentType,
        MarginMode,
        PartyStatus,
        PayoffType,
        PoolStrategyType,
        RequestAction,
        RFQStatus,
        SettlementPoolStatus,
        TradeRole,
        TradeSide,
        TradeType,
        TransferStatus,
        TransferType,
    )
    from tui.api.models.envelopes import (
        ApiErrorBody,
        Page,
        Pagination,
        Single,
    )
    from tui.api.models.instruments import (
        MAX_LEGS,
        DatedFutureInstrument,
        DatedFutureInstrumentInput,
        Instrument,
        InstrumentInput,
        KnownInstrument,
        Leg,
        LegInput,
        LegQuote,
        LegQuoteInput,
        PerpetualFutureInstrument,
        PerpetualFutureInstrumentInput,
        RFQLeg,
        SpotInstrument,
        SpotInstrumentInput,
        Structure,
        StructureInput,
        StructurePrice,
        UnderlyingStr,
        VanillaOptionInstrument,
        VanillaOptionInstrumentInput,
        instrument_label,
    )
    from tui.api.models.margin import (
        MAX_ASSET_PARAMS,
        MAX_BASE_UNITS,
        USDC_DECIMALS,
        Allowance,
        BaseAllowance,
        CreateNewPool,
        DecimalAllowance,
        MarginParams,
        MarginUsage,
        PartyMargin,
        PendingSettlementPool,
        PoolParty,
        PoolStrategy,
        PortfolioAsset,
        PortfolioAssetInput,
        PortfolioMarginParams,
        PortfolioMarginParamsInput,
        PortfolioMarginSettings,
        PortfolioMarginSettingsInput,
        RequestMarginParams,
        SettlementPool,
        SettlementPoolData,
        SimpleAsset,
        SimpleAssetInput,
        SimpleMarginParams,
        SimpleMarginParamsInput,
        SimpleMarginSettings,
        SimpleMarginSettingsInput,
        UnitDecimal,
        UseExistingPool,
        allowance_units,
    )
    from tui.api.models.metadata import (
        AuthInfo,
        BidAsk,
        FundingRateParams,
        Listing,
        ListingQuotes,
        LossRefund,
        MarketStats,
        OpenInterest,
        PrecisionRequirements,
        Status,
        SupportedAssetDetails,
        SupportedAssets,
    )
    from tui.api.models.portfolio import (
        AggregatedPosition,
        Asset,
        Company,
        PortfolioSummary,
        Position,
        Trade,
        Transfer,
    )
    from tui.api.models.requests import (
        AcceptQuoteRequest,
        CancelRequest,
        ClientQuoteId,
        MakerLastLookRequest,
        NewQuoteRequest,
        NewRfqRequest,
        NewSettlementPoolRequest,
        NewTransferRequest,
        PermitTemplateRequest,
        ReplaceQuoteRequest,
        SubmitPermitRequest,
    )
    from tui.api.models.trading import (
        RFQ,
        ClearingEvent,
        MakerLastLookResponse,
        Quote,
        QuoteAcceptResponse,
        QuoteWithMargin,
    )
    from tui.api.models.values import (
        ApiRoleValue,
        ClearingStatusValue,
        ExerciseValue,
        PartyStatusValue,
        PayoffValue,
        PoolStatusValue,
        RFQStatusValue,
        SideValue,
        TradeRoleValue,
        TradeTypeValue,
        TransferStatusValue,
        TransferTypeValue,
    )

_HOMES: dict[str, str] = {
    "base": "NameStr PoolNameStr Record Request RequestPart UnknownVariant",
    "enums": (
        "USDC AllowanceType ApiRole ClearingStatus ErrorCode ExerciseType InstrumentType MarginMode"
        " PartyStatus PayoffType PoolStrategyType RequestAction RFQStatus SettlementPoolStatus"
        " TradeRole TradeSide TradeType TransferStatus TransferType"
    ),
    "values": (
        "ApiRoleValue ClearingStatusValue ExerciseValue PartyStatusValue PayoffValue"
        " PoolStatusValue RFQStatusValue SideValue TradeRoleValue TradeTypeValue"
        " TransferStatusValue TransferTypeValue"
    ),
    "envelopes": "ApiErrorBody Page Pagination Single",
    "instruments": (
        "MAX_LEGS DatedFutureInstrument DatedFutureInstrumentInput Instrument InstrumentInput"
        " KnownInstrument Leg LegInput LegQuote LegQuoteInput PerpetualFutureInstrument"
        " PerpetualFutureInstrumentInput RFQLeg SpotInstrument SpotInstrumentInput Structure"
        " StructureInput StructurePrice UnderlyingStr VanillaOptionInstrument"
        " VanillaOptionInstrumentInput instrument_label"
    ),
    "margin": (
        "MAX_ASSET_PARAMS MAX_BASE_UNITS USDC_DECIMALS Allowance BaseAllowance CreateNewPool"
        " DecimalAllowance MarginParams MarginUsage PartyMargin PendingSettlementPool PoolParty"
        " PoolStrategy PortfolioAsset PortfolioAssetInput PortfolioMarginParams"
        " PortfolioMarginParamsInput PortfolioMarginSettings PortfolioMarginSettingsInput"
        " RequestMarginParams SettlementPool SettlementPoolData SimpleAsset SimpleAssetInput"
        " SimpleMarginParams SimpleMarginParamsInput SimpleMarginSettings SimpleMarginSettingsInput"
        " UnitDecimal UseExistingPool allowance_units"
    ),
    "metadata": (
        "AuthInfo BidAsk FundingRateParams Listing ListingQuotes LossRefund MarketStats"
        " OpenInterest PrecisionRequirements Status SupportedAssetDetails SupportedAssets"
    ),
    "portfolio": "AggregatedPosition Asset Company PortfolioSummary Position Trade Transfer",
    "requests": (
        "AcceptQuoteRequest CancelRequest ClientQuoteId MakerLastLookRequest NewQuoteRequest"
        " NewRfqRequest NewSettlementPoolRequest NewTransferRequest PermitTemplateRequest"
        " ReplaceQuoteRequest SubmitPermitRequest"
    ),
    "trading": "RFQ ClearingEvent MakerLastLookResponse Quote QuoteAcceptResponse QuoteWithMargin",
}
"""Which room (submodule) holds each public name, the names of a room separated by spaces
(`tests/api/test_model_rooms.py` holds it to the imports above and to ``__all__``)."""

_ROOM_OF = {name: room for room, names in _HOMES.items() for name in names.split()}

__all__ = [
    "MAX_ASSET_PARAMS",
    "MAX_BASE_UNITS",
    "MAX_LEGS",
    "RFQ",
    "USDC",
    "USDC_DECIMALS",
    "AcceptQuoteRequest",
    "AggregatedPosition",
    "Allowance",
    "AllowanceType",
    "ApiErrorBody",
    "ApiRole",
    "ApiRoleValue",
    "Asset",
    "AuthInfo",
    "BaseAllowance",
    "BidAsk",
    "CancelRequest",
    "ClearingEvent",
    "ClearingStatus",
    "ClearingStatusValue",
    "ClientQuoteId",
    "Company",
    "CreateNewPool",
    "DatedFutureInstrument",
    "DatedFutureInstrumentInput",
    "DecimalAllowance",
    "ErrorCode",
    "ExerciseType",
    "ExerciseValue",
    "FundingRateParams",
    "Instrument",
    "InstrumentInput",
    "InstrumentType",
    "KnownInstrument",
    "Leg",
    "LegInput",
    "LegQuote",
    "LegQuoteInput",
    "Listing",
    "ListingQuotes",
    "LossRefund",
    "MakerLastLookRequest",
    "MakerLastLookResponse",
    "MarginMode",
    "MarginParams",
    "MarginUsage",
    "MarketStats",
    "NameStr",
    "NewQuoteRequest",
    "NewRfqRequest",
    "NewSettlementPoolRequest",
    "NewTransferRequest",
    "OpenInterest",
    "Page",
    "Pagination",
    "PartyMargin",
    "PartyStatus",
    "PartyStatusValue",
    "PayoffType",
    "PayoffValue",
    "PendingSettlementPool",
    "PermitTemplateRequest",
    "PerpetualFutureInstrument",
    "PerpetualFutureInstrumentInput",
    "PoolNameStr",
    "PoolParty",
    "PoolStatusValue",
    "PoolStrategy",
    "PoolStrategyType",
    "PortfolioAsset",
    "PortfolioAssetInput",
    "PortfolioMarginParams",
    "PortfolioMarginParamsInput",
    "PortfolioMarginSettings",
    "PortfolioMarginSettingsInput",
    "PortfolioSummary",
    "Position",
    "PrecisionRequirements",
    "Quote",
    "QuoteAcceptResponse",
    "QuoteWithMargin",
    "RFQLeg",
    "RFQStatus",
    "RFQStatusValue",
    "Record",
    "ReplaceQuoteRequest",
    "Request",
    "RequestAction",
    "RequestMarginParams",
    "RequestPart",
    "SettlementPool",
    "SettlementPoolData",
    "SettlementPoolStatus",
    "SideValue",
    "SimpleAsset",
    "SimpleAssetInput",
    "SimpleMarginParams",
    "SimpleMarginParamsInput",
    "SimpleMarginSettings",
    "SimpleMarginSettingsInput",
    "Single",
    "SpotInstrument",
    "SpotInstrumentInput",
    "Status",
    "Structure",
    "StructureInput",
    "StructurePrice",
    "SubmitPermitRequest",
    "SupportedAssetDetails",
    "SupportedAssets",
    "Trade",
    "TradeRole",
    "TradeRoleValue",
    "TradeSide",
    "TradeType",
    "TradeTypeValue",
    "Transfer",
    "TransferStatus",
    "TransferStatusValue",
    "TransferType",
    "TransferTypeValue",
    "UnderlyingStr",
    "UnitDecimal",
    "UnknownVariant",
    "UseExistingPool",
    "VanillaOptionInstrument",
    "VanillaOptionInstrumentInput",
    "allowance_units",
    "instrument_label",
]


def __getattr__(name: str) -> Any:
    """Load the room that holds ``name`` on first use (PEP 562), then keep the name here."""
    room = _ROOM_OF.get(name)
    if room is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{room}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
