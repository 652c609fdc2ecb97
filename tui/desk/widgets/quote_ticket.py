"""The quote ticket: a maker's bid and ask per leg of a received RFQ, and how it will settle.

Prices are prefilled around the structure price (a spread either side of each leg's mark), the
expiry is a number of seconds, the pool is an existing pool with the taker or a new one with a
margin preset, and the client quote id is generated. Every field is validated by the request
model before anything is sent; errors appear under the field they belong to. The ticket never
calls the venue: it posts `QuoteTicket.Submit` and the app starts the worker.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

from pydantic import ValidationError
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static

from tui.api.models import (
    RFQ,
    NewQuoteRequest,
    PerpetualFutureInstrument,
    RFQLeg,
    RFQStatus,
    SpotInstrument,
    TradeSide,
    instrument_label,
)
from tui.desk.book import DeskBook
from tui.desk.margin_presets import DEFAULT_PRESET, MARGIN_PRESETS, PRESET_NOTES, preset
from tui.desk.widgets import fmt
from tui.desk.widgets.forms import FORM, FormError, errors_from_validation, parse_decimal, parse_int
from tui.desk.widgets.forms import show_errors as show_form_errors

NEW_POOL = "__new__"
"""The pool choice that means: create a new pool on acceptance."""
DEFAULT_EXPIRY_S = 30
DEFAULT_SPREAD_BPS = Decimal(10)
MAX_EXPIRY_S = 3600


def client_quote_id(rfq_id: str, now: datetime, number: int) -> str:
    """A client quote id: desk, RFQ, time and the ticket's counter (well under 50 characters)."""
    return f"desk-{rfq_id[:8]}-{now:%H%M%S}-{number}"


def _round_price(value: Decimal) -> Decimal:
    places = Decimal("0.01") if abs(value) >= 1 else Decimal("0.000001")
    return value.quantize(places, rounding=ROUND_HALF_UP)


def leg_marks(rfq: RFQ, marks: dict[str, Decimal]) -> list[Decimal | None]:
    """A unit price per RFQ leg, from the listing marks and the structure price.

    Spot and perpetual legs take their underlying's mark. When exactly one leg has no mark
    (an option, a dated future), it is solved from the structure price, which is the sum of
    ``+-ratio x unit price`` over the legs.
    """
    legs = rfq.structure.legs
    found: list[Decimal | None] = []
    for leg in legs:
        instrument = leg.instrument
        mark = None
        if isinstance(instrument, PerpetualFutureInstrument | SpotInstrument):
            mark = marks.get(instrument.underlying)
        found.append(mark)
    total = rfq.structure_price.price if rfq.structure_price else None
    missing = [i for i, m in enumerate(found) if m is None]
    if total is not None and len(missing) == 1:
        known = sum(
            (
                Decimal(leg.ratio if leg.side == TradeSide.BUY else -leg.ratio) * m
                for leg, m in zip(legs, found, strict=True)
                if m is not None
            ),
            Decimal(0),
        )
        leg = legs[missing[0]]
        weight = Decimal(leg.ratio if leg.side == TradeSide.BUY else -leg.ratio)
        solved = (total - known) / weight
        found[missing[0]] = solved if solved > 0 else None
    return found


def prefill(mark: Decimal | None, spread_bps: Decimal = DEFAULT_SPREAD_BPS) -> tuple[str, str]:
    """Bid and ask text around a mark, ``spread_bps`` either side; blank without a mark."""
    if mark is None or mark <= 0:
        return "", ""
    offset = mark * spread_bps / Decimal(10_000)
    return str(_round_price(mark - offset)), str(_round_price(mark + offset))


@dataclass
class TicketValues:
    """What the user typed, as text: one bid/ask per leg and the settlement choices."""

    bids: list[str]
    asks: list[str]
    expiry_s: str
    pool: str
    preset: str
    pool_name: str
    client_quote_id: str


def locate_quote_field(loc: tuple[int | str, ...]) -> str:
    """The ticket field of a `NewQuoteRequest` error location."""
    if not loc:
        return FORM
    head = loc[0]
    if head == "leg_quotes" and len(loc) >= 2:
        index = loc[1]
        if len(loc) >= 3 and loc[2] in ("bid", "ask"):
            return f"{loc[2]}-{index}"
        return f"leg-{index}"
    if head == "expires_at":
        return "expiry"
    if head == "pool_strategy":
        if "name" in loc:
            return "pool-name"
        return "pool"
    if head == "client_quote_id":
        return "client-id"
    return FORM


