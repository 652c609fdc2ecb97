"""The quote ticket's model: from what the maker typed to a valid `NewQuoteRequest`.

Prices are prefilled around the structure price (a spread either side of each leg's mark), the
expiry is a number of seconds, the pool is an existing pool with the taker or a new one with a
margin preset, and the client quote id is generated. Every field is validated by the request
model; an error names the ticket field it belongs to, whether found here or by the venue.
No Textual here: the ticket widget (`tui.desk.widgets.quote_ticket`) reads and shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from tui.api.models import TradeSide
from tui.desk.margin_presets import MARGIN_PRESETS, preset
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.amounts import parse_optional_amount, parse_whole
from tui.desk.widgets.common.forms import FORM, FormError, errors_from_validation
from tui.desk.widgets.quote_figures import round_price

if TYPE_CHECKING:
    from tui.api.models import RFQ, NewQuoteRequest, RFQLeg

# The models (and pydantic) are imported where a quote is built: the first frame needs none.

NEW_POOL = "__new__"
"""The pool choice that means: create a new pool on acceptance."""
DEFAULT_EXPIRY_S = 30
DEFAULT_SPREAD_BPS = Decimal(10)
MAX_EXPIRY_S = 3600
AUTO_CLIENT_ID = "made when sent: desk-<rfq>-<time>-<n>"
"""What the client id field says while blank (`client_quote_id` makes one at send): a cursor
move from RFQ to RFQ writes nothing into it."""


def offered_pool_name(me: str, taker: str, rfq_id: str) -> str:
    """The new pool's name when the maker leaves it blank: both companies and the RFQ."""
    return f"{me}-{taker}-{rfq_id[:4]}"


def offered_pool_hint(me: str) -> str:
    """What the blank pool name field says: the rule of `offered_pool_name`, the same on every
    RFQ, so a cursor move from RFQ to RFQ writes nothing into the field."""
    return f"blank: {me}-<taker>-<rfq>"


def default_expiry_s(rfq_left_s: int) -> int:
    """How long a quote lives when the maker leaves the field empty: `DEFAULT_EXPIRY_S`, but
    never past the RFQ (the venue refuses a quote that outlives its RFQ), and at least 1 s."""
    if rfq_left_s < 1:
        raise FormError({"expiry": "the RFQ has expired: nothing to quote"})
    return min(DEFAULT_EXPIRY_S, rfq_left_s)


def client_quote_id(rfq_id: str, now: datetime, number: int) -> str:
    """A client quote id: desk, RFQ, time and the ticket's counter (well under 50 characters)."""
    return f"desk-{rfq_id[:8]}-{now:%H%M%S}-{number}"


def leg_marks(rfq: RFQ, marks: dict[str, Decimal]) -> list[Decimal | None]:
    """A unit price per RFQ leg, from the listing marks and the structure price.

    Spot and perpetual legs take their underlying's mark. When exactly one leg has no mark
    (an option, a dated future), it is solved from the structure price, which is the sum of
    ``+-ratio x unit price`` over the legs.
    """
    from tui.api.models import PerpetualFutureInstrument, SpotInstrument

    legs = rfq.structure.legs
    found: list[Decimal | None] = []
    for leg in legs:
        instrument = leg.instrument
        mark = None
        if isinstance(instrument, PerpetualFutureInstrument | SpotInstrument):
            mark = marks.get(instrument.underlying)
        found.append(mark)
    total = rfq.structure_price.price if rfq.structure_price else None
    missing = [i for i, m in enumerate(found) if m is None]
    if total is not None and len(missing) == 1:
        known = sum(
            (
                Decimal(leg.ratio if leg.side == TradeSide.BUY else -leg.ratio) * m
                for leg, m in zip(legs, found, strict=True)
                if m is not None
            ),
            Decimal(0),
        )
        leg = legs[missing[0]]
        weight = Decimal(leg.ratio if leg.side == TradeSide.BUY else -leg.ratio)
        solved = (total - known) / weight
        found[missing[0]] = solved if solved > 0 else None
    return found


