"""The journal: the trader's audit trail of every action the desk sent, and what came of it.

Newest first, one row per action (an intent of `tui.api.writes`, keyed by its id): when it was
sent (venue time), what it was in trading words, its outcome (landed, not landed, unknown) and
how that is known (the venue's answer, read back after a lost answer, refused, never sent).
Above the table, what the last connect found among the actions a crash left open. Nothing
here comes from a secret: the journal never holds one. ``v`` shows a row whole; ``escape``,
``j`` or ``q`` closes.
"""

from __future__ import annotations

from datetime import UTC, datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from tui.api.writes import JournalEntry, Landed, NotLanded, Resolution
from tui.desk.roles.writes import DeskWrites, intent_words
from tui.desk.widgets.common.keyed_table import Cell, Column, KeyedTable, SortText

COLUMNS = (
    Column("when", "Sent", 8),
    Column("action", "Action", 24, flex=True, least=18),
    Column("outcome", "Outcome", 10),
    Column("how", "How known", 16, drop=2),
    Column("detail", "Detail", 18, flex=True, least=10, drop=1),
)

HOW_WORDS = {
    Resolution.ANSWERED: "answered",
    Resolution.FOUND: "answer lost; read",
    Resolution.EARLIER: "landed before",
    Resolution.NEVER_SENT: "never left",
    Resolution.REFUSED: "venue refused",
    Resolution.ABSENT: "answer lost; read",
}
"""How an outcome is known, in a few words."""

_DETAIL_KEYS = ("new_clearing_status", "rfq_id", "parent_quote_id", "pool_id", "status", "id")
"""What a landed record is shown by, first found first."""


def outcome_cell(entry: JournalEntry) -> Cell:
    """Landed, not landed, or unknown (an open action: sent, no answer yet or answer lost)."""
    if entry.outcome == "landed":
        return "landed"
    if entry.outcome == "not_landed":
        return "not landed"
    return Text("UNKNOWN", style="bold") if entry.lost_at_ms is not None else "open"


def how_words(entry: JournalEntry, at_start: bool) -> str:
    """How the outcome is known; ``at_start``: resolved when the desk connected."""
    if entry.open:
        return "answer lost" if entry.lost_at_ms is not None else "no answer yet"
    words = HOW_WORDS.get(entry.how, "") if entry.how is not None else ""
    return f"{words} at start" if at_start else words


def detail_words(entry: JournalEntry) -> str:
    """The landed record by its status or id; else why it did not land (or is unknown)."""
    record = entry.record
    if entry.outcome == "landed" and isinstance(record, dict):
        for key in _DETAIL_KEYS:
            value = record.get(key)
            if isinstance(value, str):
                return value.replace("_", " ") if key.endswith("status") else value
        return ""
    if entry.outcome == "landed":
        return "done"
    return entry.reason


def start_line(writes: DeskWrites) -> str:
    """What the last connect found among the actions left open, in one line."""
    found = writes.reconciled
    if not found:
        return "No action was left open at start."
    landed = sum(isinstance(o, Landed) for o in found.values())
    absent = sum(isinstance(o, NotLanded) for o in found.values())
    unknown = len(found) - landed - absent
    return (
        f"At start, {len(found)} action(s) left open were read back: {landed} landed, "
        f"{absent} did not land (safe to send again), {unknown} still unknown."
    )


class JournalScreen(ModalScreen[None]):
    """Every action sent, newest first (see module docs)."""

    DEFAULT_CSS = """
    #journal-box { height: 90%; padding: 0 1; }
    #journal-table { height: 1fr; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="journal.close"),
        Binding("j", "close", "Close", show=False, id="journal.close_j"),
        Binding("q", "close", "Close", show=False, id="journal.close_q"),
    ]

    def __init__(self, writes: DeskWrites) -> None:
        super().__init__()
        self.writes = writes

    def compose(self) -> ComposeResult:
        """The start line, the table, the file it is kept in."""
        with Vertical(classes="modal-box wide", id="journal-box"):
            yield Static("[b]Journal[/b] · every action sent, newest first", classes="modal-title")
            yield Static(escape(start_line(self.writes)), id="journal-start")
            yield KeyedTable(COLUMNS, id="journal-table", sort_column="when")
            yield Static(f"[$text-muted]{escape(str(self.writes.path))}[/]", id="journal-file")
        yield Footer()

    def on_mount(self) -> None:
        """Fill the table, and keep it current while an action is under way."""
        self.show_entries()
        self.query_one(KeyedTable).focus()
        self.set_interval(1.0, self.show_entries, name="journal-refresh")

    def show_entries(self) -> None:
        """Merge the journal's entries into the table (the cursor stays on its action)."""
        reconciled = self.writes.reconciled
        rows: list[tuple[str, list[Cell]]] = []
        for entry in self.writes.entries():
            sent = datetime.fromtimestamp(entry.sent_at_ms / 1000, tz=UTC)
            intent = entry.intent
            rows.append(
                (
                    intent.id,
                    [
                        SortText(sent.strftime("%H:%M:%S"), entry.sent_at_ms),
                        escape(intent_words(intent)),
                        outcome_cell(entry),
                        how_words(entry, intent.id in reconciled),
                        escape(detail_words(entry)),
                    ],
                )
            )
        self.query_one(KeyedTable).merge(rows, prune=True)
        self.query_one("#journal-start", Static).update(escape(start_line(self.writes)))

    def action_close(self) -> None:
        """Back to the desk."""
        self.dismiss(None)