def build_quote_request(rfq: RFQ, values: TicketValues, now: datetime) -> NewQuoteRequest:
    """The `NewQuoteRequest` for a ticket, or a `FormError` naming every bad field."""
    errors: dict[str, str] = {}
    leg_quotes: list[dict[str, object]] = []
    for index, leg in enumerate(rfq.rfq_legs):
        entry: dict[str, object] = {"target_rfq_leg_id": leg.rfq_leg_id}
        for side, texts in (("bid", values.bids), ("ask", values.asks)):
            try:
                entry[side] = parse_decimal(texts[index], f"{side}-{index}", required=False)
            except FormError as error:
                errors.update(error.errors)
        leg_quotes.append(entry)
    try:
        seconds = parse_int(values.expiry_s, "expiry", low=1, high=MAX_EXPIRY_S)
    except FormError as error:
        errors.update(error.errors)
        seconds = DEFAULT_EXPIRY_S
    if values.pool == NEW_POOL:
        params = preset(values.preset) if values.preset in MARGIN_PRESETS else None
        if params is None:
            errors["preset"] = "pick a margin preset"
        strategy: object = {
            "strategy": "create_new",
            "name": values.pool_name.strip(),
            "creator_params": params,
            "other_params": params,
        }
    elif values.pool:
        strategy = {"strategy": "use_existing", "pool_id": values.pool}
    else:
        errors["pool"] = "pick a pool or a new one"
        strategy = None
    if errors:
        raise FormError(errors)
    try:
        return NewQuoteRequest(
            rfq_id=rfq.rfq_id,
            expires_at=now + timedelta(seconds=seconds),
            leg_quotes=leg_quotes,
            pool_strategy=strategy,
            client_quote_id=values.client_quote_id.strip() or None,
        )
    except ValidationError as error:
        raise FormError(errors_from_validation(error, locate_quote_field)) from None


