"""What the structure builder says while the trader types: the line of news, the structure in
words (call and put in full), the list of the expiry or strike field in use, and who the RFQ
goes to.

`TellingRfqScreen` is a base of the builder (`tui.desk.screens.new_rfq.NewRfqScreen`), which
gives it its leg rows and its companies. Kept apart so the builder screen stays about the form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events, on
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Input, Select, SelectionList, Static

from tui.api.models import RFQ, Company
from tui.desk.builder.fields import ChoiceInput, choice_strip
from tui.desk.screens.rfq_legs import LegRow


class TellingRfqScreen(ModalScreen[RFQ | None]):
    """The builder's lines of words (see module docs)."""

    companies: list[Company]

    if TYPE_CHECKING:
        # The builder's own.

        def leg_rows(self) -> list[LegRow]: ...

    def note(self, text: str) -> None:
        """A line of news under the quantity (a template loaded, a hedge added, a duplicate)."""
        note = self.query_one("#builder-note", Static)
        note.update(escape(text))
        note.display = bool(text)

    @on(Input.Changed)
    @on(Select.Changed)
    def _show_words(self) -> None:
        """The structure in words (call and put in full), and the list of the field in use."""
        if not self.is_mounted:
            return
        # A leg added a moment ago may not have its fields yet: it speaks once it has.
        built = [row for row in self.leg_rows() if row.query(f"#type-{row.index}")]
        words = [f"{row.index + 1}: {row.draft().words()}" for row in built]
        self.query_one("#builder-words", Static).update(
            f"[$text-muted]legs:[/] {escape(' · '.join(words))}" if words else ""
        )
        focused = self.focused
        if isinstance(focused, ChoiceInput):
            self._show_strip(focused)

    @on(events.DescendantFocus)
    def _focus_moved(self, event: events.DescendantFocus) -> None:
        # One line for both: the list of the field in use, else the structure in words.
        if isinstance(event.widget, ChoiceInput):
            self._show_strip(event.widget)
        else:
            self.query_one("#choice-strip").display = False
            self.query_one("#builder-words").display = True

    def on_resize(self, event: events.Resize) -> None:
        """A short terminal leaves the keys' line to the footer."""
        self.set_class(event.size.height < 30, "-short")

    def action_list_step(self, step: int) -> None:
        """Up and down in an expiry or strike field: the previous or next value of its list."""
        if isinstance(self.focused, ChoiceInput):
            self.focused.step(step)

    @on(ChoiceInput.Stepped)
    def _stepped(self, event: ChoiceInput.Stepped) -> None:
        self._show_strip(event.field)

    def _show_strip(self, field: ChoiceInput) -> None:
        strip = self.query_one("#choice-strip", Static)
        width = self.query_one("#rfq-builder").content_region.width or 76
        strip.update(choice_strip(field, width))
        strip.display = True
        self.query_one("#builder-words").display = False

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
