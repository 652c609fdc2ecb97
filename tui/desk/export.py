"""CSV export of the trades and transfers in view, for the back office and the spreadsheet.

Amounts are written as the venue sent them (plain decimal strings, never floats, no thousands
separators): a transfer's ``qty`` is the amount moved, its direction is ``transfer_type``, as
on the Pools tab. Times are RFC 3339 UTC. Every company and pool id has its name in the next
column (empty while the desk does not know it). Files go under the user data dir's ``exports``
folder with a timestamped name; a trader's trades are private, so the folder is the user's alone
(0700) and so is each file (0600).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Protocol

from tui.api.models import Company, SettlementPool, Trade, Transfer, instrument_label
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
    "counterparty_name",
    "pool_location",
    "pool_name",
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
    "counterparty_name",
    "target_pool_location",
    "pool_name",
    "rfq_id",
    "parent_quote_id",
    "confirmed_by_transaction_id",
)


class Directory(Protocol):
    """Where names come from: the companies and pools the desk knows (its book)."""

    @property
    def companies(self) -> Mapping[str, Company]:
        """Companies by id."""
        ...

    @property
    def pools(self) -> Mapping[str, SettlementPool]:
        """Pools by id."""
        ...


class Names:
    """Names next to ids, from a `Directory` (no directory: every name is empty)."""

    def __init__(self, directory: Directory | None = None) -> None:
        # Copied once: the export runs in a thread while the book keeps changing.
        self.companies = {
            k: c.short_name for k, c in (directory.companies if directory else {}).items()
        }
        self.pools = {
            k: p.data.name
            for k, p in (directory.pools if directory else {}).items()
            if p.data is not None
        }

    def company(self, company_id: str | None) -> str:
        """A company's short name, or empty."""
        return self.companies.get(company_id or "", "")

    def pool(self, pool_id: str | None) -> str:
        """A pool's name, or empty."""
        return self.pools.get(pool_id or "", "")


def trade_row(trade: Trade, names: Names | None = None) -> dict[str, str]:
    """One CSV row of a trade."""
    names = names or Names()
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
        "counterparty_name": names.company(trade.counterparty),
        "pool_location": trade.pool_location,
        "pool_name": names.pool(trade.pool_location),
        "source_rfq": trade.source_rfq,
        "source_quote": trade.source_quote,
        "trade_type": str(trade.trade_type),
        "status": str(trade.status),
    }


def transfer_row(transfer: Transfer, names: Names | None = None) -> dict[str, str]:
    """One CSV row of a transfer."""
    names = names or Names()
    return {
        "id": transfer.id,
        "created_at": format_timestamp(transfer.created_at),
        "transfer_type": str(transfer.transfer_type),
        "asset": transfer.asset,
        "qty": decimal_to_wire(transfer.qty),
        "status": str(transfer.status),
        "counterparty": transfer.counterparty or "",
        "counterparty_name": names.company(transfer.counterparty),
        "target_pool_location": transfer.target_pool_location,
        "pool_name": names.pool(transfer.target_pool_location),
        "rfq_id": transfer.rfq_id or "",
        "parent_quote_id": transfer.parent_quote_id or "",
        "confirmed_by_transaction_id": transfer.confirmed_by_transaction_id or "",
    }


PRIVATE_FOLDER = 0o700
PRIVATE_FILE = 0o600
"""The modes of the exports folder and of each file in it: the user's alone."""


def _write(path: Path, fields: tuple[str, ...], rows: Iterable[dict[str, str]]) -> None:
    path.parent.mkdir(mode=PRIVATE_FOLDER, parents=True, exist_ok=True)
    # A folder made by an older desk (0755) is made private too.
    path.parent.chmod(PRIVATE_FOLDER)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    os.fchmod(descriptor, PRIVATE_FILE)  # a file that was there keeps its mode otherwise
    with open(descriptor, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def export_csv(
    directory: Path,
    trades: Iterable[Trade],
    transfers: Iterable[Transfer],
    now: datetime,
    label: str = "all",
    directory_of_names: Directory | None = None,
) -> tuple[Path, Path]:
    """Write ``trades-...csv`` and ``transfers-...csv`` under ``directory``; return both paths.

    ``directory_of_names`` (the desk's book) gives the names written next to the ids.
    """
    names = Names(directory_of_names)
    stamp = now.strftime("%Y%m%d-%H%M%S")
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in label)[:40] or "all"
    trades_path = directory / f"trades-{safe}-{stamp}.csv"
    transfers_path = directory / f"transfers-{safe}-{stamp}.csv"
    _write(trades_path, TRADE_FIELDS, (trade_row(t, names) for t in trades))
    _write(transfers_path, TRANSFER_FIELDS, (transfer_row(t, names) for t in transfers))
    return trades_path, transfers_path