class QuoteTicket(Vertical):
    """The maker's ticket for the selected received RFQ (see module docs)."""

    BORDER_TITLE = "Quote ticket"

    BINDINGS = [
        Binding("ctrl+s", "submit", "Send quote", priority=True),
        Binding("ctrl+r", "replace", "Replace quote", priority=True),
        Binding("ctrl+w", "cancel_quote", "Pull quote", priority=True),
        Binding("escape", "app.focus_inbox", "Back to inbox"),
    ]

    @dataclass
    class Submit(Message):
        """The user sent a valid quote: new, or replacing ``replaces``."""

        request: NewQuoteRequest
        replaces: str | None = None

    @dataclass
    class Cancel(Message):
        """The user pulled their live quote."""

        quote_id: str

    def __init__(
        self, book: DeskBook, clock: Callable[[], datetime], *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.book = book
        self.clock = clock
        self.rfq: RFQ | None = None
        self._legs_for: str | None = None
        self._pool_picked = False
        self._auto_pool: object = None
        self._client_ids = itertools.count(1)

    def compose(self) -> ComposeResult:
        """Header, leg rows, settlement fields, buttons."""
        yield Static("Select a received RFQ to quote it.", id="ticket-head")
        with VerticalScroll(id="ticket-body"):
            yield Vertical(id="ticket-legs")
            with Horizontal(classes="field-row"):
                yield Label("Expires in s", classes="field-label")
                yield Input(
                    str(DEFAULT_EXPIRY_S),
                    id="expiry",
                    compact=True,
                    restrict=r"[0-9]*",
                    max_length=5,
                )
            yield Static("", id="err-expiry", classes="field-error")
            with Horizontal(classes="field-row"):
                yield Label("Pool", classes="field-label")
                yield Select[str]([], id="pool", compact=True, allow_blank=True, prompt="pool")
            yield Static("", id="err-pool", classes="field-error")
            with Horizontal(classes="field-row new-pool"):
                yield Label("Margin preset", classes="field-label")
                yield Select[str](
                    [(f"{name}: {PRESET_NOTES[name]}", name) for name in MARGIN_PRESETS],
                    id="preset",
                    value=DEFAULT_PRESET,
                    compact=True,
                    allow_blank=False,
                )
            yield Static("", id="err-preset", classes="field-error")
            with Horizontal(classes="field-row new-pool"):
                yield Label("Pool name", classes="field-label")
                yield Input("", id="pool-name", compact=True, max_length=60)
            yield Static("", id="err-pool-name", classes="field-error")
            with Horizontal(classes="field-row"):
                yield Label("Client id", classes="field-label")
                yield Input("", id="client-id", compact=True, max_length=60)
            yield Static("", id="err-client-id", classes="field-error")
            yield Static("", id="err-form", classes="field-error")
            with Horizontal(id="ticket-buttons"):
                yield Button("Send ^s", id="send", variant="primary", compact=True)
                yield Button("Replace ^r", id="replace", compact=True)
                yield Button("Pull ^w", id="pull", variant="error", compact=True)
            yield Static("", id="ticket-live")

    def on_mount(self) -> None:
        """Start empty and hide the new-pool fields."""
        self._toggle_new_pool(False)
        show_form_errors(self, {})
        self.query_one("#ticket-body").display = False
        self.set_interval(1.0, self._refresh_live, name="ticket-live")

    # -- data in ----------------------------------------------------------------------------

    async def show_rfq(self, rfq: RFQ | None) -> None:
        """Work on ``rfq``; rebuild the form only when it is a different RFQ."""
        self.rfq = rfq
        head = self.query_one("#ticket-head", Static)
        self.query_one("#ticket-body").display = rfq is not None
        if rfq is None:
            head.update("Select a received RFQ to quote it.")
            self._legs_for = None
            await self.query_one("#ticket-legs").remove_children()
            self._refresh_live()
            return
        now = self.clock()
        taker = self.book.company_name(rfq.taker_company)
        price = rfq.structure_price.price if rfq.structure_price else None
        delta = rfq.structure_price.delta if rfq.structure_price else None
        state = (
            f"expires {fmt.countdown(rfq.rfq_expires_at, now)}"
            if rfq.rfq_status == RFQStatus.OPEN
            else f"[$warning]{rfq.rfq_status}[/]"
        )
        head.update(
            f"[b]RFQ {fmt.short_id(rfq.rfq_id)}[/b] from [b]{taker}[/b]  qty {fmt.qty(rfq.qty)}"
            f"  {state}\n"
            f"{fmt.structure_text(rfq.structure)}\n"
            f"structure px {fmt.price(price)}  delta {fmt.greek(delta)}"
        )
        if self._legs_for != rfq.rfq_id:
            self._legs_for = rfq.rfq_id
            self._pool_picked = False
            self.query_one("#pool-name", Input).value = ""
            await self._build_legs(rfq)
            self._fill_pools(rfq)
            self.query_one("#client-id", Input).value = client_quote_id(
                rfq.rfq_id, now, next(self._client_ids)
            )
            show_form_errors(self, {})
        self._refresh_live()

    def refresh_pools(self) -> None:
        """Pools changed: refresh the pool choices, keeping the user's pick when it remains."""
        if self.rfq is not None:
            self._fill_pools(self.rfq)

    def _marks(self) -> dict[str, Decimal]:
        stats = self.book.stats
        return {listing.ticker: listing.mark_price for listing in stats.listings} if stats else {}

    async def _build_legs(self, rfq: RFQ) -> None:
        container = self.query_one("#ticket-legs", Vertical)
        # Awaited: the old leg fields must be gone before new ones reuse their ids.
        await container.remove_children()
        marks = leg_marks(rfq, self._marks())
        rows: list[Widget] = [
            Horizontal(
                Label("Leg", classes="leg-label"),
                Label("Bid", classes="leg-price-head"),
                Label("Ask", classes="leg-price-head"),
                classes="leg-row leg-head",
            )
        ]
        for index, leg in enumerate(rfq.rfq_legs):
            bid, ask = prefill(marks[index] if index < len(marks) else None)
            rows.append(
                Horizontal(
                    Label(_leg_label(leg, rfq.qty), classes="leg-label"),
                    Input(bid, id=f"bid-{index}", compact=True, classes="leg-bid"),
                    Input(ask, id=f"ask-{index}", compact=True, classes="leg-ask"),
                    classes="leg-row",
                )
            )
            for name in (f"leg-{index}", f"bid-{index}", f"ask-{index}"):
                rows.append(Static("", id=f"err-{name}", classes="field-error"))
        await container.mount_all(rows)
        for row in rows:
            if isinstance(row, Static) and row.has_class("field-error"):
                row.display = False

    def _fill_pools(self, rfq: RFQ) -> None:
        select = self.query_one("#pool", Select)
        previous = select.value if self._pool_picked else None
        options: list[tuple[str, str]] = []
        for pool in self.book.pools_with(rfq.taker_company):
            data = pool.data
            if data is None:
                continue
            address = (data.address or "")[:10]
            options.append((f"{data.name} ({data.status}) {address}", pool.pool_id))
        options.append(("+ new pool (margin preset)", NEW_POOL))
        values = [value for _, value in options]
        select.set_options(options)
        # An existing pool is the default; the user's own pick survives a refresh.
        select.value = previous if previous in values else values[0]
        self._auto_pool = select.value
        self._toggle_new_pool(select.value == NEW_POOL)
        name = self.query_one("#pool-name", Input)
        if not name.value:
            me = self.book.company_name(self.book.me)
            name.value = f"{me}-{self.book.company_name(rfq.taker_company)}-{rfq.rfq_id[:4]}"

    def _toggle_new_pool(self, show: bool) -> None:
        for row in self.query(".new-pool"):
            row.display = show

    @on(Select.Changed, "#pool")
    def _pool_changed(self, event: Select.Changed) -> None:
        # Changed arrives as a message, after the fact: a value other than the one the ticket
        # set itself is the user's pick.
        if event.value != self._auto_pool and event.value is not Select.BLANK:
            self._pool_picked = True
        self._toggle_new_pool(event.value == NEW_POOL)

    def _refresh_live(self) -> None:
        live = self.query_one("#ticket-live", Static)
        if self.rfq is None:
            live.update("")
            return
        quote = self.book.live_quote_on(self.rfq.rfq_id, self.clock())
        if quote is None:
            live.update("[$text-muted]no live quote on this RFQ[/]")
            return
        live.update(
            f"live quote {fmt.short_id(quote.parent_quote_id)}  "
            f"bid [$bid]{fmt.price(quote.aggregated_bid)}[/]  "
            f"ask [$ask]{fmt.price(quote.aggregated_ask)}[/]  "
            f"expires {fmt.countdown(quote.expires_at, self.clock())}"
        )

    # -- reading the form -------------------------------------------------------------------

    def values(self) -> TicketValues:
        """What is typed into the ticket right now."""
        legs = len(self.rfq.rfq_legs) if self.rfq else 0
        pool = self.query_one("#pool", Select).value
        preset_value = self.query_one("#preset", Select).value
        return TicketValues(
            bids=[self.query_one(f"#bid-{i}", Input).value for i in range(legs)],
            asks=[self.query_one(f"#ask-{i}", Input).value for i in range(legs)],
            expiry_s=self.query_one("#expiry", Input).value,
            pool=pool if isinstance(pool, str) else "",
            preset=preset_value if isinstance(preset_value, str) else "",
            pool_name=self.query_one("#pool-name", Input).value,
            client_quote_id=self.query_one("#client-id", Input).value,
        )

    def set_leg_prices(self, index: int, bid: str, ask: str) -> None:
        """Type prices into a leg (tests and the command palette use this)."""
        self.query_one(f"#bid-{index}", Input).value = bid
        self.query_one(f"#ask-{index}", Input).value = ask

    def show_errors(self, errors: dict[str, str]) -> None:
        """Show errors under their fields (an empty dict clears them)."""
        show_form_errors(self, errors)

    def _request(self) -> NewQuoteRequest | None:
        if self.rfq is None:
            self.show_errors({FORM: "select a received RFQ first"})
            return None
        try:
            request = build_quote_request(self.rfq, self.values(), self.clock())
        except FormError as error:
            self.show_errors(error.errors)
            return None
        self.show_errors({})
        return request

    # -- actions ----------------------------------------------------------------------------

    def action_submit(self) -> None:
        """Validate and send a new quote."""
        request = self._request()
        if request is not None:
            self.post_message(self.Submit(request))

    def action_replace(self) -> None:
        """Validate and replace the live quote on this RFQ."""
        if self.rfq is None:
            self.show_errors({FORM: "select a received RFQ first"})
            return
        live = self.book.live_quote_on(self.rfq.rfq_id, self.clock())
        if live is None:
            self.show_errors({FORM: "no live quote to replace; send one with ctrl+s"})
            return
        request = self._request()
        if request is not None:
            self.post_message(self.Submit(request, replaces=live.parent_quote_id))

    def action_cancel_quote(self) -> None:
        """Pull the live quote on this RFQ."""
        if self.rfq is None:
            self.show_errors({FORM: "select a received RFQ first"})
            return
        live = self.book.live_quote_on(self.rfq.rfq_id, self.clock())
        if live is None:
            self.show_errors({FORM: "no live quote to pull"})
            return
        self.post_message(self.Cancel(live.parent_quote_id))

    def new_client_id(self) -> None:
        """After a send: a fresh client id for the next quote."""
        if self.rfq is not None:
            self.query_one("#client-id", Input).value = client_quote_id(
                self.rfq.rfq_id, self.clock(), next(self._client_ids)
            )

    @on(Button.Pressed, "#send")
    def _send_pressed(self) -> None:
        self.action_submit()

    @on(Button.Pressed, "#replace")
    def _replace_pressed(self) -> None:
        self.action_replace()

    @on(Button.Pressed, "#pull")
    def _pull_pressed(self) -> None:
        self.action_cancel_quote()


def _leg_label(leg: RFQLeg, rfq_qty: Decimal) -> str:
    """``B BTC-PERP``, with ``x2`` when the leg trades twice the RFQ's quantity.

    The quantity itself is in the ticket's head; an option's name leaves no room for it.
    """
    side = str(leg.side)[:1].upper()
    label = f"{side} {instrument_label(leg.instrument)}"
    if rfq_qty > 0 and leg.qty != rfq_qty:
        label += f" x{fmt.qty(leg.qty / rfq_qty)}"
    return label
