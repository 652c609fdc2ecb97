"""Small facts about pools and deposits that the book, the roles and the panes all read.

What a permit must allow for a trade (`DepositHint`), one party's margins in a pool
(`party_margin`), and a decimal read from a tolerant record's extra field (`extra_decimal`).
Plain data, no Textual, no network.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.api.models import PartyMargin, SettlementPool


__all__ = ["DepositHint", "extra_decimal", "party_margin"]


@dataclass
class DepositHint:
    """What a permit must allow for a trade: amount and pool address, when the venue said."""

    amount: Decimal | None = None
    pool_address: str | None = None


def party_margin(pool: SettlementPool, company: str | None) -> PartyMargin | None:
    """One party's balance and margins in a pool."""
    if pool.data is None:
        return None
    for party in pool.data.parties:
        if party.company == company:
            return party.margin_usage
    return None


def extra_decimal(value: object) -> Decimal | None:
    """A decimal from a tolerant record's extra field (None when absent or not a number)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None
