"""Pre-trade guardrails: each check says why it asks again, and stays quiet inside its limit.

A price further than N bps from fair (either way, for a maker's bid or ask and for a taker's
accept), a gross notional over the limit, and the same structure asked again within S seconds
each give the reason in words; inside the limits, or without a fair value, they give None.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from tui.api.models import (
    RFQ,
    DatedFutureInstrument,
    Leg,
    PerpetualFutureInstrument,
    Structure,
    TradeSide,
    VanillaOptionInstrument,
)
from tui.desk.guardrails import (
    GuardrailSettings,
    accept_off_fair,
    confirmation_words,
    duplicate_rfq,
    notional_over,
    quote_off_fair,
    reasons,
)

D = Decimal
NOW = datetime(2026, 1, 5, 12, tzinfo=UTC)
TIGHT = GuardrailSettings(max_bps_from_fair=D(100), max_notional=D(50_000), duplicate_rfq_s=20)


def test_a_quote_far_from_fair_says_which_side_how_far_and_the_limit() -> None:
    assert quote_off_fair(D(99), D(101), D(100), TIGHT) is None  # 100 bps each: at the limit
    assert quote_off_fair(D("98.9"), D(101), D(100), TIGHT) == (
        "bid 98.9 is 110 bps below fair value 100, the venue's structure price (limit 100 bps)"
    )
    # A bid through fair is as far as a wide one.
    assert quote_off_fair(D(102), None, D(100), TIGHT) == (
        "bid 102 is 200 bps above fair value 100, the venue's structure price (limit 100 bps)"
    )
    both = quote_off_fair(D(90), D(115), D(100), TIGHT)
    assert both is not None and "bid 90 is 1000 bps below" in both and "ask 115 is 1500" in both
    assert quote_off_fair(D(1), D(1000), None, TIGHT) is None  # no fair value: no check
    # A spread priced near zero: bps against the underlying's mark, as the caller names it.
    assert quote_off_fair(D("-5"), D(5), D(0), TIGHT, reference=D(3000)) is None
    assert quote_off_fair(D("-5"), D(40), D(0), TIGHT, reference=D(3000)) == (
        "ask 40 is 133 bps above fair value 0, the venue's structure price; bps of 3,000.00, "
        "the legs' gross value at the mark (limit 100 bps)"
    )
    assert quote_off_fair(D(-5), D(5), D(0), TIGHT) is None  # nothing to divide by


def test_an_accept_checks_the_side_it_trades() -> None:
    assert accept_off_fair(TradeSide.BUY, D(101), D(100), TIGHT) is None
    assert accept_off_fair(TradeSide.BUY, D(103), D(100), TIGHT) == (
        "ask 103 is 300 bps above fair value 100, the venue's structure price (limit 100 bps)"
    )
    assert accept_off_fair(TradeSide.SELL, D(97), D(100), TIGHT) == (
        "bid 97 is 300 bps below fair value 100, the venue's structure price (limit 100 bps)"
    )
    assert accept_off_fair(TradeSide.SELL, D(97), None, TIGHT) is None
    # The defaults: 300 bps.
    assert accept_off_fair(TradeSide.BUY, D(103), D(100)) is None
    assert accept_off_fair(TradeSide.BUY, D("103.01"), D(100)) is not None


def test_a_notional_over_the_limit_says_both() -> None:
    assert notional_over(D(50_000), TIGHT) is None
    assert notional_over(None, TIGHT) is None
    assert notional_over(D("50000.01"), TIGHT) == (
        "notional 50,000.01 USDC is over the limit of 50,000 USDC"
    )
    assert notional_over(D(1_000_000)) is None and notional_over(D(1_000_001)) is not None


def rfq(structure: Structure, seconds_ago: float, rfq_id: str = "abcdef12-0000") -> RFQ:
    created = NOW - timedelta(seconds=seconds_ago)
    return RFQ(
        rfq_id=rfq_id,
        created_at=created,
        structure=structure,
        rfq_expires_at=created + timedelta(minutes=5),
        taker_company="me",
        rfq_status="open",
        qty=D(3),
    )


def option(strike: str) -> Leg:
    return Leg(
        side=TradeSide.BUY,
        ratio=1,
        instrument=VanillaOptionInstrument(
            underlying="BTC",
            expiry=datetime(2026, 1, 30, 8, tzinfo=UTC),
            strike=D(strike),
            payoff="call",
        ),
    )


def test_the_same_structure_within_the_window_is_a_duplicate() -> None:
    perp = Leg(side=TradeSide.SELL, ratio=1, instrument=PerpetualFutureInstrument(underlying="BTC"))
    asked = Structure(legs=[option("100000"), perp])
    same_other_order = Structure(legs=[perp, option("100000.0")])
    assert duplicate_rfq(same_other_order, [rfq(asked, 12)], NOW, TIGHT) == (
        "the same structure was asked 12 s ago (RFQ abcdef12, qty 3): a duplicate RFQ?"
    )
    assert duplicate_rfq(same_other_order, [rfq(asked, 21)], NOW, TIGHT) is None  # window over
    assert (
        duplicate_rfq(Structure(legs=[option("102000"), perp]), [rfq(asked, 1)], NOW, TIGHT) is None
    )
    future = Leg(
        side=TradeSide.SELL,
        ratio=1,
        instrument=DatedFutureInstrument(
            underlying="BTC", expiry=datetime(2026, 3, 27, 8, tzinfo=UTC)
        ),
    )
    assert duplicate_rfq(Structure(legs=[option("100000"), future]), [rfq(asked, 1)], NOW) is None
    bigger = Structure(legs=[option("100000"), perp.model_copy(update={"ratio": 2})])
    assert duplicate_rfq(bigger, [rfq(asked, 1)], NOW) is None
    # The newest of several is named.
    found = duplicate_rfq(asked, [rfq(asked, 25, "old"), rfq(asked, 4, "newer-id")], NOW)
    assert found is not None and "4 s ago (RFQ newer-id" in found


def test_the_second_confirmation_lists_every_reason() -> None:
    found = reasons(None, "notional 2 USDC is over the limit of 1 USDC", None, "bid 1 is far")
    assert found == ["notional 2 USDC is over the limit of 1 USDC", "bid 1 is far"]
    title, body = confirmation_words("buy 2 BTC-PERP at 101", found)
    assert title == "Check again: buy 2 BTC-PERP at 101"
    assert "• notional 2 USDC is over the limit of 1 USDC" in body and "• bid 1 is far" in body
