"""The market over the session: each listing's marks, funding rates and quote refreshes as seen.

The public statistics give only the present: one mark, one funding rate, one set of quotes
with the time they were refreshed. `MarketHistory` keeps what the desk saw of them, fed from
every statistics snapshot (`MarketHistory.note`), so the Market tab can draw a listing's mark
over the session and its detail can list the funding rate period by period.

Everything is bounded. A listing's marks sit in a ring of `SESSION_MARKS` samples (twelve
hours at the statistics' fastest poll, 15 s; the oldest give way first), stored as integer
milliseconds and integer units of the mark's finest decimal place in two machine arrays, so a
sample costs 16 bytes rather than two Python objects. Decimal goes in and comes out: a mark
is read back exactly as the venue wrote it. Funding keeps the last `FUNDING_PERIODS` periods,
quotes the last `QUOTE_REFRESHES` refresh times.

`sparkline` draws a series in block characters, one per column of time, with its low and high
labelled; it is pure (a series and a width in, a string out), so panes and tests share it.
"""

from __future__ import annotations

import statistics
from array import array
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, MutableSequence, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from itertools import pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.api.models import Listing, MarketStats

SESSION_MARKS = 2880
"""Marks kept per listing: twelve hours at the 15 s poll of a Market tab on screen."""
FUNDING_PERIODS = 48
"""Funding periods kept per listing: two days of hourly funding."""
QUOTE_REFRESHES = 64
"""Quote refresh times kept per listing."""
BLOCKS = "▁▂▃▄▅▆▇█"
"""The sparkline's eight levels, lowest first."""
MIN_BARS = 8
"""Fewest bars worth drawing beside the labels; below this the labels are left out."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class MarkSample:
    """One mark as a statistics snapshot gave it, and when the desk read it."""

    at: datetime
    mark: Decimal


def _ms(at: datetime) -> int:
    return (at - _EPOCH) // timedelta(milliseconds=1)


def _exponent(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    return exponent if isinstance(exponent, int) else 0


class MarkSeries:
    """A listing's marks over the session, oldest first, in a ring of ``capacity`` samples.

    Times only move forward: a sample not later than the last one (a poll answered out of
    order) is refused. Marks keep every decimal place the venue sent.
    """

    def __init__(self, capacity: int = SESSION_MARKS) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._times: array[int] = array("q")
        self._units: MutableSequence[int] = array("q")
        self._exponent = 0
        self._head = 0
        """Where the oldest sample is once the ring is full (the next one overwrites it)."""

    def __len__(self) -> int:
        return len(self._times)

    def add(self, at: datetime, mark: Decimal) -> bool:
        """Keep ``mark`` as read at ``at``; False (and nothing kept) when it is not later
        than the last sample or not a finite number."""
        if not mark.is_finite():
            return False
        ms = _ms(at)
        if self._times and ms <= self._times[self._head - 1]:
            return False
        exponent = _exponent(mark)
        if not self._times:
            self._exponent = exponent
        elif exponent < self._exponent:
            self._rescale(exponent)
        units = int(mark.scaleb(-self._exponent))
        try:
            self._store(ms, units)
        except OverflowError:
            # A mark too long for 64 bits: keep this series in Python integers from now on.
            self._units = list(self._units)
            self._store(ms, units)
        return True

    def _store(self, ms: int, units: int) -> None:
        if len(self._times) < self.capacity:
            self._units.append(units)
            self._times.append(ms)
            return
        self._units[self._head] = units
        self._times[self._head] = ms
        self._head = (self._head + 1) % self.capacity

    def _rescale(self, exponent: int) -> None:
        """A mark with more decimal places came: every kept mark in the finer units."""
        factor = 10 ** (self._exponent - exponent)
        scaled = [units * factor for units in self._units]
        try:
            self._units = array("q", scaled)
        except OverflowError:
            self._units = scaled
        self._exponent = exponent

    def _mark(self, units: int) -> Decimal:
        return Decimal(units).scaleb(self._exponent)

    def points(self) -> tuple[list[int], list[int]]:
        """Times (Unix ms) and marks (integer units of one exponent), oldest first: what
        `sparkline` draws from, without making a Decimal per sample."""
        head = self._head
        times = list(self._times[head:]) + list(self._times[:head])
        units = list(self._units[head:]) + list(self._units[:head])
        return times, units

    def samples(self) -> list[MarkSample]:
        """Every sample kept, oldest first."""
        times, units = self.points()
        return [
            MarkSample(_EPOCH + timedelta(milliseconds=ms), self._mark(u))
            for ms, u in zip(times, units, strict=True)
        ]

    def _sample(self, slot: int) -> MarkSample:
        return MarkSample(
            _EPOCH + timedelta(milliseconds=self._times[slot]), self._mark(self._units[slot])
        )

    @property
    def first(self) -> MarkSample | None:
        """The oldest sample kept."""
        return self._sample(self._head) if self._times else None

    @property
    def last(self) -> MarkSample | None:
        """The newest sample."""
        return self._sample(self._head - 1) if self._times else None

    def _extreme(self, pick: Callable[[Sequence[int]], int]) -> MarkSample | None:
        if not self._times:
            return None
        times, units = self.points()
        target = pick(units)
        # The latest time the extreme was seen: the one a trader remembers.
        at = max(ms for ms, u in zip(times, units, strict=True) if u == target)
        return MarkSample(_EPOCH + timedelta(milliseconds=at), self._mark(target))

    def low(self) -> MarkSample | None:
        """The lowest mark kept (the latest time it was seen)."""
        return self._extreme(min)

    def high(self) -> MarkSample | None:
        """The highest mark kept (the latest time it was seen)."""
        return self._extreme(max)

    def change(self) -> Decimal | None:
        """Last mark less the first kept: how far the listing moved over the series."""
        first, last = self.first, self.last
        return None if first is None or last is None else last.mark - first.mark

    def relative_change(self) -> Decimal | None:
        """`change` as a fraction of the first mark (None without two marks or from zero):
        what compares across listings of different prices."""
        first, change = self.first, self.change()
        if first is None or change is None or first.mark == 0 or len(self) < 2:
            return None
        return change / first.mark


def _columns(times: list[int], units: list[int], columns: int) -> list[int]:
    """One mark per equal slice of time (see `spark_bars`)."""
    low, high = min(units), max(units)
    start, span = times[0], times[-1] - times[0]
    # Slice k holds the times t with k <= (t - start) * columns / span < k + 1.
    edges = [bisect_left(times, start + -(-k * span // columns)) for k in range(columns)]
    edges.append(len(times))
    shown: list[int] = []
    for k in range(columns):
        part = units[edges[k] : edges[k + 1]]
        if not part:
            shown.append(shown[-1])
            continue
        has_low, has_high = low in part, high in part
        if has_low and has_high:
            before = shown[-1] if shown else part[-1]
            shown.append(low if abs(before - low) >= abs(before - high) else high)
        else:
            shown.append(low if has_low else high if has_high else part[-1])
    return shown


def spark_bars(series: MarkSeries, width: int) -> str:
    """The series as at most ``width`` block characters, one column per equal slice of time.

    With no more samples than columns, each sample gets its own column. Otherwise a column
    shows the last mark of its slice of time, unless the session's low or high fell in it:
    then that, so the lowest and highest bars are the labelled low and high (a column that
    holds both shows the one further from the column before it: the move). A column no mark
    fell in (the desk was not polling) repeats the one before. A flat series sits at the
    fourth level.
    """
    if width < 1 or not len(series):
        return ""
    times, units = series.points()
    low, high = min(units), max(units)
    columns = min(width, len(units))
    if low == high:
        return BLOCKS[len(BLOCKS) // 2 - 1] * columns
    shown: list[int] = units if columns == len(units) else _columns(times, units, columns)
    top = len(BLOCKS) - 1
    # Rounded to the nearest level, half up, in integers: exact whatever the mark's size.
    return "".join(
        BLOCKS[(2 * (v - low) * top + (high - low)) // (2 * (high - low))] for v in shown
    )


def sparkline(series: MarkSeries, width: int, label: Callable[[Decimal], str] = str) -> str:
    """The series in at most ``width`` characters: bars, then its low and high labelled
    (``▁▃▅█▆  lo 97,912.40  hi 98,640.10``), each number written by ``label``. When the labels
    would leave fewer than `MIN_BARS` bars, the bars alone."""
    low, high = series.low(), series.high()
    if low is None or high is None:
        return ""
    labels = f"  lo {label(low.mark)}  hi {label(high.mark)}"
    room = width - len(labels)
    if room < MIN_BARS:
        return spark_bars(series, width)
    return spark_bars(series, room) + labels


@dataclass
class FundingPeriod:
    """The funding rates the desk read during one funding period of a listing.

    ``rate`` is the last one read (what the period is heading for), ``low`` and ``high`` the
    range read, ``reads`` how many snapshots fell in it. Rates are per period, as decimals.
    """

    starts: datetime
    interval_s: int
    rate: Decimal
    low: Decimal
    high: Decimal
    reads: int = 1

    @property
    def ends(self) -> datetime:
        """When the period closes (the next one starts)."""
        return self.starts + timedelta(seconds=self.interval_s)


class FundingSeen:
    """A listing's funding rate period by period, as read over the session.

    The venue publishes only the current rate, so this is the desk's own record: periods
    start at multiples of the interval since the Unix epoch (UTC), and a period the desk did
    not poll in is missing, not zero.
    """

    def __init__(self, capacity: int = FUNDING_PERIODS) -> None:
        self.periods: deque[FundingPeriod] = deque(maxlen=capacity)

    def note(self, at: datetime, rate: Decimal, interval_s: int) -> None:
        """The rate read at ``at`` for a period of ``interval_s`` seconds."""
        interval = max(1, interval_s)
        starts = _EPOCH + timedelta(
            seconds=int((at - _EPOCH).total_seconds()) // interval * interval
        )
        current = self.periods[-1] if self.periods else None
        if current is not None and current.starts == starts and current.interval_s == interval:
            current.rate = rate
            current.low = min(current.low, rate)
            current.high = max(current.high, rate)
            current.reads += 1
        elif current is None or starts > current.starts:
            self.periods.append(FundingPeriod(starts, interval, rate, rate, rate))

    def latest_first(self) -> list[FundingPeriod]:
        """The periods kept, newest first."""
        return list(reversed(self.periods))


@dataclass
class QuoteAges:
    """When a listing's indicative quotes were refreshed, and how old they were when read.

    The venue stamps all sizes of a listing with one ``updated_at`` and may cache them for up
    to 600 s; the refresh times seen tell how often it actually does.
    """

    refreshes: deque[datetime] = field(default_factory=lambda: deque(maxlen=QUOTE_REFRESHES))
    oldest_read_s: float | None = None
    """The oldest the quotes were at any read this session, in seconds."""

    def note(self, at: datetime, updated_at: datetime | None) -> None:
        """Quotes stamped ``updated_at`` were read at ``at``."""
        if updated_at is None:
            return
        if not self.refreshes or updated_at > self.refreshes[-1]:
            self.refreshes.append(updated_at)
        age = max(0.0, (at - updated_at).total_seconds())
        self.oldest_read_s = age if self.oldest_read_s is None else max(self.oldest_read_s, age)

    def typical_gap_s(self) -> float | None:
        """The median time between refreshes seen (None before two were seen)."""
        gaps = [(b - a).total_seconds() for a, b in pairwise(self.refreshes)]
        return statistics.median(gaps) if gaps else None


@dataclass
class ListingHistory:
    """What the desk saw of one listing over the session."""

    ticker: str
    marks: MarkSeries
    funding: FundingSeen = field(default_factory=FundingSeen)
    quotes: QuoteAges = field(default_factory=QuoteAges)

    def note(self, listing: Listing, at: datetime) -> None:
        """One listing of a statistics snapshot read at ``at``."""
        self.marks.add(at, listing.mark_price)
        self.funding.note(at, listing.funding_rate, listing.funding_interval_s)
        self.quotes.note(at, listing.quotes.updated_at)


class MarketHistory:
    """Every listing's history over the session, fed from each statistics snapshot.

    A listing that drops out of the statistics keeps its history (it may come back).
    """

    def __init__(self, capacity: int = SESSION_MARKS) -> None:
        self.capacity = capacity
        self.since: datetime | None = None
        """When the first snapshot was read."""
        self._listings: dict[str, ListingHistory] = {}
        self._empty = MarkSeries(1)

    def note(self, stats: MarketStats | None, at: datetime) -> None:
        """File a statistics snapshot read at ``at`` (the snapshot message's time)."""
        if stats is None:
            return
        if self.since is None:
            self.since = at
        for listing in stats.listings:
            history = self._listings.get(listing.ticker)
            if history is None:
                history = ListingHistory(listing.ticker, MarkSeries(self.capacity))
                self._listings[listing.ticker] = history
            history.note(listing, at)

    def listing(self, ticker: str) -> ListingHistory | None:
        """One listing's history (None before any snapshot listed it)."""
        return self._listings.get(ticker)

    def marks(self, ticker: str) -> MarkSeries:
        """One listing's marks (an empty series before any snapshot listed it)."""
        history = self._listings.get(ticker)
        return history.marks if history is not None else self._empty
