"""Create a settlement pool with one counterparty, its margin terms taken from a preset.

The request is validated by `NewSettlementPoolRequest` (name length, margin bounds) before the
screen closes; errors show under their fields, in the desk's words (`name_words`: "at most 50
characters (typed 60)"), not the validation library's.
"""

from __future__ import annotations

from pydantic import ValidationError
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Select, Static

from tui.api.models import Company, NewSettlementPoolRequest
from tui.desk.margin_presets import MARGIN_PRESETS, preset
from tui.desk.widgets.common.forms import (
    FORM,
    FormError,
    errors_from_validation,
    margin_preset_select,
    show_errors,
)


def locate_pool_field(loc: tuple[int | str, ...]) -> str:
    """The form field of a `NewSettlementPoolRequest` error location."""
    head = loc[0] if loc else None
    return {
        "pool_name": "name",
        "company_other": "counterparty",
        "creator_params": "preset",
        "other_params": "preset",
    }.get(str(head), FORM)


def build_pool_request(
    name: str, counterparty: object, preset_name: object
) -> NewSettlementPoolRequest:
    """The pool request from the form, or a `FormError` naming the bad fields."""
    errors: dict[str, str] = {}
    if not isinstance(counterparty, str) or not counterparty:
        errors["counterparty"] = "pick a counterparty"
    if not isinstance(preset_name, str) or preset_name not in MARGIN_PRESETS:
        errors["preset"] = "pick a margin preset"
    if errors:
        raise FormError(errors)
    params = preset(str(preset_name))
    try:
        return NewSettlementPoolRequest(
            pool_name=name.strip(),
            company_other=str(counterparty),
            creator_params=params,
            other_params=params,
        )
    except ValidationError as error:
        found = errors_from_validation(error, locate_pool_field)
        said = name_words(error, name.strip())
        if said:
            found["name"] = said
        raise FormError(found) from None


def name_words(error: ValidationError, name: str) -> str:
    """What is wrong with the pool name, in the desk's words (empty: nothing is)."""
    for item in error.errors():
        if locate_pool_field(tuple(item["loc"])) != "name":
            continue
        limits = item.get("ctx") or {}
        if item["type"] == "string_too_long":
            return f"at most {limits.get('max_length')} characters (typed {len(name)})"
        if item["type"] == "string_too_short":
            return (
                "type a name for the pool"
                if not name
                else f"at least {limits.get('min_length')} characters"
            )
    return ""


class NewPoolScreen(ModalScreen[NewSettlementPoolRequest | None]):
    """Counterparty, name and margin preset; dismisses with the request or None."""

    BINDINGS = [
        Binding("escape", "cancel", "Back out", id="pool_create.cancel"),
        Binding("ctrl+s", "submit", "Create", id="pool_create.create"),
    ]

    def __init__(self, counterparties: list[Company], my_name: str) -> None:
        super().__init__()
        self.counterparties = counterparties
        self.my_name = my_name

    def compose(self) -> ComposeResult:
        """The three fields and the buttons."""
        with Vertical(classes="modal-box"):
            yield Static("[b]Create settlement pool[/b]", classes="modal-title")
            with Horizontal(classes="field-row"):
                yield Label("Counterparty", classes="field-label")
                yield Select[str](
                    [(f"{c.short_name}  {c.legal_name}", c.id) for c in self.counterparties],
                    id="counterparty",
                    prompt="counterparty",
                    compact=True,
                )
            yield Static("", id="err-counterparty", classes="field-error")
            with Horizontal(classes="field-row"):
                yield Label("Pool name", classes="field-label")
                yield Input("", id="name", placeholder=f"{self.my_name}-…", compact=True)
            yield Static("", id="err-name", classes="field-error")
            with Horizontal(classes="field-row"):
                yield Label("Margin preset", classes="field-label")
                yield margin_preset_select()
            yield Static("", id="err-preset", classes="field-error")
            yield Static("", id="err-form", classes="field-error")
            with Horizontal(classes="modal-buttons"):
                yield Button("Create (^s)", id="go", variant="primary", compact=True)
                yield Button("Back out (esc)", id="back", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        """Clear the error lines; focus the counterparty."""
        show_errors(self, {})
        self.query_one("#counterparty", Select).focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        """Suggest a name once a counterparty is picked."""
        if event.select.id != "counterparty":
            return
        name = self.query_one("#name", Input)
        other = next((c for c in self.counterparties if c.id == event.value), None)
        if other is not None and not name.value:
            name.value = f"{self.my_name}-{other.short_name}"

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Create or back out."""
        if event.button.id == "go":
            self.action_submit()
        else:
            self.dismiss(None)

    def action_submit(self) -> None:
        """Validate and hand the request over."""
        try:
            request = build_pool_request(
                self.query_one("#name", Input).value,
                self.query_one("#counterparty", Select).value,
                self.query_one("#preset", Select).value,
            )
        except FormError as error:
            show_errors(self, error.errors)
            return
        self.dismiss(request)

    def action_cancel(self) -> None:
        """Nothing is sent."""
        self.dismiss(None)
