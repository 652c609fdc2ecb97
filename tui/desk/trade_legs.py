"""The company's trade legs in a light form: what the blotter, the book and the export read.

A day can hold 100,000 trade legs. As pydantic `Trade` models they weigh about 2.3 KB each
(each model keeps a dict, a set of the fields it was given, and its own instrument model);
a `TradeLeg` keeps the same values in slots, shares one instrument model per instrument and one
string per repeated id (counterparty, pool), and weighs about a quarter of that. The models
stay the tolerant reader: a leg is made from a validated `Trade` (unknown fields ignored,
missing ones defaulted), never from raw JSON.

`TradeLegs` turns each poll's snapshot into legs. The feed hands the same model objects again
for the trades that did not change, so the legs of those are reused as they are (a poll of
100,000 unchanged trades converts nothing) and a leg object changes only when its trade did:
the blotter can tell the changed ones apart without comparing values.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from itertools import compress, count
from operator import is_not
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.api.models import Trade


__all__ = ["TradeLeg", "TradeLegs"]


class TradeLeg:
    """One leg of a booked trade (the fields of `Trade` the desk reads; see module docs).

    ``label`` is the instrument's trader name (``BTC-PERP``), worked out once per instrument.
    """

    __slots__ = (
        "counterparty",
        "created_at",
        "id",
        "instrument",
        "label",
        "pool_location",
        "price",
        "qty",
        "role",
        "side",
        "source_quote",
        "source_rfq",
        "status",
        "trade_type",
    )

    def __init__(
        self,
        *,
        id: str,
        created_at: datetime,
        side: str,
        instrument: Any,
        label: str,
        price: Decimal,
        qty: Decimal,
        role: str,
        status: str,
        trade_type: str,
        counterparty: str = "",
        pool_location: str = "",
        source_rfq: str = "",
        source_quote: str = "",
    ) -> None:
        self.id = id
        self.created_at = created_at
        self.side = side
        self.instrument = instrument
        self.label = label
        self.price = price
        self.qty = qty
        self.role = role
        self.status = status
        self.trade_type = trade_type
        self.counterparty = counterparty
        self.pool_location = pool_location
        self.source_rfq = source_rfq
        self.source_quote = source_quote

    def __repr__(self) -> str:
        return f"TradeLeg({self.id!r}, {self.label}, {self.side} {self.qty} @ {self.price})"

    def replaced(self, **changes: Any) -> TradeLeg:
        """A copy with some fields changed (a leg is never changed in place: the blotter
        tells a changed trade by its new leg)."""
        fields = {name: getattr(self, name) for name in self.__slots__}
        return TradeLeg(**(fields | changes))

    def as_trade(self, company: str) -> Trade:
        """The leg as a `Trade` model again (``company``: whose leg it is), for code that
        wants the model (an export)."""
        from tui.api.models import Trade  # loaded with the client that brought the trades

        return Trade.model_construct(
            id=self.id,
            source_rfq=self.source_rfq,
            source_quote=self.source_quote,
            company=company,
            counterparty=self.counterparty,
            created_at=self.created_at,
            side=self.side,
            instrument=self.instrument,
            price=self.price,
            qty=self.qty,
            pool_location=self.pool_location,
            role=self.role,
            trade_type=self.trade_type,
            status=self.status,
        )


class TradeLegs:
    """Turns snapshots of trades into legs, reusing what did not change (see module docs)."""

    def __init__(self) -> None:
        self._models: list[Any] = []
        self._legs: list[TradeLeg] = []
        self._shared: dict[Any, Any] = {}
        self._instruments: dict[Any, tuple[Any, str]] = {}

    def legs(self, trades: Sequence[Trade | TradeLeg]) -> list[TradeLeg]:
        """The legs of a snapshot, in its order (legs given as such are taken as they are)."""
        models, legs = self._models, self._legs
        # The longest run of the same objects as last time, found at C speed.
        same = next(compress(count(), map(is_not, trades, models)), min(len(trades), len(models)))
        fresh = [self.leg(trade) for trade in trades[same:]]
        result = legs[:same] + fresh
        self._models, self._legs = list(trades), result
        return result

    def leg(self, trade: Trade | TradeLeg) -> TradeLeg:
        """One trade as a leg."""
        if isinstance(trade, TradeLeg):
            return trade
        share = self._shared.setdefault
        instrument, label = self._instrument(trade.instrument)
        return TradeLeg(
            id=trade.id,
            created_at=trade.created_at,
            side=share(trade.side, trade.side),
            instrument=instrument,
            label=label,
            price=trade.price,
            qty=share(("qty", str(trade.qty)), trade.qty),
            role=share(trade.role, trade.role),
            status=share(trade.status, trade.status),
            trade_type=share(trade.trade_type, trade.trade_type),
            counterparty=share(trade.counterparty, trade.counterparty),
            pool_location=share(trade.pool_location, trade.pool_location),
            source_rfq=trade.source_rfq,
            source_quote=trade.source_quote,
        )

    def _instrument(self, instrument: Any) -> tuple[Any, str]:
        """One shared model and its label per distinct instrument."""
        try:
            extra = getattr(instrument, "__pydantic_extra__", None) or {}
            key: Any = (type(instrument), *vars(instrument).values(), *extra.items())
            hash(key)
        except TypeError:  # an unhashable extra field: its text tells it apart
            key = repr(instrument)
        known = self._instruments.get(key)
        if known is None:
            from tui.api.models import instrument_label

            known = self._instruments[key] = (instrument, instrument_label(instrument))
        return known
