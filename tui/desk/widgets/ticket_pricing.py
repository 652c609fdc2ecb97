"""The ticket's pricing rows: quote an option package by vol or by package price, and what the
maker's own bid and ask are worth against fair before they are sent.

For a structure with option legs, two rows take a package side each way: a vol in percent
(``64.5``) prices every option leg at it, a package price solves the one vol that makes it and
prices the legs at that; either fills the leg fields it decides (`quote_figures.legs_at_vol`).
What is typed stays as typed; a refusal is said under the field. Typing a leg price by hand
makes the legs the source again: the vol and package price of that side are emptied, so the
form never shows two prices that disagree.

Under them, always, the figures of the quote as it stands in the leg fields: the package bid
and ask (for a package), their edge against fair in price and in bps, and for options their
implied vol beside the mark vol. They follow every keystroke; the line never lays the ticket
out again unless its number of lines changes (a different kind of structure).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.markup import escape
from textual.widgets import Input, Label, Static

from tui.api.models import TradeSide
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.amounts import parse_optional_amount
from tui.desk.widgets.common.forms import FormError
from tui.desk.widgets.live_text import LiveText
from tui.desk.widgets.quote_figures import (
    DerivedLegs,
    Pricing,
    crossed_leg,
    edge_bps_text,
    edge_price_text,
    legs_at_package_price,
    legs_at_vol,
    package_quote,
    vol_text,
)

if TYPE_CHECKING:  # the models load with the first RFQ, not the first frame
    from tui.api.models import RFQ

DRIVERS = ("vol-bid", "vol-ask", "pkg-bid", "pkg-ask")
"""The fields that derive leg prices: a vol or a package price, for each package side."""
MAX_VOL_PERCENT = Decimal(1000)
LABEL_WIDTH = 24
PRICE_WIDTH = 13
"""The leg rows' column widths, so the figures sit under the bid and ask fields."""


def _row(label: str, bid: str, ask: str) -> str:
    return f"{label:<{LABEL_WIDTH}} {bid:<{PRICE_WIDTH}} {ask:<{PRICE_WIDTH}}".rstrip()


def typed_price(text: str) -> Decimal | None:
    """A leg price as typed, or None while it is blank or not yet a number."""
    try:
        return parse_optional_amount(text, field="price", allow_negative=True)
    except FormError:
        return None


