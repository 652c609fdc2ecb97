"""The venue's standard expiries and a strike grid around the mark, for the builder's lists.

The contract takes any future expiry and any strike, so these are offers, never rules: the
builder still takes a date or strike typed by hand. The calendar is the one the sandbox's
listings trade (and the big crypto venues with them): every expiry at 08:00 UTC
(`EXPIRY_HOUR_UTC`), weeklies on Fridays, monthlies on the last Friday of a month, quarterlies
on the last Friday of March, June, September and December. Strikes step by a round number (1,
2 or 5 times a power of ten) of about 2.5 % of the mark, inside the venue's range of 1 % to
1000 % of the mark.
"""

from __future__ import annotations

import calendar as _months
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

EXPIRY_HOUR_UTC = 8
"""Dated futures and options expire at 08:00 UTC on their expiry date."""
FRIDAY = 4
QUARTER_MONTHS = (3, 6, 9, 12)
STRIKE_STEP_SHARE = Decimal("0.025")
"""A strike grid steps by about this share of the mark (rounded down to 1, 2 or 5 x 10^n)."""
STRIKE_RANGE = (Decimal("0.01"), Decimal("10"))
"""The venue's strikes lie between 1 % and 1000 % of the underlying's mark."""


@dataclass(frozen=True)
class StandardExpiry:
    """One expiry date of the calendar and what it is (weekly, monthly, quarterly)."""

    day: date
    kinds: tuple[str, ...]

    @property
    def at(self) -> datetime:
        """The moment it expires: 08:00 UTC on its day."""
        return expiry_moment(self.day)

    def label(self, now: datetime) -> str:
        """``2026-01-30 Fri monthly 24d``: the date as the field takes it, then what it is."""
        days = max((self.at - now).days, 0)
        return f"{self.day.isoformat()} {self.day:%a} {'/'.join(self.kinds)} {days}d"


def expiry_moment(day: date) -> datetime:
    """08:00 UTC on ``day``."""
    return datetime.combine(day, time(EXPIRY_HOUR_UTC), tzinfo=UTC)


def last_friday(year: int, month: int) -> date:
    """The last Friday of a month."""
    last = date(year, month, _months.monthrange(year, month)[1])
    return last - timedelta(days=(last.weekday() - FRIDAY) % 7)


def _months_from(start: date, count: int) -> list[tuple[int, int]]:
    out = []
    year, month = start.year, start.month
    for _ in range(count):
        out.append((year, month))
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return out


def standard_expiries(
    now: datetime, *, weeklies: int = 4, monthlies: int = 3, quarterlies: int = 4
) -> list[StandardExpiry]:
    """The next expiries of the calendar, soonest first, each date once with all it is.

    Only expiries still ahead of ``now`` (at 08:00 UTC on their day) are offered.
    """
    kinds: dict[date, list[str]] = {}
    moment = now.astimezone(UTC)
    friday = moment.date() + timedelta(days=(FRIDAY - moment.weekday()) % 7)
    found = 0
    while found < weeklies:
        if expiry_moment(friday) > moment:
            kinds.setdefault(friday, []).append("weekly")
            found += 1
        friday += timedelta(days=7)
    ahead = [
        last_friday(y, m)
        for y, m in _months_from(moment.date(), 24)
        if expiry_moment(last_friday(y, m)) > moment
    ]
    for day in ahead[:monthlies]:
        kinds.setdefault(day, []).append("monthly")
    for day in [d for d in ahead if d.month in QUARTER_MONTHS][:quarterlies]:
        kinds.setdefault(day, []).append("quarterly")
    return [StandardExpiry(day, tuple(kinds[day])) for day in sorted(kinds)]


def strike_step(mark: Decimal) -> Decimal:
    """The grid's step: 1, 2 or 5 times a power of ten, the largest not above 2.5 % of mark."""
    if mark <= 0:
        raise ValueError("mark must be greater than 0")
    target = mark * STRIKE_STEP_SHARE
    power = Decimal(1).scaleb(target.adjusted())
    for multiple in (5, 2, 1):
        if multiple * power <= target:
            return Decimal(multiple) * power
    return power


def strike_grid(mark: Decimal, each_side: int = 8) -> list[Decimal]:
    """Strikes around the mark, lowest first: the grid strike nearest the mark and
    ``each_side`` steps below and above it, kept inside the venue's range (`STRIKE_RANGE`)."""
    step = strike_step(mark)
    centre = (mark / step).to_integral_value()
    low, high = mark * STRIKE_RANGE[0], mark * STRIKE_RANGE[1]
    grid = []
    for offset in range(-each_side, each_side + 1):
        strike = (centre + offset) * step
        if low <= strike <= high:
            grid.append(Decimal(format(strike.normalize(), "f")))
    return grid


def nearest_strike(grid: list[Decimal], mark: Decimal) -> Decimal | None:
    """The strike of ``grid`` nearest the mark (at the money), None for an empty grid."""
    return min(grid, key=lambda strike: abs(strike - mark)) if grid else None
