"""Quotes: a maker quoting an RFQ, replacing and canceling its quotes, and the quote lists.

Rules of ``/quotes`` (the contract leaves them open; decided here):

- **Lists.** ``/quotes`` = every quote the caller can see: its own as maker plus every quote on
  its RFQs (as taker); ``/quotes/sent`` = its own (canceled and replaced ones too);
  ``/quotes/received`` = quotes on its RFQs. A quote carries the extra field ``quote_status``
  (`QuoteState`) and ``created_at``.
- **New.** Only a targeted company may quote (anyone else gets 404, as for an unknown RFQ). One
  leg quote per RFQ leg, each price at most `MAX_PRICE` with at most the listing's
  ``max_decimal_only_figures`` decimal places (significant figures are not limited: an option
  price is finer than the perpetual's tick); ``expires_at`` in the future and not after the
  RFQ's expiry; the quote must price the whole structure on at least one side.
  ``use_existing`` needs an open pool between the maker and the RFQ's taker; ``create_new`` a
  name no pool of the pair uses yet (the maker becomes the new pool's creator:
  ``creator_params`` are the maker's).
- **Cancel and replace** are the maker's, on an open quote (409 once it is not open); a replace
  cancels the old quote and quotes anew on the same RFQ, atomically.

Accepting a quote and the maker's last look are in `tui.sandbox.engine.accepts`.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from tui.api.lifecycle import QuoteState
from tui.api.models import (
    CancelRequest,
    CreateNewPool,
    NewQuoteRequest,
    Quote,
    ReplaceQuoteRequest,
    RFQStatus,
    SettlementPoolStatus,
    TradeSide,
    UseExistingPool,
)
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.margin_rules import check_margin_params
from tui.sandbox.engine.market_api import MarketApi
from tui.sandbox.engine.pools import check_pool_name, visible_pool
from tui.sandbox.engine.records import (
    decimal_places,
    load_quote,
    load_rfq,
    ms_to_timestamp,
    save_quote,
    timestamp_to_ms,
)
from tui.sandbox.engine.rfqs import price_places
from tui.sandbox.engine.store import Store
from tui.sandbox.engine.views import Views

__all__ = ["MAX_PRICE", "Quotes", "quote_record", "quote_row", "structure_quote"]

MAX_PRICE = Decimal(10) ** 9
"""The largest leg price a quote may carry."""
_ZERO = Decimal(0)


def structure_quote(
    rfq: dict[str, Any], by_leg: dict[str, Any]
) -> tuple[list[dict[str, Any]], Decimal | None, Decimal | None]:
    """A quote's ``per_leg_quotes`` and its aggregated bid and ask for the whole structure.

    ``by_leg`` maps each RFQ leg id to its `LegQuote`. The taker buying the structure buys its
    buy legs (at ask) and sells its sell legs (at bid); the bid is the mirror image. A side
    some leg does not price is None.
    """
    per_leg = []
    bid: Decimal | None = _ZERO
    ask: Decimal | None = _ZERO
    for leg, structure_leg in zip(rfq["rfq_legs"], rfq["structure"]["legs"], strict=True):
        leg_quote = by_leg[leg["rfq_leg_id"]]
        ratio = Decimal(structure_leg["ratio"])
        buy_leg = leg["side"] == TradeSide.BUY
        ask_part = leg_quote.ask if buy_leg else leg_quote.bid
        bid_part = leg_quote.bid if buy_leg else leg_quote.ask
        sign = Decimal(1) if buy_leg else Decimal(-1)
        ask = None if ask is None or ask_part is None else ask + sign * ratio * ask_part
        bid = None if bid is None or bid_part is None else bid + sign * ratio * bid_part
        per_leg.append(
            {
                "target_rfq_leg_id": leg["rfq_leg_id"],
                "bid": None if leg_quote.bid is None else format(leg_quote.bid, "f"),
                "ask": None if leg_quote.ask is None else format(leg_quote.ask, "f"),
            }
        )
    return per_leg, bid, ask


def quote_record(
    quote_id: str,
    rfq_id: str,
    maker: str,
    prices: tuple[list[dict[str, Any]], Decimal | None, Decimal | None],
    strategy: Any,
    pool_location: str | None,
    client_quote_id: str | None,
    now_ms: int,
    expires_ms: int,
) -> dict[str, Any]:
    """A new open quote as stored: ``prices`` is what `structure_quote` gives, ``strategy``
    the request's pool strategy model (`UseExistingPool` or `CreateNewPool`)."""
    per_leg, bid, ask = prices
    new_pool = strategy if isinstance(strategy, CreateNewPool) else None
    return {
        "parent_quote_id": quote_id,
        "target_rfq_id": rfq_id,
        "maker_company": maker,
        "expires_at": ms_to_timestamp(expires_ms),
        "aggregated_bid": None if bid is None else format(bid, "f"),
        "aggregated_ask": None if ask is None else format(ask, "f"),
        "clearing_status": None,
        "clearing_events": [],
        "new_pool_name": new_pool.name if new_pool else None,
        "creator_params": new_pool.creator_params.model_dump(mode="json") if new_pool else None,
        "other_params": new_pool.other_params.model_dump(mode="json") if new_pool else None,
        "pool_location": pool_location,
        "per_leg_quotes": per_leg,
        "client_quote_id": client_quote_id,
        "created_at": ms_to_timestamp(now_ms),
        "quote_status": QuoteState.OPEN.value,
        "_expires_ms": expires_ms,
        "_pool_strategy": strategy.model_dump(mode="json"),
        "_clearing": None,
    }


