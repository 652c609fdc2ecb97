"""History and scorecards: every RFQ and quote with its outcome and timings, and who answers.

The history view lists every RFQ sent and received and every quote made and received,
newest first: when, what, whom, the prices, the outcome (traded, traded away, expired,
cancelled, rejected at last look, rejected for funding) and its timings (seconds to the
first quote or to my quote, time to the accept). An RFQ's bid and ask are the best quoted on
it until it trades, then those of the quote it traded on, whose maker is its counterparty; a
traded row says which side I took and at which of those prices (``traded, bought at ask``).
``r`` cycles which records show (not ``k``: the vim keys move the table's cursor with it),
``f`` which outcomes, ``/`` searches the cells and the ids (an RFQ's id, whole or its first
characters as toasts and journals show it, finds the RFQ and every quote on it). ``s``
switches to the scorecards: per maker (response rate, median seconds to the first quote, share
of best prices, win rate, last-look reject rate; fastest first) and per taker (my response
rate and time, my hit ratio). The pane is given the entries and the cards
(`show_history`, `show_scorecards`) and never reaches the venue.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Protocol

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from tui.desk.analytics.history import EntryKind, HistoryEntry, Outcome
from tui.desk.analytics.scorecards import MakerCard, TakerCard
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.columns import Cell, TableColumn
from tui.desk.widgets.common.palette import toned
from tui.desk.widgets.common.virtual_table import VirtualTable

KINDS: tuple[tuple[str, frozenset[EntryKind]], ...] = (
    ("all records", frozenset(EntryKind)),
    ("RFQs sent", frozenset({EntryKind.RFQ_SENT})),
    ("RFQs received", frozenset({EntryKind.RFQ_RECEIVED})),
    ("quotes made", frozenset({EntryKind.QUOTE_MADE})),
    ("quotes received", frozenset({EntryKind.QUOTE_RECEIVED})),
)
"""What ``r`` cycles through."""

OUTCOMES: tuple[tuple[str, frozenset[Outcome]], ...] = (
    ("any outcome", frozenset(Outcome)),
    ("traded", frozenset({Outcome.TRADED})),
    ("traded away", frozenset({Outcome.TRADED_AWAY})),
    ("expired", frozenset({Outcome.EXPIRED})),
    ("cancelled", frozenset({Outcome.CANCELLED})),
    (
        "rejected",
        frozenset({Outcome.LAST_LOOK_REJECTED, Outcome.FUNDING_REJECTED, Outcome.REJECTED}),
    ),
    ("live", frozenset({Outcome.OPEN, Outcome.CLEARING})),
)
"""What ``f`` cycles through."""

_TONES = {
    Outcome.TRADED: "success",
    Outcome.TRADED_AWAY: "muted",
    Outcome.EXPIRED: "muted",
    Outcome.CANCELLED: "muted",
    Outcome.OPEN: "warning",
    Outcome.CLEARING: "warning",
}


class Names(Protocol):
    """Where the pane looks up company names (the desk's book does this)."""

    def company_name(self, company_id: str | None) -> str:
        """A company's short name."""
        ...


def rate(value: Decimal | None) -> str:
    """A fraction as a whole percent: ``0.625`` -> ``63%``."""
    return fmt.DASH if value is None else f"{fmt.money(value * 100, 0)}%"


def seconds(value: Decimal | None) -> str:
    """Seconds to one place: ``2.4s``."""
    return fmt.DASH if value is None else f"{fmt.money(value, 1)}s"


def outcome_words(entry: HistoryEntry) -> str:
    """The outcome as the row says it; a trade with the side I took and the price it was at:
    ``traded, bought at ask`` (the Bid and Ask on the row are the quote it traded on)."""
    side = entry.my_side
    if side is None:
        return entry.outcome.value
    verb = "bought" if side == "buy" else "sold"
    return f"traded, {verb} at {'ask' if entry.taker_side == 'buy' else 'bid'}"


def id_search(text: str) -> str:
    """What a typed search looks for: the text without the ``…`` of a cut id, case-folded."""
    return text.strip().rstrip("…").strip().casefold()


def history_columns(app: App[Any], names: Names) -> list[TableColumn[HistoryEntry]]:
    """The history's columns; at 80 columns ids, qty and timings to the accept go first."""

    def outcome(value: tuple[Outcome, str]) -> Cell:
        return toned(app, value[1], _TONES.get(value[0], "error"))

    def whom(entry: HistoryEntry) -> str:
        if entry.kind in (EntryKind.RFQ_SENT, EntryKind.QUOTE_RECEIVED):
            return names.company_name(entry.maker) if entry.maker else fmt.DASH
        return names.company_name(entry.taker)

    def to_accept(entry: HistoryEntry) -> Decimal | None:
        if entry.accepted_at is None or entry.at is None:
            return None
        return Decimal(round((entry.accepted_at - entry.at).total_seconds() * 10)) / 10

    return [
        TableColumn(
            "when",
            "Time",
            8,
            lambda e: e.at,
            cell=fmt.clock_time,
            sort=lambda e: (e.at.timestamp() if e.at else 0.0, e.key),
        ),
        TableColumn("kind", "Record", 14, lambda e: e.kind.value, repeats=True),
        TableColumn("id", "Id", 8, lambda e: e.record_id, cell=fmt.short_id, drop=6),
        TableColumn("what", "Structure", 20, lambda e: e.structure, flex=True, least=12),
        TableColumn("qty", "Qty", 8, lambda e: e.qty, cell=fmt.qty, numeric=True, drop=4),
        TableColumn("who", "Cpty", 6, whom, repeats=True),
        TableColumn("bid", "Bid", 11, lambda e: e.bid, cell=fmt.price, numeric=True, drop=3),
        TableColumn("ask", "Ask", 11, lambda e: e.ask, cell=fmt.price, numeric=True, drop=3),
        TableColumn(
            "outcome",
            "Outcome",
            21,
            lambda e: (e.outcome, outcome_words(e)),
            cell=outcome,
            sort=lambda e: e.outcome.value,
            search=lambda v: v[1],
            repeats=True,
            least=10,
        ),
        TableColumn(
            "response", "To quote", 8, lambda e: e.response_s, cell=seconds, numeric=True, drop=2
        ),
        TableColumn("accept", "To accept", 9, to_accept, cell=seconds, numeric=True, drop=5),
    ]


def maker_columns(names: Names) -> list[TableColumn[MakerCard]]:
    """Per maker, for me as taker."""
    return [
        TableColumn("maker", "Maker", 10, lambda c: names.company_name(c.maker), flex=True),
        TableColumn("asked", "Asked", 6, lambda c: c.asked, numeric=True, drop=3),
        TableColumn("answered", "Quoted", 6, lambda c: c.answered, numeric=True, drop=4),
        TableColumn("response", "Resp.", 6, lambda c: c.response_rate, cell=rate, numeric=True),
        TableColumn(
            "first",
            "1st quote",
            9,
            lambda c: c.median_first_quote_s,
            cell=seconds,
            numeric=True,
            sort=lambda c: (c.median_first_quote_s is None, c.median_first_quote_s or 0),
        ),
        TableColumn("best", "Best px", 7, lambda c: c.best_share, cell=rate, numeric=True),
        TableColumn("win", "Win", 6, lambda c: c.win_rate, cell=rate, numeric=True),
        TableColumn("ll", "LL rej.", 7, lambda c: c.last_look_reject_rate, cell=rate, numeric=True),
    ]


def taker_columns(names: Names) -> list[TableColumn[TakerCard]]:
    """Per taker, for me as maker."""
    return [
        TableColumn("taker", "Taker", 10, lambda c: names.company_name(c.taker), flex=True),
        TableColumn("asked", "RFQs", 6, lambda c: c.asked, numeric=True),
        TableColumn("quoted", "Quoted", 6, lambda c: c.quoted, numeric=True, drop=2),
        TableColumn("response", "My resp.", 8, lambda c: c.response_rate, cell=rate, numeric=True),
        TableColumn(
            "time", "My time", 8, lambda c: c.median_response_s, cell=seconds, numeric=True
        ),
        TableColumn("hit", "Hit ratio", 9, lambda c: c.hit_ratio, cell=rate, numeric=True),
    ]


class HistoryPane(Vertical):
    """The history and the scorecards (see module docs)."""

    DEFAULT_CSS = """
    HistoryPane > #history-search {
        display: none;
        height: 1;
        border: none;
        padding: 0 1;
        &.-open { display: block; }
    }
    HistoryPane > #history-cards { display: none; }
    HistoryPane.-cards > #history-cards { display: block; }
    HistoryPane.-cards > #history-table { display: none; }
    HistoryPane #history-makers, HistoryPane #history-takers { height: 1fr; }
    HistoryPane .section-title { height: 1; padding: 0 1; }
    """

    BORDER_TITLE = "History"

    BINDINGS = [
        Binding("s", "scorecards", "Scorecards", id="history.scorecards"),
        Binding("r", "cycle_kind", "Records", id="history.kind"),
        Binding("f", "cycle_outcome", "Outcome", id="history.outcome"),
        Binding("slash", "open_search", "Search", id="history.search"),
        Binding("escape", "back", "Back", id="history.back"),
    ]

    def __init__(self, names: Names, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.names = names
        self.kind_choice = 0
        self.outcome_choice = 0
        self._text = ""

    def compose(self) -> ComposeResult:
        """Filter line, search, the history table and the (hidden) scorecards."""
        yield Static("", id="history-filter")
        yield Input(placeholder="search history  (Esc closes)", id="history-search")
        yield VirtualTable(
            history_columns(self.app, self.names),
            key=lambda e: e.key,
            sort="when",
            descending=True,
            id="history-table",
        )
        with Vertical(id="history-cards"):
            yield Label("Makers on my RFQs (fastest first)", classes="section-title")
            yield VirtualTable(
                maker_columns(self.names),
                key=lambda c: c.maker,
                sort="first",
                id="history-makers",
            )
            yield Label("Takers who ask me", classes="section-title")
            yield VirtualTable(
                taker_columns(self.names),
                key=lambda c: c.taker,
                sort="asked",
                descending=True,
                id="history-takers",
            )

    def on_mount(self) -> None:
        """Say which filter is on."""
        self._show_filter()

    @property
    def table(self) -> VirtualTable[HistoryEntry]:
        """The history table."""
        table: VirtualTable[HistoryEntry] = self.query_one("#history-table", VirtualTable)
        return table

    @property
    def showing_cards(self) -> bool:
        """True while the scorecards are shown."""
        return self.has_class("-cards")

    def show_history(self, entries: list[HistoryEntry]) -> None:
        """Merge the entries by key (the cursor stays on its record)."""
        self.table.merge(entries)
        self._apply()

    def show_scorecards(self, makers: list[MakerCard], takers: list[TakerCard]) -> None:
        """Show the cards per maker and per taker."""
        self.query_one("#history-makers", VirtualTable).merge(makers)
        self.query_one("#history-takers", VirtualTable).merge(takers)

    def invalidate(self) -> None:
        """Draw the lines again (a name arrived, the theme changed)."""
        for table in self.query(VirtualTable):
            table.invalidate()

    def _apply(self) -> None:
        kinds = KINDS[self.kind_choice][1]
        outcomes = OUTCOMES[self.outcome_choice][1]
        needle = id_search(self._text)
        columns = self.table.columns

        def keep(entry: HistoryEntry) -> bool:
            if entry.kind not in kinds or entry.outcome not in outcomes:
                return False
            if not needle or needle in f"{entry.record_id} {entry.rfq_id}".casefold():
                return True
            return any(needle in c.search_text(entry) for c in columns)

        self.table.filter_by(keep)
        self._show_filter()

    def _show_filter(self) -> None:
        table = self.table
        shown, total = table.row_count, table.record_count
        self.query_one("#history-filter", Static).update(
            f"{KINDS[self.kind_choice][0]} · {OUTCOMES[self.outcome_choice][0]}"
            + (f" · “{self._text}”" if self._text else "")
            + f" · {shown:,} of {total:,}   [$text-muted]r records · f outcome · / search"
            " · s scorecards[/]"
        )

    def action_cycle_kind(self) -> None:
        """Show the next kind of record (all, RFQs sent, RFQs received, quotes ...)."""
        self.kind_choice = (self.kind_choice + 1) % len(KINDS)
        self._apply()

    def action_cycle_outcome(self) -> None:
        """Show the next outcome (any, traded, traded away, expired, cancelled ...)."""
        self.outcome_choice = (self.outcome_choice + 1) % len(OUTCOMES)
        self._apply()

    def action_scorecards(self) -> None:
        """Switch between the history and the scorecards."""
        self.toggle_class("-cards")
        target = "#history-makers" if self.showing_cards else "#history-table"
        self.query_one(target, VirtualTable).focus()

    def action_open_search(self) -> None:
        """Open the search line above the table."""
        search = self.query_one("#history-search", Input)
        search.add_class("-open")
        search.focus()

    async def action_back(self) -> None:
        """Escape: close the search, else the scorecards, else back to the Trade tab."""
        search = self.query_one("#history-search", Input)
        if search.has_class("-open"):
            search.remove_class("-open")
            search.value = ""
            self._text = ""
            self._apply()
            self.table.focus()
        elif self.showing_cards:
            self.action_scorecards()
        else:
            await self.run_action("app.show_tab('trade')")

    @on(Input.Changed, "#history-search")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self._text = event.value
        self._apply()

    @on(Input.Submitted, "#history-search")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.table.focus()
