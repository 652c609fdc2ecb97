"""A structure as the builder holds it: every field as typed, ready to fill the form again.

A draft is what a template keeps, what "repeat the last RFQ" restores and what another pane
(the Positions tab's offset) hands the builder: legs with their fields as text (the builder's
own field names: type, underlying, side, ratio, expiry, strike, payoff), the quantity, and the
companies to ask (ids; None keeps the builder's own preselection). A draft is never validated
here: the builder reads it back through its fields, so one set of checks judges it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from tui.api.models import (
    DatedFutureInstrument,
    InstrumentType,
    Leg,
    PerpetualFutureInstrument,
    SpotInstrument,
    TradeSide,
    VanillaOptionInstrument,
    instrument_label,
)
from tui.api.types import decimal_to_wire

LEG_FIELDS = ("type", "underlying", "side", "ratio", "expiry", "strike", "payoff")
"""A leg's fields, named as the builder names them (``#type-0``, ``#strike-1`` ...)."""

_KIND_WORDS = {
    InstrumentType.PERPETUAL_FUTURE.value: "perpetual",
    InstrumentType.SPOT.value: "spot",
    InstrumentType.DATED_FUTURE.value: "future",
}


@dataclass(frozen=True)
class LegDraft:
    """One leg, each field as typed."""

    type: str = InstrumentType.PERPETUAL_FUTURE.value
    underlying: str = ""
    side: str = "buy"
    ratio: str = "1"
    expiry: str = ""
    strike: str = ""
    payoff: str = "call"

    @classmethod
    def from_fields(cls, values: Mapping[str, str]) -> LegDraft:
        """A leg from the builder's field values (missing fields keep their defaults)."""
        known = {name: str(values[name]) for name in LEG_FIELDS if name in values}
        return cls(**known)

    def fields(self) -> dict[str, str]:
        """The leg's field values by name."""
        return {name: getattr(self, name) for name in LEG_FIELDS}

    def name(self) -> str:
        """The instrument in a trader's words, call and put in full: ``BTC 2026-01-30 100000
        call``, ``ETH perpetual``, ``BTC future 2026-03-27``."""
        underlying = self.underlying or "?"
        if self.type == InstrumentType.VANILLA_OPTION.value:
            return f"{underlying} {self.expiry or '?'} {self.strike or '?'} {self.payoff or '?'}"
        words = _KIND_WORDS.get(self.type, self.type or "?")
        if self.type == InstrumentType.DATED_FUTURE.value:
            return f"{underlying} {words} {self.expiry or '?'}"
        return f"{underlying} {words}"

    def words(self) -> str:
        """The leg in a trader's words: ``buy 1 x BTC 2026-01-30 100000 call``."""
        return f"{self.side} {self.ratio} x {self.name()}"


@dataclass(frozen=True)
class StructureDraft:
    """A whole RFQ as typed: legs, quantity, and the companies to ask (None: the builder's
    own choice, the market makers)."""

    legs: tuple[LegDraft, ...]
    qty: str = "1"
    targets: tuple[str, ...] | None = None
    purpose: str = ""
    """What the RFQ is for, in words the builder shows (an offset: which way to trade it);
    not kept in a template."""

    def words(self) -> str:
        """The structure in one line: ``qty 2: buy 1 x BTC ... call, sell 1 x BTC perpetual``."""
        return f"qty {self.qty}: " + ", ".join(leg.words() for leg in self.legs)

    def with_targets(self, targets: Iterable[str] | None) -> StructureDraft:
        """The same structure for other companies."""
        return replace(self, targets=None if targets is None else tuple(targets))


def draft_to_json(draft: StructureDraft) -> dict[str, Any]:
    """A draft as plain JSON (what the template file keeps)."""
    return {
        "legs": [leg.fields() for leg in draft.legs],
        "qty": draft.qty,
        "targets": None if draft.targets is None else list(draft.targets),
    }


