"""Sending the builder's RFQ: ``ctrl+s`` checks it, asks for it to be sent, waits for the venue.

`SendingRfqScreen` is the base of the structure builder
(`tui.desk.screens.new_rfq.NewRfqScreen`), which gives it its leg rows, the structure as typed
(`draft`), its fields and the message that asks for the send (`NewRfqScreen.Send`). The request is
validated by `NewRfqRequest` (`tui.desk.screens.rfq_request`); the same structure asked again
within the guardrails' window (`tui.desk.guardrails.duplicate_rfq`) goes only on a second
``ctrl+s``, the form line saying why. The taker role sends it while the builder waits: the
builder closes once the venue has taken the RFQ (remembering it as the last one); a local
error or a venue refusal shows under the leg or field it names. Kept apart so the screen
stays about building the structure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from textual.screen import ModalScreen
from textual.widgets import Button, Input, SelectionList, Static

from tui.api.models import RFQ, NewRfqRequest, PrecisionRequirements
from tui.desk.builder.draft import StructureDraft
from tui.desk.builder.templates import TemplateStore
from tui.desk.guardrails import GuardrailSettings, duplicate_rfq, structure_key
from tui.desk.messages import ActionOutcome
from tui.desk.roles.refusals import outcome_words
from tui.desk.screens.rfq_legs import LegRow
from tui.desk.screens.rfq_request import build_rfq_request, rfq_errors_from_api
from tui.desk.widgets.common.forms import FORM, FormError, show_errors


class SendingRfqScreen(ModalScreen[RFQ | None]):
    """``ctrl+s`` and the venue's answer: `sent` closes the builder, `refused` shows why."""

    clock: Callable[[], datetime]
    funding_intervals: dict[str, int]
    qty_ticks: dict[str, Decimal]
    strike_precision: dict[str, PrecisionRequirements]
    sent_rfqs: Callable[[], Iterable[RFQ]]
    guardrails: GuardrailSettings
    templates: TemplateStore
    sending: bool
    _duplicate_ok: object

    if TYPE_CHECKING:
        # The builder's own.
        Send: Any

        def leg_rows(self) -> list[LegRow]: ...

        def draft(self) -> StructureDraft: ...

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
            self.qty_ticks,
            self.strike_precision,
        )

    def form_errors(self) -> Mapping[str, str]:
        """What ``ctrl+s`` would refuse now, field by field (empty: it would be sent): what a
        refusal shown is judged by again when its field changes."""
        try:
            self.request()
        except FormError as error:
            return error.errors
        return {}

    def action_submit(self) -> None:
        """Validate and ask for the RFQ to be sent; the builder waits for the venue's answer.

        The same structure sent within the guardrails' window asks first: a second ctrl+s
        sends it anyway."""
        if self.sending:
            return
        try:
            request = self.request()
        except FormError as error:
            show_errors(self, error.errors)
            return
        key = structure_key(request.structure)
        again = duplicate_rfq(request.structure, self.sent_rfqs(), self.clock(), self.guardrails)
        if again is not None and self._duplicate_ok != key:
            self._duplicate_ok = key
            show_errors(self, {FORM: f"{again} ctrl+s again sends it anyway"})
            return
        show_errors(self, {})
        self._set_sending(True)
        self.post_message(self.Send(self, request))

    def sent(self, rfq: RFQ | None) -> None:
        """The venue took the RFQ: remember it as the last one, and close with it."""
        self._set_sending(False)
        try:
            self.templates.remember_last(self.draft())
        except OSError as error:
            self.app.notify(f"the last RFQ was not kept: {error}", severity="warning")
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
