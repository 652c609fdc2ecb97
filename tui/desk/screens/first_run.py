"""The first-run screen of a venue profile: where the venue is, the company's key and secret,
and optionally the wallet keystore, checked against the venue before anything is saved.

``ctrl+t`` checks: the venue's ``GET /v1/status`` says which company and role the key belongs
to, or exactly what is wrong (`tui.desk.profiles.check`); a problem shows under its field.
``ctrl+s`` checks again and, when the venue accepted the key, writes the profile into the
config file (0600) and, when a keystore was named, copies it into the desk's wallets folder once
its passphrase opens it. The secret and the passphrase are masked as typed, never shown in a
result or an error, and the screen drops them when it closes. The check and the save run in
workers; their results come back as messages.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import SecretStr, ValidationError
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Static

from tui.desk.config import ConfigError, Profile
from tui.desk.profiles.check import CredentialCheck, check_credentials
from tui.desk.profiles.store import add_profile, import_keystore, profile_name_problem
from tui.desk.widgets.common.forms import FORM, show_errors

Checker = Callable[[str, str, SecretStr], Awaitable[CredentialCheck]]
"""How the screen checks credentials: base URL, API key, secret -> the check's result."""

FIELDS: tuple[tuple[str, str, str, bool], ...] = (
    ("name", "Profile name", "prod", False),
    ("base_url", "Trading API", "https://… (the address before /v1)", False),
    ("stats_base_url", "Statistics", "optional: https://…", False),
    ("api_key", "API key", "from the venue's settings pages", False),
    ("api_secret", "API secret", "hex; masked", True),
    ("keystore", "Wallet keystore", "optional: a keystore file to import", False),
    ("passphrase", "Passphrase", "the keystore's; masked", True),
)
"""Each field: id, label, placeholder, masked."""


@dataclass(frozen=True)
class SavedProfile:
    """What the screen saved: the profile's name and the config file it went into."""

    name: str
    path: Path
    found: str


