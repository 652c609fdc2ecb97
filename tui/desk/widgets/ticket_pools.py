"""The quote ticket's settlement rows: which pool the quote settles in, or a new pool's preset
and name.

The choices are the pools I share with the RFQ's taker, then "+ new pool". An existing pool is
the default; a pool the maker picked by hand survives a refresh of the list (a new poll of the
pools) for as long as it is offered, and is forgotten when the ticket moves to another RFQ.
The new pool's fields show only while "+ new pool" is chosen (hidden, they keep their rows and
are out of reach, so the form does not move under the trader from RFQ to RFQ), and its name,
left blank, is the one offered in its placeholder.

The inbox cursor moves the ticket from taker to taker many times a minute, so nothing here
lays the screen out on a move: the pool picker (`PoolPicker`) shows its choice on one line
that is repainted in place, and builds its drop-down list only when it opens; the new pool's
rows are hidden by opacity (a repaint), not by visibility (a layout), and put out of reach
without a restyle (`NewPoolRow`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Input, Label, Select, Static
from textual.widgets._select import SelectCurrent, SelectOverlay

from tui.desk.widgets.common.forms import margin_preset_select
from tui.desk.widgets.quote_form import NEW_POOL, offered_pool_hint, offered_pool_name

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.widgets.select import NoSelection

    from tui.api.models import RFQ
    from tui.desk.book import DeskBook

Choices = list[tuple[str, str]]
"""A picker's options: what each says, and the pool id (or `NEW_POOL`) it stands for."""


class PoolFace(SelectCurrent):
    """The closed picker: its choice on one line, repainted in place when it changes."""

    DEFAULT_CSS = """
    PoolFace Static#label {
        height: 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def update(self, label: RenderableType | NoSelection) -> None:
        """Show ``label`` (one line, whatever its length: no layout is needed)."""
        self.label = label
        self.has_value = label is not Select.NULL
        text = self.placeholder if label is Select.NULL else label
        self.query_one("#label", Static).update(text, layout=False)  # type: ignore[arg-type]


class PoolPicker(Select[str]):
    """A `Select` of pools that costs a repaint, never a layout, when its choices change
    while it is closed: a Select lays the whole screen out to refill its list and its label."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            [("+ new pool (margin preset)", NEW_POOL)], id=id, compact=True, allow_blank=False
        )
        self._offered: Choices = []
        self._list_stale = False

    def compose(self) -> ComposeResult:
        """The one-line face and the (closed) drop-down list."""
        self._face = PoolFace(self.prompt)
        yield self._face
        yield SelectOverlay(type_to_search=True).data_bind(compact=Select.compact)

    def offer(self, choices: Choices, value: str) -> None:
        """Offer ``choices`` with ``value`` (one of them) chosen."""
        if choices != self._offered:
            self._offered = list(choices)
            self.set_options(choices)
        if self.value != value:
            self.value = value
        label = next(text for text, choice in choices if choice == value)
        face = self._face
        if face.label != label:  # the same pool, under a new status or name
            face.update(label)

    def _setup_options_renderables(self) -> None:
        # The drop-down list is built when it opens: filled while closed, it lays out.
        if self.expanded:
            super()._setup_options_renderables()
        else:
            self._list_stale = True

    def _watch_expanded(self, expanded: bool) -> None:
        if expanded and self._list_stale:
            self._list_stale = False
            super()._setup_options_renderables()
        super()._watch_expanded(expanded)


