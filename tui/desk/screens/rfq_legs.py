"""The structure builder's parts: one row per leg, and the list of companies to ask.

A leg row shows only the fields its instrument type uses (an expiry for dated futures and
options, a strike and payoff for options), on one line where the builder is wide enough; where
it is not, the leg's terms (expiry, strike, payoff) go on a second line under its type, and
type, underlying, side and ratio stay on the first. The expiry
and strike fields offer the venue's standard expiries and a strike grid around the mark
(`tui.desk.builder`), and still take whatever is typed. The target list shows ticked and
unticked companies apart without relying on colour.
"""

from __future__ import annotations

from datetime import datetime

from rich.segment import Segment
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.strip import Strip
from textual.widgets import Input, Label, Select, SelectionList
from textual.widgets.selection_list import Selection

from tui.api.models import Company, InstrumentType, PayoffType, TradeSide
from tui.desk.builder.calendar import StandardExpiry, nearest_strike, strike_grid
from tui.desk.builder.draft import LegDraft
from tui.desk.builder.fields import Choice, ChoiceInput
from tui.desk.builder.market import BuilderMarket

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
    """One leg of the structure being built.

    Its expiry and strike fields offer lists (`ChoiceInput`): the venue's standard expiries,
    and a strike grid around the mark of the leg's underlying, which follows the underlying.
    """

    def __init__(
        self,
        index: int,
        underlyings: list[str],
        leg: LegDraft | None = None,
        market: BuilderMarket | None = None,
        expiries: list[StandardExpiry] | None = None,
        now: datetime | None = None,
    ) -> None:
        super().__init__(classes="leg-builder-row", id=f"leg-row-{index}")
        self.index = index
        self.leg = leg or LegDraft(underlying=(underlyings or ["BTC"])[0])
        self.underlyings = list(underlyings or ["BTC"])
        if self.leg.underlying and self.leg.underlying not in self.underlyings:
            # A template's or an offset's underlying the list lacks: kept, for the venue to judge.
            self.underlyings.append(self.leg.underlying)
        self.market = market or BuilderMarket()
        self.expiries = expiries or []
        self.now = now

    def compose(self) -> ComposeResult:
        """Type, underlying, side, ratio, expiry, strike, payoff."""
        i, leg = self.index, self.leg
        yield Label(f"Leg {i + 1}", classes="leg-number")
        yield Select(
            _TYPES,
            value=_known(leg.type, _TYPES),
            allow_blank=False,
            compact=True,
            id=f"type-{i}",
            classes="leg-type",
        )
        yield Select(
            [(u, u) for u in self.underlyings],
            value=leg.underlying or self.underlyings[0],
            allow_blank=False,
            compact=True,
            id=f"underlying-{i}",
            classes="leg-underlying",
        )
        yield Select(
            _SIDES,
            value=_known(leg.side, _SIDES),
            allow_blank=False,
            compact=True,
            id=f"side-{i}",
            classes="leg-side",
        )
        yield Input(leg.ratio, id=f"ratio-{i}", compact=True, classes="leg-ratio", tooltip="ratio")
        with Horizontal(id=f"terms-{i}", classes="leg-terms"):
            yield from self._terms()

    def _terms(self) -> ComposeResult:
        """Expiry, strike, payoff: the terms only dated legs and options have."""
        i, leg = self.index, self.leg
        yield ChoiceInput(
            leg.expiry,
            title="expiry",
            id=f"expiry-{i}",
            compact=True,
            placeholder="YYYY-MM-DD",
            classes="leg-expiry",
        )
        yield ChoiceInput(
            leg.strike,
            title="strike",
            id=f"strike-{i}",
            compact=True,
            placeholder="strike",
            classes="leg-strike",
        )
        yield Select(
            _PAYOFFS,
            value=_known(leg.payoff, _PAYOFFS),
            allow_blank=False,
            compact=True,
            id=f"payoff-{i}",
            classes="leg-payoff",
        )

    def on_mount(self) -> None:
        """Only show the fields the instrument type uses; offer the lists."""
        self.sync_fields()
        self.offer_expiries()
        self.offer_strikes()

    def on_resize(self, event: events.Resize) -> None:
        """The terms on a second line where one does not fit every field whole (80 columns)."""
        self.set_class(event.size.width < ONE_LINE, "-two-lines")

    def sync_fields(self) -> None:
        """Expiry for dated futures and options; strike and payoff for options."""
        kind = self.query_one(f"#type-{self.index}", Select).value
        dated = kind in (InstrumentType.DATED_FUTURE, InstrumentType.VANILLA_OPTION)
        option = kind == InstrumentType.VANILLA_OPTION
        self.query_one(f"#terms-{self.index}").display = dated
        self.query_one(f"#expiry-{self.index}").display = dated
        self.query_one(f"#strike-{self.index}").display = option
        self.query_one(f"#payoff-{self.index}").display = option

    def offer_expiries(self) -> None:
        """The venue's standard expiries, soonest first."""
        now = self.now
        choices = [
            Choice(e.day.isoformat(), e.label(now) if now else e.day.isoformat())
            for e in self.expiries
        ]
        self.query_one(f"#expiry-{self.index}", ChoiceInput).offer(choices)

    def offer_strikes(self) -> None:
        """A strike grid around the mark of the leg's underlying (none without a mark)."""
        underlying = self._select("underlying")
        mark = self.market.mark(underlying)
        field = self.query_one(f"#strike-{self.index}", ChoiceInput)
        if mark is None or mark <= 0:
            field.offer([], title=f"strike (no {underlying} mark yet)")
            return
        grid = strike_grid(mark)
        atm = nearest_strike(grid, mark)
        field.offer(
            [Choice(format(k, "f"), f"{k:,f}") for k in grid],
            title=f"strike ({underlying} mark {mark:,f})",
            home=grid.index(atm) if atm is not None else 0,
        )

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        if event.select.id == f"type-{self.index}":
            self.sync_fields()
        elif event.select.id == f"underlying-{self.index}":
            self.offer_strikes()

    def _select(self, name: str) -> str:
        value = self.query_one(f"#{name}-{self.index}", Select).value
        return value if isinstance(value, str) else ""

    def values(self) -> dict[str, str]:
        """The leg as typed."""
        i = self.index
        return {
            "type": self._select("type"),
            "underlying": self._select("underlying"),
            "side": self._select("side"),
            "ratio": self.query_one(f"#ratio-{i}", Input).value,
            "expiry": self.query_one(f"#expiry-{i}", Input).value,
            "strike": self.query_one(f"#strike-{i}", Input).value,
            "payoff": self._select("payoff"),
        }

    def draft(self) -> LegDraft:
        """The leg as typed, as a draft (for templates, the hedge, the last RFQ)."""
        return LegDraft.from_fields(self.values())


def _known(value: str, options: list[tuple[str, str]]) -> str:
    """``value`` when it is one of the options, else the first option's."""
    return value if any(value == v for _, v in options) else options[0][1]


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
