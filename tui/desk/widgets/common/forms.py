"""Form plumbing shared by the ticket and the modals: validate with the request models, map
each error to the form field it belongs to, and show it next to that field.

Validation is the request models' own (pydantic): the desk never keeps a second copy of the
venue's rules. A form names its fields by id; a mapper turns a pydantic error location
(``("leg_quotes", 0, "bid")``) into the field id (``"bid-0"``). What a typed number means is
`tui.desk.widgets.common.amounts`'s: the text is read as typed, never filtered. A refusal
follows its field (`ErrorsFollowFields`): it goes once the field is changed to a value that
passes, or says what is wrong now, so no message outlives the mistake it named.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from textual.dom import DOMNode
from textual.widget import Widget
from textual.widgets import Input, Select, SelectionList, Static

from tui.desk.roles.refusals import refusal_words

if TYPE_CHECKING:
    from pydantic import ValidationError

    from tui.api.errors import ApiError

FORM = "form"
"""The pseudo-field for errors that belong to no single field."""

Locator = Callable[[tuple[int | str, ...]], str]


class FormError(Exception):
    """A form refused locally: ``errors`` maps field id to message."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        self.errors = dict(errors)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))


def _clean_message(message: str) -> str:
    for prefix in ("Value error, ", "Assertion failed, "):
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message


def errors_from_validation(error: ValidationError, locate: Locator) -> dict[str, str]:
    """Field id -> first message, for every error of a pydantic validation."""
    found: dict[str, str] = {}
    for item in error.errors():
        field = locate(tuple(item["loc"]))
        found.setdefault(field, _clean_message(item["msg"]))
    return found


_FIELD_PREFIX = re.compile(r"^([a-z_][a-z0-9_.\[\]]*)\s*:\s*(.+)$")


def api_error_path(error: ApiError) -> tuple[tuple[int | str, ...], str] | None:
    """The request path a refusal names and the rest of its message, if it names one.

    ``"structure.legs[0].instrument.underlying: 'XYZ' is not listed"`` ->
    ``(("structure", "legs", 0, "instrument", "underlying"), "'XYZ' is not listed")``.
    """
    match = _FIELD_PREFIX.match(error.message)
    if not match:
        return None
    path: list[int | str] = []
    for part in re.split(r"[.\[\]]+", match.group(1)):
        if part:
            path.append(int(part) if part.isdigit() else part)
    return tuple(path), match.group(2)


def errors_from_api(error: ApiError, locate: Locator) -> dict[str, str]:
    """Field id -> message for a venue refusal: under the field it names, else the refusal in
    words under the form (`refusal_words`; the raw status and code go to the toast's detail)."""
    found = api_error_path(error)
    if found is not None:
        path, message = found
        field = locate(path)
        if field != FORM:
            return {field: message}
    return {FORM: refusal_words(error)[0] if error.status else error.message}


def show_errors(root: DOMNode, errors: Mapping[str, str]) -> None:
    """Show each message in the ``#err-<field>`` label of ``root``; clear the others.

    An error for a field the form has no label for goes to the form-level label.
    """
    labels = {str(w.id)[4:]: w for w in root.query(".field-error") if isinstance(w, Static)}
    unplaced = [f"{k}: {v}" for k, v in errors.items() if k not in labels]
    for name, label in labels.items():
        message = errors.get(name, "")
        if name == FORM and unplaced:
            message = "; ".join(filter(None, [message, *unplaced]))
        label.update(message)
        label.display = bool(message)


def rejudge_error(root: DOMNode, field: str, errors: Mapping[str, str]) -> None:
    """After ``field`` changed: its message shown under ``root`` goes when ``errors`` (the form
    judged again) has none for it, or says what is wrong now. A field with no message shown
    stays quiet (a half-typed value is judged when the form is sent, not on each key), and so
    do the other fields' messages: each goes when its own field is fixed."""
    for label in root.query(f"#err-{field}"):
        if isinstance(label, Static) and label.display:
            message = errors.get(field, "")
            label.update(message)
            label.display = bool(message)


class ErrorsFollowFields:
    """Mixed into a form (a screen or widget with ``#err-<field>`` labels): when a field
    changes while its refusal is shown, the form is judged again and the message follows
    (`rejudge_error`). The form gives `form_errors`, the same checks its send uses, so one set
    of rules judges both; `error_field` names the label of a field (by default its id)."""

    if TYPE_CHECKING:

        def form_errors(self) -> Mapping[str, str]:
            """Field id -> message for the form as it stands (empty: it would be sent)."""
            ...

    def error_field(self, widget: Widget) -> str:
        """The error label a field's refusal shows in (``qty`` -> ``#err-qty``)."""
        return str(widget.id or "")

    def _rejudge(self, widget: Widget) -> None:
        root = cast("Widget", self)
        field = self.error_field(widget)
        if not root.is_mounted or not field:
            return
        if any(label.display for label in root.query(f"#err-{field}")):
            rejudge_error(root, field, self.form_errors())

    def on_input_changed(self, event: Input.Changed) -> None:
        """A typed field changed: its message shown is judged again."""
        self._rejudge(event.control)

    def on_select_changed(self, event: Select.Changed) -> None:
        """A picked field changed: its message shown is judged again."""
        self._rejudge(event.control)

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged[Any]) -> None:
        """A list of ticks changed: its message shown is judged again."""
        self._rejudge(event.control)


def margin_preset_select() -> Select[str]:
    """The margin preset picker of a new pool (the ticket's and the pools pane's form alike):
    each preset with its note, the default chosen, never blank."""
    from tui.desk.margin_presets import DEFAULT_PRESET, MARGIN_PRESETS, PRESET_NOTES

    return Select[str](
        [(f"{name}: {PRESET_NOTES[name]}", name) for name in MARGIN_PRESETS],
        id="preset",
        value=DEFAULT_PRESET,
        allow_blank=False,
        compact=True,
    )