class FirstRunScreen(ModalScreen[SavedProfile | None]):
    """A venue profile in one screen (see module docs); dismisses with what it saved."""

    DEFAULT_CSS = """
    FirstRunScreen #first-run-fields { height: auto; }
    FirstRunScreen #check-result { padding: 0 1; margin-top: 1; height: auto; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Back out", id="first_run.cancel"),
        Binding("ctrl+t", "check", "Check", id="first_run.check"),
        Binding("ctrl+s", "save", "Check and save", id="first_run.save"),
    ]

    class Checked(Message):
        """The venue's answer to a check (``save``: the check was the one before saving)."""

        def __init__(self, result: CredentialCheck, save: bool) -> None:
            super().__init__()
            self.result = result
            self.save = save

    class Saved(Message):
        """The save's outcome: the profile saved, or the problem per field."""

        def __init__(self, saved: SavedProfile | None, errors: dict[str, str]) -> None:
            super().__init__()
            self.saved = saved
            self.errors = errors

    def __init__(
        self,
        name: str = "",
        *,
        checker: Checker | None = None,
        config_path: Path | None = None,
    ) -> None:
        super().__init__()
        self.initial_name = name
        self.checker: Checker = checker or check_credentials
        self.config_path = config_path
        self.last: CredentialCheck | None = None

    def compose(self) -> ComposeResult:
        """The fields, each with its error line, the check's result and the buttons."""
        with VerticalScroll(classes="modal-box"):
            yield Static(
                "[b]Connect to a venue[/b]  (the sandbox needs none)", classes="modal-title"
            )
            with VerticalScroll(id="first-run-fields"):
                for field, label, placeholder, masked in FIELDS:
                    with Horizontal(classes="field-row"):
                        yield Label(label, classes="field-label")
                        value = self.initial_name if field == "name" else ""
                        yield Input(
                            value,
                            id=field,
                            placeholder=placeholder,
                            password=masked,
                            compact=True,
                        )
                    yield Static("", id=f"err-{field}", classes="field-error")
            yield Static("", id="err-form", classes="field-error")
            yield Static("Not checked yet: ctrl+t asks the venue.", id="check-result")
            with Horizontal(classes="modal-buttons"):
                yield Button("Check (^t)", id="check", compact=True)
                yield Button("Save (^s)", id="save", variant="primary", compact=True)
                yield Button("Back out (esc)", id="back", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        """Clear the error lines; start at the first empty field."""
        # Seven fields fit 80x24 only packed: the desk's form rows keep a blank line between
        # them (its stylesheet outranks a screen's default CSS, hence styles set here).
        box = self.query_one(".modal-box")
        box.styles.padding = (0, 1)
        box.styles.max_height = "100%"
        self.query_one(".modal-title").styles.margin = (0, 0, 1, 0)
        for row in self.query("#first-run-fields .field-row"):
            row.styles.margin = (0, 0, 0, 0)
        show_errors(self, {})
        first = "base_url" if self.initial_name else "name"
        self.query_one(f"#{first}", Input).focus()

    def _value(self, field: str) -> str:
        return self.query_one(f"#{field}", Input).value.strip()

    def _local_errors(self) -> dict[str, str]:
        errors: dict[str, str] = {}
        name = self._value("name")
        if not name:
            errors["name"] = "required"
        elif problem := profile_name_problem(name):
            errors["name"] = problem
        for field in ("base_url", "api_key", "api_secret"):
            if not self._value(field):
                errors[field] = "required"
        if self._value("keystore") and not self._value("passphrase"):
            errors["passphrase"] = "required to import the keystore"  # noqa: S105
        return errors

    def _profile(self) -> Profile:
        keystore = self._value("keystore")
        return Profile(
            name=self._value("name"),
            base_url=self._value("base_url"),
            stats_base_url=self._value("stats_base_url") or None,
            api_key=self._value("api_key"),
            api_secret=SecretStr(self._value("api_secret")),
            keystore=Path(keystore) if keystore else None,
        )

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Check, save or back out."""
        if event.button.id == "check":
            self.action_check()
        elif event.button.id == "save":
            self.action_save()
        else:
            self.action_cancel()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter moves to the next field; on the last one it checks."""
        self.focus_next() if event.input.id != "passphrase" else self.action_check()

    def action_check(self, save: bool = False) -> None:
        """Ask the venue whose key this is (in a worker)."""
        errors = self._local_errors()
        if not save:
            errors.pop("passphrase", None)
        if errors:
            show_errors(self, errors)
            return
        show_errors(self, {})
        self.query_one("#check-result", Static).update("asking the venue…")
        self._ask(self._value("base_url"), self._value("api_key"), self._value("api_secret"), save)

    @work(exclusive=True, group="first-run-check")
    async def _ask(self, base_url: str, api_key: str, secret: str, save: bool) -> None:
        result = await self.checker(base_url, api_key, SecretStr(secret))
        self.post_message(self.Checked(result, save))

    def action_save(self) -> None:
        """Check, then save when the venue accepted the key."""
        self.action_check(save=True)

    @on(Checked)
    def _show_check(self, message: Checked) -> None:
        result = self.last = message.result
        found = result.identity is not None
        lines = result.lines()
        text = "\n".join(
            [f"[b]{'✓' if found else '✗'}[/b] {lines[0]}", *(f"! {n}" for n in lines[1:])]
        )
        self.query_one("#check-result", Static).update(text)
        # A problem of one field also shows under it; one of the pair is said once, above.
        show_errors(self, {result.field: result.problem} if result.field else {})
        if message.save and result.ok:
            try:
                profile = self._profile()
            except ValidationError as error:
                show_errors(self, {FORM: str(error.errors()[0]["msg"])})
                return
            self._save(profile, self._value("passphrase"), lines[0])

    @work(exclusive=True, group="first-run-save", thread=True)
    def _save(self, profile: Profile, passphrase: str, found: str) -> None:
        from tui.api.permits import WalletError

        try:
            if profile.keystore is not None:
                kept, _address = import_keystore(
                    profile.name, profile.keystore, SecretStr(passphrase)
                )
                profile = profile.model_copy(update={"keystore": kept})
            path = add_profile(profile, self.config_path)
        except WalletError as error:
            self.post_message(self.Saved(None, {"keystore": str(error)}))
            return
        except ConfigError as error:
            self.post_message(self.Saved(None, {FORM: str(error)}))
            return
        self.post_message(self.Saved(SavedProfile(profile.name, path, found), {}))

    @on(Saved)
    def _saved(self, message: Saved) -> None:
        if message.saved is None:
            show_errors(self, message.errors)
            return
        self._forget()
        self.dismiss(message.saved)

    def _forget(self) -> None:
        for field in ("api_secret", "passphrase"):
            self.query_one(f"#{field}", Input).value = ""

    def action_cancel(self) -> None:
        """Back out; nothing is saved."""
        self._forget()
        self.dismiss(None)


def open_first_run(app: App[Any]) -> None:
    """Open the first-run screen over ``app``; say where the saved profile went and how to
    open it (the running session stays on its venue: switching is a restart, on purpose)."""

    def saved(result: SavedProfile | None) -> None:
        if result is not None:
            app.notify(
                f"{result.found}. Profile {result.name!r} saved in {result.path}; "
                f"open it with: rfq-desk --profile {result.name}",
                title="Venue profile saved",
                timeout=15,
            )

    app.push_screen(FirstRunScreen(), callback=saved)
