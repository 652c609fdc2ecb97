"""Settlement pools: which a company sees, opening one, and its creation block.

Rules of ``/settlement_pools`` (see also `tui.sandbox.engine.exchange`):

- A company sees the pools it is a party of (pending, open and failed ones), oldest first; an
  id of any other pool answers like an unknown one. ``company_id`` of a pool record is the
  viewer's company.
- ``/settlement_pools/new`` needs an existing other company and a name the pair does not use
  yet (case-insensitive; a canceled pool frees its name); the pool opens one block later. Any
  company may open a pool naming any other (as on the venue); the margin parameters it writes
  for both sides are bounded (`tui.sandbox.engine.margin_rules`, also for a quote's
  ``create_new``) and every view degrades rather than fails when margin cannot be computed,
  so nothing a creator puts in a pool can break the other company's reads.
- When the creation block comes, a pool whose name another open pool of the same two
  companies took meanwhile is canceled (``error`` says why) instead of opened.
"""

from __future__ import annotations

import json
from typing import Any

from tui.api.models import (
    NewSettlementPoolRequest,
    PartyStatus,
    SettlementPool,
    SettlementPoolStatus,
)
from tui.sandbox.engine.chain import Chain
from tui.sandbox.engine.companies import company_exists
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.margin_rules import check_margin_params
from tui.sandbox.engine.records import (
    load_pool,
    ms_to_timestamp,
    other_party,
    pool_record,
    save_pool,
)
from tui.sandbox.engine.store import Store
from tui.sandbox.engine.views import Views

__all__ = [
    "Pools",
    "cancel_pool",
    "check_pool_name",
    "confirm_pool",
    "insert_pool",
    "name_taken",
    "open_pool",
    "pool_by_address",
    "pool_for_quote",
    "pool_row",
    "visible_pool",
]


def visible_pool(store: Store, me: str, pool_id: str) -> dict[str, Any] | None:
    """Pool ``pool_id`` when ``me`` is one of its parties, else None (as if unknown)."""
    pool = load_pool(store, pool_id)
    if pool is None or me not in (p["company"] for p in pool["parties"]):
        return None
    return pool


def pool_by_address(store: Store, me: str, address: str) -> dict[str, Any] | None:
    """The pool of ``me`` (not canceled) at on-chain ``address``, or None."""
    row = store.one(
        "SELECT data FROM pools WHERE address = ? AND (creator = ? OR other = ?) AND status != ?",
        (address.lower(), me, me, SettlementPoolStatus.CANCELED.value),
    )
    return None if row is None else dict(json.loads(row[0]))


def check_pool_name(store: Store, me: str, other: str, name: str, field_name: str) -> None:
    """Refuse (400) a pool name the two companies already use for a pool not canceled."""
    clash = store.scalar(
        "SELECT 1 FROM pools WHERE status != ? AND lower(name) = lower(?) AND "
        "((creator = ? AND other = ?) OR (creator = ? AND other = ?))",
        (SettlementPoolStatus.CANCELED.value, name, me, other, other, me),
    )
    if clash:
        raise ServiceError.out_of_range(
            f"{field_name}: a pool named {name!r} already exists with this counterparty"
        )


def pool_row(pool: dict[str, Any]) -> dict[str, Any]:
    """The ``pools`` table's columns of a pool record."""
    creator = pool["company_creator"]
    return {
        "id": pool["pool_id"],
        "creator": creator,
        "other": other_party(pool, creator),
        "address": pool["address"],
        "status": pool["status"],
        "name": pool["name"],
        "data": pool,
    }


def insert_pool(store: Store, chain: Chain, pool: dict[str, Any], now_ms: int) -> None:
    """Store a new pending pool and schedule its creation one block later."""
    store.insert("pools", pool_row(pool))
    store.add_timer(chain.confirm_at(now_ms), "pool_open", pool["pool_id"])


def pool_for_quote(
    store: Store, chain: Chain, quote: dict[str, Any], taker: str, now_ms: int
) -> dict[str, Any]:
    """The pool a ``create_new`` quote asked for, made when its trade is accepted.

    The maker is its creator (``creator_params`` are the maker's); it opens one block later.
    """
    strategy = quote["_pool_strategy"]
    pool = pool_record(
        store.new_id(),
        ms_to_timestamp(now_ms),
        quote["maker_company"],
        taker,
        strategy["name"],
        strategy["creator_params"],
        strategy["other_params"],
    )
    pool["_origin_quote"] = quote["parent_quote_id"]
    insert_pool(store, chain, pool, now_ms)
    return pool


def name_taken(store: Store, pool: dict[str, Any]) -> bool:
    """Whether another *open* pool of the same two companies has this pool's name."""
    clash = store.one(
        "SELECT id FROM pools WHERE status = ? AND lower(name) = lower(?) AND id != ? AND "
        "((creator = ? AND other = ?) OR (creator = ? AND other = ?))",
        (
            SettlementPoolStatus.OPEN.value,
            pool["name"],
            pool["pool_id"],
            *(p["company"] for p in pool["parties"]),
            *(p["company"] for p in reversed(pool["parties"])),
        ),
    )
    return clash is not None


def confirm_pool(pool: dict[str, Any], tx: str) -> None:
    """Mark a pool record open, its parties confirmed, by transaction ``tx``."""
    pool["status"] = SettlementPoolStatus.OPEN.value
    pool["confirmed_by_transaction_id"] = tx
    for party in pool["parties"]:
        party["status"] = PartyStatus.CONFIRMED.value
        party["confirmed_by_transaction_id"] = tx


def open_pool(store: Store, chain: Chain, pool: dict[str, Any]) -> None:
    """The creation block confirmed: the pool and both parties are open/confirmed."""
    confirm_pool(pool, chain.new_tx_id())
    save_pool(store, pool)


def cancel_pool(store: Store, pool: dict[str, Any], error: str) -> None:
    """The pool will never open: ``canceled``, with ``error`` saying why."""
    pool["status"] = SettlementPoolStatus.CANCELED.value
    pool["error"] = error
    save_pool(store, pool)


class Pools:
    """The ``/settlement_pools`` endpoints: a company's pools, and a new one."""

    def __init__(self, store: Store, chain: Chain, views: Views) -> None:
        self.store = store
        self.chain = chain
        self.views = views

    def page(
        self, me: str, *, limit: int, offset: int, id: str | None
    ) -> tuple[list[SettlementPool], bool]:
        """A page of the pools ``me`` is a party of, optionally one by id."""
        where = "(creator = ? OR other = ?)"
        params: list[Any] = [me, me]
        if id is not None:
            where += " AND id = ?"
            params.append(id)
        rows, more = self.store.page("pools", where, params, limit=limit, offset=offset)
        return [self.views.pool(r, me) for r in rows], more

    def new(self, me: str, body: NewSettlementPoolRequest, now: int) -> SettlementPool:
        """A new pool of ``me`` with one counterparty; it opens one block later."""
        other = body.company_other
        if other == me:
            raise ServiceError.out_of_range("company_other: must be another company")
        if not company_exists(self.store, other):
            raise ServiceError.out_of_range("company_other: unknown company")
        check_pool_name(self.store, me, other, body.pool_name, "pool_name")
        check_margin_params(body.creator_params, "creator_params")
        check_margin_params(body.other_params, "other_params")
        pool = pool_record(
            self.store.new_id(),
            ms_to_timestamp(now),
            me,
            other,
            body.pool_name,
            body.creator_params.model_dump(mode="json"),
            body.other_params.model_dump(mode="json"),
        )
        insert_pool(self.store, self.chain, pool, now)
        return self.views.pool(pool, me)
