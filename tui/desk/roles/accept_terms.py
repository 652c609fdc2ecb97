"""What an accept of a quote commits the taker to, in the words the confirmation shows.

`AcceptTerms` is one accept as the trader saw it (the exact quote: maker, price, age; and the
side); `accept_words` is the confirmation's text (side, qty, the legs as traded, price,
notional, premium, pool, expiry), each figure labelled for what it is: the notional is size x
price per underlying (never added across underlyings), the premium is the option legs' price
x size and who pays it (a perpetual, a future or spot has none). The words are drawn again
every second while the dialog is open (`tui.desk.screens.accept_quote`): the quote's countdown
and age move, and a quote that expired meanwhile says so (`quote_expired`).
`my_trade_clearing` says why no quote of an RFQ can be taken while my trade on it is still
clearing: the taker role refuses with it and the quote board greys its keys with it, so the
rule has one home. No Textual and no network here: the
taker role (`tui.desk.roles.taker`) asks, looks again at the venue and sends. The board loads
this module before the desk's first frame, so the models are imported only where used.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from tui.api.models import TradeSide
from tui.desk.clearing import (
    LegFill,
    is_option,
    leg_fills,
    notional_by_underlying,
    option_premium,
)
from tui.desk.widgets.common import fmt

if TYPE_CHECKING:
    from tui.api.models import RFQ, Instrument, Quote
    from tui.desk.book import DeskBook


@dataclass(frozen=True)
class AcceptTerms:
    """One accept as the trader saw it: the exact quote (maker, price, age) and the side."""

    rfq_id: str
    quote_id: str
    side: TradeSide
    price: Decimal
    maker: str | None
    expires_at: datetime | None
    quoted_at: datetime | None


def premium_words(side: TradeSide, price: Decimal, qty: Decimal | None) -> str:
    """The premium of an accept in words: price x qty, and whether the taker pays or receives.

    Buying at a positive price pays, at a negative price (a credit spread) receives; selling
    is the mirror image.
    """
    if qty is None:
        return fmt.DASH
    return _pays_words(price * qty if side is TradeSide.BUY else -(price * qty))


def _pays_words(paid: Decimal) -> str:
    """``1,657.80 USDC you pay`` for a positive amount paid, ``you receive`` for a negative."""
    return f"{fmt.money(abs(paid))} USDC {'you pay' if paid >= 0 else 'you receive'}"


@dataclass(frozen=True)
class LegTerms:
    """One leg of an accept as the taker trades it: instrument, whether the taker buys it,
    size and price (the maker's leg price on the side that trades)."""

    instrument: Instrument
    buys: bool
    fill: LegFill


def accept_legs(rfq: RFQ, quote: Quote, side: TradeSide) -> list[LegTerms] | None:
    """Each leg of ``rfq`` as the taker trades ``quote`` on ``side`` (`leg_fills`' prices);
    None when a leg is not priced on the side that trades."""
    fills = leg_fills(rfq, quote, side)
    if fills is None:
        return None
    return [
        LegTerms(leg.instrument, (str(leg.side) == TradeSide.BUY) == (side is TradeSide.BUY), fill)
        for leg, fill in zip(rfq.rfq_legs, fills, strict=True)
    ]


def notional_words(legs: list[LegTerms] | None) -> str:
    """The notional per underlying, each its own figure: ``BTC 49,226.60 USDC`` (Σ |size x
    price| of that underlying's legs, `gross_notional`); never one sum across underlyings."""
    if legs is None:
        return fmt.DASH
    notionals = notional_by_underlying((leg.instrument, leg.fill) for leg in legs)
    return " · ".join(
        f"{underlying} [b]{fmt.money(notional)}[/b] USDC"
        for underlying, notional in notionals.items()
    )


def option_premium_words(
    rfq: RFQ, legs: list[LegTerms] | None, side: TradeSide, price: Decimal
) -> str:
    """The premium: price x size of the option legs, and who pays it; none without options.

    The legs' own prices say it; a structure of options only whose legs are not priced
    still has its structure price x qty."""
    options = [is_option(leg.instrument) for leg in rfq.structure.legs]
    if not any(options):
        return "none (no option legs)"
    if legs is None:
        return premium_words(side, price, rfq.qty) if all(options) else fmt.DASH
    paid = option_premium((leg.instrument, leg.buys, leg.fill) for leg in legs)
    return _pays_words(paid) if paid is not None else fmt.DASH


def trade_premium_words(premium: Decimal | None, status: str) -> str:
    """A trade's premium as its clearing stands (`TrackedTrade.premium`: positive, I pay):
    ``premium 578.29 paid`` only once booked, ``to pay`` while it clears, and never paid or
    received on a rejected trade (no money moved); '' without option legs."""
    from tui.api.lifecycle import clearing_is_booked, clearing_is_rejected

    if premium is None:
        return ""
    amount = f"premium {fmt.usdc(abs(premium))} USDC"
    pays = premium >= 0
    if clearing_is_rejected(status):
        return f"{amount} not {'paid' if pays else 'received'}: the trade was rejected"
    if clearing_is_booked(status):
        return f"{amount} {'paid' if pays else 'received'}"
    return f"{amount} {'to pay' if pays else 'to receive'}"


def quote_expired(terms: AcceptTerms, now: datetime) -> bool:
    """Whether the quote of an accept is past its expiry by the desk's clock (nothing may be
    sent on it then)."""
    return terms.expires_at is not None and terms.expires_at <= now


def you_trade(rfq: RFQ, side: TradeSide) -> str:
    """What the taker trades, leg by leg, when buying or selling ``rfq``'s structure:
    ``sell 1 BTC-PERP`` (selling the structure trades every leg the other way)."""
    from tui.api.models import instrument_label  # an RFQ to show: the models are loaded

    words = []
    for leg in rfq.structure.legs:
        buys = (str(leg.side) == TradeSide.BUY) == (side is TradeSide.BUY)
        qty = fmt.qty(rfq.qty * leg.ratio)
        words.append(f"{'buy' if buys else 'sell'} {qty} {instrument_label(leg.instrument)}")
    return ", ".join(words)


def quote_state(quote: Quote) -> str | None:
    """The venue's ``quote_status`` of a quote, when it says."""
    state = (quote.model_extra or {}).get("quote_status")
    return state if isinstance(state, str) else None


def my_trade_clearing(book: DeskBook, rfq_id: str, where: str = "") -> str:
    """Why no quote of this RFQ can be accepted now: ``your trade with X{where} is clearing
    (status)``; empty when none of my trades on it is clearing (the venue would refuse)."""
    clearing = book.clearing_on(rfq_id)
    if clearing is None:
        return ""
    status, maker = clearing
    who = f" with {book.company_name(maker)}" if maker else ""
    return f"your trade{who}{where} is clearing ({fmt.status_words(status)})"


def accept_words(
    book: DeskBook, terms: AcceptTerms, rfq: RFQ | None, quote: Quote | None, now: datetime
) -> str:
    """What the accept confirmation says: maker, price and age of the exact quote, side,
    qty, the legs as traded, notional, premium, pool, expiry."""
    side, price = terms.side, terms.price
    qty = rfq.qty if rfq else None
    legs = accept_legs(rfq, quote, side) if rfq and quote else None
    premium = option_premium_words(rfq, legs, side, price) if rfq else fmt.DASH
    maker = book.company_name(terms.maker) if terms.maker else "the maker"
    if quote is not None and quote.pool_location:
        address = book.pool_address(quote.pool_location) or "address pending"
        pool = f"{book.pool_name(quote.pool_location)} ({address})"
    elif quote is not None and quote.new_pool_name:
        pool = f"new pool '{quote.new_pool_name}' (created on acceptance)"
    else:
        pool = "as the quote specifies"
    side_word = "BUY" if side is TradeSide.BUY else "SELL"
    tone = "$bid" if side is TradeSide.BUY else "$ask"
    structure = fmt.structure_text(rfq.structure) if rfq else ""
    if quote_expired(terms, now):
        expiry = "[b $error]the quote has expired[/]: nothing can be sent on it"
    elif terms.expires_at is not None:
        expiry = f"quote expires in {fmt.countdown(terms.expires_at, now)}"
    else:
        expiry = ""
    age = (
        f", quoted {fmt.age((now - terms.quoted_at).total_seconds())} ago"
        if terms.quoted_at is not None
        else ""
    )
    which = "ask" if side is TradeSide.BUY else "bid"
    doing = f"you       [b]{you_trade(rfq, side)}[/b]\n" if rfq else ""
    return (
        f"[b {tone}]{side_word}[/] {fmt.qty(qty)} x {structure}\n"
        f"{doing}"
        f"price     [b]{fmt.price(price)}[/b]  "
        f"({which} of {maker}, quote {fmt.short_id(terms.quote_id)}{age})\n"
        f"notional  {notional_words(legs)}  (Σ |size x price| per underlying)\n"
        f"premium   {premium}\n"
        f"pool      {pool}\n"
        f"{expiry}"
    )
