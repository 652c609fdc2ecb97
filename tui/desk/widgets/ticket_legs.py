"""The quote ticket's leg rows: a bid and an ask field per leg, each with its error lines.

The inbox cursor moves the ticket from RFQ to RFQ many times a minute, and mounting a row of
fields costs far more than filling one. So the rows are kept: moving to an RFQ fills the first
rows with its legs (label, prefilled bid and ask), mounts rows only for legs beyond the most the
ticket has shown, and hides the rest. A field's id says its leg (``bid-0``, ``ask-0``, and
``err-leg-0``, ``err-bid-0``, ``err-ask-0`` under them), so the form's errors find their lines.

What a quote sends is read from these rows, the very fields on screen, never looked up by id
elsewhere: the rows say which RFQ they were filled for (``shown_for``) and how many legs they
show. Fills are taken one at a time, so two fills in flight never mount a leg's row twice.
"""

from __future__ import annotations

import asyncio

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label, Static


class LegRow(Vertical):
    """One leg: its label, bid and ask fields, and the error lines under them."""

    def __init__(self, index: int) -> None:
        super().__init__(classes="ticket-leg")
        self.index = index
        self._label = ""
        self._fields: dict[str, Input] = {}

    def compose(self) -> ComposeResult:
        """Label, bid, ask; then one (hidden) error line per field."""
        index = self.index
        with Horizontal(classes="leg-row"):
            yield Label("", classes="leg-label")
            yield Input("", id=f"bid-{index}", compact=True, classes="leg-bid")
            yield Input("", id=f"ask-{index}", compact=True, classes="leg-ask")
        for name in (f"leg-{index}", f"bid-{index}", f"ask-{index}"):
            error = Static("", id=f"err-{name}", classes="field-error")
            error.display = False
            yield error

    def fill(self, label: str, bid: str, ask: str) -> None:
        """Show a leg: its label and the prefilled prices (typing starts from them)."""
        self._write(label, bid, ask)
        if not self.display:
            self.display = True

    def hide(self) -> None:
        """Leave the row empty and out of the form (a shorter RFQ than the last)."""
        self._write("", "", "")
        if self.display:
            self.display = False

    def _write(self, label: str, bid: str, ask: str) -> None:
        # What is already shown is not written again: a label's new text lays the ticket out.
        if label != self._label:
            self._label = label
            self.query_one(Label).update(label)
        self.set_price("bid", bid)
        self.set_price("ask", ask)

    def set_price(self, side: str, text: str) -> None:
        """Put ``text`` in the leg's ``side`` field ("bid" or "ask")."""
        field = self._field(side)
        if field.value != text:
            field.value = text

    def price(self, side: str) -> str:
        """The leg's ``side`` price ("bid" or "ask") as typed."""
        return self._field(side).value

    def _field(self, side: str) -> Input:
        field = self._fields.get(side)
        if field is None:  # looked up once: a cursor move fills every row
            field = self._fields[side] = self.query_one(f"#{side}-{self.index}", Input)
        return field


class TicketLegs(Vertical):
    """The ticket's leg rows, kept and refilled from RFQ to RFQ (see module docs)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: list[LegRow] = []  # mounted so far, in leg order (kept, not looked up)
        self._filling = asyncio.Lock()
        self.shown_for: str | None = None
        """The RFQ whose legs the rows show (None while they show none)."""
        self.count = 0
        """How many legs the rows show."""

    def compose(self) -> ComposeResult:
        """The column heads; the rows come with the first RFQ."""
        yield Horizontal(
            Label("Leg", classes="leg-label"),
            Label("Bid", classes="leg-price-head"),
            Label("Ask", classes="leg-price-head"),
            classes="leg-row leg-head",
        )

    async def show(self, legs: list[tuple[str, str, str]], rfq_id: str | None = None) -> None:
        """One row per leg (label, bid, ask) of ``rfq_id``; rows left over from a longer RFQ
        are hidden."""
        async with self._filling:
            rows = self._rows
            self.shown_for, self.count = None, 0  # until the rows are filled
            if len(legs) > len(rows):
                extra = [LegRow(index) for index in range(len(rows), len(legs))]
                await self.mount_all(extra)
                rows.extend(extra)
            for row, (label, bid, ask) in zip(rows, legs, strict=False):
                row.fill(label, bid, ask)
            for row in rows[len(legs) :]:
                row.hide()
            self.shown_for, self.count = (rfq_id, len(legs)) if legs else (None, 0)

    def set_price(self, index: int, side: str, text: str) -> None:
        """Put ``text`` in leg ``index``'s ``side`` field (a price derived from a vol)."""
        if 0 <= index < len(self._rows):
            self._rows[index].set_price(side, text)

    def price(self, index: int, side: str) -> str:
        """Leg ``index``'s ``side`` price as it stands in its field ("" for no such leg)."""
        return self._rows[index].price(side) if 0 <= index < self.count else ""

    def prices(self, count: int) -> tuple[list[str], list[str]]:
        """The bids and the asks of the first ``count`` legs shown, as typed."""
        rows = self._rows[: min(count, self.count)]
        return [row.price("bid") for row in rows], [row.price("ask") for row in rows]
