"""A trade's premium says whether money moved (trial #10: a rejected accept's card said
"rejected: the quote no longer exists · premium 578.29 paid")."""

from __future__ import annotations

from decimal import Decimal

from tui.desk.roles.accept_terms import trade_premium_words

REJECTED = "rejected_failed_taker_accept_no_quote"
BOOKED = "success_trades_booked_into_pool"
CLEARING = "pending_taker_deposit_approval"


def test_a_rejected_trade_never_says_paid() -> None:
    words = trade_premium_words(Decimal("578.29"), REJECTED)
    assert words == "premium 578.29 USDC not paid: the trade was rejected"
    assert "not received" in trade_premium_words(Decimal("-12.5"), REJECTED)


def test_paid_only_once_booked() -> None:
    assert trade_premium_words(Decimal("578.29"), BOOKED) == "premium 578.29 USDC paid"
    assert trade_premium_words(Decimal("-12.5"), BOOKED) == "premium 12.50 USDC received"
    assert trade_premium_words(Decimal("578.29"), CLEARING) == "premium 578.29 USDC to pay"
    assert trade_premium_words(None, BOOKED) == ""
