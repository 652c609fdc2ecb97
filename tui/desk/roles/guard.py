"""The pre-trade guardrails as the roles ask them: a quote or an accept checked before it goes.

`tui.desk.guardrails` says why a price or a notional passes its limit; here the roles find
what to check: the package bid and ask a maker's leg prices make, the gross notional of the
legs at those prices, the RFQ's fair value (its structure price) and what the bps are taken
against: the very base of the edge the board and the ticket show (`fair_reference`), so the
question and the screen never give two bps for one price. When a check finds
something, `ask_again` shows a second confirmation naming every reason and goes on only on
yes. The settings are the desk's (``DeskApp.guardrails``, from config.toml), else the defaults.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from tui.api.models import TradeSide
from tui.desk.clearing import LegFill, gross_notional, leg_fills
from tui.desk.guardrails import (
    DEFAULTS,
    GuardrailSettings,
    accept_off_fair,
    confirmation_words,
    notional_over,
    quote_off_fair,
    reasons,
)
from tui.desk.screens.confirm import ConfirmScreen, RecheckedConfirmScreen

if TYPE_CHECKING:
    from tui.api.models import RFQ, NewQuoteRequest, Quote
    from tui.desk.book import DeskBook
    from tui.desk.roles.runner import DeskHost

Terms = TypeVar("Terms")


def guardrail_settings(desk: object) -> GuardrailSettings:
    """The desk's guardrails (``guardrails`` on the host), or the module's defaults."""
    found = getattr(desk, "guardrails", None)
    return found if isinstance(found, GuardrailSettings) else DEFAULTS


def fair_value(rfq: RFQ) -> Decimal | None:
    """The structure's fair value: the RFQ's structure price, when the venue gave one."""
    return rfq.structure_price.price if rfq.structure_price is not None else None


def fair_reference(rfq: RFQ, book: DeskBook, now: datetime) -> Decimal | None:
    """What the bps are taken against, exactly as the board and the ticket take their edge's
    (`tui.desk.widgets.quote_figures.structure_pricing`): for a package, its legs' gross
    value at the underlying's mark; None for a single leg (``|fair|`` itself) or when the desk
    cannot value the legs."""
    from tui.desk.widgets.quote_figures import listing_marks, structure_pricing

    return structure_pricing(rfq, listing_marks(book.stats), now).reference


def _legs_priced(
    rfq: RFQ, request: NewQuoteRequest
) -> list[tuple[Decimal, bool, Decimal, Decimal | None, Decimal | None]] | None:
    """Per RFQ leg: ratio, whether it is bought, its qty, and the maker's bid and ask."""
    prices = {leg.target_rfq_leg_id: leg for leg in request.leg_quotes}
    if not rfq.rfq_legs or len(rfq.rfq_legs) != len(rfq.structure.legs):
        return None
    priced = []
    for booked, asked in zip(rfq.rfq_legs, rfq.structure.legs, strict=True):
        quoted = prices.get(booked.rfq_leg_id)
        if quoted is None:
            return None
        buy = str(booked.side) == TradeSide.BUY
        priced.append((Decimal(asked.ratio), buy, booked.qty, quoted.bid, quoted.ask))
    return priced


def quoted_package(rfq: RFQ, request: NewQuoteRequest) -> tuple[Decimal | None, Decimal | None]:
    """The package bid and ask a maker's leg prices make, as the venue aggregates them: a
    bought leg adds ``ratio x`` its price on the same side, a sold leg takes off its price on
    the other side. None for a side some leg does not price."""
    legs = _legs_priced(rfq, request)
    if legs is None:
        return None, None
    bid: Decimal | None = Decimal(0)
    ask: Decimal | None = Decimal(0)
    for ratio, buy, _qty, leg_bid, leg_ask in legs:
        on_bid, on_ask = (leg_bid, leg_ask) if buy else (leg_ask, leg_bid)
        sign = Decimal(1) if buy else Decimal(-1)
        bid = None if bid is None or on_bid is None else bid + sign * ratio * on_bid
        ask = None if ask is None or on_ask is None else ask + sign * ratio * on_ask
    return bid, ask


def quoted_notional(rfq: RFQ, request: NewQuoteRequest) -> Decimal | None:
    """The gross notional of a quote's legs at its prices: the larger of the taker buying
    (bought legs at the ask, sold legs at the bid) and selling; None when no side is priced."""
    legs = _legs_priced(rfq, request)
    if legs is None:
        return None
    found: list[Decimal] = []
    for taker_buys in (True, False):
        fills = []
        for _ratio, buy, qty, leg_bid, leg_ask in legs:
            price = leg_ask if buy == taker_buys else leg_bid
            if price is None:
                break
            fills.append(LegFill(qty, price))
        else:
            found.append(gross_notional(fills))
    return max(found) if found else None


def quote_reasons(
    book: DeskBook,
    rfq: RFQ,
    request: NewQuoteRequest,
    settings: GuardrailSettings,
    now: datetime,
) -> list[str]:
    """Why a maker's quote is asked again (empty: it goes at once)."""
    bid, ask = quoted_package(rfq, request)
    reference = fair_reference(rfq, book, now)
    return reasons(
        quote_off_fair(bid, ask, fair_value(rfq), settings, reference=reference),
        notional_over(quoted_notional(rfq, request), settings),
    )


def accept_reasons(
    book: DeskBook,
    rfq: RFQ,
    quote: Quote | None,
    side: TradeSide,
    price: Decimal,
    settings: GuardrailSettings,
    now: datetime,
) -> list[str]:
    """Why an accept at ``price`` is asked again (empty: it goes at once)."""
    fills = leg_fills(rfq, quote, side) if quote is not None else None
    reference = fair_reference(rfq, book, now)
    return reasons(
        accept_off_fair(side, price, fair_value(rfq), settings, reference=reference),
        notional_over(gross_notional(fills) if fills is not None else None, settings),
    )


@dataclass(frozen=True)
class LookAgain(Generic[Terms]):
    """How a second question about a record of the venue looks at it again on its ``s``: the
    terms asked about, the dialog that re-checks them (`RecheckedConfirmScreen`, built from
    the question's title and reasons), and where newer terms the trader said yes to go (back
    through the guardrails: they were never asked about)."""

    terms: Terms
    dialog: Callable[[str, str], RecheckedConfirmScreen[Terms]]
    again: Callable[[Terms], None]


def ask_again(
    desk: DeskHost,
    action: str,
    found: list[str],
    go: Callable[[], None],
    look: LookAgain[Any] | None = None,
) -> None:
    """``go`` at once when nothing was found; else a second confirmation saying why first,
    and ``go`` only on yes (no: nothing is sent, and a toast says so). With ``look`` the
    ``s`` looks at the record again first, as the first confirmation's ``y`` did: changed
    meanwhile, nothing is sent and the dialog shows it again (`LookAgain`)."""
    if not found:
        go()
        return
    title, body = confirmation_words(action, found)
    screen = (
        look.dialog(title, body)
        if look is not None
        else ConfirmScreen(
            title, body, confirm_label="Send anyway", danger=True, second_question=True
        )
    )

    def answered(yes: bool | None) -> None:
        if not yes:
            desk.notify(f"{action}: not sent", title="Guardrails")
        elif look is None or getattr(screen, "terms", None) == look.terms:
            go()
        elif (newer := getattr(screen, "terms", None)) is not None:
            look.again(newer)

    desk.push_screen(screen, answered)
