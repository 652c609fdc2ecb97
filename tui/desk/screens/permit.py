"""The money form: approve a trade's deposit, deposit into a pool, or withdraw from it.

Approving and depositing sign an ERC-2612 permit with the company wallet (template -> sign ->
submit) so the pool address may spend the amount; a deposit then also asks for the transfer.
The screen shows exactly who may spend what, validates the amount as typed (`parse_amount`: no
sign, no exponent, at most 6 decimal places), with the request models and with the permit rule
(`tui.desk.roles.permit_terms`: a trade's deposit exactly what the venue asks, a pool deposit
at most the deposit limit, never more than the wallet is known to hold), and returns it;
nothing is signed before it passes. The pools role does the signing and sending, while the form
waits: a refusal shows under the amount, and the form closes only when the venue took it.
Amounts on the screen are written by `fmt.usdc`, exactly as signed (every decimal of USDC); the
field holds the plain decimal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from pydantic import ValidationError
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Static

from tui.api.models import USDC_DECIMALS, DecimalAllowance
from tui.desk.messages import ActionOutcome
from tui.desk.roles.permit_terms import WalletWord, over_limit_note, permit_refusal, plain
from tui.desk.roles.refusals import outcome_words
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.amounts import parse_amount
from tui.desk.widgets.common.forms import (
    FORM,
    FormError,
    errors_from_api,
    errors_from_validation,
    show_errors,
)

USDC_PLACES = USDC_DECIMALS
"""USDC moves in millionths: an amount with more places cannot be signed."""


class MoneyAction(StrEnum):
    """What the form is for."""

    APPROVE = "approve"
    DEPOSIT = "deposit"
    WITHDRAW = "withdraw"


_TITLES = {
    MoneyAction.APPROVE: "Approve deposit (sign permit)",
    MoneyAction.DEPOSIT: "Deposit USDC into pool",
    MoneyAction.WITHDRAW: "Withdraw USDC from pool",
}


@dataclass(frozen=True)
class MoneyForm:
    """What the form shows: the pool, who is on the other side, the amount the venue asks (an
    approval: exactly what the permit must cover), a cap, and the wallet balance the desk
    knows."""

    action: MoneyAction
    pool_name: str
    pool_address: str | None
    counterparty: str
    amount: Decimal | None = None
    maximum: Decimal | None = None
    note: str = ""
    wallet: WalletWord | None = None
    max_deposit: Decimal | None = None
    """The deposit limit (config.toml ``[guardrails] max_deposit``; None: none)."""


def check_amount(form: MoneyForm, text: str) -> Decimal:
    """The amount typed, validated as an allowance (positive), against the cap, and, for a
    permit, against the permit rule (`permit_refusal`)."""
    value = parse_amount(text, field="amount", positive=True, places=USDC_PLACES)
    try:
        DecimalAllowance(value=value)
    except ValidationError as error:
        raise FormError(errors_from_validation(error, lambda _loc: "amount")) from None
    if form.maximum is not None and value > form.maximum:
        raise FormError({"amount": f"at most {fmt.usdc(form.maximum)} can be withdrawn"})
    if form.action is MoneyAction.WITHDRAW:
        return value
    refusal = permit_refusal(
        value,
        approval=form.action is MoneyAction.APPROVE,
        asked=form.amount,
        wallet=form.wallet,
        max_deposit=form.max_deposit,
    )
    if refusal:
        raise FormError({"amount": refusal})
    if not form.pool_address:
        raise FormError({"form": "the pool has no on-chain address yet; try again shortly"})
    return value


def locate_money_field(path: tuple[int | str, ...]) -> str:
    """The form field a refusal names: the transfer's ``qty`` and the permit's value are the
    amount; anything else belongs to the form."""
    return "amount" if path and path[0] in ("qty", "allowance", "value") else FORM


Send = Callable[[Decimal, "PermitScreen"], None]
"""Starts the signing and sending of the amount; its outcome comes back to `show_outcome`."""


class PermitScreen(ModalScreen[Decimal | None]):
    """The amount form (see module docs); dismisses with the amount or None.

    Given ``send``, the form stays open while the amount is signed and sent: it closes when
    the venue took it, and shows the venue's refusal under the amount (or the form) when not,
    with the amount still as typed.
    """

    BINDINGS = [
        Binding("escape", "cancel", "Back out", id="permit.cancel"),
        Binding("ctrl+s", "submit", "Sign & send", id="permit.sign"),
    ]

    def __init__(self, form: MoneyForm, send: Send | None = None) -> None:
        super().__init__()
        self.form = form
        self.send = send
        self.sending = False

    def compose(self) -> ComposeResult:
        """What is signed, for whom, and the amount."""
        form = self.form
        spends = (
            f"Signs a permit letting pool {form.pool_address or '(address pending)'}\n"
            f"spend USDC from your wallet."
            if form.action is not MoneyAction.WITHDRAW
            else "Moves USDC from the pool back to your wallet."
        )
        amount = "" if form.amount is None else plain(form.amount)
        if form.amount is not None:
            asks = f"\nThe venue asks for [b]{fmt.usdc(form.amount)}[/b] USDC"
        elif form.action is MoneyAction.APPROVE:
            asks = "\nThe venue has not said yet how much this deposit is."
        else:
            asks = ""
        if form.action is MoneyAction.APPROVE and (
            above := over_limit_note(form.amount, form.max_deposit)
        ):
            asks += f"\n{above}"
        if form.wallet is not None and form.action is not MoneyAction.WITHDRAW:
            asks += f"\nAt most the {form.wallet.words()}"
        with Vertical(classes="modal-box"):
            yield Static(f"[b]{_TITLES[form.action]}[/b]", classes="modal-title")
            yield Static(
                f"Pool [b]{form.pool_name}[/b] with [b]{form.counterparty}[/b]\n{spends}"
                + (f"\n{form.note}" if form.note else "")
                + asks
                + (
                    f"\nMax withdrawable [b]{fmt.usdc(form.maximum)}[/b] USDC"
                    if form.maximum is not None
                    else ""
                )
            )
            with Horizontal(classes="field-row"):
                yield Label("Amount USDC", classes="field-label")
                yield Input(amount, id="amount", compact=True)
            yield Static("", id="err-amount", classes="field-error")
            yield Static("", id="err-form", classes="field-error")
            yield Static("[$text-muted]signing and sending…[/]", id="permit-sending")
            with Horizontal(classes="modal-buttons"):
                label = "Withdraw" if form.action is MoneyAction.WITHDRAW else "Sign & send"
                yield Button(f"{label} (^s)", id="go", variant="primary", compact=True)
                yield Button("Back out (esc)", id="back", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        """Focus the amount."""
        show_errors(self, {})
        self.query_one("#permit-sending", Static).display = False
        self.query_one("#amount", Input).focus()

    def on_input_submitted(self) -> None:
        """Enter in the amount sends."""
        self.action_submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Go or back out."""
        if event.button.id == "go":
            self.action_submit()
        else:
            self.dismiss(None)

    def action_submit(self) -> None:
        """Validate the amount and hand it over."""
        try:
            value = check_amount(self.form, self.query_one("#amount", Input).value)
        except FormError as error:
            show_errors(self, error.errors)
            return
        if self.send is None:
            self.dismiss(value)
            return
        if self.sending:
            return
        show_errors(self, {})
        self._set_sending(True)
        self.send(value, self)

    def show_outcome(self, outcome: ActionOutcome) -> None:
        """The pools role's answer: close when the venue took the amount, else say why."""
        self._set_sending(False)
        if outcome.ok:
            self.dismiss(None)
        elif outcome.error is not None:
            show_errors(self, errors_from_api(outcome.error, locate_money_field))
        else:
            show_errors(self, {FORM: outcome_words(outcome)})

    def _set_sending(self, sending: bool) -> None:
        self.sending = sending
        self.query_one("#go", Button).disabled = sending
        self.query_one("#permit-sending", Static).display = sending

    def action_cancel(self) -> None:
        """Nothing is signed or sent."""
        self.dismiss(None)
