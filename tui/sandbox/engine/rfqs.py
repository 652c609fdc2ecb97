"""RFQs: asking, listing, canceling, and their expiry.

Rules of ``/rfqs`` (the contract leaves them open; decided here):

- ``expires_at`` must be in the future and at most `MAX_RFQ_LIFETIME_S` ahead; every
  underlying must be listed and settle in USDC; ``qty`` must be a multiple of each leg
  underlying's ``min_qty_tick`` and ``qty x ratio`` at most `MAX_LEG_QTY`; options and dated
  futures must not have expired; an option's strike must lie between 1 % and 1000 % of its
  underlying's mark (`STRIKE_RANGE`) and have at most the listing's
  ``max_decimal_only_figures`` (8) decimal places; the targets must exist and must not include
  the caller. Only the taker may cancel, and not while a trade is clearing.
- ``/rfqs/sent`` lists the caller's own RFQs with every open quote on them and its margin for
  each; ``/rfqs/received`` the RFQs it was asked to quote, with its own quotes only
  (`tui.sandbox.engine.views`). The ``id`` filter is the RFQ id.
- An RFQ past its expiry becomes ``expired`` and its open quotes ``void`` (not while a trade is
  clearing on it: when that trade fails, the RFQ expires then).
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from tui.api.lifecycle import QuoteState
from tui.api.models import (
    RFQ,
    USDC,
    CancelRequest,
    NewRfqRequest,
    RFQStatus,
    UnknownVariant,
    VanillaOptionInstrument,
)
from tui.sandbox.engine.companies import company_exists
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.market_api import MarketApi
from tui.sandbox.engine.portfolio import Portfolio
from tui.sandbox.engine.records import (
    canonical_instrument,
    decimal_places,
    load_rfq,
    ms_to_timestamp,
    save_quote,
    save_rfq,
    timestamp_to_ms,
)
from tui.sandbox.engine.store import Store
from tui.sandbox.engine.views import Views

__all__ = [
    "DEFAULT_PRICE_PLACES",
    "MAX_LEG_QTY",
    "MAX_RFQ_LIFETIME_S",
    "STRIKE_RANGE",
    "Rfqs",
    "expire_rfq",
    "price_places",
    "rfq_record",
    "rfq_row",
    "void_open_quotes",
]

MAX_RFQ_LIFETIME_S = 3600
"""How far ahead an RFQ's ``expires_at`` may be."""
MAX_LEG_QTY = Decimal(10) ** 9
"""The largest quantity of one leg (RFQ qty x ratio): keeps every amount well inside Decimal's
28 digits, so no request can make the engine's arithmetic overflow."""
STRIKE_RANGE = (Decimal("0.01"), Decimal(10))
"""An option's strike must lie within these fractions of its underlying's mark at RFQ time."""
DEFAULT_PRICE_PLACES = 8
"""Decimal places of a price when a listing states no precision requirements."""


def _plain(value: Decimal) -> str:
    """A price for a message: at most 8 places, no exponent, no trailing zeros."""
    return format(value.quantize(Decimal("1e-8")).normalize(), "f")


def price_places(market: MarketApi, underlying: str) -> int:
    """Decimal places a price (or strike) on ``underlying`` may have: its listing's
    ``precision_requirements.max_decimal_only_figures``."""
    precision = getattr(market.spec(underlying), "precision", None)
    places = getattr(precision, "max_decimal_only_figures", None)
    return places if isinstance(places, int) else DEFAULT_PRICE_PLACES


def rfq_record(
    rfq_id: str,
    leg_ids: list[str],
    legs: list[dict[str, Any]],
    qty: Decimal,
    taker: str,
    targets: list[str],
    now_ms: int,
    expires_ms: int,
) -> dict[str, Any]:
    """A new open RFQ as stored: ``legs`` are the structure's (``side``, ``ratio``, canonical
    ``instrument``), ``leg_ids`` their RFQ leg ids, ``targets`` the companies asked."""
    rfq_legs = [
        {
            "rfq_leg_id": leg_id,
            "rfq_id": rfq_id,
            "instrument": leg["instrument"],
            "side": leg["side"],
            "qty": format(qty * leg["ratio"], "f"),
        }
        for leg_id, leg in zip(leg_ids, legs, strict=True)
    ]
    return {
        "rfq_id": rfq_id,
        "created_at": ms_to_timestamp(now_ms),
        "clearing_status": None,
        "structure": {"legs": legs},
        "structure_price": None,
        "rfq_expires_at": ms_to_timestamp(expires_ms),
        "taker_company": taker,
        "rfq_status": RFQStatus.OPEN.value,
        "qty": format(qty, "f"),
        "rfq_legs": rfq_legs,
        "_targets": targets,
        "_expires_ms": expires_ms,
    }