class NewPoolRow(Horizontal):
    """A row of the new pool's fields. Hidden, it is transparent and disabled (nothing in it
    takes the focus or the mouse), at the cost of a repaint: the disabled state is set
    without restyling the row's widgets (a restyle of the row costs more than the rest of a
    cursor move), so it is restyled only if styles were applied to it while it was hidden."""

    def __init__(self) -> None:
        super().__init__(classes="field-row new-pool")
        self._styled_hidden = False

    def notify_style_update(self) -> None:
        """Styles were applied: note whether they were a hidden row's."""
        super().notify_style_update()
        self._styled_hidden = self.disabled

    def reveal(self, show: bool) -> None:
        """Show the row and let its fields be reached, or hide it and put them out of reach."""
        if self.disabled != show:
            return
        focused = self.screen.focused
        if not show and focused is not None and self in focused.ancestors:
            focused.blur()
        self.set_reactive(Widget.disabled, not show)
        self.styles.opacity = 1.0 if show else 0.0
        if show and self._styled_hidden:
            self.update_node_styles()


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
        self._auto: str | None = None  # the choice the ticket made itself
        self._fresh = True
        self._offered_name = ""  # the new pool's name when left blank
        self._names: dict[str, str] = {}  # the pools offered, in words, by id

    def compose(self) -> ComposeResult:
        """Pool, then the new pool's preset and name, each with its error line."""
        with Horizontal(classes="field-row"):
            yield Label("Pool", classes="field-label")
            yield PoolPicker(id="pool")
        yield Static("", id="err-pool", classes="field-error")
        with NewPoolRow():
            yield Label("Margin preset", classes="field-label")
            yield margin_preset_select()
        yield Static("", id="err-preset", classes="field-error")
        with NewPoolRow():
            yield Label("Pool name", classes="field-label")
            yield Input("", id="pool-name", compact=True)
        yield Static("", id="err-pool-name", classes="field-error")

    def on_mount(self) -> None:
        """The new pool's fields are hidden until "+ new pool" is chosen."""
        # Looked up once: a cursor move shows or hides the rows and fills the picker.
        self._new_pool_rows = list(self.query(NewPoolRow))
        self._picker = self.query_one(PoolPicker)
        self._pool_name = self.query_one("#pool-name", Input)
        self._toggle_new_pool(False)

    def new_rfq(self) -> None:
        """The ticket moved to another RFQ: the maker's pick and typed name are forgotten."""
        self._fresh = True
        if self._pool_name.value:  # written only when it shows something: a new text lays out
            self._pool_name.value = ""

    def fill(self, rfq: RFQ) -> None:
        """The pools shared with ``rfq``'s taker, then "+ new pool"; the maker's pick kept."""
        picker = self._picker
        current = picker.value
        # A value other than the one the ticket chose itself is the maker's pick.
        mine = self._fresh or current == self._auto or not isinstance(current, str)
        picked = None if mine else current
        self._fresh = False
        choices: Choices = []
        self._names = {}
        for pool in self.book.pools_with(rfq.taker_company):
            data = pool.data
            if data is None:
                continue
            address = (data.address or "")[:10]
            choices.append((f"{data.name} ({data.status}) {address}", pool.pool_id))
            self._names[pool.pool_id] = f"pool {data.name} ({data.status})"
        choices.append(("+ new pool (margin preset)", NEW_POOL))
        wanted = next((value for _, value in choices if value == picked), choices[0][1])
        picker.offer(choices, wanted)
        self._auto = None if wanted == picked else wanted
        me = self.book.company_name(self.book.me)
        taker = self.book.company_name(rfq.taker_company)
        self._offered_name = offered_pool_name(me, taker, rfq.rfq_id)
        self._toggle_new_pool(wanted == NEW_POOL)

    @property
    def pool(self) -> str:
        """The chosen pool's id, `NEW_POOL`, or "" when none is chosen."""
        value = self._picker.value
        return value if isinstance(value, str) else ""

    @property
    def preset(self) -> str:
        """The new pool's margin preset."""
        value = self.query_one("#preset", Select).value
        return value if isinstance(value, str) else ""

    @property
    def pool_name(self) -> str:
        """The new pool's name as typed, or the name offered in its place when left blank."""
        name = self._pool_name.value
        return name if name.strip() else self._offered_name

    def chosen_words(self) -> str:
        """The pool a quote sent now settles in, in words: an existing pool's name and status,
        or the new pool's name and preset; "" when none is chosen."""
        pool = self.pool
        if pool == NEW_POOL:
            return f"+ new pool {self.pool_name} ({self.preset or 'no preset'})"
        return self._names.get(pool, "")

    def _toggle_new_pool(self, show: bool) -> None:
        # Hidden, their rows keep their place: the ticket keeps its height from RFQ to RFQ.
        for row in self._new_pool_rows:
            row.reveal(show)
        hint = offered_pool_hint(self.book.company_name(self.book.me))
        if self._pool_name.placeholder != hint:
            self._pool_name.placeholder = hint

    @on(Select.Changed, "#pool")
    def _pool_changed(self, event: Select.Changed) -> None:
        # The value now, not the event's: a refill's own changes arrive after it is done. The
        # ticket says where a quote will settle, and stops the change there.
        self._toggle_new_pool(event.select.value == NEW_POOL)