def quote_row(quote: dict[str, Any], taker: str) -> dict[str, Any]:
    """The ``quotes`` table's columns of a stored quote dict on an RFQ of ``taker``."""
    return {
        "id": quote["parent_quote_id"],
        "rfq_id": quote["target_rfq_id"],
        "maker": quote["maker_company"],
        "taker": taker,
        "status": quote["quote_status"],
        "data": quote,
    }


class Quotes:
    """The maker's side of ``/quotes``: the lists, a new quote, a cancel, a replace."""

    def __init__(self, store: Store, market: MarketApi, views: Views) -> None:
        self.store = store
        self.market = market
        self.views = views

    def page(
        self, me: str, where: str, params: list[Any], limit: int, offset: int, id: str | None
    ) -> tuple[list[Quote], bool]:
        """A page of quotes matching ``where`` (the list's scope), as ``me`` sees them."""
        if id is not None:
            where += " AND id = ?"
            params.append(id)
        rows, more = self.store.page("quotes", where, params, limit=limit, offset=offset)
        return [self.views.quote(r, me) for r in rows], more

    def new(self, me: str, body: NewQuoteRequest, now: int) -> Quote:
        """``me``'s new open quote on an RFQ it was asked for."""
        return self.views.quote(self._new_quote(me, body, now), me)

    def _new_quote(
        self, me: str, body: NewQuoteRequest, now: int, field_prefix: str = ""
    ) -> dict[str, Any]:
        rfq = load_rfq(self.store, body.rfq_id)
        if rfq is None or me not in rfq["_targets"]:
            raise ServiceError.not_found("rfq_id: RFQ")
        if rfq["rfq_status"] != RFQStatus.OPEN or now >= rfq["_expires_ms"]:
            status = rfq["rfq_status"] if rfq["rfq_status"] != RFQStatus.OPEN else "expired"
            raise ServiceError.conflict(f"rfq_id: RFQ is {status}, it takes no more quotes")
        expires_ms = timestamp_to_ms(body.expires_at)
        if expires_ms <= now:
            raise ServiceError.out_of_range("expires_at: must be in the future")
        if expires_ms > rfq["_expires_ms"]:
            raise ServiceError.out_of_range(
                f"expires_at: must not be after the RFQ's expiry ({rfq['rfq_expires_at']})"
            )
        legs = rfq["rfq_legs"]
        if len(body.leg_quotes) != len(legs):
            raise ServiceError.out_of_range(
                f"leg_quotes: expected {len(legs)} leg quotes, one per RFQ leg"
            )
        by_leg: dict[str, Any] = {}
        leg_ids = {leg["rfq_leg_id"] for leg in legs}
        for index, leg_quote in enumerate(body.leg_quotes):
            leg_id = leg_quote.target_rfq_leg_id
            if leg_id not in leg_ids:
                raise ServiceError.out_of_range(
                    f"leg_quotes[{index}].target_rfq_leg_id: not a leg of this RFQ"
                )
            if leg_id in by_leg:
                raise ServiceError.out_of_range(
                    f"leg_quotes[{index}].target_rfq_leg_id: this leg is quoted twice"
                )
            by_leg[leg_id] = leg_quote
        for leg in legs:
            leg_quote = by_leg[leg["rfq_leg_id"]]
            places = price_places(self.market, leg["instrument"]["underlying"])
            for name in ("bid", "ask"):
                value = getattr(leg_quote, name)
                if value is None:
                    continue
                index = body.leg_quotes.index(leg_quote)
                if value > MAX_PRICE:
                    raise ServiceError.out_of_range(
                        f"leg_quotes[{index}].{name}: at most {format(MAX_PRICE, 'f')}"
                    )
                if decimal_places(value) > places:
                    raise ServiceError.out_of_range(
                        f"leg_quotes[{index}].{name}: at most {places} decimal places "
                        f"(precision_requirements of {leg['instrument']['underlying']})"
                    )
        per_leg, bid, ask = structure_quote(rfq, by_leg)
        if bid is None and ask is None:
            raise ServiceError.out_of_range(
                "leg_quotes: price every leg on one side at least (a bid or an ask for the "
                "whole structure)"
            )
        strategy = body.pool_strategy
        taker = rfq["taker_company"]
        pool_location: str | None = None
        if isinstance(strategy, UseExistingPool):
            pool = visible_pool(self.store, me, strategy.pool_id)
            if pool is None:
                raise ServiceError.not_found(f"{field_prefix}pool_strategy.pool_id: pool")
            if taker not in (p["company"] for p in pool["parties"]):
                raise ServiceError.out_of_range(
                    "pool_strategy.pool_id: the pool is not between you and the RFQ's taker"
                )
            if pool["status"] != SettlementPoolStatus.OPEN:
                raise ServiceError.conflict(
                    f"pool_strategy.pool_id: the pool is {pool['status']}, not open"
                )
            pool_location = strategy.pool_id
        elif isinstance(strategy, CreateNewPool):
            check_pool_name(self.store, me, taker, strategy.name, "pool_strategy.name")
            check_margin_params(strategy.creator_params, "pool_strategy.creator_params")
            check_margin_params(strategy.other_params, "pool_strategy.other_params")
        quote = quote_record(
            self.store.new_id(),
            rfq["rfq_id"],
            me,
            (per_leg, bid, ask),
            strategy,
            pool_location,
            body.client_quote_id,
            now,
            expires_ms,
        )
        self.store.insert("quotes", quote_row(quote, taker))
        self.store.add_timer(expires_ms, "quote_expiry", quote["parent_quote_id"])
        return quote

    def _own_quote(self, me: str, quote_id: str, field_name: str) -> dict[str, Any]:
        """``me``'s own quote, for a maker's cancel or replace.

        The taker of the quote's RFQ (who can see the quote) gets 403/2002 "only the quote's
        maker may do this", as the catalogue has it for a record of another company; anyone
        else gets 404, as for an unknown id. Kept as is on purpose.
        """
        quote = load_quote(self.store, quote_id)
        if quote is None:
            raise ServiceError.not_found(f"{field_name}: quote")
        if quote["maker_company"] != me:
            rfq = load_rfq(self.store, quote["target_rfq_id"])
            if rfq is not None and rfq["taker_company"] == me:
                raise ServiceError.forbidden(f"{field_name}: only the quote's maker may do this")
            raise ServiceError.not_found(f"{field_name}: quote")
        return quote

    def cancel(self, me: str, body: CancelRequest) -> None:
        """The maker withdraws one open quote (409 once it is no longer open)."""
        quote = self._own_quote(me, body.id, "id")
        if quote["quote_status"] != QuoteState.OPEN:
            raise ServiceError.conflict(f"id: the quote is {quote['quote_status']}, not open")
        quote["quote_status"] = QuoteState.CANCELED.value
        save_quote(self.store, quote)

    def cancel_all(self, me: str) -> None:
        """The maker withdraws every open quote it has."""
        rows = self.store.all(
            "SELECT data FROM quotes WHERE maker = ? AND status = ?",
            (me, QuoteState.OPEN.value),
        )
        for row in rows:
            quote = json.loads(row[0])
            quote["quote_status"] = QuoteState.CANCELED.value
            save_quote(self.store, quote)

    def replace(self, me: str, body: ReplaceQuoteRequest, now: int) -> Quote:
        """Cancel an open quote and quote anew on the same RFQ (one transaction, the caller's)."""
        parent = self._own_quote(me, body.parent_quote_id, "parent_quote_id")
        if parent["target_rfq_id"] != body.rfq_id:
            raise ServiceError.out_of_range("rfq_id: does not match the RFQ of parent_quote_id")
        if parent["quote_status"] != QuoteState.OPEN:
            raise ServiceError.conflict(
                f"parent_quote_id: the quote is {parent['quote_status']}, not open"
            )
        parent["quote_status"] = QuoteState.REPLACED.value
        save_quote(self.store, parent)
        quote = self._new_quote(me, body, now)
        quote["replaces"] = parent["parent_quote_id"]
        save_quote(self.store, quote)
        parent["replaced_by"] = quote["parent_quote_id"]
        save_quote(self.store, parent)
        return self.views.quote(quote, me)
