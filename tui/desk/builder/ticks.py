"""The quantity an RFQ may ask for: a whole number of each leg underlying's quantity tick.

The venue lists each asset's ``min_qty_tick`` (``GET /metadata/supported_assets``, in the
book as `DeskBook.assets`): an RFQ's quantity must be a multiple of it for every underlying
it trades, so the smallest RFQ is one tick. The builder checks that before sending and says
it under the quantity; the venue remains the judge (an asset the desk has no tick for is
left to it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal

from tui.desk.widgets.common import fmt


def qty_ticks(assets: Mapping[str, Iterable[object]]) -> dict[str, Decimal]:
    """Each asset's quantity tick, from the supported assets (the first detail giving one)."""
    ticks: dict[str, Decimal] = {}
    for asset, details in assets.items():
        for detail in details:
            tick = getattr(detail, "min_qty_tick", None)
            if isinstance(tick, Decimal) and tick > 0:
                ticks[asset] = tick
                break
    return ticks


def qty_tick_problem(
    qty: Decimal, underlyings: Iterable[str], ticks: Mapping[str, Decimal], typed: str
) -> str:
    """Why ``qty`` is not a quantity of these underlyings (empty: it is, or no tick is
    known): ``below BTC's minimum of 0.0001 (typed 0.00001)``, ``not a multiple of BTC's
    quantity tick 0.0001 (typed 0.1234567890123)``. A quantity of zero or less is the request
    model's to judge."""
    if qty <= 0:
        return ""
    for underlying in dict.fromkeys(underlyings):
        tick = ticks.get(underlying)
        if tick is None:
            continue
        if qty < tick:
            return f"below {underlying}'s minimum of {fmt.exact(tick)} (typed {typed.strip()})"
        if qty % tick != 0:
            return (
                f"not a multiple of {underlying}'s quantity tick {fmt.exact(tick)}"
                f" (typed {typed.strip()})"
            )
    return ""
