"""The structure builder's parts: one row per leg, and the list of companies to ask.

A leg row shows only the fields its instrument type uses (an expiry for dated futures and
options, a strike and payoff for options), on one line where the builder is wide enough and on
two (type, underlying and side; ratio, expiry, strike and payoff) where it is not; the target
list shows ticked and unticked companies
apart without relying on colour.
"""

from __future__ import annotations

from rich.segment import Segment
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.strip import Strip
from textual.widgets import Input, Label, Select, SelectionList
from textual.widgets.selection_list import Selection

from tui.api.models import Company, InstrumentType, PayoffType, TradeSide

_TYPES = [
    ("perpetual", InstrumentType.PERPETUAL_FUTURE.value),
    ("spot", InstrumentType.SPOT.value),
    ("dated future", InstrumentType.DATED_FUTURE.value),
    ("option", InstrumentType.VANILLA_OPTION.value),
]
_SIDES = [("buy", TradeSide.BUY.value), ("sell", TradeSide.SELL.value)]
_PAYOFFS = [("call", PayoffType.CALL.value), ("put", PayoffType.PUT.value)]

ONE_LINE = 94
"""Cells an option leg takes on one line (desk.tcss): a narrower builder shows it on two."""


class LegRow(Horizontal):
    """One leg of the structure being built."""

    def __init__(self, index: int, underlyings: list[str]) -> None:
        super().__init__(classes="leg-builder-row", id=f"leg-row-{index}")
        self.index = index
        self.underlyings = underlyings or ["BTC"]

    def compose(self) -> ComposeResult:
        """Type, underlying, side, ratio, expiry, strike, payoff."""
        i = self.index
        yield Label(f"Leg {i + 1}", classes="leg-number")
        yield Select(
            _TYPES,
            value=_TYPES[0][1],
            allow_blank=False,
            compact=True,
            id=f"type-{i}",
            classes="leg-type",
        )
        yield Select(
            [(u, u) for u in self.underlyings],
            value=self.underlyings[0],
            allow_blank=False,
            compact=True,
            id=f"underlying-{i}",
            classes="leg-underlying",
        )
        yield Select(
            _SIDES, value="buy", allow_blank=False, compact=True, id=f"side-{i}", classes="leg-side"
        )
        yield Input(
            "1",
            id=f"ratio-{i}",
            compact=True,
            classes="leg-ratio",
            tooltip="ratio",
        )
        yield Input(
            "", id=f"expiry-{i}", compact=True, placeholder="YYYY-MM-DD", classes="leg-expiry"
        )
        yield Input("", id=f"strike-{i}", compact=True, placeholder="strike", classes="leg-strike")
        yield Select(
            _PAYOFFS,
            value="call",
            allow_blank=False,
            compact=True,
            id=f"payoff-{i}",
            classes="leg-payoff",
        )

    def on_mount(self) -> None:
        """Only show the fields the instrument type uses."""
        self.sync_fields()

    def on_resize(self, event: events.Resize) -> None:
        """Two lines where one does not fit every field whole (80 columns)."""
        self.set_class(event.size.width < ONE_LINE, "-two-lines")

    def sync_fields(self) -> None:
        """Expiry for dated futures and options; strike and payoff for options."""
        kind = self.query_one(f"#type-{self.index}", Select).value
        dated = kind in (InstrumentType.DATED_FUTURE, InstrumentType.VANILLA_OPTION)
        option = kind == InstrumentType.VANILLA_OPTION
        self.query_one(f"#expiry-{self.index}").display = dated
        self.query_one(f"#strike-{self.index}").display = option
        self.query_one(f"#payoff-{self.index}").display = option

    @on(Select.Changed)
    def _type_changed(self, event: Select.Changed) -> None:
        if event.select.id == f"type-{self.index}":
            self.sync_fields()

    def values(self) -> dict[str, str]:
        """The leg as typed."""
        i = self.index

        def select(name: str) -> str:
            value = self.query_one(f"#{name}-{i}", Select).value
            return value if isinstance(value, str) else ""

        return {
            "type": select("type"),
            "underlying": select("underlying"),
            "side": select("side"),
            "ratio": self.query_one(f"#ratio-{i}", Input).value,
            "expiry": self.query_one(f"#expiry-{i}", Input).value,
            "strike": self.query_one(f"#strike-{i}", Input).value,
            "payoff": select("payoff"),
        }


class TargetList(SelectionList[str]):
    """The companies an RFQ goes to; an unticked company shows an empty box, not a dim ``X``.

    Textual's list draws the same ``X`` for both states and tells them apart by colour only,
    which a terminal with few colours (or a screen reader, or a copy of the screen) loses.
    """

    def render_line(self, y: int) -> Strip:
        """The row as Textual draws it, with the box emptied when the company is not picked."""
        strip = super().render_line(y)
        index = self.scroll_offset.y + y
        if index >= self.option_count:
            return strip
        if self.get_option_at_index(index).value in self.selected:
            return strip
        segments = list(strip)
        if len(segments) < 2:
            return strip
        inner = segments[1]
        segments[1] = Segment(" " * len(inner.text), inner.style, inner.control)
        return Strip(segments, strip.cell_length)


def lp_preselection(companies: list[Company]) -> list[Selection[str]]:
    """One row per company; only market makers (``is_lp``) start ticked, takers never quote."""
    return [
        Selection(
            f"{c.short_name}  {c.legal_name}{'  (LP)' if c.is_lp else ''}",
            c.id,
            c.is_lp,
        )
        for c in companies
    ]