def rfq_row(rfq: dict[str, Any], live_quote: str | None = None) -> dict[str, Any]:
    """The ``rfqs`` table's columns of a stored RFQ dict."""
    return {
        "id": rfq["rfq_id"],
        "taker": rfq["taker_company"],
        "status": rfq["rfq_status"],
        "live_quote": live_quote,
        "data": rfq,
    }


def expire_rfq(store: Store, rfq: dict[str, Any]) -> None:
    """An open RFQ past its expiry becomes ``expired``; its open quotes become void."""
    rfq["rfq_status"] = RFQStatus.EXPIRED.value
    save_rfq(store, rfq)
    void_open_quotes(store, rfq["rfq_id"])


def void_open_quotes(store: Store, rfq_id: str, keep: str | None = None) -> None:
    """Every open quote of an RFQ (but ``keep``) becomes ``void``."""
    for row in store.all(
        "SELECT data FROM quotes WHERE rfq_id = ? AND status = ?", (rfq_id, QuoteState.OPEN)
    ):
        quote = json.loads(row[0])
        if quote["parent_quote_id"] != keep:
            quote["quote_status"] = QuoteState.VOID.value
            save_quote(store, quote)


class Rfqs:
    """The ``/rfqs`` endpoints: a company's RFQs as taker and as maker, a new one, a cancel."""

    def __init__(self, store: Store, market: MarketApi, portfolio: Portfolio, views: Views) -> None:
        self.store = store
        self.market = market
        self.portfolio = portfolio
        self.views = views

    def sent(
        self, me: str, *, limit: int, offset: int, id: str | None, price: bool
    ) -> tuple[list[RFQ], bool]:
        """A page of ``me``'s own RFQs (as taker)."""
        where = "taker = ?"
        params: list[Any] = [me]
        if id is not None:
            where += " AND id = ?"
            params.append(id)
        rows, more = self.store.page("rfqs", where, params, limit=limit, offset=offset)
        return [self.views.rfq(r, me, price=price) for r in rows], more

    def received(
        self, me: str, *, limit: int, offset: int, id: str | None, price: bool
    ) -> tuple[list[RFQ], bool]:
        """A page of the RFQs ``me`` was asked to quote."""
        sql = (
            "SELECT r.data FROM rfq_targets t JOIN rfqs r ON r.seq = t.rfq_seq "
            "WHERE t.company_id = ?"
        )
        params: list[Any] = [me]
        if id is not None:
            sql += " AND r.id = ?"
            params.append(id)
        rows = self.store.all(
            sql + " ORDER BY t.rfq_seq LIMIT ? OFFSET ?", (*params, limit + 1, offset)
        )
        more = len(rows) > limit
        return [self.views.rfq(json.loads(r[0]), me, price=price) for r in rows[:limit]], more

    def new(self, me: str, body: NewRfqRequest, now: int) -> RFQ:
        """``me`` (the taker) asks the targeted companies for quotes on a structure."""
        rfq = self._new_rfq(me, body, now)
        self.portfolio.fresh()
        return self.views.rfq(rfq, me, price=True)

    def _new_rfq(self, me: str, body: NewRfqRequest, now: int) -> dict[str, Any]:
        targets: list[str] = []
        for index, target in enumerate(body.target_companies):
            if target == me:
                raise ServiceError.out_of_range(
                    "target_companies: must not include your own company"
                )
            if not company_exists(self.store, target):
                raise ServiceError.out_of_range(f"target_companies[{index}]: unknown company")
            if target not in targets:
                targets.append(target)
        expires_ms = timestamp_to_ms(body.expires_at)
        if expires_ms <= now:
            raise ServiceError.out_of_range("expires_at: must be in the future")
        if expires_ms > now + MAX_RFQ_LIFETIME_S * 1000:
            raise ServiceError.out_of_range(
                f"expires_at: must be at most {MAX_RFQ_LIFETIME_S} s ahead"
            )
        listed = set(self.market.underlyings())
        legs: list[dict[str, Any]] = []
        for index, leg in enumerate(body.structure.legs):
            where = f"structure.legs[{index}].instrument"
            instrument = leg.instrument
            if isinstance(instrument, UnknownVariant):
                kind = (instrument.model_extra or {}).get("instrument_type")
                raise ServiceError.out_of_range(
                    f"{where}.instrument_type: {kind!r} is not traded on this venue"
                )
            if instrument.underlying not in listed:
                raise ServiceError.out_of_range(
                    f"{where}.underlying: {instrument.underlying!r} is not listed"
                )
            if instrument.settlement_asset != USDC:
                raise ServiceError.out_of_range(f"{where}.settlement_asset: must be USDC")
            expiry = getattr(instrument, "expiry", None)
            if expiry is not None and timestamp_to_ms(expiry) <= now:
                raise ServiceError.out_of_range(f"{where}.expiry: must be in the future")
            if body.qty * leg.ratio > MAX_LEG_QTY:
                raise ServiceError.out_of_range(
                    f"qty: qty x structure.legs[{index}].ratio must be at most "
                    f"{format(MAX_LEG_QTY, 'f')}"
                )
            if isinstance(instrument, VanillaOptionInstrument):
                self._check_strike(instrument, f"{where}.strike")
            try:
                self.market.value(instrument)
            except (ValueError, ArithmeticError):
                raise ServiceError.out_of_range(
                    f"{where}: cannot be priced; check its strike and expiry"
                ) from None
            tick = self.market.spec(instrument.underlying).min_qty_tick
            if body.qty % tick != 0:
                raise ServiceError.out_of_range(
                    f"qty: must be a multiple of {format(tick, 'f')} "
                    f"(min_qty_tick of {instrument.underlying})"
                )
            legs.append(
                {
                    "side": leg.side.value,
                    "ratio": leg.ratio,
                    "instrument": canonical_instrument(instrument).model_dump(mode="json"),
                }
            )
        rfq_id = self.store.new_id()
        leg_ids = [self.store.new_id() for _ in legs]
        rfq = rfq_record(rfq_id, leg_ids, legs, body.qty, me, targets, now, expires_ms)
        seq = self.store.insert("rfqs", rfq_row(rfq))
        for target in targets:
            self.store.insert(
                "rfq_targets", {"rfq_seq": seq, "rfq_id": rfq_id, "company_id": target}
            )
        self.store.add_timer(expires_ms, "rfq_expiry", rfq_id)
        return rfq

    def _check_strike(self, option: VanillaOptionInstrument, where: str) -> None:
        """A strike within `STRIKE_RANGE` of the underlying's mark, written to the price grid."""
        mark = self.market.mark_price(option.underlying)
        low, high = (mark * fraction for fraction in STRIKE_RANGE)
        if not low <= option.strike <= high:
            raise ServiceError.out_of_range(
                f"{where}: must be between {_plain(low)} and {_plain(high)} "
                f"(1 % to 1000 % of the {option.underlying} mark, {_plain(mark)})"
            )
        places = price_places(self.market, option.underlying)
        if decimal_places(option.strike) > places:
            raise ServiceError.out_of_range(f"{where}: at most {places} decimal places")

    def cancel(self, me: str, body: CancelRequest) -> None:
        """The taker withdraws an open RFQ (not while a trade is clearing on it)."""
        rfq = load_rfq(self.store, body.id)
        if rfq is None or rfq["taker_company"] != me:
            raise ServiceError.not_found("id: RFQ")
        if rfq["rfq_status"] != RFQStatus.OPEN:
            raise ServiceError.conflict(f"id: the RFQ is {rfq['rfq_status']}, not open")
        if self.store.scalar("SELECT live_quote FROM rfqs WHERE id = ?", (body.id,)):
            raise ServiceError.conflict("id: a trade is clearing on this RFQ")
        rfq["rfq_status"] = RFQStatus.CANCELED.value
        save_rfq(self.store, rfq)
        void_open_quotes(self.store, body.id)
