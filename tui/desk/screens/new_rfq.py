"""The structure builder: a new RFQ, leg by leg, for the companies the user picks.

Each leg has an instrument type, an underlying, a side and a ratio; dated futures and options
take an expiry, options a strike and a payoff. Expiry and strike offer lists (up and down step
through them: the venue's standard expiries, a strike grid around the mark) and still take
what is typed, judged when the RFQ is built; a line under the legs says the structure in
words, call and put in full. Then the quantity, how long the RFQ stays open, and the target
companies (market makers preselected). ``ctrl+y`` (delta hedge), ``ctrl+t``/``ctrl+o``
(templates) and ``ctrl+r`` (the last RFQ) are `tui.desk.builder.fast`'s; a builder can open
prefilled (``prefill``, `NewRfqScreen.from_book`): the Positions tab's offset, or the draft
the trader backed out of (``kept``: ``escape`` loses nothing typed; ``n`` brings it back, and
``ctrl+l`` starts afresh: one leg, the market makers ticked, its first field focused). ``ctrl+a``
adds a leg on the structure's underlying (the leg before it's) and focuses it. The quantity is
checked against each underlying's quantity tick before it is sent (`tui.desk.builder.ticks`),
a strike against how the venue writes its underlying's prices (`tui.desk.builder.strikes`); a
refusal under a field goes once the field passes (`ErrorsFollowFields`).

``ctrl+s`` and what follows (the checks, the send through the taker role while the builder
waits, the venue's answer under the field it names) are `tui.desk.screens.rfq_sending`'s; the
lines of words (the structure, the list in use, who it goes to) `tui.desk.screens.rfq_telling`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path

from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import Button, Footer, Input, Label, Select, SelectionList, Static

from tui.api.models import RFQ, Company, NewRfqRequest, PrecisionRequirements
from tui.desk.book import DeskBook
from tui.desk.builder.calendar import StandardExpiry, standard_expiries
from tui.desk.builder.draft import EMPTY, LegDraft, StructureDraft
from tui.desk.builder.fast import MAX_LEGS, BuildingFast
from tui.desk.builder.market import BuilderMarket, builder_market, builder_underlyings
from tui.desk.builder.strikes import strike_precisions
from tui.desk.builder.templates import TemplateStore
from tui.desk.builder.ticks import qty_ticks
from tui.desk.guardrails import DEFAULTS, GuardrailSettings
from tui.desk.messages import ActionRequest
from tui.desk.screens.rfq_legs import LegRow, TargetList, lp_preselection
from tui.desk.screens.rfq_request import DEFAULT_RFQ_EXPIRY_S
from tui.desk.screens.rfq_sending import SendingRfqScreen
from tui.desk.screens.rfq_telling import TellingRfqScreen
from tui.desk.widgets.common.forms import ErrorsFollowFields, show_errors


class NewRfqScreen(BuildingFast, ErrorsFollowFields, TellingRfqScreen, SendingRfqScreen):
    """The structure builder (see module docs).

    A valid request leaves as `NewRfqScreen.Send`; the builder stays open, saying it is
    sending, until the outcome comes back: `sent` closes it with the venue's RFQ, `refused`
    shows the venue's reasons under the fields they name so the user can fix them and send
    again. Backing out closes it with None.
    """

    settling_focus = True
    """Until leg 1's type field has the focus: the keys typed behind ``n`` wait for it
    (`tui.desk.typeahead`)."""

    # The box scrolls to the focused field where the terminal is short (80x24); the keys'
    # line is left to the footer there.
    DEFAULT_CSS = """
    NewRfqScreen #rfq-builder { overflow-y: auto; }
    NewRfqScreen #builder-words, NewRfqScreen #choice-strip { height: auto; max-height: 2; }
    NewRfqScreen #builder-note { color: $text-muted; height: auto; }
    NewRfqScreen #builder-keys { color: $text-muted; }
    NewRfqScreen.-short #builder-keys { display: none; }
    NewRfqScreen #field-errors { height: auto; padding: 0 1; }
    NewRfqScreen .field-error-half { width: 1fr; height: auto; }
    NewRfqScreen .field-error-half .field-error { padding: 0; }
    """

    @dataclass
    class Send(ActionRequest):
        """A valid RFQ the user wants sent; the outcome comes back to `show_outcome`."""

        builder: NewRfqScreen
        request: NewRfqRequest

    BINDINGS = [
        Binding("escape", "cancel", "Back out", id="builder.cancel"),
        Binding("ctrl+s", "submit", "Send RFQ", id="builder.send"),
        # Adding a leg wins over a text field's own ctrl+a (start of line); removing one, which
        # loses what was typed in it, leaves a text field its ctrl+d (delete a character).
        Binding("ctrl+a", "add_leg", "Add leg", priority=True, id="builder.add_leg"),
        Binding("ctrl+d", "remove_leg", "Remove leg", id="builder.remove_leg"),
        Binding("ctrl+y", "hedge_delta", "Delta hedge", id="builder.hedge"),
        Binding("ctrl+r", "repeat_last", "Repeat last", id="builder.repeat_last"),
        Binding("ctrl+t", "save_template", "Save template", id="builder.save_template"),
        Binding("ctrl+o", "open_template", "Templates", id="builder.open_template"),
        Binding("ctrl+l", "start_afresh", "Start afresh", id="builder.afresh"),
        Binding("down", "list_step(1)", "Next in list", show=False, id="builder.list_next"),
        Binding("up", "list_step(-1)", "Previous in list", show=False, id="builder.list_previous"),
    ]

    def __init__(
        self,
        companies: list[Company],
        underlyings: list[str],
        clock: Callable[[], datetime],
        funding_intervals: dict[str, int] | None = None,
        *,
        market: BuilderMarket | None = None,
        templates: TemplateStore | None = None,
        prefill: StructureDraft | None = None,
        sent_rfqs: Callable[[], Iterable[RFQ]] | None = None,
        guardrails: GuardrailSettings = DEFAULTS,
        qty_ticks: dict[str, Decimal] | None = None,
        strike_precision: dict[str, PrecisionRequirements] | None = None,
        kept: bool = False,
    ) -> None:
        """``prefill``: the structure to open with (legs, qty, and the companies to ask, or
        None for the market makers); ``kept``: the prefill is the draft the trader backed out
        of; ``sent_rfqs``: the RFQs already sent (the duplicate check); ``templates``: where
        templates and the last RFQ are kept (None: in memory); ``qty_ticks``: each asset's
        quantity tick; ``strike_precision``: how each asset's prices are written (strikes)."""
        super().__init__()
        self.companies = companies
        self.underlyings = underlyings
        self.clock = clock
        self.funding_intervals = funding_intervals or {}
        self.market = market or BuilderMarket()
        self.templates = templates or TemplateStore(None)
        self.prefill = prefill
        self.sent_rfqs = sent_rfqs or (lambda: ())
        self.guardrails = guardrails
        self.qty_ticks = qty_ticks or {}
        self.strike_precision = strike_precision or {}
        self.kept = kept
        self._blank: StructureDraft | None = None
        self.left_draft: StructureDraft | None = None
        """What backing out left to keep: the structure as typed (None: nothing was typed
        into a blank builder)."""
        self.expiries: list[StandardExpiry] = standard_expiries(clock())
        self.leg_count = 0
        self.sending = False
        self._hedge_leg: LegDraft | None = None
        self._duplicate_ok: object = None

    @classmethod
    def from_book(
        cls,
        book: DeskBook,
        clock: Callable[[], datetime],
        data_folder: Path | None,
        *,
        prefill: StructureDraft | None = None,
        guardrails: GuardrailSettings = DEFAULTS,
        kept: bool = False,
    ) -> NewRfqScreen:
        """A builder fed from the book: companies, underlyings (majors first), funding
        intervals, quantity ticks, price precisions, marks and mark vols, the RFQs sent;
        templates in ``data_folder``."""
        stats = book.stats
        return cls(
            book.counterparties(),
            builder_underlyings(book) or ["BTC", "ETH"],
            clock,
            {listing.ticker: listing.funding_interval_s for listing in stats.listings}
            if stats
            else {},
            market=builder_market(
                stats, [*book.rfqs_sent.values(), *book.rfqs_received.values()], clock()
            ),
            templates=TemplateStore.in_folder(data_folder) if data_folder else None,
            prefill=prefill,
            sent_rfqs=lambda: list(book.rfqs_sent.values()),
            guardrails=guardrails,
            qty_ticks=qty_ticks(book.assets),
            strike_precision=strike_precisions(book.assets),
            kept=kept,
        )

    def compose(self) -> ComposeResult:
        """Legs, their words, quantity, expiry, targets, buttons."""
        with Vertical(classes="modal-box wide", id="rfq-builder"):
            yield Static("[b]New RFQ[/b]  structure builder", classes="modal-title")
            yield Static(
                "[$text-muted]type · underlying · side · ratio · expiry · strike · payoff[/]",
                id="builder-order",
            )
            yield VerticalScroll(id="builder-legs")
            yield Static("", id="choice-strip")
            yield Static("", id="builder-words")
            yield Static("", id="err-legs", classes="field-error")
            with Horizontal(classes="field-row"):
                yield Label("Quantity", classes="field-label")
                yield Input(self.prefill.qty if self.prefill else "1", id="qty", compact=True)
                yield Label("  Open for s", classes="field-label")
                yield Input(str(DEFAULT_RFQ_EXPIRY_S), id="expiry", compact=True)
            # Each field's refusal under that field: the row's two halves, one per field.
            with Horizontal(id="field-errors"):
                with Vertical(classes="field-error-half"):
                    yield Static("", id="err-qty", classes="field-error")
                with Vertical(classes="field-error-half"):
                    yield Static("", id="err-expiry", classes="field-error")
            yield Static("", id="builder-note")
            yield Label("Send to (space toggles; market makers ticked)", classes="section-title")
            yield TargetList(*lp_preselection(self.companies), id="targets")
            yield Static("", id="targets-summary")
            yield Static("", id="err-targets", classes="field-error")
            yield Static("", id="err-form", classes="field-error")
            yield Static("", id="rfq-sending")
            yield Static(
                "^y delta hedge · ^t save template · ^o templates · ^r repeat last RFQ"
                " · ^l start afresh",
                id="builder-keys",
            )
            with Horizontal(classes="modal-buttons"):
                yield Button("Send RFQ (^s)", id="go", variant="primary", compact=True)
                yield Button("Add leg (^a)", id="add", compact=True)
                yield Button("Remove leg (^d)", id="remove", compact=True)
                yield Button("Back out (esc)", id="back", compact=True)
        yield Footer()

    async def on_mount(self) -> None:
        """Start with the prefilled structure, or one leg; its instrument type focused."""
        self.query_one("#choice-strip").display = False
        self.note(" · ".join(self.templates.problems))
        if self.prefill is not None:
            note = "your draft, as you left it: ctrl+l starts afresh" if self.kept else ""
            await self.load(self.prefill, note or self.prefill.purpose)
        else:
            await self._mount_leg(EMPTY.legs[0])
            self._blank = self.draft()
        show_errors(self, {})
        self._show_targets()
        self._show_words()
        # Focused without centring it, which on a short screen scrolled the title away.
        self.call_after_refresh(self._first_focus)

    def _first_focus(self) -> None:
        """Leg 1's type field: the keys typed behind ``n`` wait for it (`settling_focus`)."""
        self.settling_focus = False
        self.set_focus(self.query_one("#type-0", Select), scroll_visible=False)

    # -- legs ---------------------------------------------------------------------------------

    def _mount_leg(self, leg: LegDraft | None = None) -> AwaitComplete:
        index = self.leg_count
        self.leg_count += 1
        row = LegRow(
            index,
            self.underlyings,
            leg or LegDraft(underlying=self._structure_underlying()),
            self.market,
            self.expiries,
            self.clock(),
        )
        error = Static("", id=f"err-leg-{index}", classes="field-error")
        error.display = False
        return AwaitComplete(self.query_one("#builder-legs").mount_all([row, error]))

    def _structure_underlying(self) -> str:
        """What a new leg trades: the underlying of the leg before it (a new RFQ's: the first
        listed)."""
        rows = self.leg_rows()
        if rows:
            try:
                return rows[-1].values()["underlying"] or rows[-1].leg.underlying
            except NoMatches:  # its fields are not composed yet
                return rows[-1].leg.underlying
        return self.underlyings[0] if self.underlyings else "BTC"

    async def action_add_leg(self) -> None:
        """Add a leg (up to `MAX_LEGS`) on the structure's underlying, its first field focused."""
        if self.leg_count >= MAX_LEGS:
            show_errors(self, {"legs": f"at most {MAX_LEGS} legs"})
            return
        index = self.leg_count
        await self._mount_leg()
        self.query_one(f"#type-{index}", Select).focus()

    def action_remove_leg(self) -> None:
        """Drop the last leg (one always stays)."""
        if self.leg_count <= 1:
            return
        self.leg_count -= 1
        index = self.leg_count
        self.query_one(f"#leg-row-{index}").remove()
        self.query_one(f"#err-leg-{index}").remove()

    def error_field(self, widget: Widget) -> str:
        """A leg's fields (``ratio-1``, ``strike-1`` ...) show their refusal under the leg
        (``#err-leg-1``); the others under themselves."""
        for row in widget.ancestors:
            if isinstance(row, LegRow):
                return f"leg-{row.index}"
        return str(widget.id or "")

    def leg_rows(self) -> list[LegRow]:
        """The leg rows, in order."""
        return sorted(self.query(LegRow), key=lambda row: row.index)

    def draft(self) -> StructureDraft:
        """The structure as typed: legs, quantity, the companies ticked."""
        return StructureDraft(
            legs=tuple(row.draft() for row in self.leg_rows()),
            qty=self.query_one("#qty", Input).value,
            targets=tuple(self.query_one("#targets", SelectionList).selected),
        )

    async def load(self, draft: StructureDraft, note: str = "") -> None:
        """Fill the builder with ``draft`` (legs, quantity, and its companies when it names
        any; a company no longer listed is left out and said)."""
        legs = self.query_one("#builder-legs")
        await legs.remove_children()
        self.leg_count = 0
        for leg in draft.legs[:MAX_LEGS]:
            await self._mount_leg(leg)
        self.query_one("#qty", Input).value = draft.qty
        said = [note] if note else []
        if draft.targets is not None:
            targets = self.query_one("#targets", SelectionList)
            known = {c.id for c in self.companies}
            targets.deselect_all()
            for company in draft.targets:
                if company in known:
                    targets.select(company)
            missing = [c for c in draft.targets if c not in known]
            if missing:
                said.append(f"{len(missing)} company not listed any more: left out")
        if len(draft.legs) > MAX_LEGS:
            said.append(f"only the first {MAX_LEGS} legs")
        self._hedge_leg = None
        self.note(" · ".join(said))
        show_errors(self, {})
        self._show_words()
        if self.focused is None:
            self.query_one("#qty", Input).focus()

    def action_cancel(self) -> None:
        """Close the builder (an RFQ already on its way is still sent); what was typed stays
        in `left_draft` for whoever opened it to keep."""
        draft = self.draft()
        self.left_draft = None if draft == self._blank else draft
        self.dismiss(None)

    async def action_start_afresh(self) -> None:
        """Empty the builder: one leg, quantity 1, the market makers ticked (and only they),
        the default time; the leg's first field focused."""
        makers = tuple(c.id for c in self.companies if c.is_lp)
        await self.load(StructureDraft(legs=EMPTY.legs, targets=makers), "started afresh")
        self.query_one("#expiry", Input).value = str(DEFAULT_RFQ_EXPIRY_S)
        self.prefill, self.kept = None, False
        self._blank = self.draft()
        self.set_focus(self.query_one("#type-0", Select), scroll_visible=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """The buttons mirror the keys."""
        actions: dict[str | None, Callable[[], object]] = {
            "go": self.action_submit,
            "add": self.action_add_leg,
            "remove": self.action_remove_leg,
            "back": self.action_cancel,
        }
        actions.get(event.button.id, self.action_cancel)()
