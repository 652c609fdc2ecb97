"""One table row in full: every cell with its column's name, nothing clipped.

A table cell too long for its column ends in an ellipsis; ``v`` on the row opens this, so the
whole value (an instrument name with its call or put, a long structure) is one key away.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Footer, Static


class RowScreen(ModalScreen[None]):
    """Every field of one row, whole (see module docs)."""

    BINDINGS = [
        Binding("escape", "close", "Close", id="record.close"),
        Binding("v", "close", "Close", show=False, id="record.close_v"),
        Binding("q", "close", "Close", show=False, id="record.close_q"),
    ]

    def __init__(self, title: str, fields: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.fields = fields

    def compose(self) -> ComposeResult:
        """The title and one line per field."""
        width = max((len(label) for label, _ in self.fields), default=0)
        lines = "\n".join(
            f"[$text-muted]{escape(label):<{width}}[/]  {escape(value)}"
            for label, value in self.fields
            if label or value
        )
        with VerticalScroll(classes="modal-box", id="row-box"):
            yield Static(f"[b]{escape(self.title_text)}[/b]", classes="modal-title")
            yield Static(lines, id="row-fields")
        yield Footer()

    def action_close(self) -> None:
        """Back to the table."""
        self.dismiss(None)
