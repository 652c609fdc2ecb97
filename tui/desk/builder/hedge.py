"""The delta-hedge leg: the underlying's perpetual, sized against the structure's delta.

The structure's delta per unit is summed over its legs (`tui.desk.analytics.black_scholes`
for an option at the builder's mark and mark vol; 1 for a perpetual or spot unit; the carry
factor for a dated future), signed by side and weighted by ratio. The hedge sells that many
perpetual units per structure unit when the delta is long, buys them when short.

A leg's ratio is a whole number, so a hedge of 0.55 per unit is written by scaling: every
ratio times k and the quantity divided by k (k a divisor of 100, so the quantity stays a
plain decimal), the smallest k that hedges within `HEDGE_TOLERANCE` per structure unit, then
reduced by the ratios' common divisor. One call with delta 0.55 at qty 1 becomes 20 calls and
11 perpetuals at qty 0.05: the same call, 0.55 perpetual units sold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation

from tui.api.models import InstrumentType
from tui.desk.analytics.black_scholes import DEFAULT_RATE, option_value, years_between
from tui.desk.builder.calendar import expiry_moment
from tui.desk.builder.draft import LegDraft
from tui.desk.builder.market import BuilderMarket, MarkVol

HEDGE_TOLERANCE = Decimal("0.005")
"""How far from flat a hedge may leave the delta, in underlying units per structure unit."""
SCALES = (1, 2, 4, 5, 10, 20, 25, 50, 100)
MAX_RATIO = 1000
_LINEAR = {InstrumentType.PERPETUAL_FUTURE.value, InstrumentType.SPOT.value}


class HedgeProblem(ValueError):
    """Why no hedge leg can be built, in words for the builder's form line."""


@dataclass(frozen=True)
class Hedge:
    """The hedged structure: every leg (the hedge last) with its ratio, and the quantity."""

    underlying: str
    delta: Decimal
    """The structure's delta per unit before the hedge (units of the underlying)."""
    legs: tuple[LegDraft, ...]
    qty: Decimal
    mark: Decimal
    vol: MarkVol | None
    """The vol the options were valued at (None: the structure has no option)."""

    @property
    def hedge(self) -> LegDraft:
        """The perpetual leg that hedges."""
        return self.legs[-1]

    @property
    def hedged_units(self) -> Decimal:
        """Perpetual units the hedge trades in all (ratio times quantity)."""
        return Decimal(self.hedge.ratio) * self.qty

    def words(self, old_qty: Decimal) -> str:
        """``sell 0.55 BTC perpetual for delta +0.5512 BTC/unit (mark 98,500, mark vol
        50.0%)``, and the rescaling when there was one."""
        vol = f", {self.vol.source} {self.vol.vol * 100:.1f}%" if self.vol else ""
        text = (
            f"{self.hedge.side} {_plain(self.hedged_units)} {self.underlying} perpetual for "
            f"delta {self.delta:+.4f} {self.underlying}/unit (mark {self.mark:,f}{vol})"
        )
        if self.qty != old_qty:
            text += f"; qty {_plain(old_qty)} -> {_plain(self.qty)}, ratios to match"
        return text


def _plain(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text


def _number(text: str, what: str) -> Decimal:
    try:
        value = Decimal(text.strip().replace(",", ""))
    except InvalidOperation:
        raise HedgeProblem(f"{what} {text!r} is not a number") from None
    if not value.is_finite():
        raise HedgeProblem(f"{what} {text!r} is not a number")
    return value


def _leg_delta(
    leg: LegDraft, index: int, market: BuilderMarket, now: datetime
) -> tuple[Decimal, bool]:
    """One unit of the leg's delta (unsigned by side) and whether it is an option."""
    mark = market.mark(leg.underlying)
    assert mark is not None  # checked by the caller
    if leg.type in _LINEAR:
        return Decimal(1), False
    try:
        day = datetime.strptime(leg.expiry.strip(), "%Y-%m-%d").date()
    except ValueError:
        raise HedgeProblem(f"leg {index + 1}: expiry {leg.expiry!r} is not YYYY-MM-DD") from None
    years = years_between(now, expiry_moment(day))
    if leg.type == InstrumentType.DATED_FUTURE.value:
        carry = math.exp(float(DEFAULT_RATE) * max(float(years), 0.0))
        return Decimal(carry).quantize(Decimal("1e-10")), False
    if leg.type != InstrumentType.VANILLA_OPTION.value:
        raise HedgeProblem(f"leg {index + 1}: cannot value a {leg.type or 'blank'} leg")
    strike = _number(leg.strike, f"leg {index + 1}: strike")
    if strike <= 0:
        raise HedgeProblem(f"leg {index + 1}: strike must be greater than 0")
    value = option_value(leg.payoff, mark, strike, years, market.vol(leg.underlying).vol)
    return value.delta, True


def structure_delta(
    legs: Sequence[LegDraft], market: BuilderMarket, now: datetime
) -> tuple[str, Decimal, bool]:
    """The structure's one underlying, its delta per structure unit, and whether an option
    was valued; `HedgeProblem` names what stops it (several underlyings, no mark, a bad field)."""
    underlyings = sorted({leg.underlying for leg in legs})
    if len(underlyings) != 1:
        raise HedgeProblem(
            f"legs on {' and '.join(underlyings)}: one perpetual hedges one underlying"
        )
    underlying = underlyings[0]
    if market.mark(underlying) is None:
        raise HedgeProblem(f"no mark for {underlying} yet (the market statistics)")
    total = Decimal(0)
    options = False
    for index, leg in enumerate(legs):
        ratio = _number(leg.ratio, f"leg {index + 1}: ratio")
        unit, is_option = _leg_delta(leg, index, market, now)
        options = options or is_option
        total += unit * ratio * (1 if leg.side == "buy" else -1)
    return underlying, total, options


def hedge_structure(
    legs: Sequence[LegDraft], qty: str, market: BuilderMarket, now: datetime
) -> Hedge:
    """``legs`` with a perpetual leg that flattens their delta, rescaled to whole ratios (see
    module docs); `HedgeProblem` says why not."""
    underlying, delta, options = structure_delta(legs, market, now)
    quantity = _number(qty, "qty")
    if quantity <= 0:
        raise HedgeProblem("qty must be greater than 0 to size a hedge")
    need = abs(delta)
    for scale in SCALES:
        units = (need * scale).to_integral_value()
        if abs(units - need * scale) <= HEDGE_TOLERANCE * scale:
            break
    if units == 0:
        raise HedgeProblem(f"delta {delta:+.4f} {underlying}/unit is flat already: no hedge")
    ratios = [int(_number(leg.ratio, "ratio")) * scale for leg in legs] + [int(units)]
    common = math.gcd(*ratios)
    ratios = [r // common for r in ratios]
    if max(ratios) > MAX_RATIO:
        raise HedgeProblem(f"the hedged ratios would pass {MAX_RATIO}: simplify the legs")
    hedge = LegDraft(
        type=InstrumentType.PERPETUAL_FUTURE.value,
        underlying=underlying,
        side="sell" if delta > 0 else "buy",
    )
    new_legs = [
        LegDraft(**{**leg.fields(), "ratio": str(ratio)})
        for leg, ratio in zip([*legs, hedge], ratios, strict=True)
    ]
    mark = market.mark(underlying)
    assert mark is not None
    return Hedge(
        underlying=underlying,
        delta=delta,
        legs=tuple(new_legs),
        qty=quantity * common / scale,
        mark=mark,
        vol=market.vol(underlying) if options else None,
    )
