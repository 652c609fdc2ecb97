"""The engine's stored records: reading and writing them, building new ones, wire values.

The store keeps every RFQ, quote, pool and transfer as its wire dict, plus internals under
``_``-prefixed keys that views strip (`tui.sandbox.engine.views.public`): an RFQ's
``_targets`` and ``_expires_ms``, a quote's ``_expires_ms``, ``_pool_strategy`` and
``_clearing`` (the trade under way: taker side, pool, deposits, deadline). These helpers are the
one way in and out of those dicts, so every room reads and writes them alike.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from pydantic import TypeAdapter

from tui.api.lifecycle import QuoteState
from tui.api.models import (
    USDC,
    ClearingStatus,
    Instrument,
    KnownInstrument,
    MarginParams,
    PartyStatus,
    SettlementPoolStatus,
    TradeSide,
    VanillaOptionInstrument,
)
from tui.api.types import format_timestamp
from tui.sandbox.engine.chain import pool_address
from tui.sandbox.engine.store import RecordSink, Store

__all__ = [
    "accepted_quotes",
    "canonical_instrument",
    "clearing_event",
    "decimal_places",
    "insert_transfer",
    "instrument_key",
    "leg_fills",
    "load_pool",
    "load_quote",
    "load_rfq",
    "ms_to_timestamp",
    "other_party",
    "own_records",
    "parse_instrument",
    "parse_margin_params",
    "party_params",
    "pool_record",
    "save_pool",
    "save_quote",
    "save_rfq",
    "timestamp_to_ms",
    "transfer_record",
    "transfer_row",
    "waiting_for_pool",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_INSTRUMENT: TypeAdapter[Any] = TypeAdapter(Instrument)
_MARGIN_PARAMS: TypeAdapter[Any] = TypeAdapter(MarginParams)
_KEEP = "\x00keep"

# -- wire values: time and numbers --------------------------------------------------------


def ms_to_timestamp(ms: int) -> str:
    """Unix ms -> the wire's RFC 3339 text (exact, no float)."""
    return format_timestamp(_EPOCH + timedelta(milliseconds=ms))


def timestamp_to_ms(value: datetime | str) -> int:
    """An aware datetime (or RFC 3339 text) -> Unix ms, exactly, rounding sub-ms down."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return (value - _EPOCH) // timedelta(milliseconds=1)


def decimal_places(value: Decimal) -> int:
    """Decimal places a wire number really has (``1.50`` has 1, ``1E+3`` none): what the
    venue's bounds on prices, strikes and margin parameters count."""
    exponent = value.normalize().as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


# -- record access ------------------------------------------------------------------------


def load_rfq(store: Store, rfq_id: str) -> dict[str, Any] | None:
    """The stored RFQ dict (wire fields plus ``_``-prefixed internals), or None."""
    return store.data("rfqs", "id = ?", (rfq_id,))


def save_rfq(store: Store, rfq: dict[str, Any], live_quote: str | None = _KEEP) -> None:
    """Write an RFQ back; ``live_quote`` (a quote id, or None) sets the live trade pointer."""
    columns: dict[str, Any] = {"status": rfq["rfq_status"], "data": rfq}
    if live_quote != _KEEP:
        columns["live_quote"] = live_quote
    store.update("rfqs", "id", rfq["rfq_id"], columns)


def load_quote(store: Store, quote_id: str) -> dict[str, Any] | None:
    """The stored quote dict, or None."""
    return store.data("quotes", "id = ?", (quote_id,))


def save_quote(store: Store, quote: dict[str, Any]) -> None:
    """Write a quote back (its ``quote_status`` is mirrored into the indexed column)."""
    store.update(
        "quotes", "id", quote["parent_quote_id"], {"status": quote["quote_status"], "data": quote}
    )


def accepted_quotes(store: Store) -> list[dict[str, Any]]:
    """Every quote whose trade is under way (state ``accepted``), oldest first."""
    rows = store.all(
        "SELECT data FROM quotes WHERE status = ? ORDER BY seq", (QuoteState.ACCEPTED,)
    )
    return [json.loads(row[0]) for row in rows]


def waiting_for_pool(store: Store, pool_id: str) -> list[dict[str, Any]]:
    """The trades in ``pending_pool_creation`` for pool ``pool_id``, oldest first."""
    return [
        q
        for q in accepted_quotes(store)
        if q["clearing_status"] == ClearingStatus.PENDING_POOL_CREATION
        and q["_clearing"].get("pool_id") == pool_id
    ]


def load_pool(store: Store, pool_id: str) -> dict[str, Any] | None:
    """The stored pool dict, or None."""
    return store.data("pools", "id = ?", (pool_id,))


def save_pool(store: Store, pool: dict[str, Any]) -> None:
    """Write a pool back."""
    store.update("pools", "id", pool["pool_id"], {"status": pool["status"], "data": pool})


def own_records(
    store: Store,
    table: str,
    company_id: str,
    *,
    limit: int,
    offset: int,
    pool: str | None,
    id: str | None,
) -> tuple[list[dict[str, Any]], bool]:
    """A page of one company's own rows of ``table``, filtered by pool and id when given."""
    where = "company_id = ?"
    params: list[Any] = [company_id]
    if pool is not None:
        where += " AND pool_id = ?"
        params.append(pool)
    if id is not None:
        where += " AND id = ?"
        params.append(id)
    return store.page(table, where, params, limit=limit, offset=offset)