def draft_from_json(data: Mapping[str, Any]) -> StructureDraft:
    """A draft from `draft_to_json`'s JSON; ValueError for anything else (tolerant of extra
    keys, so a newer desk's file still reads)."""
    legs = data.get("legs")
    if not isinstance(legs, list) or not legs or not all(isinstance(leg, dict) for leg in legs):
        raise ValueError("a template needs a list of legs")
    targets = data.get("targets")
    if targets is not None and not (
        isinstance(targets, list) and all(isinstance(t, str) for t in targets)
    ):
        raise ValueError("a template's targets are a list of company ids")
    return StructureDraft(
        legs=tuple(LegDraft.from_fields(leg) for leg in legs),
        qty=str(data.get("qty", "1")),
        targets=None if targets is None else tuple(targets),
    )


def _plain(value: Decimal) -> str:
    text = decimal_to_wire(value)
    return text.rstrip("0").rstrip(".") if "." in text else text


def leg_draft(leg: Leg) -> LegDraft:
    """A venue leg (of an RFQ, a position's offset) as the builder's fields."""
    instrument = leg.instrument
    common = {"side": str(leg.side), "ratio": str(leg.ratio)}
    if isinstance(instrument, VanillaOptionInstrument):
        return LegDraft(
            type=InstrumentType.VANILLA_OPTION.value,
            underlying=instrument.underlying,
            expiry=f"{instrument.expiry:%Y-%m-%d}",
            strike=_plain(instrument.strike),
            payoff=str(instrument.payoff),
            **common,
        )
    if isinstance(instrument, DatedFutureInstrument):
        return LegDraft(
            type=InstrumentType.DATED_FUTURE.value,
            underlying=instrument.underlying,
            expiry=f"{instrument.expiry:%Y-%m-%d}",
            **common,
        )
    kind = (
        InstrumentType.SPOT.value
        if isinstance(instrument, SpotInstrument)
        else InstrumentType.PERPETUAL_FUTURE.value
    )
    if not isinstance(instrument, SpotInstrument | PerpetualFutureInstrument):
        raise ValueError("the builder cannot build an instrument of an unknown kind")
    return LegDraft(type=kind, underlying=instrument.underlying, **common)


def structure_draft(
    legs: Iterable[Leg], qty: Decimal | str, targets: Iterable[str] | None = None
) -> StructureDraft:
    """A draft of venue legs at a quantity, for these companies (None: the makers).

    What the Positions tab's offset hands the builder (the legs that close the position, its
    size, the counterparty), and what "repeat the last RFQ" rebuilds from an RFQ.
    """
    quantity = qty if isinstance(qty, str) else _plain(qty)
    return StructureDraft(
        legs=tuple(leg_draft(leg) for leg in legs),
        qty=quantity,
        targets=None if targets is None else tuple(targets),
    )


def offset_draft(
    closing: Iterable[Leg], qty: Decimal, targets: Iterable[str] | None = None
) -> StructureDraft:
    """The RFQ that closes a position, built so the trade reads as what the trader does.

    ``closing`` are the trades that close the position (a long's: sell). An RFQ's legs are
    what the taker gets when buying the structure (lifting the ask); selling it (hitting the
    bid) trades every leg the other way (`tui.desk.clearing.leg_fills`). So closing a long
    with a "sell BTC-PERP" structure would mean *buying* a structure priced below zero. The
    draft instead holds the instrument as bought (its first leg a buy), and says which way
    to trade it: to close a long you sell the structure, at a maker's bid.
    """
    legs = list(closing)
    sell = bool(legs) and str(legs[0].side) == TradeSide.SELL
    flip = {TradeSide.BUY.value: TradeSide.SELL, TradeSide.SELL.value: TradeSide.BUY}
    held = [leg.model_copy(update={"side": flip[str(leg.side)]}) for leg in legs] if sell else legs
    amount = _plain(qty)
    names = ", ".join(f"{_ratio(leg, amount)} {instrument_label(leg.instrument)}" for leg in held)
    if sell:
        purpose = f"to close your long {names} you sell: on its quotes press s (sell at bid)"
    else:
        purpose = f"to close your short {names} you buy: on its quotes press b (buy at ask)"
    return replace(structure_draft(held, amount, targets), purpose=purpose)


def _ratio(leg: Leg, qty: str) -> str:
    return qty if leg.ratio == 1 else _plain(Decimal(qty) * leg.ratio)


EMPTY = StructureDraft(legs=(LegDraft(),))
"""A new RFQ: one perpetual leg, quantity 1."""
