"""Pydantic models for every record, request body and enum of the trading and statistics API.

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
"""

from __future__ import annotations

import functools
import re
import types
import unicodedata
from decimal import Decimal
from enum import IntEnum, StrEnum
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Generic,
    Literal,
    TypeVar,
    Union,
    get_args,
    get_origin,
)

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    field_validator,
    model_validator,
)

from tui.api.types import (
    H160,
    DecimalStr,
    RequestDecimalStr,
    RequestPositiveDecimalStr,
    Timestamp,
    UuidStr,
    decimal_to_wire,
    tolerant,
)

# ---------------------------------------------------------------------------------------------
# Enums
# ---------------------------------------------------------------------------------------------


class TradeSide(StrEnum):
    """Direction of a leg or a trade, from the point of view of the company that holds it."""

    BUY = "buy"
    SELL = "sell"

    @property
    def opposite(self) -> TradeSide:
        """The other side: what the counterparty of this side does."""
        return TradeSide.SELL if self is TradeSide.BUY else TradeSide.BUY


class RequestAction(StrEnum):
    """A maker's answer at last look."""

    ACCEPT = "accept"
    REJECT = "reject"


class ClearingStatus(StrEnum):
    """Where an accepted quote stands on clearing (final ones: `tui.api.lifecycle`)."""

    PENDING_POOL_CREATION = "pending_pool_creation"
    PENDING_TAKER_DEPOSIT_APPROVAL = "pending_taker_deposit_approval"
    PENDING_MAKER_LAST_LOOK = "pending_maker_last_look"
    PENDING_MAKER_DEPOSIT_APPROVAL = "pending_maker_deposit_approval"
    PENDING_ATOMIC_DEPOSIT = "pending_atomic_deposit"
    SUCCESS_TRADES_BOOKED_INTO_POOL = "success_trades_booked_into_pool"
    REJECTED_FAILED_TAKER_DEPOSIT_APPROVAL = "rejected_failed_taker_deposit_approval"
    REJECTED_FAILED_MAKER_DEPOSIT_APPROVAL = "rejected_failed_maker_deposit_approval"
    REJECTED_MAKER_LAST_LOOK_REJECTED = "rejected_maker_last_look_rejected"
    REJECTED_MAKER_LAST_LOOK_EXPIRED = "rejected_maker_last_look_expired"
    REJECTED_FAILED_POOL_CREATION = "rejected_failed_pool_creation"
    REJECTED_FAILED_RISK_CHECKS = "rejected_failed_risk_checks"
    REJECTED_FAILED_TAKER_ACCEPT_NO_QUOTE = "rejected_failed_taker_accept_no_quote"
    REJECTED_FAILED_TAKER_ACCEPT_QUOTE_EXPIRED = "rejected_failed_taker_accept_quote_expired"
    REJECTED_FAILED_TAKER_ACCEPT_RFQ_EXPIRED = "rejected_failed_taker_accept_rfq_expired"
    REJECTED_FAILED_TAKER_FUNDING = "rejected_failed_taker_funding"
    REJECTED_FAILED_MAKER_FUNDING = "rejected_failed_maker_funding"
    REJECTED_FAILED_ATOMIC_DEPOSIT = "rejected_failed_atomic_deposit"
    REJECTED_FAILED_REDUCE_ONLY_CHECK = "rejected_failed_reduce_only_check"


class RFQStatus(StrEnum):
    """Lifecycle of an RFQ; ``closed`` means a trade was booked from it."""

    OPEN = "open"
    EXPIRED = "expired"
    CANCELED = "canceled"
    CLOSED = "closed"


class SettlementPoolStatus(StrEnum):
    """Lifecycle of a settlement pool: created on-chain after a block delay."""

    PENDING = "pending"
    OPEN = "open"
    CANCELED = "canceled"


class PartyStatus(StrEnum):
    """Whether a party's side of a pool is confirmed on-chain."""

    PENDING = "pending"
    CONFIRMED = "confirmed"


class TransferStatus(StrEnum):
    """Lifecycle of a transfer on the simulated or real chain."""

    PENDING = "pending"
    CONFIRMED = "confirmed"
    FAILED = "failed"


class TransferType(StrEnum):
    """Kinds of balance movement; only deposit and withdrawal can be requested."""

    DEPOSIT = "deposit"
    WITHDRAWAL = "withdrawal"
    PREMIUM = "premium"
    SETTLEMENT = "settlement"
    LIQUIDATION = "liquidation"
    REALIZED_PNL = "realized_pnl"
    INITIAL_MARGIN = "initial_margin"
    FUNDING = "funding"
    FEE = "fee"


class TradeRole(StrEnum):
    """Which side of the RFQ a company was on for a trade."""

    MAKER = "maker"
    TAKER = "taker"


class TradeType(StrEnum):
    """Why a trade record exists."""

    TRADE = "trade"
    SETTLEMENT = "settlement"
    SETTLEMENT_MARKET_DELISTED = "settlement_market_delisted"
    LIQUIDATION = "liquidation"


class ApiRole(StrEnum):
    """Permission of an API key: a ``reader`` may not call writing endpoints."""

    READER = "reader"
    WRITER = "writer"


class MarginMode(StrEnum):
    """Margin model of one side of a pool."""

    SIMPLE = "simple"
    PORTFOLIO = "portfolio"


