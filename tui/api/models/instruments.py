"""What is traded: instruments, legs and structures, as records and as strict request parts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import Field, Tag, model_validator

from tui.api.models.base import (
    NullAsDefault,
    Record,
    RequestPart,
    UnknownVariant,
    _tag_or_unknown,
    record_union,
)
from tui.api.models.enums import USDC, ExerciseType, InstrumentType, PayoffType, TradeSide
from tui.api.models.values import ExerciseValue, PayoffValue, SideValue
from tui.api.types import (
    DecimalStr,
    RequestInt,
    RequestPositiveDecimalStr,
    Timestamp,
    decimal_to_wire,
)

UnderlyingStr = Annotated[
    str, Field(min_length=1, max_length=20, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
]
"""An asset ticker in a request: 1 to 20 ASCII letters, digits, ``.``, ``_`` or ``-``."""


class SpotInstrument(Record):
    """Spot exchange of the underlying against USDC."""

    instrument_type: Literal[InstrumentType.SPOT] = InstrumentType.SPOT
    underlying: str
    settlement_asset: NullAsDefault[str] = USDC


class DatedFutureInstrument(Record):
    """A future that settles at ``expiry``."""

    instrument_type: Literal[InstrumentType.DATED_FUTURE] = InstrumentType.DATED_FUTURE
    underlying: str
    settlement_asset: NullAsDefault[str] = USDC
    expiry: Timestamp


class PerpetualFutureInstrument(Record):
    """A perpetual future paying funding every ``funding_interval_s`` seconds."""

    instrument_type: Literal[InstrumentType.PERPETUAL_FUTURE] = InstrumentType.PERPETUAL_FUTURE
    underlying: str
    settlement_asset: NullAsDefault[str] = USDC
    funding_interval_s: NullAsDefault[int] = 3600


class VanillaOptionInstrument(Record):
    """A call or put struck at ``strike`` expiring at ``expiry``."""

    instrument_type: Literal[InstrumentType.VANILLA_OPTION] = InstrumentType.VANILLA_OPTION
    underlying: str
    settlement_asset: NullAsDefault[str] = USDC
    expiry: Timestamp
    strike: DecimalStr
    payoff: PayoffValue
    exercise: NullAsDefault[ExerciseValue] = ExerciseType.EUROPEAN


KnownInstrument = (
    SpotInstrument | DatedFutureInstrument | PerpetualFutureInstrument | VanillaOptionInstrument
)
if TYPE_CHECKING:
    Instrument: TypeAlias = KnownInstrument | UnknownVariant
else:
    Instrument = record_union(KnownInstrument, "instrument_type")
"""Any instrument, by ``instrument_type``; an unknown type (or a known type this client cannot
read) parses as `UnknownVariant`."""


class SpotInstrumentInput(SpotInstrument, RequestPart):
    """A spot instrument in a request."""

    underlying: UnderlyingStr
    # A request's null is dropped before validation: its fields are the plain types.
    settlement_asset: str = USDC


class DatedFutureInstrumentInput(DatedFutureInstrument, RequestPart):
    """A dated future in a request."""

    underlying: UnderlyingStr
    settlement_asset: str = USDC


class PerpetualFutureInstrumentInput(PerpetualFutureInstrument, RequestPart):
    """A perpetual future in a request: the funding interval is a positive number of seconds."""

    underlying: UnderlyingStr
    settlement_asset: str = USDC
    funding_interval_s: RequestInt = Field(default=3600, gt=0, le=10**9)


class VanillaOptionInstrumentInput(VanillaOptionInstrument, RequestPart):
    """A vanilla option in a request: a positive strike and a documented payoff and exercise."""

    underlying: UnderlyingStr
    settlement_asset: str = USDC
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
    ratio: NullAsDefault[int] = 1
    instrument: Instrument


class Structure(Record):
    """What an RFQ trades: one or more legs."""

    legs: list[Leg]


class LegInput(Leg, RequestPart):
    """A leg in a request: a known side, a ratio of at least 1, a strictly checked instrument."""

    side: TradeSide
    ratio: RequestInt = Field(default=1, ge=1)
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
