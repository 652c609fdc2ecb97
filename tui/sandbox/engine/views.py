"""Stored records rendered for one viewing company: what each side of a deal may see.

The store keeps one dict per record with internals under ``_``-prefixed keys; a view strips
those and hides what the viewer has no business seeing:

- a maker's ``client_quote_id`` is shown to that maker only;
- an RFQ seen by a maker (``/rfqs/received``) lists in ``bids``/``asks`` and
  ``quotes_common_metadata`` that maker's own quotes only, and carries no margin figures
  (they are the taker's); its ``clearing_status`` shows only when the live trade is that
  maker's;
- the taker sees every open quote with its margin requirements, and ``target_companies``.

Margin requirements of a quote for the taker (`QuoteWithMargin`): ``existing`` is the taker's
current initial/maintenance margin in the quote's pool (zero for a pool still to be created),
``counter_factual`` the same after the trade, ``additional`` the difference. Null when the
pool's margin mode is not modelled.

The reference SDK's typed records add two ids to each bid/ask: the venue computes margin
requirements as requests of their own, and names them. The sandbox computes them as it renders
the RFQ, and names each computation by what it is about (`margin_request_ids`):
``existing_margin_requirements_request_id`` by the quote (the taker's margin before the trade
is the same for its bid and its ask), ``margin_requirements_counter_factual_request_id`` by the
quote and the side taken. Both are stable UUIDs: the same quote and side carry the same ids on
every read, so a client can tell the figures of one computation from another's. They are null
exactly when the figures are (a maker's view, a margin mode that is not modelled).

Each ``quotes_common_metadata`` entry carries, as the SDK types it, the quote's
``parent_quote_id`` and its ``clearing_events``, next to its maker, expiry, state, clearing
status and pool strategy.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from tui.api.lifecycle import QuoteState
from tui.api.models import (
    RFQ,
    MarginUsage,
    Quote,
    QuoteWithMargin,
    SettlementPool,
    Structure,
    TradeSide,
)
from tui.sandbox.engine.chain import Chain
from tui.sandbox.engine.margin import Holding, PartyState, margin_usage
from tui.sandbox.engine.portfolio import Portfolio
from tui.sandbox.engine.records import load_pool, parse_margin_params, party_params
from tui.sandbox.engine.risk import holdings_for
from tui.sandbox.engine.store import Store, deterministic_uuid

__all__ = ["Views", "margin_request_ids", "public"]

log = logging.getLogger(__name__)

_ZERO = Decimal(0)


def public(record: dict[str, Any]) -> dict[str, Any]:
    """The record without its ``_``-prefixed internals."""
    return {k: v for k, v in record.items() if not k.startswith("_")}


def margin_request_ids(quote_id: str, side: TradeSide) -> tuple[str, str]:
    """``(existing, counter_factual)`` ids of the margin computations for taking ``side`` of
    a quote: UUIDs derived from the quote id (and the side, for the counter-factual one)."""
    return (
        deterministic_uuid(quote_id, 0, "margin:existing"),
        deterministic_uuid(quote_id, 0, f"margin:counter_factual:{side.value}"),
    )


class Views:
    """Renders stored RFQs, quotes and pools for a viewer."""

    def __init__(
        self,
        store: Store,
        chain: Chain,
        portfolio: Portfolio,
        market: Any,
        reserved: Callable[[str, str], tuple[list[Holding], Decimal]] | None = None,
    ) -> None:
        self.store = store
        self.chain = chain
        self.portfolio = portfolio
        self.market = market
        # What the trades still clearing hold back in a pool for a company.
        self.reserved = reserved

    # -- quotes -------------------------------------------------------------------------------

    def quote(self, quote: dict[str, Any], viewer: str) -> Quote:
        """A quote as ``viewer`` (its maker, or the taker of its RFQ) sees it.

        Once accepted, it carries the extra field ``pending_deposits_sum_qty``: what the
        viewer's wallet must allow the pool address to spend for this trade (the taker's
        deposit for the taker, the maker's for the maker; ``"0"`` when none). That is how a
        taker whose trade waited for pool creation learns the amount to permit.
        """
        data = public(quote)
        is_maker = quote["maker_company"] == viewer
        if not is_maker:
            data["client_quote_id"] = None
        clearing = quote.get("_clearing")
        if clearing and "accepted_ms" in clearing:
            data["pending_deposits_sum_qty"] = clearing.get(
                "maker_deposit" if is_maker else "taker_deposit", "0"
            )
        return Quote.model_validate(data)

    # -- RFQs ---------------------------------------------------------------------------------

    def rfq(self, rfq: dict[str, Any], viewer: str, *, price: bool) -> RFQ:
        """An RFQ with its open quotes (all for the taker, the viewer's own for a maker)."""
        is_taker = rfq["taker_company"] == viewer
        data = public(rfq)
        if is_taker:
            data["target_companies"] = list(rfq["_targets"])
        live = self.store.scalar("SELECT live_quote FROM rfqs WHERE id = ?", (rfq["rfq_id"],))
        where = "rfq_id = ? AND (status = ? OR id = ?)"
        params: tuple[Any, ...] = (rfq["rfq_id"], QuoteState.OPEN.value, live or "")
        if not is_taker:
            where += " AND maker = ?"
            params = (*params, viewer)
        rows = self.store.all(
            f"SELECT data FROM quotes WHERE {where} ORDER BY seq",  # noqa: S608 - fixed text
            params,
        )
        quotes = [json.loads(row[0]) for row in rows]
        if not is_taker and not any(q["parent_quote_id"] == live for q in quotes):
            data["clearing_status"] = None
        bids: list[QuoteWithMargin] = []
        asks: list[QuoteWithMargin] = []
        metadata: dict[str, dict[str, Any]] = {}
        for quote in quotes:
            strategy = quote["_pool_strategy"]
            metadata[quote["parent_quote_id"]] = {
                "parent_quote_id": quote["parent_quote_id"],
                "maker_company": quote["maker_company"],
                "expires_at": quote["expires_at"],
                "quote_status": quote["quote_status"],
                "clearing_status": quote.get("clearing_status"),
                "pool_strategy": (
                    {"strategy": "use_existing", "pool_id": strategy["pool_id"]}
                    if strategy["strategy"] == "use_existing"
                    else {"strategy": "create_new", "name": strategy["name"]}
                ),
                "clearing_events": quote.get("clearing_events") or [],
            }
            if quote["quote_status"] != QuoteState.OPEN:
                continue
            for side, price_key, book in (
                (TradeSide.SELL, "aggregated_bid", bids),
                (TradeSide.BUY, "aggregated_ask", asks),
            ):
                if quote.get(price_key) is None:
                    continue
                margins = self._margins(rfq, quote, side) if is_taker else (None, None, None)
                existing_id, counter_factual_id = (
                    margin_request_ids(quote["parent_quote_id"], side)
                    if margins[0] is not None
                    else (None, None)
                )
                book.append(
                    QuoteWithMargin(
                        parent_quote_id=quote["parent_quote_id"],
                        quote_price=Decimal(quote[price_key]),
                        existing_margin_requirements=margins[0],
                        additional_margin_requirements=margins[1],
                        counter_factual_margin_requirements=margins[2],
                        margin_requirements_counter_factual_request_id=counter_factual_id,
                        existing_margin_requirements_request_id=existing_id,
                    )
                )
        bids.sort(key=lambda q: q.quote_price, reverse=True)
        asks.sort(key=lambda q: q.quote_price)
        data["quotes_common_metadata"] = metadata
        data["bids"] = [b.model_dump(mode="json") for b in bids]
        data["asks"] = [a.model_dump(mode="json") for a in asks]
        if price:
            try:
                structure = Structure.model_validate(rfq["structure"])
                data["structure_price"] = self.market.structure_price(
                    structure, Decimal(rfq["qty"])
                ).model_dump(mode="json")
            except (ValueError, KeyError, ArithmeticError):
                data["structure_price"] = None
        else:
            data["structure_price"] = None
        return RFQ.model_validate(data)

    def _margins(
        self, rfq: dict[str, Any], quote: dict[str, Any], side: TradeSide
    ) -> tuple[MarginUsage | None, MarginUsage | None, MarginUsage | None]:
        taker = rfq["taker_company"]
        fills = holdings_for(rfq, quote, side, taker=True)
        strategy = quote["_pool_strategy"]
        try:
            if strategy["strategy"] == "use_existing":
                pool = load_pool(self.store, strategy["pool_id"])
                if pool is None:
                    return None, None, None
                params = party_params(pool, taker)
                before = self.portfolio.state(pool["pool_id"], taker, params)
                after = self.portfolio.state(pool["pool_id"], taker, params, fills)
            else:
                params = parse_margin_params(strategy["other_params"])
                before = PartyState(_ZERO, _ZERO, _ZERO, _ZERO)
                after = self.portfolio.state("", taker, params, fills)
            return _usage_triplet(before, after)
        except (ValueError, ArithmeticError):
            # Parameters or amounts margin cannot be computed with: the figures are unknown,
            # the RFQ is still shown.
            return None, None, None

    # -- pools --------------------------------------------------------------------------------

    def _party_margin(self, pool: dict[str, Any], company: str) -> dict[str, Any]:
        """The ``margin_usage`` block of one party; degraded (null usage, nothing withdrawable)
        when the pool's parameters or amounts make margin impossible to compute, so no pool a
        creator wrote can break the other party's reads."""
        try:
            params = party_params(pool, company)
            fills, incoming = (
                self.reserved(pool["pool_id"], company) if self.reserved else ([], _ZERO)
            )
            margin = self.portfolio.party_margin(pool["pool_id"], company, params, fills, incoming)
            return dict(margin.model_dump(mode="json"))
        except (ValueError, ArithmeticError):
            balance = self.portfolio.balance(pool["pool_id"], company)
            return _degraded_margin(pool, company, balance)

    def pool(self, pool: dict[str, Any], viewer: str) -> SettlementPool:
        """A pool as one of its parties sees it: both parties' margin, the viewer's positions."""
        parties = []
        for party in pool["parties"]:
            company = party["company"]
            parties.append(
                {
                    **party,
                    "address": self.chain.wallet(company).address,
                    "margin_usage": self._party_margin(pool, company),
                }
            )
        positions = []
        for position in self.portfolio.positions_of(viewer, pool["pool_id"]):
            try:
                positions.append(self.market.aggregate_position(position).model_dump(mode="json"))
            except (ValueError, ArithmeticError):
                log.warning("position on %s cannot be valued", position.instrument)
        data = {
            key: value
            for key, value in public(pool).items()
            if key not in ("pool_id", "error", "creator_params", "other_params")
        }
        data["parties"] = parties
        data["positions"] = positions
        return SettlementPool.model_validate(
            {"pool_id": pool["pool_id"], "company_id": viewer, "data": data, "error": pool["error"]}
        )


def _degraded_margin(pool: dict[str, Any], company: str, balance: Decimal) -> dict[str, Any]:
    """A party's margin block when margin cannot be computed: no usage, nothing withdrawable."""
    key = "creator_params" if pool["company_creator"] == company else "other_params"
    return {
        "company": company,
        "balance": format(balance, "f"),
        "margin_params": pool.get(key),
        "margin_usage": None,
        "max_withdrawable_amount": "0",
    }


def _usage_triplet(
    before: PartyState, after: PartyState
) -> tuple[MarginUsage | None, MarginUsage | None, MarginUsage | None]:
    if (
        before.initial_margin is None
        or before.maintenance_margin is None
        or after.initial_margin is None
        or after.maintenance_margin is None
    ):
        return None, None, None
    return (
        margin_usage(before.initial_margin, before.maintenance_margin),
        margin_usage(
            after.initial_margin - before.initial_margin,
            after.maintenance_margin - before.maintenance_margin,
        ),
        margin_usage(after.initial_margin, after.maintenance_margin),
    )
