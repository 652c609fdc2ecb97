"""A text field that also offers a list: the builder's expiry and strike fields.

`ChoiceInput` is an `Input` (what is typed is taken as typed, and judged only when the RFQ is
built) that knows a list of offered values: `ChoiceInput.step` (the builder's up and down keys)
steps through them from the value in
the field (from the nearest one for a number typed off the list), and typing the start of
one offers the rest of it inline (right arrow takes it). `choice_strip` draws the list around
the current value for the line under the legs, as much of it as fits.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from textual.markup import escape
from textual.message import Message
from textual.suggester import SuggestFromList
from textual.widgets import Input


@dataclass(frozen=True)
class Choice:
    """One offered value and its words in the list (``2026-01-30`` / ``2026-01-30 monthly``)."""

    value: str
    label: str


def _number(text: str) -> Decimal | None:
    try:
        value = Decimal(text.strip().replace(",", ""))
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


class ChoiceInput(Input):
    """A text field with a list of offered values (see module docs)."""

    class Stepped(Message):
        """The field's value was taken from its list (the strip under the legs follows)."""

        def __init__(self, field: ChoiceInput) -> None:
            super().__init__()
            self.field = field

    def __init__(self, value: str = "", *, title: str, **options: object) -> None:
        super().__init__(value, **options)  # type: ignore[arg-type]
        self.title = title
        """What the list is, for the strip: ``expiry``, ``strike (BTC mark 98,500)``."""
        self.choices: list[Choice] = []
        self.home = 0
        """The list's index a first step lands on from an empty field (at the money)."""

    def offer(self, choices: list[Choice], *, title: str | None = None, home: int = 0) -> None:
        """Offer ``choices``; ``home`` is where a step from an empty field lands."""
        self.choices = choices
        self.home = max(0, min(home, len(choices) - 1))
        if title is not None:
            self.title = title
        values = [c.value for c in choices]
        self.suggester = SuggestFromList(values, case_sensitive=False) if values else None

    def current_index(self) -> int | None:
        """The index of the value in the field, when it is one of the list."""
        typed = self.value.strip()
        for index, choice in enumerate(self.choices):
            if choice.value == typed:
                return index
        typed_number = _number(typed)
        if typed_number is not None:
            for index, choice in enumerate(self.choices):
                if _number(choice.value) == typed_number:
                    return index
        return None

    def _from_off_list(self, step: int) -> int:
        typed = _number(self.value)
        numbers = [_number(c.value) for c in self.choices]
        if typed is None or any(n is None for n in numbers):
            return self.home
        if step > 0:
            ahead = [i for i, n in enumerate(numbers) if n is not None and n > typed]
            return ahead[0] if ahead else len(numbers) - 1
        behind = [i for i, n in enumerate(numbers) if n is not None and n < typed]
        return behind[-1] if behind else 0

    def step(self, step: int) -> None:
        """Take the next (1) or previous (-1) value of the list (the builder's up and down
        keys call it: a field of its own keys would be a scope of its own in the keymap)."""
        if not self.choices:
            return
        index = self.current_index()
        if index is None:
            target = self.home if not self.value.strip() else self._from_off_list(step)
        else:
            target = max(0, min(index + step, len(self.choices) - 1))
        self.value = self.choices[target].value
        self.cursor_position = len(self.value)
        self.post_message(self.Stepped(self))


def choice_strip(field: ChoiceInput, width: int) -> str:
    """The list around the field's value in at most ``width`` cells, as markup: the current
    value in reverse, ``…`` where more of the list lies beyond either end."""
    head = f"{field.title} ↑↓: "
    if not field.choices:
        return escape(f"{field.title}: type it (no list offered)")
    index = field.current_index()
    centre = field.home if index is None else index
    labels = [choice.label for choice in field.choices]
    low = high = centre
    grown = True
    while grown:
        grown = False
        for low_try, high_try in ((low - 1, high), (low, high + 1)):
            if low_try < 0 or high_try >= len(labels):
                continue
            if len(head) + len(_strip_text(labels, low_try, high_try)) <= width:
                low, high, grown = low_try, high_try, True
    marked = [
        f"[reverse]{escape(label)}[/]" if i == index else escape(label)
        for i, label in enumerate(labels)
    ]
    return f"[$text-muted]{escape(head)}[/]" + _strip_text(marked, low, high)


def _strip_text(labels: list[str], low: int, high: int) -> str:
    before = "… " if low > 0 else ""
    after = " …" if high < len(labels) - 1 else ""
    return before + " · ".join(labels[low : high + 1]) + after