def prefill(mark: Decimal | None, spread_bps: Decimal = DEFAULT_SPREAD_BPS) -> tuple[str, str]:
    """Bid and ask text around a mark, ``spread_bps`` either side; blank without a mark."""
    if mark is None or mark <= 0:
        return "", ""
    offset = mark * spread_bps / Decimal(10_000)
    return str(round_price(mark - offset)), str(round_price(mark + offset))


@dataclass
class TicketValues:
    """What the user typed, as text: one bid/ask per leg and the settlement choices."""

    bids: list[str]
    asks: list[str]
    expiry_s: str
    pool: str
    preset: str
    pool_name: str
    client_quote_id: str


def locate_quote_field(loc: tuple[int | str, ...]) -> str:
    """The ticket field of a `NewQuoteRequest` error location."""
    if not loc:
        return FORM
    head = loc[0]
    if head == "leg_quotes" and len(loc) >= 2:
        index = loc[1]
        if len(loc) >= 3 and loc[2] in ("bid", "ask"):
            return f"{loc[2]}-{index}"
        return f"leg-{index}"
    if head == "expires_at":
        return "expiry"
    if head == "pool_strategy":
        if "name" in loc:
            return "pool-name"
        return "pool"
    if head == "client_quote_id":
        return "client-id"
    return FORM


def build_quote_request(rfq: RFQ, values: TicketValues, now: datetime) -> NewQuoteRequest:
    """The `NewQuoteRequest` for a ticket, or a `FormError` naming every bad field."""
    from pydantic import ValidationError

    from tui.api.models import NewQuoteRequest

    errors: dict[str, str] = {}
    leg_quotes: list[dict[str, object]] = []
    for index, leg in enumerate(rfq.rfq_legs):
        entry: dict[str, object] = {"target_rfq_leg_id": leg.rfq_leg_id}
        for side, texts in (("bid", values.bids), ("ask", values.asks)):
            try:
                # The sign is the request model's to judge ("must be greater than 0").
                entry[side] = parse_optional_amount(
                    texts[index], field=f"{side}-{index}", allow_negative=True
                )
            except FormError as error:
                errors.update(error.errors)
        leg_quotes.append(entry)
    left = int((rfq.rfq_expires_at - now).total_seconds())
    try:
        if values.expiry_s.strip():
            seconds = parse_whole(values.expiry_s, field="expiry", minimum=1, maximum=MAX_EXPIRY_S)
        else:
            seconds = default_expiry_s(left)
    except FormError as error:
        errors.update(error.errors)
        seconds = DEFAULT_EXPIRY_S
    if values.pool == NEW_POOL:
        params = preset(values.preset) if values.preset in MARGIN_PRESETS else None
        if params is None:
            errors["preset"] = "pick a margin preset"
        strategy: object = {
            "strategy": "create_new",
            "name": values.pool_name.strip(),
            "creator_params": params,
            "other_params": params,
        }
    elif values.pool:
        strategy = {"strategy": "use_existing", "pool_id": values.pool}
    else:
        errors["pool"] = "pick a pool or a new one"
        strategy = None
    if errors:
        raise FormError(errors)
    try:
        return NewQuoteRequest(
            rfq_id=rfq.rfq_id,
            expires_at=now + timedelta(seconds=seconds),
            leg_quotes=leg_quotes,
            pool_strategy=strategy,
            client_quote_id=values.client_quote_id.strip() or None,
        )
    except ValidationError as error:
        raise FormError(errors_from_validation(error, locate_quote_field)) from None


def leg_label(leg: RFQLeg, rfq_qty: Decimal) -> str:
    """``B BTC-PERP``, with ``x2`` when the leg trades twice the RFQ's quantity.

    The quantity itself is in the ticket's head; an option's name leaves no room for it.
    """
    from tui.api.models import instrument_label

    side = str(leg.side)[:1].upper()
    label = f"{side} {instrument_label(leg.instrument)}"
    if rfq_qty > 0 and leg.qty != rfq_qty:
        label += f" x{fmt.qty(leg.qty / rfq_qty)}"
    return label
