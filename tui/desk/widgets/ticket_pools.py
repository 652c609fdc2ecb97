"""The quote ticket's settlement rows: which pool the quote settles in, or a new pool's preset
and name.

The choices are the pools I share with the RFQ's taker, then "+ new pool". An existing pool is
the default; a pool the maker picked by hand survives a refresh of the list (a new poll of the
pools) for as long as it is offered, and is forgotten when the ticket moves to another RFQ.
The new pool's fields show only while "+ new pool" is chosen (hidden, they keep their rows, so
the form does not move under the trader from RFQ to RFQ), and its name, left blank, is the one
offered in its placeholder. Nothing already shown is written again: resetting a `Select`
costs a style pass and a layout of the screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label, Select, Static

from tui.desk.widgets.common.forms import margin_preset_select
from tui.desk.widgets.quote_form import NEW_POOL

if TYPE_CHECKING:
    from tui.api.models import RFQ
    from tui.desk.book import DeskBook


class TicketPools(Vertical):
    """The ticket's pool choice and the new pool's preset and name (see module docs)."""

    DEFAULT_CSS = """
    TicketPools {
        height: auto;
    }
    """

    def __init__(self, book: DeskBook, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.book = book
        self._picked = False
        self._auto: object = None
        self._options: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        """Pool, then the new pool's preset and name, each with its error line."""
        with Horizontal(classes="field-row"):
            yield Label("Pool", classes="field-label")
            yield Select[str]([], id="pool", compact=True, allow_blank=True, prompt="pool")
        yield Static("", id="err-pool", classes="field-error")
        with Horizontal(classes="field-row new-pool"):
            yield Label("Margin preset", classes="field-label")
            yield margin_preset_select()
        yield Static("", id="err-preset", classes="field-error")
        with Horizontal(classes="field-row new-pool"):
            yield Label("Pool name", classes="field-label")
            yield Input("", id="pool-name", compact=True)
        yield Static("", id="err-pool-name", classes="field-error")

    def on_mount(self) -> None:
        """The new pool's fields are hidden until "+ new pool" is chosen."""
        self._toggle_new_pool(False)

    def new_rfq(self) -> None:
        """The ticket moved to another RFQ: the maker's pick and typed name are forgotten."""
        self._picked = False
        name = self.query_one("#pool-name", Input)
        if name.value:  # written only when it shows something: a new text lays the screen out
            name.value = ""

    def fill(self, rfq: RFQ) -> None:
        """The pools shared with ``rfq``'s taker, then "+ new pool"; the maker's pick kept."""
        select = self.query_one("#pool", Select)
        previous = select.value if self._picked else None
        options: list[tuple[str, str]] = []
        for pool in self.book.pools_with(rfq.taker_company):
            data = pool.data
            if data is None:
                continue
            address = (data.address or "")[:10]
            options.append((f"{data.name} ({data.status}) {address}", pool.pool_id))
        options.append(("+ new pool (margin preset)", NEW_POOL))
        values = [value for _, value in options]
        wanted = previous if previous in values else values[0]
        if options != self._options or select.value != wanted:
            self._options = options
            select.set_options(options)
            select.value = wanted
        self._auto = select.value
        self._toggle_new_pool(select.value == NEW_POOL)
        me = self.book.company_name(self.book.me)
        self.query_one(
            "#pool-name", Input
        ).placeholder = f"{me}-{self.book.company_name(rfq.taker_company)}-{rfq.rfq_id[:4]}"

    @property
    def pool(self) -> str:
        """The chosen pool's id, `NEW_POOL`, or "" when none is chosen."""
        value = self.query_one("#pool", Select).value
        return value if isinstance(value, str) else ""

    @property
    def preset(self) -> str:
        """The new pool's margin preset."""
        value = self.query_one("#preset", Select).value
        return value if isinstance(value, str) else ""

    @property
    def pool_name(self) -> str:
        """The new pool's name as typed, or the name offered in its place when left blank."""
        name = self.query_one("#pool-name", Input)
        return name.value if name.value.strip() else name.placeholder

    def _toggle_new_pool(self, show: bool) -> None:
        # Hidden, their rows keep their place: the ticket keeps its height from RFQ to RFQ
        # (a height that changes lays the screen out twice, and moves the buttons).
        for row in self.query(".new-pool"):
            if row.visible != show:
                row.visible = show

    @on(Select.Changed, "#pool")
    def _pool_changed(self, event: Select.Changed) -> None:
        # Changed arrives as a message, after the fact: a value other than the one the ticket
        # set itself is the user's pick.
        if event.value != self._auto and event.value is not Select.BLANK:
            self._picked = True
        # The value now, not the event's: a refill's own changes arrive after it is done.
        self._toggle_new_pool(event.select.value == NEW_POOL)
