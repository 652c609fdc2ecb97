"""The builder's two small dialogs: name a template, and pick one.

`TemplateNameScreen` takes the name as typed and refuses it under the field when it will not
do (empty, too long), saying when it replaces a template of the same name; it dismisses with
the name. `TemplatePickScreen` lists the templates with their structure in words; Enter picks
one (dismissed with its name), ``delete`` forgets the one under the cursor.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from tui.desk.builder.templates import TemplateStore, template_name_problem


class TemplateNameScreen(ModalScreen[str | None]):
    """Name the structure being saved as a template (see module docs)."""

    BINDINGS = [Binding("escape", "cancel", "Back out", id="template_name.cancel")]

    def __init__(self, store: TemplateStore, words: str) -> None:
        super().__init__()
        self.store = store
        self.words = words

    def compose(self) -> ComposeResult:
        """The structure in words, the name field, and its error line."""
        with Vertical(classes="modal-box", id="template-name-box"):
            yield Static("[b]Save as template[/b]", classes="modal-title")
            yield Static(self.words, id="template-words")
            yield Input(placeholder="template name", id="template-name", compact=True)
            yield Static("", id="err-template-name", classes="field-error")
            yield Static("[$text-muted]enter saves · esc backs out[/]")
        yield Footer()

    def on_mount(self) -> None:
        """The name field takes the keys."""
        self.query_one("#err-template-name").display = False
        self.query_one("#template-name", Input).focus()

    @on(Input.Changed, "#template-name")
    def _say_replaces(self, event: Input.Changed) -> None:
        error = self.query_one("#err-template-name", Static)
        if self.store.get(event.value.strip()) is not None:
            error.update("[$warning]replaces the template of that name[/]")
            error.display = True
        else:
            error.display = False

    @on(Input.Submitted, "#template-name")
    def _save(self, event: Input.Submitted) -> None:
        problem = template_name_problem(event.value)
        if problem is not None:
            error = self.query_one("#err-template-name", Static)
            error.update(problem)
            error.display = True
            return
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        """Close without saving."""
        self.dismiss(None)


class TemplatePickScreen(ModalScreen[str | None]):
    """Pick a template to fill the builder with (see module docs)."""

    BINDINGS = [
        Binding("escape", "cancel", "Back out", id="template_pick.cancel"),
        Binding("delete", "forget", "Forget template", id="template_pick.forget"),
    ]

    def __init__(self, store: TemplateStore) -> None:
        super().__init__()
        self.store = store

    def compose(self) -> ComposeResult:
        """The templates, each with its structure in words."""
        with Vertical(classes="modal-box wide", id="template-pick-box"):
            yield Static("[b]Templates[/b]  enter fills the builder", classes="modal-title")
            yield OptionList(id="template-list")
            yield Static("", id="template-empty")
        yield Footer()

    def on_mount(self) -> None:
        """List the templates; the list takes the keys."""
        self._list()
        self.query_one("#template-list", OptionList).focus()

    def _list(self) -> None:
        options = self.query_one("#template-list", OptionList)
        options.clear_options()
        for name in self.store.names():
            draft = self.store.get(name)
            words = draft.words() if draft is not None else ""
            options.add_option(Option(f"[b]{name}[/b]  [$text-muted]{words}[/]", id=name))
        empty = self.query_one("#template-empty", Static)
        empty.update(
            "" if self.store.names() else "no template yet: ctrl+t in the builder saves one"
        )
        if self.store.names():
            options.highlighted = 0

    @on(OptionList.OptionSelected, "#template-list")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_forget(self) -> None:
        """Forget the template under the cursor."""
        options = self.query_one("#template-list", OptionList)
        if options.highlighted is None:
            return
        name = options.get_option_at_index(options.highlighted).id
        if name is not None:
            self.store.delete(name)
            self._list()

    def action_cancel(self) -> None:
        """Close without picking."""
        self.dismiss(None)