class PoolStrategyType(StrEnum):
    """Whether a quote settles in an existing pool or asks for a new one."""

    USE_EXISTING = "use_existing"
    CREATE_NEW = "create_new"


class AllowanceType(StrEnum):
    """Unit of a permit allowance: a decimal USDC amount or integer base units."""

    BASE = "base"
    DECIMAL = "decimal"


class InstrumentType(StrEnum):
    """What a leg trades."""

    SPOT = "spot"
    DATED_FUTURE = "dated_future"
    PERPETUAL_FUTURE = "perpetual_future"
    VANILLA_OPTION = "vanilla_option"


class PayoffType(StrEnum):
    """Call or put, for vanilla options."""

    CALL = "call"
    PUT = "put"


class ExerciseType(StrEnum):
    """Exercise style of a vanilla option."""

    EUROPEAN = "european"
    AMERICAN = "american"


# Record fields read from the server keep unknown enum values as raw strings (see `tolerant`).
if TYPE_CHECKING:
    SideValue = TradeSide | str
    ClearingStatusValue = ClearingStatus | str
    PartyStatusValue = PartyStatus | str
    PoolStatusValue = SettlementPoolStatus | str
    TradeRoleValue = TradeRole | str
    TradeTypeValue = TradeType | str
    TransferTypeValue = TransferType | str
    TransferStatusValue = TransferStatus | str
    RFQStatusValue = RFQStatus | str
    ApiRoleValue = ApiRole | str
    PayoffValue = PayoffType | str
    ExerciseValue = ExerciseType | str
else:
    SideValue = tolerant(TradeSide)
    ClearingStatusValue = tolerant(ClearingStatus)
    PartyStatusValue = tolerant(PartyStatus)
    PoolStatusValue = tolerant(SettlementPoolStatus)
    TradeRoleValue = tolerant(TradeRole)
    TradeTypeValue = tolerant(TradeType)
    TransferTypeValue = tolerant(TransferType)
    TransferStatusValue = tolerant(TransferStatus)
    RFQStatusValue = tolerant(RFQStatus)
    ApiRoleValue = tolerant(ApiRole)
    PayoffValue = tolerant(PayoffType)
    ExerciseValue = tolerant(ExerciseType)


class ErrorCode(IntEnum):
    """The error catalogue: the ``code`` of an ``{"error": {...}}`` body, with its HTTP status."""

    BAD_REQUEST = 1000
    OUT_OF_RANGE = 1001
    UNAUTHENTICATED = 2000
    TIMESTAMP_SKEW = 2001
    FORBIDDEN = 2002
    NOT_FOUND = 3000
    CONFLICT = 4000
    RATE_LIMITED = 5000
    INTERNAL = 9000

    @property
    def http_status(self) -> int:
        """The HTTP status that goes with this code."""
        return _ERROR_HTTP_STATUS[self]


_ERROR_HTTP_STATUS = {
    ErrorCode.BAD_REQUEST: 400,
    ErrorCode.OUT_OF_RANGE: 400,
    ErrorCode.UNAUTHENTICATED: 401,
    ErrorCode.TIMESTAMP_SKEW: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.CONFLICT: 409,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.INTERNAL: 500,
}


USDC = "USDC"
"""The only settlement and transfer asset of the venue."""

# ---------------------------------------------------------------------------------------------
# Base classes
# ---------------------------------------------------------------------------------------------


