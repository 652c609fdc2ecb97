"""CSV export of the trades and transfers in view, for the back office and the spreadsheet.

Amounts are written as the venue sent them (plain decimal strings, never floats); times as
RFC 3339 UTC. Files go under the user data dir's ``exports`` folder with a timestamped name.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from tui.api.models import Trade, Transfer, instrument_label
from tui.api.types import decimal_to_wire, format_timestamp
from tui.desk.clearing import gross_notional

TRADE_FIELDS = (
    "id",
    "created_at",
    "role",
    "side",
    "instrument",
    "qty",
    "price",
    "notional",
    "counterparty",
    "pool_location",
    "source_rfq",
    "source_quote",
    "trade_type",
    "status",
)
TRANSFER_FIELDS = (
    "id",
    "created_at",
    "transfer_type",
    "asset",
    "qty",
    "status",
    "counterparty",
    "target_pool_location",
    "rfq_id",
    "parent_quote_id",
    "confirmed_by_transaction_id",
)


def trade_row(trade: Trade) -> dict[str, str]:
    """One CSV row of a trade."""
    return {
        "id": trade.id,
        "created_at": format_timestamp(trade.created_at),
        "role": str(trade.role),
        "side": str(trade.side),
        "instrument": instrument_label(trade.instrument),
        "qty": decimal_to_wire(trade.qty),
        "price": decimal_to_wire(trade.price),
        "notional": decimal_to_wire(gross_notional([trade])),
        "counterparty": trade.counterparty,
        "pool_location": trade.pool_location,
        "source_rfq": trade.source_rfq,
        "source_quote": trade.source_quote,
        "trade_type": str(trade.trade_type),
        "status": str(trade.status),
    }


def transfer_row(transfer: Transfer) -> dict[str, str]:
    """One CSV row of a transfer."""
    return {
        "id": transfer.id,
        "created_at": format_timestamp(transfer.created_at),
        "transfer_type": str(transfer.transfer_type),
        "asset": transfer.asset,
        "qty": decimal_to_wire(transfer.qty),
        "status": str(transfer.status),
        "counterparty": transfer.counterparty or "",
        "target_pool_location": transfer.target_pool_location,
        "rfq_id": transfer.rfq_id or "",
        "parent_quote_id": transfer.parent_quote_id or "",
        "confirmed_by_transaction_id": transfer.confirmed_by_transaction_id or "",
    }


def _write(path: Path, fields: tuple[str, ...], rows: Iterable[dict[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def export_csv(
    directory: Path,
    trades: Iterable[Trade],
    transfers: Iterable[Transfer],
    now: datetime,
    label: str = "all",
) -> tuple[Path, Path]:
    """Write ``trades-...csv`` and ``transfers-...csv`` under ``directory``; return both paths."""
    stamp = now.strftime("%Y%m%d-%H%M%S")
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in label)[:40] or "all"
    trades_path = directory / f"trades-{safe}-{stamp}.csv"
    transfers_path = directory / f"transfers-{safe}-{stamp}.csv"
    _write(trades_path, TRADE_FIELDS, (trade_row(t) for t in trades))
    _write(transfers_path, TRANSFER_FIELDS, (transfer_row(t) for t in transfers))
    return trades_path, transfers_path
