"""The structure builder: a new RFQ, leg by leg, for the companies the user picks.

Each leg has an instrument type, an underlying (from the venue's supported assets), a side and a
ratio; dated futures and options also take an expiry date, options a strike and a payoff. Then
the quantity, how long the RFQ stays open, and the target companies (from /v1/companies, market
makers preselected). The whole request is validated by `NewRfqRequest`, then sent by the app
while the builder waits: it closes only once the venue has taken the RFQ, and a local error or
a venue refusal shows under the leg or field it names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import ValidationError
from rich.segment import Segment
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widgets import Button, Footer, Input, Label, Select, SelectionList, Static
from textual.widgets.selection_list import Selection

from tui.api.errors import ApiError
from tui.api.models import RFQ, Company, InstrumentType, NewRfqRequest, PayoffType, TradeSide
from tui.desk.widgets.forms import (
    FORM,
    FormError,
    api_error_path,
    errors_from_api,
    parse_int,
    show_errors,
)

DEFAULT_RFQ_EXPIRY_S = 300
MAX_LEGS = 6
EXPIRY_HOUR_UTC = 8
"""Dated futures and options expire at 08:00 UTC on their expiry date."""

_TYPES = [
    ("perpetual", InstrumentType.PERPETUAL_FUTURE.value),
    ("spot", InstrumentType.SPOT.value),
    ("dated future", InstrumentType.DATED_FUTURE.value),
    ("option", InstrumentType.VANILLA_OPTION.value),
]
_SIDES = [("buy", TradeSide.BUY.value), ("sell", TradeSide.SELL.value)]
_PAYOFFS = [("call", PayoffType.CALL.value), ("put", PayoffType.PUT.value)]


def locate_rfq_field(loc: tuple[int | str, ...]) -> str:
    """The builder field of a `NewRfqRequest` error location."""
    if not loc:
        return FORM
    head = loc[0]
    if head == "structure":
        if len(loc) >= 3 and loc[1] == "legs" and isinstance(loc[2], int):
            return f"leg-{loc[2]}"
        return "legs"
    return {"qty": "qty", "expires_at": "expiry", "target_companies": "targets"}.get(
        str(head), FORM
    )


def _leg_field(loc: tuple[int | str, ...]) -> str:
    """The name of the field inside a leg, for messages like ``strike: must be > 0``."""
    names = [str(p) for p in loc[3:] if isinstance(p, str) and p not in {"instrument"}]
    known = {"side", "ratio", "underlying", "expiry", "strike", "payoff", "funding_interval_s"}
    found = [n for n in names if n in known]
    return found[-1] if found else ""


def rfq_errors_from_api(error: ApiError) -> dict[str, str]:
    """Builder field -> message for the venue's refusal of a new RFQ.

    The venue names the request path (``structure.legs[1].instrument.expiry: ...``,
    ``target_companies[2]: ...``); the same mapping as the local checks puts it under its leg
    (saying which field of the leg) or its field, and anything else under the form.
    """
    errors = errors_from_api(error, locate_rfq_field)
    found = api_error_path(error)
    if found is not None:
        path, message = found
        where = locate_rfq_field(path)
        name = _leg_field(path) if where.startswith("leg-") else ""
        if name and where in errors:
            errors[where] = f"{name}: {message}"
    return errors


def parse_expiry_date(text: str, field: str) -> datetime:
    """``2026-03-27`` -> that day at 08:00 UTC."""
    try:
        day = datetime.strptime(text.strip(), "%Y-%m-%d")
    except ValueError:
        raise FormError({field: "expiry: use YYYY-MM-DD"}) from None
    return day.replace(hour=EXPIRY_HOUR_UTC, tzinfo=UTC)


def build_rfq_request(
    legs: list[dict[str, str]],
    qty: str,
    expiry_s: str,
    targets: list[str],
    now: datetime,
    funding_intervals: dict[str, int] | None = None,
) -> NewRfqRequest:
    """The `NewRfqRequest` of the builder, or a `FormError` naming every bad field.

    ``legs`` holds each leg's typed values by name: type, underlying, side, ratio, expiry,
    strike, payoff.
    """
    errors: dict[str, str] = {}
    wire_legs: list[dict[str, Any]] = []
    for index, leg in enumerate(legs):
        field = f"leg-{index}"
        kind = leg.get("type", "")
        instrument: dict[str, Any] = {
            "instrument_type": kind,
            "underlying": leg.get("underlying", ""),
        }
        if kind == InstrumentType.PERPETUAL_FUTURE:
            instrument["funding_interval_s"] = (funding_intervals or {}).get(
                instrument["underlying"], 3600
            )
        if kind == InstrumentType.VANILLA_OPTION:
            instrument["strike"] = leg.get("strike", "").replace(",", "").strip() or None
            instrument["payoff"] = leg.get("payoff") or None
        try:
            if kind in (InstrumentType.DATED_FUTURE, InstrumentType.VANILLA_OPTION):
                instrument["expiry"] = parse_expiry_date(leg.get("expiry", ""), field)
            ratio = parse_int(leg.get("ratio", "") or "1", "ratio", low=1, high=1000)
        except FormError as error:
            first = next(iter(error.errors.items()))
            message = first[1] if first[0] == field else f"{first[0]}: {first[1]}"
            errors[field] = message
            continue
        wire_legs.append({"side": leg.get("side", ""), "ratio": ratio, "instrument": instrument})
    try:
        seconds = parse_int(expiry_s, "expiry", low=10, high=86_400)
    except FormError as error:
        errors.update(error.errors)
        seconds = DEFAULT_RFQ_EXPIRY_S
    if errors:
        raise FormError(errors)
    try:
        return NewRfqRequest(
            structure={"legs": wire_legs},
            qty=qty.replace(",", "").strip(),
            expires_at=now + timedelta(seconds=seconds),
            target_companies=targets,
        )
    except ValidationError as error:
        found: dict[str, str] = {}
        for item in error.errors():
            loc = tuple(item["loc"])
            where = locate_rfq_field(loc)
            message = str(item["msg"]).removeprefix("Value error, ")
            if where.startswith("leg-"):
                name = _leg_field(loc)
                message = f"{name}: {message}" if name else message
            if where == "qty" and item["type"] == "missing":
                message = "required"
            found.setdefault(where, message)
        raise FormError(found) from None


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
            restrict=r"[0-9]*",
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


class NewRfqScreen(ModalScreen[RFQ | None]):
    """The structure builder (see module docs).

    A valid request leaves as `NewRfqScreen.Send`; the builder stays open, saying it is
    sending, until the app answers: `sent` closes it with the venue's RFQ, `refused` shows the
    venue's reasons under the fields they name so the user can fix them and send again.
    Backing out closes it with None.
    """

    @dataclass
    class Send(Message):
        """A valid RFQ the user wants sent; the app answers `sent` or `refused`."""

        builder: NewRfqScreen
        request: NewRfqRequest

    BINDINGS = [
        Binding("escape", "cancel", "Back out"),
        Binding("ctrl+s", "submit", "Send RFQ"),
        Binding("ctrl+a", "add_leg", "Add leg"),
        Binding("ctrl+d", "remove_leg", "Remove leg"),
    ]

    def __init__(
        self,
        companies: list[Company],
        underlyings: list[str],
        clock: Callable[[], datetime],
        funding_intervals: dict[str, int] | None = None,
    ) -> None:
        super().__init__()
        self.companies = companies
        self.underlyings = underlyings
        self.clock = clock
        self.funding_intervals = funding_intervals or {}
        self.leg_count = 0
        self.sending = False

    def compose(self) -> ComposeResult:
        """Legs, quantity, expiry, targets, buttons."""
        with Vertical(classes="modal-box wide", id="rfq-builder"):
            yield Static("[b]New RFQ[/b]  structure builder", classes="modal-title")
            yield Static(
                "[$text-muted]type · underlying · side · ratio · expiry · strike · payoff[/]"
            )
            yield VerticalScroll(id="builder-legs")
            yield Static("", id="err-legs", classes="field-error")
            with Horizontal(classes="field-row"):
                yield Label("Quantity", classes="field-label")
                yield Input("1", id="qty", restrict=r"[0-9.,]*", compact=True)
                yield Label("  Open for s", classes="field-label")
                yield Input(
                    str(DEFAULT_RFQ_EXPIRY_S), id="expiry", restrict=r"[0-9]*", compact=True
                )
            yield Static("", id="err-qty", classes="field-error")
            yield Static("", id="err-expiry", classes="field-error")
            yield Label("Send to (space toggles; market makers ticked)", classes="section-title")
            yield TargetList(*lp_preselection(self.companies), id="targets")
            yield Static("", id="targets-summary")
            yield Static("", id="err-targets", classes="field-error")
            yield Static("", id="err-form", classes="field-error")
            yield Static("", id="rfq-sending")
            with Horizontal(classes="modal-buttons"):
                yield Button("Send RFQ (^s)", id="go", variant="primary", compact=True)
                yield Button("Add leg (^a)", id="add", compact=True)
                yield Button("Remove leg (^d)", id="remove", compact=True)
                yield Button("Back out (esc)", id="back", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        """Start with one leg, its instrument type focused."""
        self.action_add_leg()
        show_errors(self, {})
        self._show_targets()
        self.call_after_refresh(lambda: self.query_one("#type-0", Select).focus())

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

    def action_add_leg(self) -> None:
        """Add a leg (up to `MAX_LEGS`)."""
        if self.leg_count >= MAX_LEGS:
            show_errors(self, {"legs": f"at most {MAX_LEGS} legs"})
            return
        index = self.leg_count
        self.leg_count += 1
        container = self.query_one("#builder-legs", VerticalScroll)
        container.mount(LegRow(index, self.underlyings))
        error = Static("", id=f"err-leg-{index}", classes="field-error")
        container.mount(error)
        error.display = False

    def action_remove_leg(self) -> None:
        """Drop the last leg (one always stays)."""
        if self.leg_count <= 1:
            return
        self.leg_count -= 1
        index = self.leg_count
        self.query_one(f"#leg-row-{index}").remove()
        self.query_one(f"#err-leg-{index}").remove()

    def leg_rows(self) -> list[LegRow]:
        """The leg rows, in order."""
        return sorted(self.query(LegRow), key=lambda row: row.index)

    def request(self) -> NewRfqRequest:
        """The request as built so far (a `FormError` names what is wrong)."""
        targets = list(self.query_one("#targets", SelectionList).selected)
        return build_rfq_request(
            [row.values() for row in self.leg_rows()],
            self.query_one("#qty", Input).value,
            self.query_one("#expiry", Input).value,
            targets,
            self.clock(),
            self.funding_intervals,
        )

    def action_submit(self) -> None:
        """Validate and ask the app to send; the builder waits for the venue's answer."""
        if self.sending:
            return
        try:
            request = self.request()
        except FormError as error:
            show_errors(self, error.errors)
            return
        show_errors(self, {})
        self._set_sending(True)
        self.post_message(self.Send(self, request))

    def sent(self, rfq: RFQ | None) -> None:
        """The venue took the RFQ: close with it."""
        self._set_sending(False)
        self.dismiss(rfq)

    def refused(self, errors: dict[str, str]) -> None:
        """The venue refused: each reason under the field it names; the form stays as typed."""
        self._set_sending(False)
        show_errors(self, errors or {FORM: "the venue refused the RFQ"})

    def _set_sending(self, sending: bool) -> None:
        self.sending = sending
        self.query_one("#go", Button).disabled = sending
        self.query_one("#rfq-sending", Static).update(
            "[$text-muted]sending to the venue…[/]" if sending else ""
        )

    def action_cancel(self) -> None:
        """Close the builder (an RFQ already on its way is still sent)."""
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """The buttons mirror the keys."""
        actions: dict[str | None, Callable[[], None]] = {
            "go": self.action_submit,
            "add": self.action_add_leg,
            "remove": self.action_remove_leg,
            "back": self.action_cancel,
        }
        actions.get(event.button.id, self.action_cancel)()
