"""The builder's keys for building fast: the delta hedge, templates, the last RFQ again.

`BuildingFast` is mixed into the builder screen (`tui.desk.screens.new_rfq.NewRfqScreen`),
which gives it the structure as typed (`draft`), a way to fill itself (`load`) and its line of
news (`note`); the screen binds the keys. Kept apart so the screen stays about the form.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tui.desk.builder.dialogs import TemplateNameScreen, TemplatePickScreen
from tui.desk.builder.draft import LegDraft, StructureDraft
from tui.desk.builder.hedge import HedgeProblem, hedge_structure
from tui.desk.builder.market import BuilderMarket
from tui.desk.builder.templates import TemplateStore

MAX_LEGS = 6
"""Most legs the builder takes."""


class BuildingFast:
    """``ctrl+y`` hedge, ``ctrl+r`` last RFQ, ``ctrl+t`` save and ``ctrl+o`` open a template."""

    market: BuilderMarket
    templates: TemplateStore
    clock: Callable[[], datetime]
    _hedge_leg: LegDraft | None

    if TYPE_CHECKING:
        app: Any

        def draft(self) -> StructureDraft: ...

        async def load(self, draft: StructureDraft, note: str = "") -> None: ...

        def note(self, text: str) -> None: ...

    async def action_hedge_delta(self) -> None:
        """Add (or size again) the perpetual that flattens the structure's delta."""
        draft = self.draft()
        legs = list(draft.legs)
        if self._hedge_leg is not None and legs and legs[-1] == self._hedge_leg:
            legs.pop()  # the hedge added before: sized again, not hedged on top
        try:
            hedge = hedge_structure(legs, draft.qty, self.market, self.clock())
            old_qty = Decimal(draft.qty.strip().replace(",", ""))
        except (HedgeProblem, ArithmeticError) as problem:
            self.note(f"no hedge: {problem}")
            return
        if len(hedge.legs) > MAX_LEGS:
            self.note(f"no hedge: the structure already has {MAX_LEGS} legs")
            return
        hedged = StructureDraft(hedge.legs, format(hedge.qty.normalize(), "f"), draft.targets)
        await self.load(hedged, f"hedge: {hedge.words(old_qty)}")
        self._hedge_leg = hedge.hedge

    async def action_repeat_last(self) -> None:
        """Fill the builder with the last RFQ the venue took from this desk."""
        last = self.templates.last
        if last is None:
            self.note("no RFQ sent from this desk yet")
            return
        await self.load(last, "the last RFQ again: ctrl+s sends it")

    def action_save_template(self) -> None:
        """Save the structure as a named template."""

        def save(name: str | None) -> None:
            if not name:
                return
            try:
                kept = self.templates.save(name, self.draft())
            except (OSError, ValueError) as error:
                self.note(f"template not saved: {error}")
                return
            self.note(f"saved as template {kept!r}: ctrl+o fills the builder with it")

        self.app.push_screen(TemplateNameScreen(self.templates, self.draft().words()), save)

    def action_open_template(self) -> None:
        """Pick a template to fill the builder with."""

        async def fill(name: str | None) -> None:
            draft = self.templates.get(name) if name else None
            if draft is not None:
                await self.load(draft, f"template {name!r}")

        self.app.push_screen(TemplatePickScreen(self.templates), fill)
