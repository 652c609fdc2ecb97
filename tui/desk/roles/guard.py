"""The pre-trade guardrails as the roles ask them: a quote or an accept checked before it goes.

`tui.desk.guardrails` says why a price or a notional passes its limit; here the roles find
what to check: the package bid and ask a maker's leg prices make, the gross notional of the
legs at those prices, the RFQ's fair value (its structure price) and, for a multi-leg spread
priced near zero, the underlying's mark to take the bps against. When a check finds
something, `ask_again` shows a second confirmation naming every reason and goes on only on
yes. The settings are the desk's (``DeskApp.guardrails``, from config.toml), else the defaults.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING

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
from tui.desk.screens.confirm import ConfirmScreen

if TYPE_CHECKING:
    from tui.api.models import RFQ, NewQuoteRequest, Quote
    from tui.desk.book import DeskBook
    from tui.desk.roles.runner import DeskHost

NEAR_ZERO = Decimal("0.01")
"""A multi-leg structure whose fair value is under this share of its underlying's mark is
"priced near zero": its bps are taken against the mark (1 % off a fair of 3 means nothing)."""


def guardrail_settings(desk: object) -> GuardrailSettings:
    """The desk's guardrails (``guardrails`` on the host), or the module's defaults."""
    found = getattr(desk, "guardrails", None)
    return found if isinstance(found, GuardrailSettings) else DEFAULTS


def fair_value(rfq: RFQ) -> Decimal | None:
    """The structure's fair value: the RFQ's structure price, when the venue gave one."""
    return rfq.structure_price.price if rfq.structure_price is not None else None


def fair_reference(rfq: RFQ, book: DeskBook) -> Decimal | None:
    """What the bps are taken against: the underlying's mark for a multi-leg structure on one
    underlying whose fair value is near zero (`NEAR_ZERO`); else None (``|fair|`` itself)."""
    fair = fair_value(rfq)
    legs = rfq.structure.legs
    if fair is None or len(legs) < 2 or book.stats is None:
        return None
    underlyings = {getattr(leg.instrument, "underlying", None) for leg in legs}
    if len(underlyings) != 1:
        return None
    (underlying,) = underlyings
    mark = next((x.mark_price for x in book.stats.listings if x.ticker == underlying), None)
    if mark is None or mark <= 0 or abs(fair) >= mark * NEAR_ZERO:
        return None
    return mark


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
    book: DeskBook, rfq: RFQ, request: NewQuoteRequest, settings: GuardrailSettings
) -> list[str]:
    """Why a maker's quote is asked again (empty: it goes at once)."""
    bid, ask = quoted_package(rfq, request)
    reference = fair_reference(rfq, book)
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
) -> list[str]:
    """Why an accept at ``price`` is asked again (empty: it goes at once)."""
    fills = leg_fills(rfq, quote, side) if quote is not None else None
    reference = fair_reference(rfq, book)
    return reasons(
        accept_off_fair(side, price, fair_value(rfq), settings, reference=reference),
        notional_over(gross_notional(fills) if fills is not None else None, settings),
    )


def ask_again(desk: DeskHost, action: str, found: list[str], go: Callable[[], None]) -> None:
    """``go`` at once when nothing was found; else a second confirmation saying why first,
    and ``go`` only on yes (no: nothing is sent, and a toast says so)."""
    if not found:
        go()
        return

    def answered(yes: bool | None) -> None:
        if yes:
            go()
        else:
            desk.notify(f"{action}: not sent", title="Guardrails")

    title, body = confirmation_words(action, found)
    desk.push_screen(
        ConfirmScreen(title, body, confirm_label="Send anyway", danger=True, second_question=True),
        answered,
    )