def party_params(pool: dict[str, Any], company_id: str) -> Any:
    """The margin parameters that apply to ``company_id`` in ``pool`` (parsed)."""
    key = "creator_params" if pool["company_creator"] == company_id else "other_params"
    return parse_margin_params(pool[key])


def other_party(pool: dict[str, Any], company_id: str) -> str:
    """The pool's other company."""
    parties = [p["company"] for p in pool["parties"]]
    return parties[1] if parties[0] == company_id else parties[0]


# -- instruments and margin parameters ----------------------------------------------------


def parse_instrument(data: Any) -> Any:
    """An instrument model from its wire dict (unknown types parse as `UnknownVariant`)."""
    return _INSTRUMENT.validate_python(data)


def parse_margin_params(data: Any) -> Any:
    """Margin parameters from their wire dict (an unknown mode parses as `UnknownVariant`)."""
    return _MARGIN_PARAMS.validate_python(data)


def canonical_instrument(instrument: KnownInstrument) -> KnownInstrument:
    """The instrument with only its documented fields and a normalized strike.

    Two legs naming the same instrument must land on the same position, whatever extra keys
    or strike spelling (``"30000"`` / ``"3E+4"``) the request used.
    """
    cls = type(instrument)
    fields = instrument.model_dump(include=set(cls.model_fields))
    if isinstance(instrument, VanillaOptionInstrument):
        fields["strike"] = instrument.strike.normalize()
    return cls.model_validate(fields)


def instrument_key(instrument: Any) -> str:
    """A stable text key of an instrument, for the positions table."""
    data = instrument.model_dump(mode="json") if hasattr(instrument, "model_dump") else instrument
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def leg_fills(
    rfq: dict[str, Any], quote: dict[str, Any], taker_side: TradeSide | str
) -> list[tuple[dict[str, Any], TradeSide, Decimal]]:
    """Per RFQ leg: ``(leg, the taker's side of it, price)``.

    A taker buying the structure buys its buy legs at the maker's ask and sells its sell legs
    at the bid; selling the structure is the mirror image.
    """
    per_leg = {lq["target_rfq_leg_id"]: lq for lq in quote["per_leg_quotes"]}
    out = []
    for leg in rfq["rfq_legs"]:
        side = TradeSide(leg["side"])
        taker_leg_side = side if TradeSide(taker_side) is TradeSide.BUY else side.opposite
        price = per_leg[leg["rfq_leg_id"]]["ask" if taker_leg_side is TradeSide.BUY else "bid"]
        out.append((leg, taker_leg_side, Decimal(price)))
    return out


# -- new records --------------------------------------------------------------------------


def pool_record(
    pool_id: str,
    created_at: str,
    creator: str,
    other: str,
    name: str,
    creator_params: Any,
    other_params: Any,
) -> dict[str, Any]:
    """A new pending pool between ``creator`` and ``other`` (margin parameters as wire dicts)."""
    return {
        "pool_id": pool_id,
        "created_at": created_at,
        "company_creator": creator,
        "status": SettlementPoolStatus.PENDING.value,
        "address": pool_address(pool_id),
        "name": name,
        "confirmed_by_transaction_id": None,
        "creator_params": creator_params,
        "other_params": other_params,
        "parties": [
            {
                "company": company,
                "created_at": created_at,
                "status": PartyStatus.PENDING.value,
                "confirmed_by_transaction_id": None,
            }
            for company in (creator, other)
        ],
        "error": None,
    }


def transfer_record(
    transfer_id: str,
    *,
    created_at: str,
    company: str,
    counterparty: str,
    qty: Decimal,
    pool_id: str,
    transfer_type: str,
    status: str,
    rfq_id: str | None = None,
    parent_quote_id: str | None = None,
    confirmed_by: str | None = None,
) -> dict[str, Any]:
    """A USDC transfer into or out of a pool (a clearing deposit names its trade)."""
    return {
        "id": transfer_id,
        "rfq_id": rfq_id,
        "parent_quote_id": parent_quote_id,
        "created_at": created_at,
        "company": company,
        "counterparty": counterparty,
        "qty": format(qty, "f"),
        "asset": USDC,
        "target_pool_location": pool_id,
        "transfer_type": transfer_type,
        "status": status,
        "confirmed_by_transaction_id": confirmed_by,
    }


def transfer_row(data: dict[str, Any]) -> dict[str, Any]:
    """The ``transfers`` table's columns of a transfer record."""
    return {
        "id": data["id"],
        "company_id": data["company"],
        "pool_id": data["target_pool_location"],
        "status": data["status"],
        "data": data,
    }


def insert_transfer(store: RecordSink, data: dict[str, Any]) -> None:
    """Store a new transfer record with its indexed columns."""
    store.insert("transfers", transfer_row(data))


def clearing_event(quote: dict[str, Any], status: str, now_ms: int) -> dict[str, Any]:
    """The `ClearingEvent` of a quote's trade moving to ``status`` at ``now_ms``."""
    return {
        "rfq_id": quote["target_rfq_id"],
        "parent_quote_id": quote["parent_quote_id"],
        "status": status,
        "created_at": ms_to_timestamp(now_ms),
        "taker_side": (quote.get("_clearing") or {}).get("taker_side"),
    }
