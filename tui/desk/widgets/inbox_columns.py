"""The RFQ inbox's rows and columns: what each cell reads from an RFQ and how it is drawn.

An inbox row is one RFQ in one direction (received: to quote; sent: to trade), keyed
``direction:rfq_id``. Its *version* is what a poll can change in what the row shows (status,
best prices, the number of quotes, the live structure price of an open RFQ, the taker's
name): an unchanged version costs nothing at the next poll, and a changed one formats again
only the cells whose value moved. The countdown and the new-RFQ mark move with the clock, not
with the RFQ: they are ``live`` columns, read again only for the lines on screen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import App

from tui.api.lifecycle import clearing_is_rejected
from tui.api.models import RFQStatus
from tui.desk.best_price import BestPrices, best_prices, open_quotes
from tui.desk.book import DeskBook
from tui.desk.messages import Direction
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.columns import Cell, TableColumn
from tui.desk.widgets.common.palette import toned

if TYPE_CHECKING:
    from tui.api.models import RFQ

URGENT = timedelta(seconds=30)
"""An open RFQ's countdown turns to the needs-action colour this close to its expiry."""


def row_key(direction: Direction, rfq_id: str) -> str:
    """The inbox row key of an RFQ."""
    return f"{direction}:{rfq_id}"


def split_key(key: str) -> tuple[Direction, str]:
    """Direction and RFQ id of a row key."""
    direction, _, rfq_id = key.partition(":")
    return ("sent" if direction == "sent" else "received"), rfq_id


@dataclass(frozen=True, slots=True)
class InboxRow:
    """One RFQ of the inbox, in the direction it came or went."""

    direction: Direction
    rfq: RFQ
    key: str

    @property
    def is_open(self) -> bool:
        """Whether the RFQ still takes quotes."""
        return self.rfq.rfq_status == RFQStatus.OPEN


def inbox_row(direction: Direction, rfq: RFQ) -> InboxRow:
    """The inbox row of an RFQ."""
    return InboxRow(direction, rfq, row_key(direction, rfq.rfq_id))


def _structure_price(row: InboxRow) -> Decimal | None:
    quoted = row.rfq.structure_price
    return quoted.price if quoted else None


@dataclass(frozen=True, slots=True)
class Quoted:
    """What is quoted on an RFQ now: its best prices and how many quotes are open."""

    best: BestPrices = field(default_factory=BestPrices)
    count: int = 0


NOTHING_QUOTED = Quoted()


class QuotedNow:
    """What is quoted on each row's RFQ, read from the quotes open now by the book's one rule
    (`DeskBook.best_on`'s), as the quote board reads them: never the RFQ's own bids and asks
    alone, which the slower RFQ poll may still list after a quote was replaced or pulled.
    Worked out when a poll asks for the row's version, then read by its cells."""

    def __init__(self, book: DeskBook, clock: Callable[[], datetime]) -> None:
        self.book = book
        self.clock = clock
        self._latest: dict[str, Quoted] = {}

    def update(self, row: InboxRow) -> Quoted:
        """Work out what is quoted on the row's RFQ now; a settled RFQ has nothing quoted."""
        quoted = NOTHING_QUOTED
        if row.is_open:
            quotes = open_quotes(row.rfq, self.book.quotes_on(row.rfq.rfq_id), self.clock())
            if quotes:
                quoted = Quoted(best_prices(quotes), len(quotes))
        self._latest[row.key] = quoted
        return quoted

    def __call__(self, row: InboxRow) -> Quoted:
        """What is quoted on the row's RFQ, as of the last poll that looked at it."""
        quoted = self._latest.get(row.key)
        return self.update(row) if quoted is None else quoted


def _status(row: InboxRow, quoted: Quoted) -> tuple[str, str]:
    """The status word and its tone; an open RFQ whose best bid stands above its best ask
    says "crossed" (the makers really disagree: both prices are open now)."""
    rfq = row.rfq
    if row.is_open and quoted.best.crossed:
        return "crossed", "needs-action"
    tone = "success" if row.is_open else "muted"
    if clearing_is_rejected(rfq.clearing_status):
        tone = "rejected"
    elif str(rfq.rfq_status) == RFQStatus.CLOSED:
        tone = "booked"
    return str(rfq.rfq_status), tone


