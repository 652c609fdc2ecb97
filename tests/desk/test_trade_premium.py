"""Premium and notional, each what it says: premium only on option legs, notional per
underlying (`tui.desk.clearing.option_premium`, `notional_by_underlying`)."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

from tui.desk.clearing import LegFill, is_option, notional_by_underlying, option_premium

CALL = SimpleNamespace(instrument_type="vanilla_option", underlying="BTC")
PERP = SimpleNamespace(instrument_type="perpetual_future", underlying="BTC")
ETH_PERP = SimpleNamespace(instrument_type="perpetual_future", underlying="ETH")
ODD = SimpleNamespace(instrument_type="exotic_from_the_future", underlying="BTC")


def test_only_option_legs_carry_premium() -> None:
    call = LegFill(Decimal("2"), Decimal("1657.80"))
    perp = LegFill(Decimal("2"), Decimal("98000"))
    assert is_option(CALL) and not is_option(PERP) and not is_option(ODD)
    # Buying the call pays its premium; the perp beside it adds nothing to it.
    assert option_premium([(CALL, True, call), (PERP, False, perp)]) == Decimal("3315.60")
    assert option_premium([(CALL, False, call)]) == Decimal("-3315.60")  # sold: received
    assert option_premium([(PERP, True, perp)]) is None  # a perp has no premium
    assert option_premium([(ODD, True, perp)]) is None  # an unknown kind is not an option


def test_notional_is_never_added_across_underlyings() -> None:
    legs = [
        (PERP, LegFill(Decimal("1"), Decimal("98000"))),
        (CALL, LegFill(Decimal("1"), Decimal("-1500"))),
        (ETH_PERP, LegFill(Decimal("10"), Decimal("3400"))),
    ]
    assert notional_by_underlying(legs) == {"BTC": Decimal("99500"), "ETH": Decimal("34000")}
