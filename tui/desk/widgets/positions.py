"""Positions and P&L: net per instrument across pools, each pool and counterparty beneath.

One line per instrument (qty, average entry, mark, uPNL, realised P&L today and since
inception, vol and greeks in units and in dollars); ``enter`` opens it to one line per pool
and counterparty. Below the table: totals per underlying (deltas and gammas in that
underlying's units, never summed across underlyings) and the whole book in USDC. Until the
venue first valued the positions the pane says it waits, with no figure. ``o``
asks for the RFQ that closes the line under the cursor (the net position, or one pool's):
the pane posts `PositionsPane.OffsetRfq` with the prefilled leg and quantity, and the desk
opens the builder with it. The pane is given a `PositionBook` (`show_positions`) and never
reaches the venue.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, Protocol

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from tui.api.models import Leg, TradeSide
from tui.desk.analytics.positions import Greeks, Holding, NetPosition, PositionBook
from tui.desk.analytics.realised import Realised
from tui.desk.messages import ActionRequest
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.columns import Cell, TableColumn
from tui.desk.widgets.common.palette import toned
from tui.desk.widgets.common.virtual_table import VirtualTable


class Names(Protocol):
    """Where the pane looks up names (the desk's book does this)."""

    def company_name(self, company_id: str | None) -> str:
        """A company's short name."""
        ...

    def pool_name(self, pool_id: str | None) -> str:
        """A pool's name."""
        ...


@dataclass(frozen=True)
class PositionLine:
    """One line of the table: a net position (``pool_id`` None) or one pool's holding."""

    key: str
    order: tuple[str, str, str, str]
    instrument_key: str
    label: str
    pool_id: str | None
    counterparty: str | None
    qty: Decimal
    avg_entry: Decimal | None
    mark: Decimal | None
    iv: Decimal | None
    upnl: Decimal | None
    realised: Realised
    greeks: Greeks
    pools: int
    instrument: Any = None

    @property
    def is_net(self) -> bool:
        """True for the net line of an instrument."""
        return self.pool_id is None


def _net_line(net: NetPosition) -> PositionLine:
    return PositionLine(
        key=net.key,
        order=(net.underlying, net.label, net.key, ""),
        instrument_key=net.key,
        label=net.label,
        pool_id=None,
        counterparty=None,
        qty=net.qty,
        avg_entry=net.avg_entry,
        mark=net.mark,
        iv=net.iv,
        upnl=net.upnl,
        realised=net.realised,
        greeks=net.greeks,
        pools=len(net.holdings),
        instrument=net.instrument,
    )


def _pool_line(net: NetPosition, holding: Holding) -> PositionLine:
    return PositionLine(
        key=holding.key,
        order=(net.underlying, net.label, net.key, holding.pool_id),
        instrument_key=net.key,
        label=net.label,
        pool_id=holding.pool_id,
        counterparty=holding.counterparty,
        qty=holding.qty,
        avg_entry=holding.avg_entry,
        mark=holding.mark,
        iv=holding.iv,
        upnl=holding.upnl,
        realised=holding.realised,
        greeks=holding.greeks,
        pools=1,
        instrument=net.instrument,
    )


def position_columns(app: App[Any], names: Names, opened: set[str]) -> list[TableColumn[Any]]:
    """The table's columns; at 80 columns the dollar greeks, vol and today's P&L go first."""

    def signed(value: Decimal | None) -> Cell:
        if value is None:
            return fmt.DASH
        return toned(app, fmt.money(value, signed=True), "bid" if value >= 0 else "ask")

    def name(line: PositionLine) -> str:
        if line.is_net:
            marker = "▾ " if line.key in opened else "▸ "
            return marker + line.label
        return f"  └ {names.pool_name(line.pool_id)[:12]} · {names.company_name(line.counterparty)}"

    def g(attr: str) -> Any:
        return lambda line: getattr(line.greeks, attr)

    def money_signed(value: Decimal | None) -> str:
        return fmt.money(value, signed=True) if value is not None else fmt.DASH

    return [
        TableColumn(
            "instrument", "Instrument", 22, name, sort=lambda r: r.order, flex=True, least=16
        ),
        TableColumn(
            "qty",
            "Qty",
            9,
            lambda r: r.qty,
            cell=lambda v: toned(app, fmt.qty(v), "bid" if v >= 0 else "ask"),
            numeric=True,
        ),
        TableColumn("entry", "Avg entry", 11, lambda r: r.avg_entry, cell=fmt.price, numeric=True),
        TableColumn("mark", "Mark", 11, lambda r: r.mark, cell=fmt.price, numeric=True, drop=4),
        TableColumn("upnl", "uPNL $", 11, lambda r: r.upnl, cell=signed, numeric=True),
        TableColumn(
            "today",
            "Real. today $",
            13,
            lambda r: r.realised.today,
            cell=signed,
            numeric=True,
            drop=5,
        ),
        TableColumn(
            "realised",
            "Realised $",
            11,
            lambda r: r.realised.inception,
            cell=signed,
            numeric=True,
        ),
        TableColumn(
            "iv",
            "IV",
            7,
            lambda r: r.iv,
            numeric=True,
            drop=7,
            cell=lambda v: fmt.DASH if v is None else f"{fmt.money(v * 100, 1)}%",
        ),
        TableColumn("delta", "Δ", 9, g("delta"), cell=fmt.greek, numeric=True, drop=1),
        TableColumn(
            "ddelta", "Δ $", 11, g("dollar_delta"), cell=money_signed, numeric=True, drop=6
        ),
        TableColumn("gamma", "Γ", 9, g("gamma"), cell=fmt.greek, numeric=True, drop=8),
        TableColumn(
            "dgamma", "Γ $/1%", 10, g("dollar_gamma"), cell=money_signed, numeric=True, drop=9
        ),
        TableColumn("vega", "Vega $", 9, g("vega"), cell=money_signed, numeric=True, drop=3),
        TableColumn("theta", "Θ $/day", 9, g("theta"), cell=money_signed, numeric=True, drop=2),
    ]


WAITING = "[$text-muted]waiting for the venue: no positions or marks read yet[/]"
"""The totals before the venue first valued the positions: nothing known, so no figure."""


def underlying_lines(book: PositionBook, valued_at: datetime | None = None) -> str:
    """One line per underlying, then the book in USDC (USDC values of every underlying
    summed, never a quantity). The book's uPNL says when its marks were read (``valued_at``):
    the header's uPNL is the venue's portfolio summary, read at a time of its own. A total
    some open position has no mark for is ``-``, never the part that is known; a figure
    rounded to the cent carries ``≈``."""

    def usd(value: Decimal, valued: bool) -> str:
        return fmt.cents(value, signed=True) if valued else fmt.DASH

    lines = [
        f"[b]{t.underlying}[/b] · Δ {fmt.greek(t.greeks.delta) if t.valued else fmt.DASH}"
        f" {t.underlying}"
        f"  Γ {fmt.greek(t.greeks.gamma) if t.valued else fmt.DASH}"
        f"  [$text-muted]USDC[/] Δ$ {usd(t.greeks.dollar_delta, t.valued)}"
        f"  Γ$ {usd(t.greeks.dollar_gamma, t.valued)}"
        f"  vega {usd(t.greeks.vega, t.valued)}"
        f"  θ/day {usd(t.greeks.theta, t.valued)}"
        f"  uPNL {usd(t.upnl, t.valued)}"
        f"  realised {fmt.cents(t.realised.inception, signed=True)}"
        f"  notional {fmt.cents(t.notional) if t.valued else fmt.DASH}"
        for t in book.underlyings
    ]
    total = book.book
    valued = total.valued
    lines.append(
        f"[b]Book[/b] · [$text-muted]USDC, every underlying[/]"
        f" uPNL {usd(total.upnl, valued)}"
        + (f" [$text-muted]at {fmt.clock_time(valued_at)}[/]" if valued_at else "")
        + f"  realised today {fmt.cents(total.realised.today, signed=True)}"
        f"  since inception {fmt.cents(total.realised.inception, signed=True)}"
        f"  Δ$ {usd(total.dollar_delta, valued)}"
        f"  Γ$ {usd(total.dollar_gamma, valued)}"
        f"  vega {usd(total.vega, valued)}  θ/day {usd(total.theta, valued)}"
        f"  notional {fmt.cents(total.notional) if valued else fmt.DASH}"
    )
    return "\n".join(lines)


class PositionsPane(Vertical):
    """Net positions with P&L and greeks (see module docs)."""

    DEFAULT_CSS = """
    PositionsPane > #positions-totals {
        height: auto;
        max-height: 8;
        padding: 0 1;
        border-top: solid $panel;
    }
    PositionsPane > #positions-hint {
        height: 1;
        padding: 0 1;
    }
    """

    BORDER_TITLE = "Positions and P&L"

    BINDINGS = [
        Binding("o", "offset", "Offset RFQ", id="positions.offset"),
        Binding("space", "expand", "Open / close", show=False, id="positions.expand"),
        Binding("escape", "app.show_tab('trade')", "Back to Trade", id="positions.back"),
    ]

    @dataclass
    class OffsetRfq(ActionRequest):
        """Open the RFQ builder with the structure that closes a position: ``legs`` (one,
        the opposite side), ``qty`` its size; ``counterparty`` and ``pool_id`` when the
        line was one pool's (the maker to ask, the pool to clear in)."""

        legs: list[Leg]
        qty: Decimal
        counterparty: str | None = None
        pool_id: str | None = None

    def __init__(self, names: Names, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.names = names
        self.opened: set[str] = set()
        self.book = PositionBook()
        self.valued_at: datetime | None = None
        """When the venue valued the positions shown (the aggregated read), once known."""
        self.waiting = False
        """The desk said the venue has not valued the positions yet (`show_valued_at` with
        None): the pane says it waits (`WAITING`), never a 0 for what is not known."""

    def compose(self) -> ComposeResult:
        """The positions table, the totals, a key hint."""
        yield VirtualTable(
            position_columns(self.app, self.names, self.opened),
            key=lambda line: line.key,
            sort="instrument",
            id="positions-table",
        )
        yield Static("", id="positions-totals")
        yield Static(
            "[$text-muted]enter open/close per pool · o offset RFQ · v whole row[/]",
            id="positions-hint",
        )

    @property
    def table(self) -> VirtualTable[PositionLine]:
        """The positions table."""
        table: VirtualTable[PositionLine] = self.query_one("#positions-table", VirtualTable)
        return table

    def show_positions(self, book: PositionBook) -> None:
        """Merge a new picture of the book (lines keyed by instrument, or pool and
        instrument: the cursor stays on its line)."""
        self.book = book
        lines: list[PositionLine] = []
        if not self.waiting:  # before, a line would read 0 for "not known yet"
            for net in book.positions:
                lines.append(_net_line(net))
                lines.extend(_pool_line(net, holding) for holding in net.holdings)
        self.table.merge(lines)
        self._filter()
        self.query_one("#positions-totals", Static).update(
            WAITING
            if self.waiting
            else underlying_lines(book, self.valued_at)
            if book.positions
            else "[$text-muted]no positions[/]"
        )

    def show_valued_at(self, at: datetime | None) -> None:
        """The positions were valued at the mark at ``at`` (the aggregated read): the book's
        uPNL says so. None: the venue has not valued them yet, the pane waits."""
        self.valued_at = at
        self.waiting = at is None
        self.show_positions(self.book)

    def invalidate(self) -> None:
        """Draw the lines again (a name arrived, the theme changed)."""
        self.table.invalidate()

    def _filter(self) -> None:
        opened = self.opened

        def shown(line: PositionLine) -> bool:
            return line.is_net or line.instrument_key in opened

        self.table.filter_by(shown)

    @on(VirtualTable.RecordSelected, "#positions-table")
    def _selected(self, event: VirtualTable.RecordSelected) -> None:
        event.stop()
        self.action_expand()

    def action_expand(self) -> None:
        """Open or close the per-pool lines of the instrument under the cursor."""
        line = self._cursor_line()
        if line is None:
            return
        key = line.instrument_key
        if key in self.opened:
            self.opened.discard(key)
        else:
            self.opened.add(key)
        self._filter()
        self.table.move_cursor_to(key)
        self.table.invalidate()

    def _cursor_line(self) -> PositionLine | None:
        record_id = self.table.cursor_id
        return self.table.record(record_id) if record_id is not None else None

    def offset_request(self, line: PositionLine) -> OffsetRfq | None:
        """The RFQ that closes ``line``; None when it is flat or of an unknown instrument."""
        if line.qty == 0 or line.instrument is None:
            return None
        side = TradeSide.SELL if line.qty > 0 else TradeSide.BUY
        leg = Leg(side=side, ratio=1, instrument=line.instrument)
        return self.OffsetRfq(
            legs=[leg], qty=abs(line.qty), counterparty=line.counterparty, pool_id=line.pool_id
        )

    def action_offset(self) -> None:
        """Ask for the RFQ that closes the line under the cursor."""
        line = self._cursor_line()
        request = self.offset_request(line) if line is not None else None
        if request is None:
            self.notify("nothing to offset on this line", severity="warning")
            return
        self.post_message(request)