def row_version(book: DeskBook, quoted: QuotedNow) -> Callable[[InboxRow], tuple[object, ...]]:
    """What a poll can change in what a row shows (see module docs). A settled RFQ's live
    structure price is moot, so a long day's hundreds of them never change. What is quoted
    on an open RFQ is worked out afresh here (`QuotedNow`): a quotes poll moves it."""

    def version(row: InboxRow) -> tuple[object, ...]:
        rfq = row.rfq
        return (
            str(rfq.rfq_status),
            str(rfq.clearing_status),
            quoted.update(row),
            _structure_price(row) if row.is_open else None,
            book.company_name(rfq.taker_company),
        )

    return version


def inbox_columns(
    app: App[Any],
    book: DeskBook,
    clock: Callable[[], datetime],
    flashing: Callable[[str], bool],
    quoted: QuotedNow,
) -> list[TableColumn[InboxRow]]:
    """The inbox's columns. A narrow inbox leaves out Time, Struct px and #Q first, then the
    new mark, the RFQ id and Dir (Taker says "me" for my own); the prices and the status stay.
    Best bid, Best ask and #Q are what ``quoted`` says is open on the RFQ now.
    ``flashing(key)`` says whether a row is newly arrived; ``clock`` is read for every open
    row drawn (the inbox gives one reading per drawing)."""

    def new_mark(row: InboxRow) -> bool:
        return flashing(row.key)

    def countdown(row: InboxRow) -> tuple[str, bool] | None:
        if not row.is_open:
            return None
        now, until = clock(), row.rfq.rfq_expires_at
        return fmt.countdown(until, now), until - now < URGENT

    def countdown_cell(value: tuple[str, bool] | None) -> Cell:
        if value is None:
            return fmt.DASH
        text, urgent = value
        return toned(app, text, "needs-action" if urgent else "foreground")

    def who(row: InboxRow) -> str:
        return book.company_name(row.rfq.taker_company) if row.direction == "received" else "me"

    def priced(tone: str) -> Callable[[Decimal | None], Cell]:
        def cell(value: Decimal | None) -> Cell:
            return fmt.DASH if value is None else toned(app, fmt.price(value), tone)

        return cell

    def status_cell(value: tuple[str, str]) -> Text:
        return toned(app, *value)

    return [
        TableColumn(
            "new",
            "",
            1,
            new_mark,
            cell=lambda on: toned(app, "●", "needs-action", bold=True) if on else "",
            live=True,
            drop=3,
        ),
        TableColumn(
            "dir",
            "Dir",
            3,
            attrgetter("direction"),
            cell=lambda d: toned(app, "IN" if d == "received" else "OUT", "accent"),
            repeats=True,
            drop=1,
        ),
        TableColumn("when", "Time", 8, lambda r: r.rfq.created_at, cell=fmt.clock_time, drop=6),
        TableColumn("rfq", "RFQ", 8, lambda r: r.rfq.rfq_id, cell=fmt.short_id, drop=2),
        TableColumn("who", "Taker", 6, who, repeats=True),
        TableColumn(
            "structure",
            "Structure",
            26,
            lambda r: fmt.structure_text(r.rfq.structure),
            flex=True,
            least=12,
        ),
        TableColumn("qty", "Qty", 8, lambda r: r.rfq.qty, cell=fmt.qty, numeric=True),
        TableColumn(
            "expires", "Expires", 7, countdown, cell=countdown_cell, numeric=True, live=True
        ),
        TableColumn(
            "status",
            "Status",
            8,
            lambda r: _status(r, quoted(r)),
            cell=status_cell,
            repeats=True,
        ),
        TableColumn(
            "price", "Struct px", 11, _structure_price, cell=fmt.price, numeric=True, drop=5
        ),
        TableColumn(
            "bid", "Best bid", 10, lambda r: quoted(r).best.bid, cell=priced("bid"), numeric=True
        ),
        TableColumn(
            "ask", "Best ask", 10, lambda r: quoted(r).best.ask, cell=priced("ask"), numeric=True
        ),
        TableColumn(
            "quotes",
            "#Q",
            2,
            lambda r: quoted(r).count,
            cell=lambda n: str(n) if n else "",
            numeric=True,
            drop=4,
        ),
    ]