def _accepts_none(annotation: Any) -> bool:
    if annotation is None or annotation is type(None) or annotation is Any:
        return True
    origin = get_origin(annotation)
    if origin is Annotated:
        return _accepts_none(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return any(_accepts_none(arg) for arg in get_args(annotation))
    return False


@functools.cache
def _null_means_default_fields(cls: type[BaseModel]) -> frozenset[str]:
    """The fields of ``cls`` that have a default but do not take None."""
    return frozenset(
        name
        for name, field in cls.model_fields.items()
        if not field.is_required() and not _accepts_none(field.annotation)
    )


class Record(BaseModel):
    """Base of everything the server sends: unknown fields are kept, never an error.

    A null sent for a field that has a default but does not take None (a list, a flag, a
    trade's ``pool_location``) means "not given": the default is used instead of failing.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _null_means_default(cls, data: Any) -> Any:
        if not isinstance(data, dict) or issubclass(cls, RequestPart):
            return data  # requests keep refusing a null where a value is due
        names = _null_means_default_fields(cls)
        if any(data.get(name, 0) is None for name in names):
            return {k: v for k, v in data.items() if not (v is None and k in names)}
        return data


class Request(BaseModel):
    """Base of request bodies: validated on construction, unknown keys ignored."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready body: decimals as strings, timestamps RFC 3339, no null extras."""
        return self.model_dump(mode="json", exclude_none=True)


class RequestPart(BaseModel):
    """Base of the nested parts of a request body: every bound checked, unknown keys dropped.

    A part that mirrors a record (`LegInput` mirrors `Leg`) subclasses the record, so
    ``isinstance(leg, Leg)`` holds for both, and names ``RequestPart`` *last* among its bases so
    that this configuration (``extra="ignore"``) wins over the record's ``extra="allow"``.
    A part also takes an instance of the lenient record class it mirrors (a `Leg` built by
    code written against the records): that instance's data is validated again, strictly.
    """

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _from_record(cls, data: Any) -> Any:
        if isinstance(data, BaseModel) and not isinstance(data, cls):
            return data.model_dump()
        return data


class UnknownVariant(Record):
    """A union member the client does not know yet (new instrument, margin mode, strategy).

    Kept whole in ``model_extra`` so the desk can show the raw kind instead of crashing.
    """


def _tag_or_unknown(field: str, known: set[str]) -> Any:
    def pick(value: Any) -> str:
        tag = value.get(field) if isinstance(value, dict) else getattr(value, field, None)
        tag = str(tag) if tag is not None else None
        return tag if tag in known else "unknown"

    return Discriminator(pick)


def _unknown_when_unreadable(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """A record union member of a known kind whose shape this client cannot read (a field
    missing or of a new type) is kept as an `UnknownVariant` rather than failing its page."""
    try:
        return handler(value)
    except ValidationError:
        if isinstance(value, dict):
            return UnknownVariant.model_validate(value)
        raise


_RECORD_UNION = WrapValidator(_unknown_when_unreadable)


def _no_control_characters(value: str) -> str:
    for char in value:
        if unicodedata.category(char) in ("Cc", "Cs"):
            raise ValueError("must not contain control characters or unpaired surrogates")
    return value


NameStr = Annotated[str, Field(min_length=1, max_length=50), AfterValidator(_no_control_characters)]
"""A name chosen by the caller (pool name, client quote id): 1 to 50 printable characters."""


# ---------------------------------------------------------------------------------------------
# Instruments, structures, legs
# ---------------------------------------------------------------------------------------------

UnderlyingStr = Annotated[
    str, Field(min_length=1, max_length=20, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
]
"""An asset ticker in a request: 1 to 20 ASCII letters, digits, ``.``, ``_`` or ``-``."""


class SpotInstrument(Record):
    """Spot exchange of the underlying against USDC."""

    instrument_type: Literal[InstrumentType.SPOT] = InstrumentType.SPOT
    underlying: str
    settlement_asset: str = USDC


class DatedFutureInstrument(Record):
    """A future that settles at ``expiry``."""

    instrument_type: Literal[InstrumentType.DATED_FUTURE] = InstrumentType.DATED_FUTURE
    underlying: str
    settlement_asset: str = USDC
    expiry: Timestamp


class PerpetualFutureInstrument(Record):
    """A perpetual future paying funding every ``funding_interval_s`` seconds."""

    instrument_type: Literal[InstrumentType.PERPETUAL_FUTURE] = InstrumentType.PERPETUAL_FUTURE
    underlying: str
    settlement_asset: str = USDC
    funding_interval_s: int = 3600


class VanillaOptionInstrument(Record):
    """A call or put struck at ``strike`` expiring at ``expiry``."""

    instrument_type: Literal[InstrumentType.VANILLA_OPTION] = InstrumentType.VANILLA_OPTION
    underlying: str
    settlement_asset: str = USDC
    expiry: Timestamp
    strike: DecimalStr
    payoff: PayoffValue
    exercise: ExerciseValue = ExerciseType.EUROPEAN


KnownInstrument = (
    SpotInstrument | DatedFutureInstrument | PerpetualFutureInstrument | VanillaOptionInstrument
)
Instrument = Annotated[
    Annotated[SpotInstrument, Tag(InstrumentType.SPOT.value)]
    | Annotated[DatedFutureInstrument, Tag(InstrumentType.DATED_FUTURE.value)]
    | Annotated[PerpetualFutureInstrument, Tag(InstrumentType.PERPETUAL_FUTURE.value)]
    | Annotated[VanillaOptionInstrument, Tag(InstrumentType.VANILLA_OPTION.value)]
    | Annotated[UnknownVariant, Tag("unknown")],
    _tag_or_unknown("instrument_type", {t.value for t in InstrumentType}),
    _RECORD_UNION,
]
"""Any instrument, by ``instrument_type``; an unknown type (or a known type this client cannot
read) parses as `UnknownVariant`."""


class SpotInstrumentInput(SpotInstrument, RequestPart):
    """A spot instrument in a request."""

    underlying: UnderlyingStr


class DatedFutureInstrumentInput(DatedFutureInstrument, RequestPart):
    """A dated future in a request."""

    underlying: UnderlyingStr


class PerpetualFutureInstrumentInput(PerpetualFutureInstrument, RequestPart):
    """A perpetual future in a request: the funding interval is a positive number of seconds."""

    underlying: UnderlyingStr
    funding_interval_s: int = Field(default=3600, gt=0, le=10**9)


class VanillaOptionInstrumentInput(VanillaOptionInstrument, RequestPart):
    """A vanilla option in a request: a positive strike and a documented payoff and exercise."""

    underlying: UnderlyingStr
    strike: RequestPositiveDecimalStr
    payoff: PayoffType
    exercise: ExerciseType = ExerciseType.EUROPEAN


InstrumentInput = Annotated[
    Annotated[SpotInstrumentInput, Tag(InstrumentType.SPOT.value)]
    | Annotated[DatedFutureInstrumentInput, Tag(InstrumentType.DATED_FUTURE.value)]
    | Annotated[PerpetualFutureInstrumentInput, Tag(InstrumentType.PERPETUAL_FUTURE.value)]
    | Annotated[VanillaOptionInstrumentInput, Tag(InstrumentType.VANILLA_OPTION.value)]
    | Annotated[UnknownVariant, Tag("unknown")],
    _tag_or_unknown("instrument_type", {t.value for t in InstrumentType}),
]
"""An instrument in a request: the known kinds checked strictly. An unknown kind still parses
(as `UnknownVariant`) so that the venue can refuse it by name: it is never traded or stored."""


def instrument_label(instrument: Any) -> str:
    """A trader's short name for an instrument: ``BTC-PERP``, ``ETH-27MAR26-3000-C``."""
    kind = getattr(instrument, "instrument_type", None)
    underlying = getattr(instrument, "underlying", None) or (
        (instrument.model_extra or {}).get("underlying", "?")
        if isinstance(instrument, Record)
        else "?"
    )
    if isinstance(instrument, PerpetualFutureInstrument):
        return f"{underlying}-PERP"
    if isinstance(instrument, SpotInstrument):
        return f"{underlying}/USDC"
    if isinstance(instrument, DatedFutureInstrument):
        return f"{underlying}-{instrument.expiry:%d%b%y}".upper()
    if isinstance(instrument, VanillaOptionInstrument):
        strike_text = decimal_to_wire(instrument.strike)
        if "." in strike_text:
            strike_text = strike_text.rstrip("0").rstrip(".")
        payoff = str(instrument.payoff)[:1] or "?"
        return f"{underlying}-{instrument.expiry:%d%b%y}-{strike_text}-{payoff}".upper()
    return f"{underlying} {kind or 'unknown'}"


MAX_LEGS = 10
"""Most legs a structure in a request may have (and so most leg quotes in a quote)."""


class Leg(Record):
    """One leg of a structure: buy or sell ``ratio`` units of the instrument per structure unit."""

    side: SideValue
    ratio: int = 1
    instrument: Instrument


class Structure(Record):
    """What an RFQ trades: one or more legs."""

    legs: list[Leg]


class LegInput(Leg, RequestPart):
    """A leg in a request: a known side, a ratio of at least 1, a strictly checked instrument."""

    side: TradeSide
    ratio: int = Field(default=1, ge=1)
    instrument: InstrumentInput


class StructureInput(Structure, RequestPart):
    """A structure in a request: 1 to `MAX_LEGS` legs."""

    # A narrower list than the record's (lists are invariant for mypy); parts are never mutated.
    legs: list[LegInput] = Field(min_length=1, max_length=MAX_LEGS)  # type: ignore[assignment]


class RFQLeg(Record):
    """A leg as booked in an RFQ: ``qty`` is the RFQ quantity times the leg ratio."""

    rfq_leg_id: str
    rfq_id: str
    instrument: Instrument
    side: SideValue
    qty: DecimalStr


class LegQuote(Record):
    """A maker's price for one RFQ leg, as the server shows it (a bid, an ask, or both)."""

    target_rfq_leg_id: str
    bid: DecimalStr | None = None
    ask: DecimalStr | None = None


class LegQuoteInput(LegQuote, RequestPart):
    """A leg quote in a request: at least one of bid and ask, each > 0, bid not above ask."""

    bid: RequestPositiveDecimalStr | None = None
    ask: RequestPositiveDecimalStr | None = None

    @model_validator(mode="after")
    def _one_side_at_least(self) -> LegQuoteInput:
        if self.bid is None and self.ask is None:
            raise ValueError("a leg quote needs a bid, an ask, or both")
        if self.bid is not None and self.ask is not None and self.bid > self.ask:
            raise ValueError("bid must not be above ask")
        return self


class StructurePrice(Record):
    """Value and greeks of a whole structure at the current mark."""

    price: DecimalStr | None = None
    native_price: DecimalStr | None = None
    delta: DecimalStr | None = None
    gamma: DecimalStr | None = None
    theta: DecimalStr | None = None
    vega: DecimalStr | None = None
    rho: DecimalStr | None = None
    timestamp: Timestamp | None = None


# ---------------------------------------------------------------------------------------------
# Margin, pools, allowances
# ---------------------------------------------------------------------------------------------

UnitDecimal = Annotated[RequestDecimalStr, Field(ge=Decimal(0), le=Decimal(1))]
"""A fraction in a request, in [0, 1]."""


class SimpleAsset(Record):
    """Simple-margin parameters for one asset: fractions of notional (in [0, 1] on requests)."""

    futures_initial_margin: DecimalStr
    futures_maintenance_margin: DecimalStr
    futures_leverage: DecimalStr
    option_initial_margin: DecimalStr
    option_initial_margin_min: DecimalStr
    option_maintenance_margin: DecimalStr


class SimpleAssetInput(SimpleAsset, RequestPart):
    """Simple-margin parameters in a request: fractions in [0, 1], leverage > 0."""

    futures_initial_margin: UnitDecimal
    futures_maintenance_margin: UnitDecimal
    futures_leverage: RequestPositiveDecimalStr
    option_initial_margin: UnitDecimal
    option_initial_margin_min: UnitDecimal
    option_maintenance_margin: UnitDecimal


class PortfolioAsset(Record):
    """Portfolio-margin scenario parameters for one asset (each in [0, 1] on requests)."""

    vol_range_up: DecimalStr
    vol_range_down: DecimalStr
    short_vega_power: DecimalStr
    long_vega_power: DecimalStr
    price_range: DecimalStr
    opt_sum_contingency: DecimalStr
    opt_contingency: DecimalStr
    futures_contingency: DecimalStr
    atm_range: DecimalStr


class PortfolioAssetInput(PortfolioAsset, RequestPart):
    """Portfolio-margin parameters in a request, each in [0, 1]."""

    vol_range_up: UnitDecimal
    vol_range_down: UnitDecimal
    short_vega_power: UnitDecimal
    long_vega_power: UnitDecimal
    price_range: UnitDecimal
    opt_sum_contingency: UnitDecimal
    opt_contingency: UnitDecimal
    futures_contingency: UnitDecimal
    atm_range: UnitDecimal


class SimpleMarginSettings(Record):
    """The ``params`` of simple margin."""

    asset_params: dict[str, SimpleAsset] = Field(default_factory=dict)
    default_asset_param: SimpleAsset
    liquidation_penalty: DecimalStr
    auto_liquidation: bool = True


MAX_ASSET_PARAMS = 100
"""Most per-asset entries a request's margin parameters may carry."""


class SimpleMarginSettingsInput(SimpleMarginSettings, RequestPart):
    """Simple-margin settings in a request: every asset checked, penalty in [0, 1]."""

    # Narrower than the record's dict (invariant for mypy); parts are never mutated.
    asset_params: dict[UnderlyingStr, SimpleAssetInput] = Field(  # type: ignore[assignment]
        default_factory=dict, max_length=MAX_ASSET_PARAMS
    )
    default_asset_param: SimpleAssetInput
    liquidation_penalty: UnitDecimal
    auto_liquidation: bool = True


class PortfolioMarginSettings(Record):
    """The ``params`` of portfolio margin."""

    asset_params: dict[str, PortfolioAsset] = Field(default_factory=dict)
    default_asset_param: PortfolioAsset
    decorrelation_risk: DecimalStr
    initial_margin_factor: DecimalStr
    liquidation_penalty: DecimalStr
    auto_liquidation: bool = True


class PortfolioMarginSettingsInput(PortfolioMarginSettings, RequestPart):
    """Portfolio-margin settings in a request: fractions in [0, 1], margin factor above 1."""

    # Narrower than the record's dict (invariant for mypy); parts are never mutated.
    asset_params: dict[UnderlyingStr, PortfolioAssetInput] = Field(  # type: ignore[assignment]
        default_factory=dict, max_length=MAX_ASSET_PARAMS
    )
    default_asset_param: PortfolioAssetInput
    decorrelation_risk: UnitDecimal
    initial_margin_factor: Annotated[RequestDecimalStr, Field(gt=Decimal(1))]
    liquidation_penalty: UnitDecimal
    auto_liquidation: bool = True


class SimpleMarginParams(Record):
    """Margin parameters of one side of a pool under simple margin."""

    margin_mode: Literal[MarginMode.SIMPLE] = MarginMode.SIMPLE
    params: SimpleMarginSettings


class PortfolioMarginParams(Record):
    """Margin parameters of one side of a pool under portfolio margin."""

    margin_mode: Literal[MarginMode.PORTFOLIO] = MarginMode.PORTFOLIO
    params: PortfolioMarginSettings


MarginParams = Annotated[
    Annotated[SimpleMarginParams, Tag(MarginMode.SIMPLE.value)]
    | Annotated[PortfolioMarginParams, Tag(MarginMode.PORTFOLIO.value)]
    | Annotated[UnknownVariant, Tag("unknown")],
    _tag_or_unknown("margin_mode", {m.value for m in MarginMode}),
    _RECORD_UNION,
]
"""Margin parameters by ``margin_mode``; an unknown mode (or a known mode this client cannot
read) parses as `UnknownVariant`."""


class SimpleMarginParamsInput(SimpleMarginParams, RequestPart):
    """Simple-margin parameters in a request."""

    params: SimpleMarginSettingsInput


class PortfolioMarginParamsInput(PortfolioMarginParams, RequestPart):
    """Portfolio-margin parameters in a request."""

    params: PortfolioMarginSettingsInput


RequestMarginParams = Annotated[
    SimpleMarginParamsInput | PortfolioMarginParamsInput, Field(discriminator="margin_mode")
]
"""Margin parameters in a request: only the modes the venue documents, every bound checked.
Record instances (`SimpleMarginParams`, `PortfolioMarginParams`) are accepted and re-checked."""


class MarginUsage(Record):
    """Initial and maintenance margin in use, in USDC."""

    initial_margin: DecimalStr
    maintenance_margin: DecimalStr


class UseExistingPool(RequestPart):
    """Settle a quote in a pool both companies already share."""

    strategy: Literal[PoolStrategyType.USE_EXISTING] = PoolStrategyType.USE_EXISTING
    pool_id: UuidStr


class CreateNewPool(RequestPart):
    """Settle a quote in a new pool created on acceptance, with margin for both sides."""

    strategy: Literal[PoolStrategyType.CREATE_NEW] = PoolStrategyType.CREATE_NEW
    name: NameStr
    creator_params: RequestMarginParams
    other_params: RequestMarginParams


PoolStrategy = Annotated[UseExistingPool | CreateNewPool, Field(discriminator="strategy")]
"""How a quote's trade will settle: an existing pool or a new one."""


class DecimalAllowance(RequestPart):
    """An allowance in USDC as a decimal amount (> 0, below 1e18, at most 18 places)."""

    type: Literal[AllowanceType.DECIMAL] = AllowanceType.DECIMAL
    value: RequestPositiveDecimalStr


MAX_BASE_UNITS = 2**256 - 1
"""The largest allowance in base units: an ERC-20 allowance is a uint256."""

_HEX_UNITS = re.compile(r"0[xX][0-9a-fA-F]{1,64}|[0-9a-fA-F]{1,64}")


class BaseAllowance(RequestPart):
    """An allowance in integer base units (USDC has 6 decimals), as an int or a hex string.

    A hex string has at most 64 digits (with or without ``0x``); either form must be between 1
    and ``2**256 - 1``, the range of an on-chain allowance.
    """

    type: Literal[AllowanceType.BASE] = AllowanceType.BASE
    value: int | str

    @field_validator("value", mode="before")
    @classmethod
    def _base_units_in_range(cls, value: Any) -> int | str:
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ValueError("must be an integer or a hex string of base units")
        if isinstance(value, str):
            if not _HEX_UNITS.fullmatch(value):
                raise ValueError("must be a hex string of at most 64 digits (0x optional)")
            units = int(value, 16)
        else:
            units = value
        if units <= 0:
            raise ValueError("must be a positive number of base units")
        if units > MAX_BASE_UNITS:
            raise ValueError("must be at most 2**256 - 1 base units")
        return value

    @property
    def units(self) -> int:
        """The allowance as an integer number of base units."""
        return int(self.value, 16) if isinstance(self.value, str) else self.value


Allowance = Annotated[DecimalAllowance | BaseAllowance, Field(discriminator="type")]
"""A spending allowance for a permit."""

USDC_DECIMALS = 6


def allowance_units(allowance: DecimalAllowance | BaseAllowance) -> int:
    """The allowance in USDC base units (6 decimals), rounding a decimal amount up."""
    if isinstance(allowance, BaseAllowance):
        return allowance.units
    scaled = allowance.value.scaleb(USDC_DECIMALS)
    return int(scaled.to_integral_value(rounding="ROUND_CEILING"))


class PartyMargin(Record):
    """One party's balance, margin parameters and margin usage inside a pool."""

    company: str
    balance: DecimalStr
    margin_params: MarginParams | None = None
    margin_usage: MarginUsage | None = None
    max_withdrawable_amount: DecimalStr


class PoolParty(Record):
    """One of the two companies of a settlement pool."""

    company: str
    created_at: Timestamp
    address: str | None = None
    status: PartyStatusValue
    confirmed_by_transaction_id: str | None = None
    margin_usage: PartyMargin | None = None


class AggregatedPosition(Record):
    """A position valued at the mark: price, greeks, uPNL and notional."""

    price: DecimalStr | None = None
    underlying_price: DecimalStr | None = None
    iv: DecimalStr | None = None
    sum_delta: DecimalStr
    sum_gamma: DecimalStr
    sum_theta: DecimalStr
    sum_vega: DecimalStr
    sum_rho: DecimalStr
    upnl: DecimalStr
    notional: DecimalStr
    position_info: Position


class SettlementPoolData(Record):
    """The on-chain side of a settlement pool."""

    created_at: Timestamp
    company_creator: str
    status: PoolStatusValue
    address: str | None = None
    name: str
    confirmed_by_transaction_id: str | None = None
    parties: list[PoolParty] = Field(default_factory=list)
    positions: list[AggregatedPosition] = Field(default_factory=list)


class SettlementPool(Record):
    """A pool between two companies in which their trades clear."""

    pool_id: str
    company_id: str
    data: SettlementPoolData | None = None
    error: str | None = None


class PendingSettlementPool(Record):
    """The pool a just-accepted quote will create."""

    id: str
    created_at: Timestamp
    status: PoolStatusValue
    company_creator: str
    address: str | None = None
    confirmed_by_transaction_id: str | None = None


# ---------------------------------------------------------------------------------------------
# Companies, portfolio, trades, transfers
# ---------------------------------------------------------------------------------------------


class Company(Record):
    """A company on the venue: a taker, a maker (``is_lp``), or both."""

    id: str
    created_at: Timestamp
    legal_name: str
    short_name: str
    is_lp: bool = False


class Asset(Record):
    """A balance of one asset held by a company in a pool (or summed over pools)."""

    company: str
    pool_location: str | None = None
    counterparty: str | None = None
    asset: str
    qty: DecimalStr


class Position(Record):
    """A net position in one instrument inside a pool."""

    company: str
    pool_location: str | None = None
    counterparty: str | None = None
    instrument: Instrument
    updated_at: Timestamp
    qty: DecimalStr
    avg_entry_price: DecimalStr
    taker_qty: DecimalStr = Decimal(0)


class PortfolioSummary(Record):
    """The company's whole portfolio at the mark: balance, uPNL, notional and greeks."""

    sum_balance: DecimalStr
    sum_upnl: DecimalStr
    sum_notional: DecimalStr
    sum_delta: DecimalStr
    sum_gamma: DecimalStr
    sum_theta: DecimalStr
    sum_vega: DecimalStr
    sum_rho: DecimalStr
    sum_dollar_delta: DecimalStr
    sum_dollar_gamma: DecimalStr


class Trade(Record):
    """One leg of a booked trade, as seen by one of its two companies.

    ``pool_location``, ``source_rfq``, ``source_quote`` and ``counterparty`` are ``""`` when
    the server sends none (null or missing): a settlement or liquidation trade may have no
    RFQ, quote or counterparty, and a trade may show before its pool exists.
    """

    id: str
    source_rfq: str = ""
    source_rfq_leg_id: str | None = None
    source_quote: str = ""
    company: str
    counterparty: str = ""
    created_at: Timestamp
    side: SideValue
    instrument: Instrument
    price: DecimalStr
    qty: DecimalStr
    pool_location: str = ""
    role: TradeRoleValue
    trade_type: TradeTypeValue = TradeType.TRADE
    status: ClearingStatusValue = ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL


class Transfer(Record):
    """A movement of USDC into or out of a pool."""

    id: str
    rfq_id: str | None = None
    parent_quote_id: str | None = None
    created_at: Timestamp
    company: str
    counterparty: str | None = None
    qty: DecimalStr
    asset: str
    target_pool_location: str
    transfer_type: TransferTypeValue
    status: TransferStatusValue
    confirmed_by_transaction_id: str | None = None


# ---------------------------------------------------------------------------------------------
# Quotes and RFQs
# ---------------------------------------------------------------------------------------------


class ClearingEvent(Record):
    """One move along the clearing path, appended to the quote it belongs to."""

    rfq_id: str
    parent_quote_id: str
    status: ClearingStatusValue
    created_at: Timestamp
    taker_side: SideValue | None = None


class Quote(Record):
    """A maker's two-way (or one-way) price for a whole RFQ, and its clearing state."""

    parent_quote_id: str
    target_rfq_id: str
    maker_company: str
    expires_at: Timestamp
    aggregated_bid: DecimalStr | None = None
    aggregated_ask: DecimalStr | None = None
    clearing_status: ClearingStatusValue | None = None
    clearing_events: list[ClearingEvent] = Field(default_factory=list)
    new_pool_name: str | None = None
    creator_params: MarginParams | None = None
    other_params: MarginParams | None = None
    pool_location: str | None = None
    per_leg_quotes: list[LegQuote] = Field(default_factory=list)
    client_quote_id: str | None = None


class QuoteWithMargin(Record):
    """A quote's price on an RFQ's bid or ask side, with what it would cost the taker in margin."""

    parent_quote_id: str
    quote_price: DecimalStr
    existing_margin_requirements: MarginUsage | None = None
    additional_margin_requirements: MarginUsage | None = None
    counter_factual_margin_requirements: MarginUsage | None = None


class RFQ(Record):
    """A taker's request for quotes on a structure, with the quotes it has received."""

    rfq_id: str
    created_at: Timestamp
    clearing_status: ClearingStatusValue | None = None
    structure: Structure
    structure_price: StructurePrice | None = None
    rfq_expires_at: Timestamp
    taker_company: str
    rfq_status: RFQStatusValue
    qty: DecimalStr
    rfq_legs: list[RFQLeg] = Field(default_factory=list)
    quotes_common_metadata: dict[str, dict[str, Any]] = Field(default_factory=dict)
    bids: list[QuoteWithMargin] = Field(default_factory=list)
    asks: list[QuoteWithMargin] = Field(default_factory=list)

    @field_validator("quotes_common_metadata", mode="before")
    @classmethod
    def _metadata_objects_only(cls, value: Any) -> Any:
        # Metadata is informational: an entry that is not an object is dropped, not fatal.
        if isinstance(value, dict):
            return {k: v for k, v in value.items() if isinstance(v, dict)}
        return value

    @property
    def best_bid(self) -> QuoteWithMargin | None:
        """The highest bid quoted on this RFQ, if any."""
        return max(self.bids, key=lambda q: q.quote_price, default=None)

    @property
    def best_ask(self) -> QuoteWithMargin | None:
        """The lowest ask quoted on this RFQ, if any."""
        return min(self.asks, key=lambda q: q.quote_price, default=None)


class QuoteAcceptResponse(Record):
    """Where a trade stands right after the taker accepted a quote."""

    new_clearing_status: ClearingStatusValue
    pending_deposits_sum_qty: DecimalStr | None = None
    pending_settlement_pool: PendingSettlementPool | None = None


class MakerLastLookResponse(Record):
    """Where a trade stands right after the maker's last look."""

    new_clearing_status: ClearingStatusValue
    pending_deposits_sum_qty: DecimalStr | None = None
    settlement_pool_address: str | None = None


# ---------------------------------------------------------------------------------------------
# Utility
# ---------------------------------------------------------------------------------------------


class AuthInfo(Record):
    """Who the server thinks is calling."""

    key_id: str
    company_id: str
    role: ApiRoleValue


class Status(Record):
    """Server liveness, its clock, and the caller's identity when headers were sent."""

    auth: AuthInfo | None = None
    server_timestamp_ms: int


class PrecisionRequirements(Record):
    """How precisely an asset's prices and sizes may be written."""

    min_decimal_figures: int | None = None
    max_decimal_only_figures: int | None = None
    max_significant_figures: int | None = None


class FundingRateParams(Record):
    """Piecewise-linear funding curve of an asset against open-interest imbalance."""

    normal_threshold: DecimalStr
    high_threshold: DecimalStr
    extreme_threshold: DecimalStr
    normal_slope: DecimalStr
    high_slope: DecimalStr
    extreme_slope: DecimalStr
    min_imbalance_dollars: DecimalStr
    funding_exponent_factor: DecimalStr


class SupportedAssetDetails(Record):
    """Token metadata of a tradeable underlying."""

    asset: str
    name: str
    is_dex: bool = False
    address: str | None = None
    verified: bool = True
    precision_requirements: PrecisionRequirements | None = None
    min_qty_tick: DecimalStr | None = None
    variational_funding_rate_params: FundingRateParams | None = None


# ---------------------------------------------------------------------------------------------
# Envelopes
# ---------------------------------------------------------------------------------------------

T = TypeVar("T")


class Pagination(Record):
    """Where the next page is: ``next_page`` holds the query values to send back as they are."""

    next_page: dict[str, Any] | None = None


class Page(Record, Generic[T]):
    """One page of a list endpoint."""

    result: list[T]
    pagination: Pagination = Field(default_factory=Pagination)


class Single(Record, Generic[T]):
    """A single-value response."""

    result: T


class ApiErrorBody(Record):
    """The error object inside ``{"error": {...}}``."""

    code: int
    message: str


# ---------------------------------------------------------------------------------------------
# Requests
# ---------------------------------------------------------------------------------------------

ClientQuoteId = NameStr


class NewRfqRequest(Request):
    """Body of ``POST /v1/rfqs/new``: a taker asks the targeted companies for quotes."""

    structure: StructureInput
    qty: RequestPositiveDecimalStr
    expires_at: Timestamp
    target_companies: list[UuidStr] = Field(min_length=1, max_length=100)


class NewQuoteRequest(Request):
    """Body of ``POST /v1/quotes/new``: a maker's price for every leg of an RFQ."""

    rfq_id: UuidStr
    expires_at: Timestamp
    leg_quotes: list[LegQuoteInput] = Field(min_length=1, max_length=MAX_LEGS)
    pool_strategy: PoolStrategy
    client_quote_id: ClientQuoteId | None = None


class ReplaceQuoteRequest(NewQuoteRequest):
    """Body of ``POST /v1/quotes/replace``: cancel ``parent_quote_id`` and quote anew."""

    parent_quote_id: UuidStr


class AcceptQuoteRequest(Request):
    """Body of ``POST /v1/quotes/accept``: the taker takes a quote's bid (sell) or ask (buy)."""

    parent_quote_id: UuidStr
    rfq_id: UuidStr
    side: TradeSide


class MakerLastLookRequest(Request):
    """Body of ``POST /v1/quotes/maker_last_look``: the maker's final word on a trade."""

    parent_quote_id: UuidStr
    rfq_id: UuidStr
    action: RequestAction


class CancelRequest(Request):
    """Body of the cancel endpoints: the id of the quote or RFQ to cancel."""

    id: UuidStr


class NewSettlementPoolRequest(Request):
    """Body of ``POST /v1/settlement_pools/new``: a pool with one counterparty."""

    pool_name: NameStr
    company_other: UuidStr
    creator_params: RequestMarginParams
    other_params: RequestMarginParams


class NewTransferRequest(Request):
    """Body of ``POST /v1/transfers/new``: a USDC deposit into or withdrawal from a pool."""

    asset: Literal["USDC"] = "USDC"
    qty: RequestPositiveDecimalStr
    target_pool_location: UuidStr
    counterparty: UuidStr
    transfer_type: Literal[TransferType.DEPOSIT, TransferType.WITHDRAWAL]


class PermitTemplateRequest(Request):
    """Body of ``POST /v1/transfers/permit/template``: what the pool may spend, for how long."""

    pool_address: H160
    allowance: Allowance
    seconds_until_expiry: int = Field(default=60, gt=0, le=86_400)


class SubmitPermitRequest(Request):
    """Body of ``POST /v1/transfers/permit``: the signed EIP-712 permit."""

    message: dict[str, Any]
    signature: str = Field(min_length=4)


# ---------------------------------------------------------------------------------------------
# Public statistics
# ---------------------------------------------------------------------------------------------


class BidAsk(Record):
    """A bid and an ask price at one notional size."""

    bid: DecimalStr
    ask: DecimalStr


class ListingQuotes(Record):
    """Indicative prices of a listing at three sizes, and when they were last refreshed."""

    updated_at: Timestamp | None = None
    size_1k: BidAsk | None = None
    size_100k: BidAsk | None = None
    size_1m: BidAsk | None = None


class OpenInterest(Record):
    """Long and short open interest of a listing."""

    long_open_interest: DecimalStr
    short_open_interest: DecimalStr


class Listing(Record):
    """Public statistics of one perpetual market."""

    ticker: str
    name: str
    mark_price: DecimalStr
    volume_24h: DecimalStr
    open_interest: OpenInterest
    funding_rate: DecimalStr
    funding_interval_s: int
    base_spread_bps: DecimalStr
    quotes: ListingQuotes


class LossRefund(Record):
    """The loss-refund pool and what it paid out in the last day."""

    pool_size: DecimalStr
    refunded_24h: DecimalStr


class MarketStats(Record):
    """The public statistics record of ``GET /metadata/stats``."""

    total_volume_24h: DecimalStr
    cumulative_volume: DecimalStr
    tvl: DecimalStr
    open_interest: DecimalStr
    num_markets: int
    loss_refund: LossRefund | None = None
    listings: list[Listing] = Field(default_factory=list)


AggregatedPosition.model_rebuild()
