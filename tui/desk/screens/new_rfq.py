"""The structure builder: a new RFQ, leg by leg, for the companies the user picks.

Each leg has an instrument type, an underlying (from the venue's supported assets), a side and a
ratio; dated futures and options also take an expiry date, options a strike and a payoff. Then
the quantity, how long the RFQ stays open, and the target companies (from /v1/companies, market
makers preselected). The whole request is validated by `NewRfqRequest`
(`tui.desk.screens.rfq_request`), then sent by the taker role while the builder waits: it
closes only once the venue has taken the RFQ, and a local error or a venue refusal shows under
the leg or field it names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Select, SelectionList, Static

from tui.api.models import RFQ, Company, NewRfqRequest
from tui.desk.messages import ActionOutcome, ActionRequest
from tui.desk.roles.refusals import outcome_words
from tui.desk.screens.rfq_legs import LegRow, TargetList, lp_preselection
from tui.desk.screens.rfq_request import (
    DEFAULT_RFQ_EXPIRY_S,
    build_rfq_request,
    rfq_errors_from_api,
)
from tui.desk.widgets.common.forms import FORM, FormError, show_errors

MAX_LEGS = 6


class NewRfqScreen(ModalScreen[RFQ | None]):
    """The structure builder (see module docs).

    A valid request leaves as `NewRfqScreen.Send`; the builder stays open, saying it is
    sending, until the outcome comes back: `sent` closes it with the venue's RFQ, `refused`
    shows the venue's reasons under the fields they name so the user can fix them and send
    again. Backing out closes it with None.
    """

    @dataclass
    class Send(ActionRequest):
        """A valid RFQ the user wants sent; the outcome comes back to `show_outcome`."""

        builder: NewRfqScreen
        request: NewRfqRequest

    BINDINGS = [
        Binding("escape", "cancel", "Back out"),
        Binding("ctrl+s", "submit", "Send RFQ"),
        # Adding a leg wins over a text field's own ctrl+a (start of line); removing one, which
        # loses what was typed in it, leaves a text field its ctrl+d (delete a character).
        Binding("ctrl+a", "add_leg", "Add leg", priority=True),
        Binding("ctrl+d", "remove_leg", "Remove leg"),
    ]

    def __init__(
        self,
        companies: list[Company],
        underlyings: list[str],
        clock: Callable[[], datetime],
        funding_intervals: dict[str, int] | None = None,
    ) -> None:
        super().__init__()
        self.companies = companies
        self.underlyings = underlyings
        self.clock = clock
        self.funding_intervals = funding_intervals or {}
        self.leg_count = 0
        self.sending = False

    def compose(self) -> ComposeResult:
        """Legs, quantity, expiry, targets, buttons."""
        with Vertical(classes="modal-box wide", id="rfq-builder"):
            yield Static("[b]New RFQ[/b]  structure builder", classes="modal-title")
            yield Static(
                "[$text-muted]type · underlying · side · ratio · expiry · strike · payoff[/]"
            )
            yield VerticalScroll(id="builder-legs")
            yield Static("", id="err-legs", classes="field-error")
            with Horizontal(classes="field-row"):
                yield Label("Quantity", classes="field-label")
                yield Input("1", id="qty", compact=True)
                yield Label("  Open for s", classes="field-label")
                yield Input(str(DEFAULT_RFQ_EXPIRY_S), id="expiry", compact=True)
            yield Static("", id="err-qty", classes="field-error")
            yield Static("", id="err-expiry", classes="field-error")
            yield Label("Send to (space toggles; market makers ticked)", classes="section-title")
            yield TargetList(*lp_preselection(self.companies), id="targets")
            yield Static("", id="targets-summary")
            yield Static("", id="err-targets", classes="field-error")
            yield Static("", id="err-form", classes="field-error")
            yield Static("", id="rfq-sending")
            with Horizontal(classes="modal-buttons"):
                yield Button("Send RFQ (^s)", id="go", variant="primary", compact=True)
                yield Button("Add leg (^a)", id="add", compact=True)
                yield Button("Remove leg (^d)", id="remove", compact=True)
                yield Button("Back out (esc)", id="back", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        """Start with one leg, its instrument type focused."""
        self.action_add_leg()
        show_errors(self, {})
        self._show_targets()
        self.call_after_refresh(lambda: self.query_one("#type-0", Select).focus())

    @on(SelectionList.SelectedChanged, "#targets")
    def _show_targets(self) -> None:
        """Say in words who the RFQ goes to (the ticks alone are easy to misread)."""
        picked = set(self.query_one("#targets", SelectionList).selected)
        names = [c.short_name for c in self.companies if c.id in picked]
        summary = self.query_one("#targets-summary", Static)
        if names:
            summary.update(f"[$text-muted]goes to {len(names)}:[/] {' '.join(names)}")
        else:
            summary.update("[$warning]no company picked: space ticks the one under the cursor[/]")

    def action_add_leg(self) -> None:
        """Add a leg (up to `MAX_LEGS`)."""
        if self.leg_count >= MAX_LEGS:
            show_errors(self, {"legs": f"at most {MAX_LEGS} legs"})
            return
        index = self.leg_count
        self.leg_count += 1
        container = self.query_one("#builder-legs", VerticalScroll)
        container.mount(LegRow(index, self.underlyings))
        error = Static("", id=f"err-leg-{index}", classes="field-error")
        container.mount(error)
        error.display = False

    def action_remove_leg(self) -> None:
        """Drop the last leg (one always stays)."""
        if self.leg_count <= 1:
            return
        self.leg_count -= 1
        index = self.leg_count
        self.query_one(f"#leg-row-{index}").remove()
        self.query_one(f"#err-leg-{index}").remove()

    def leg_rows(self) -> list[LegRow]:
        """The leg rows, in order."""
        return sorted(self.query(LegRow), key=lambda row: row.index)

    def request(self) -> NewRfqRequest:
        """The request as built so far (a `FormError` names what is wrong)."""
        targets = list(self.query_one("#targets", SelectionList).selected)
        return build_rfq_request(
            [row.values() for row in self.leg_rows()],
            self.query_one("#qty", Input).value,
            self.query_one("#expiry", Input).value,
            targets,
            self.clock(),
            self.funding_intervals,
        )

    def action_submit(self) -> None:
        """Validate and ask for the RFQ to be sent; the builder waits for the venue's answer."""
        if self.sending:
            return
        try:
            request = self.request()
        except FormError as error:
            show_errors(self, error.errors)
            return
        show_errors(self, {})
        self._set_sending(True)
        self.post_message(self.Send(self, request))

    def sent(self, rfq: RFQ | None) -> None:
        """The venue took the RFQ: close with it."""
        self._set_sending(False)
        self.dismiss(rfq)

    def show_outcome(self, outcome: ActionOutcome) -> None:
        """The taker role's answer: close with the venue's RFQ, or each reason under its field."""
        if outcome.ok:
            self.sent(outcome.record)
        elif outcome.error is not None:
            self.refused(rfq_errors_from_api(outcome.error))
        else:
            self.refused({FORM: outcome_words(outcome)})

    def refused(self, errors: dict[str, str]) -> None:
        """The venue refused: each reason under the field it names; the form stays as typed."""
        self._set_sending(False)
        show_errors(self, errors or {FORM: "the venue refused the RFQ"})

    def _set_sending(self, sending: bool) -> None:
        self.sending = sending
        self.query_one("#go", Button).disabled = sending
        self.query_one("#rfq-sending", Static).update(
            "[$text-muted]sending to the venue…[/]" if sending else ""
        )

    def action_cancel(self) -> None:
        """Close the builder (an RFQ already on its way is still sent)."""
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """The buttons mirror the keys."""
        actions: dict[str | None, Callable[[], None]] = {
            "go": self.action_submit,
            "add": self.action_add_leg,
            "remove": self.action_remove_leg,
            "back": self.action_cancel,
        }
        actions.get(event.button.id, self.action_cancel)()
