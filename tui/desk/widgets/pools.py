"""Pool balances: every settlement pool with its counterparty, status, address and margins.

For each pool: both parties' balances, initial and maintenance margin and max withdrawable; for
the selected pool, its positions with their greeks (delta and gamma in units of the position's
underlying, vega and theta in USDC), the greeks summed per underlying (never across
underlyings), and its transfers (the amount moved, as the venue and the CSV give it). ``d``
deposits (permit, then transfer), ``w`` withdraws, ``c`` creates a pool. The pane only asks;
the pools role runs the forms and the actions, and the pane shows how they ended
(`PoolsPane.show_outcome`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.markup import escape
from textual.message import Message
from textual.widgets import DataTable, Label, Static

from tui.api.models import AggregatedPosition, PartyMargin, SettlementPool, instrument_label
from tui.desk.book import DeskBook
from tui.desk.messages import ActionKind, ActionOutcome, ActionRequest
from tui.desk.pool_facts import party_margin
from tui.desk.roles.refusals import outcome_words
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.keyed_table import Column, KeyedTable, SortText
from tui.desk.widgets.common.lines import whole_figures
from tui.desk.widgets.common.palette import right, toned

POOL_COLUMNS = (
    Column("name", "Pool", 18, flex=True, least=12),
    Column("cpty", "Cpty", 6, drop=3),
    Column("status", "Status", 8, drop=2),
    Column("address", "Address", 12, drop=6),
    Column("mine", "My balance", 13, numeric=True),
    Column("theirs", "Their balance", 13, numeric=True, drop=1),
    Column("im", "My IM", 11, numeric=True, drop=4),
    Column("mm", "My MM", 11, numeric=True, drop=5),
    Column("free", "Max withdraw", 13, numeric=True),
)
"""Balances in USDC. At 80 columns the table keeps the pool, its counterparty and status, both
balances and what I can take out; the address (whole in the detail) and the margins are left
out first, a key away (``v``)."""
POSITION_COLUMNS = (
    Column("instrument", "Instrument", 20, flex=True, least=10),
    Column("qty", "Qty", 9, numeric=True),
    Column("entry", "Avg entry", 11, numeric=True),
    Column("delta", "Δ", 9, numeric=True, drop=1),
    Column("gamma", "Γ", 9, numeric=True, drop=2),
    Column("vega", "Vega $", 9, numeric=True, drop=3),
    Column("theta", "Θ $/day", 9, numeric=True, drop=4),
)
"""A pool's positions. Half a narrow pane keeps the instrument, its size and its entry; the
greeks go first (theta, vega, gamma, then delta), whole, a key away (``v``)."""
TRANSFER_COLUMNS = (
    Column("when", "Time", 8),
    Column("type", "Type", 10, drop=2),
    Column("qty", "Amount USDC", 13, numeric=True),
    Column("status", "Status", 9),
    Column("rfq", "RFQ", 8, drop=3),
)
"""A pool's transfers. Half a narrow pane keeps when, how much and where it stands."""


def greeks_by_underlying(positions: list[AggregatedPosition]) -> str:
    """One line per underlying: its positions' delta and gamma (in that underlying), vega and
    theta (USDC); ``BTC  Δ +1.2700 BTC  Γ +0.0001  vega +12.30 $  θ -4.10 $/day``."""
    sums: dict[str, list[Decimal]] = {}
    for position in positions:
        # An instrument type this desk does not know still has its risk shown, apart.
        underlying = str(getattr(position.position_info.instrument, "underlying", "?"))
        total = sums.setdefault(underlying, [Decimal(0)] * 4)
        for index, value in enumerate(
            (position.sum_delta, position.sum_gamma, position.sum_vega, position.sum_theta)
        ):
            total[index] += value
    return "\n".join(
        f"{underlying}  Δ {fmt.greek(delta)} {underlying}  Γ {fmt.greek(gamma)}  "
        f"vega {fmt.money(vega, signed=True)} $  θ {fmt.money(theta, signed=True)} $/day"
        for underlying, (delta, gamma, vega, theta) in sorted(sums.items())
    )


def _other(pool: SettlementPool, me: str | None) -> PartyMargin | None:
    if pool.data is None:
        return None
    for party in pool.data.parties:
        if party.company != me:
            return party.margin_usage
    return None