class TicketPricing(Vertical):
    """Quote by vol or package price, and the quote's figures against fair (module docs)."""

    DEFAULT_CSS = """
    TicketPricing {
        height: auto;
    }
    TicketPricing .quote-by {
        height: auto;
        display: none;
    }
    TicketPricing #ticket-figures {
        padding: 0 1;
        height: 2;
        color: $text-muted;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rfq: RFQ | None = None
        self.pricing: Pricing | None = None
        self._lines = 2
        self._figured: tuple[object, ...] = ()  # what the figures shown were worked out from

    def compose(self) -> ComposeResult:
        """The two quote-by rows (options only) with their error lines, then the figures."""
        with Vertical(classes="quote-by"):
            for kind, label in (("vol", "Legs at vol %"), ("pkg", "Package at price")):
                with Horizontal(classes="leg-row"):
                    yield Label(label, classes="leg-label")
                    yield Input("", id=f"{kind}-bid", compact=True, classes="leg-bid")
                    yield Input("", id=f"{kind}-ask", compact=True, classes="leg-ask")
                for side in ("bid", "ask"):
                    error = Static("", id=f"err-{kind}-{side}", classes="field-error")
                    error.display = False
                    yield error
        yield LiveText("", id="ticket-figures", fixed_size=True)

    def on_mount(self) -> None:
        """The fields a cursor move empties are looked up once, here."""
        self._rows = self.query_one(".quote-by")
        self._fields = {name: self.query_one(f"#{name}", Input) for name in DRIVERS}
        self._errors = {name: self.query_one(f"#err-{name}", Static) for name in DRIVERS}
        self._figures = self.query_one("#ticket-figures", LiveText)

    def show(self, rfq: RFQ, pricing: Pricing) -> None:
        """A new RFQ: the quote-by rows for an option structure, empty, without refusals."""
        self.rfq, self.pricing = rfq, pricing
        if self._rows.display != pricing.has_options:
            self._rows.display = pricing.has_options
        for name in DRIVERS:
            self._set(name, "")
            self._refuse(name, "")

    def reprice(self, pricing: Pricing) -> None:
        """The same RFQ at a new fair value or mark: figures and derivations use it."""
        self.pricing = pricing

    def _set(self, name: str, text: str) -> None:
        field = self._fields[name]
        if field.value != text:
            field.value = text

    def _refuse(self, name: str, message: str) -> None:
        error = self._errors[name]
        if not message and not error.display:
            return
        error.update(message)
        error.display = bool(message)

    def derive(
        self, name: str, text: str, typed: Callable[[int, str], Decimal | None]
    ) -> DerivedLegs:
        """The leg prices that a vol or package price typed into ``name`` makes (none when
        the field is blank or refused; the refusal is shown under it). ``typed(index, side)``
        reads a leg price as it stands, so no leg is left with its bid over its ask."""
        rfq, pricing = self.rfq, self.pricing
        if rfq is None or pricing is None or name not in DRIVERS:
            return DerivedLegs()
        kind, _, side = name.partition("-")
        derived = DerivedLegs()
        try:
            if kind == "vol":
                percent = parse_optional_amount(
                    text, field=name, positive=True, maximum=MAX_VOL_PERCENT
                )
                if percent is not None:
                    derived = legs_at_vol(rfq, pricing, side, percent / 100)
            else:
                price = parse_optional_amount(text, field=name, allow_negative=True)
                if price is not None:
                    derived = legs_at_package_price(rfq, pricing, side, price)
        except FormError as error:
            derived = DerivedLegs(refusal=error.errors[name])
        crossed = crossed_leg(derived, typed)
        if crossed:
            derived = DerivedLegs(refusal=crossed)
        self._refuse(name, derived.refusal)
        if derived.prices:
            other = f"{'pkg' if kind == 'vol' else 'vol'}-{side}"
            self._set(other, "")  # one driver per side: the one just typed
            self._refuse(other, "")
        return derived

    def legs_typed(self, package_side: str) -> None:
        """A leg price typed by hand: the legs decide ``package_side`` again, so its vol and
        package price are emptied."""
        for kind in ("vol", "pkg"):
            self._set(f"{kind}-{package_side}", "")
            self._refuse(f"{kind}-{package_side}", "")

    def show_figures(self, bids: list[str], asks: list[str]) -> None:
        """The package, edge and IV of the leg prices as typed (see module docs)."""
        figures = self._figures
        rfq, pricing = self.rfq, self.pricing
        if rfq is None or pricing is None or len(bids) != len(rfq.structure.legs):
            self._figured = ()
            figures.update("")
            return
        # Asked again for each leg field a move refills: worked out once per change.
        figured = (rfq.rfq_id, pricing, tuple(bids), tuple(asks))
        if figured == self._figured and figured[1] is self._figured[1]:
            return
        self._figured = figured
        bid, ask = package_quote(
            rfq, [typed_price(t) for t in bids], [typed_price(t) for t in asks]
        )
        edge = pricing.edge(bid, ask)
        bid_edge = edge.bid if edge else None
        ask_edge = edge.ask if edge else None
        lines = []
        legs = rfq.structure.legs
        if len(legs) > 1 or legs[0].ratio != 1 or str(legs[0].side) != TradeSide.BUY:
            lines.append(_row("Package", fmt.price(bid), fmt.price(ask)))
        lines.append(
            _row(
                f"Edge vs fair {fmt.price(pricing.fair)}",
                edge_price_text(bid_edge.price if bid_edge else None),
                edge_price_text(ask_edge.price if ask_edge else None),
            )
        )
        lines.append(
            _row(
                "Edge in bps",
                edge_bps_text(bid_edge.bps if bid_edge else None),
                edge_bps_text(ask_edge.bps if ask_edge else None),
            )
        )
        if pricing.has_options:
            lines.append(
                _row(
                    f"IV, mark vol {vol_text(pricing.mark_vol)}",
                    vol_text(pricing.implied_vol(bid)),
                    vol_text(pricing.implied_vol(ask)),
                )
            )
        if len(lines) != self._lines:
            self._lines = len(lines)
            figures.styles.height = len(lines)
        figures.update(escape("\n".join(lines)))