class PoolsPane(Vertical):
    """Settlement pools, their margins, positions and transfers (see module docs)."""

    BORDER_TITLE = "Settlement pools"

    OUTCOMES = frozenset({ActionKind.DEPOSIT, ActionKind.WITHDRAW, ActionKind.NEW_POOL})
    """The actions whose outcome the pane shows."""

    BINDINGS = [
        Binding("d", "deposit", "Deposit", id="pools.deposit"),
        Binding("w", "withdraw", "Withdraw", id="pools.withdraw"),
        Binding("c", "create_pool", "Create pool", id="pools.create"),
        Binding("escape", "app.show_tab('trade')", "Back to Trade", id="pools.back"),
    ]

    @dataclass
    class Deposit(ActionRequest):
        """Deposit into the pool."""

        pool_id: str

    @dataclass
    class Withdraw(ActionRequest):
        """Withdraw from the pool."""

        pool_id: str

    class CreatePool(ActionRequest):
        """Open a new pool."""

    @dataclass
    class Selected(Message):
        """The cursor moved to a pool."""

        pool_id: str | None

    def __init__(
        self, book: DeskBook, clock: Callable[[], datetime], *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.book = book
        self.clock = clock
        self._detail_for: str | None = None

    def compose(self) -> ComposeResult:
        """Pools table, detail of the selected pool, its positions and transfers."""
        yield KeyedTable(POOL_COLUMNS, id="pools-table", sort_column="name", newest_first=False)
        yield Static("", id="pool-detail")
        with Horizontal(id="pool-lower"):
            with Vertical(id="pool-positions-box"):
                yield Label("Positions in pool", classes="section-title")
                yield KeyedTable(POSITION_COLUMNS, id="pool-positions", sort_column="instrument")
                yield Static("", id="pool-greeks")
            with Vertical(id="pool-transfers-box"):
                yield Label("Transfers in pool", classes="section-title")
                yield KeyedTable(TRANSFER_COLUMNS, id="pool-transfers", sort_column="when")
        yield Static(
            "[$text-muted]d deposit · w withdraw · c create pool · e export CSV[/]",
            id="pools-hint",
        )
        yield Static("", id="pools-error", classes="field-error")

    def on_mount(self) -> None:
        """Hide the error line."""
        self.query_one("#pools-error").display = False

    @property
    def pools_table(self) -> KeyedTable:
        """The pools table."""
        return self.query_one("#pools-table", KeyedTable)

    @property
    def selected_pool_id(self) -> str | None:
        """Id of the pool under the cursor."""
        return self.pools_table.selected_key

    def show_pools(self) -> None:
        """Merge the book's pools into the table and refresh the selected pool's detail."""
        app = self.app
        me = self.book.me
        rows = []
        for pool in self.book.pools.values():
            data = pool.data
            mine = party_margin(pool, me)
            theirs = _other(pool, me)
            usage = mine.margin_usage if mine else None
            status = str(data.status) if data else "error"
            tone = "success" if status == "open" else "warning" if status == "pending" else "muted"
            rows.append(
                (
                    pool.pool_id,
                    (
                        SortText(
                            data.name if data else pool.pool_id,
                            sort_key=data.name if data else "",
                        ),
                        self.book.company_name(self.book.pool_counterparty(pool)),
                        toned(app, status, tone),
                        ((data.address or "-") if data else "-")[:12],
                        right(fmt.usdc(mine.balance if mine else None)),
                        right(fmt.usdc(theirs.balance if theirs else None)),
                        right(fmt.money(usage.initial_margin if usage else None)),
                        right(fmt.money(usage.maintenance_margin if usage else None)),
                        right(fmt.usdc(mine.max_withdrawable_amount if mine else None)),
                    ),
                )
            )
        self.pools_table.merge(rows, prune=True)
        self.show_detail()

    def show_detail(self) -> None:
        """Detail, positions and transfers of the selected pool."""
        pool_id = self.selected_pool_id
        pool = self.book.pools.get(pool_id) if pool_id else None
        detail = self.query_one("#pool-detail", Static)
        positions = self.query_one("#pool-positions", KeyedTable)
        transfers = self.query_one("#pool-transfers", KeyedTable)
        if pool_id != self._detail_for:
            positions.clear_rows()
            transfers.clear_rows()
            self._detail_for = pool_id
        if pool is None or pool.data is None:
            self.query_one("#pool-greeks", Static).update("")
            detail.update(
                "[$text-muted]no pool selected[/]"
                if pool is None
                else f"[$error]{pool.error or 'pool data unavailable'}[/]"
            )
            return
        data = pool.data
        # One line each (the detail is 4 lines high): what a narrow pane leaves out is the end
        # of a line, the address and the margins, a whole figure at a time, never a party's line.
        width = detail.content_size.width
        lines = [f"[b]{escape(data.name)}[/b]  {escape(str(data.status))}"]
        lines[0] = whole_figures([lines[0], f"address {data.address or '-'}"], width)
        for party in pool.data.parties:
            usage = party.margin_usage
            name = self.book.company_name(party.company)
            who = escape(f"{'me' if party.company == self.book.me else name:<6}")
            if usage is None:
                lines.append(f"  {who} {escape(str(party.status))}")
                continue
            margins = usage.margin_usage
            figures = [
                f"  {who} balance {fmt.usdc(usage.balance):>14} USDC",
                f"max withdraw {fmt.usdc(usage.max_withdrawable_amount)}",
                f"IM {fmt.money(margins.initial_margin if margins else None)}",
                f"MM {fmt.money(margins.maintenance_margin if margins else None)}",
            ]
            lines.append(whole_figures(figures, width))
        detail.update("\n".join(lines))
        valued = {instrument_label(p.position_info.instrument): p for p in pool.data.positions}
        position_rows = []
        keys: set[str] = set()
        for position in self.book.positions:
            if position.pool_location != pool_id:
                continue
            label = instrument_label(position.instrument)
            key = label
            while key in keys:
                key += "'"
            keys.add(key)
            greeks = valued.get(label)
            position_rows.append(
                (
                    key,
                    (
                        SortText(label, sort_key=label),
                        right(
                            toned(
                                self.app,
                                fmt.qty(position.qty),
                                "bid" if position.qty >= 0 else "ask",
                            )
                        ),
                        right(fmt.price(position.avg_entry_price)),
                        right(fmt.greek(greeks.sum_delta if greeks else None)),
                        right(fmt.greek(greeks.sum_gamma if greeks else None)),
                        right(fmt.money(greeks.sum_vega, signed=True) if greeks else fmt.DASH),
                        right(fmt.money(greeks.sum_theta, signed=True) if greeks else fmt.DASH),
                    ),
                )
            )
        self.query_one("#pool-greeks", Static).update(greeks_by_underlying(pool.data.positions))
        positions.merge(position_rows, prune=True)
        transfer_rows = []
        for transfer in self.book.transfers:
            if transfer.target_pool_location != pool_id:
                continue
            status = str(transfer.status)
            tone = (
                "success" if status == "confirmed" else "error" if status == "failed" else "warning"
            )
            transfer_rows.append(
                (
                    transfer.id,
                    (
                        SortText(fmt.clock_time(transfer.created_at), sort_key=transfer.created_at),
                        str(transfer.transfer_type),
                        right(fmt.usdc(transfer.qty)),
                        toned(self.app, status, tone),
                        fmt.short_id(transfer.rfq_id),
                    ),
                )
            )
        transfers.merge(transfer_rows, prune=True)

    def on_resize(self, event: Resize) -> None:
        """A new width fits a different number of whole figures in the detail."""
        self.call_after_refresh(self.show_detail)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Follow the cursor in the pools table."""
        if event.data_table.id != "pools-table":
            return
        event.stop()
        self.show_detail()
        self.post_message(self.Selected(self.selected_pool_id))

    def show_outcome(self, outcome: ActionOutcome) -> None:
        """Clear the error line when the action worked; else say why it did not."""
        self.show_error("" if outcome.ok else outcome_words(outcome))

    def show_error(self, message: str) -> None:
        """Show why the last request was refused (empty clears it)."""
        error = self.query_one("#pools-error", Static)
        error.update(message)
        error.display = bool(message)

    def action_deposit(self) -> None:
        """Ask to deposit into the selected pool."""
        if self.selected_pool_id is None:
            self.show_error("select a pool first")
            return
        self.post_message(self.Deposit(self.selected_pool_id))

    def action_withdraw(self) -> None:
        """Ask to withdraw from the selected pool."""
        if self.selected_pool_id is None:
            self.show_error("select a pool first")
            return
        self.post_message(self.Withdraw(self.selected_pool_id))

    def action_create_pool(self) -> None:
        """Ask to open a new pool."""
        self.post_message(self.CreatePool())
