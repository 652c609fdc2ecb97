"""The plan of the seeded past: which trades, when, on what, between whom, how big.

A pure function of the seed (`plan_history`): per listing, a seeded number of perpetual trades
whose notionals add up to about the listing's daily volume (tens of millions of USDC a day on
BTC), at seeded times, between seeded pairs of a maker and a taker. `tui.sandbox.engine.history`
books the plan by the engine's clearing rules and writes it in bulk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from tui.sandbox.actors.profiles import draw, log_uniform

__all__ = [
    "ALT_DAILY_VOLUME",
    "DEFAULT_DAILY_VOLUME",
    "DEFAULT_PAIRS",
    "HistoryConfig",
    "PlannedTrade",
    "plan_history",
]

DEFAULT_DAILY_VOLUME: dict[str, Decimal] = {
    "BTC": Decimal(30_000_000),
    "ETH": Decimal(15_000_000),
    "SOL": Decimal(6_000_000),
}
"""USDC traded per day by listing; a listing not named here trades `ALT_DAILY_VOLUME`."""
ALT_DAILY_VOLUME = Decimal(800_000)
"""USDC traded per day by a listing `DEFAULT_DAILY_VOLUME` does not name."""

DEFAULT_PAIRS: tuple[tuple[str, str], ...] = (
    ("ALPHA", "EMBR"),
    ("CBLT", "EMBR"),
    ("BORE", "FJRD"),
    ("DUNE", "FJRD"),
    ("BORE", "ALPHA"),
    ("DUNE", "CBLT"),
)
"""(maker, taker) pairs that traded in the past, each in a pool of its own."""


@dataclass(frozen=True)
class HistoryConfig:
    """What the seeded past looks like.

    ``scale`` multiplies every listing's daily volume (tests use a small one to stay fast).
    Deposits are what each side of a history pool puts in at the start (USDC, from its
    wallet); ``max_position`` is the notional (USDC) beyond which a taker mostly reduces.
    """

    hours: float = 26.0
    scale: float = 1.0
    daily_volume: dict[str, Decimal] = field(default_factory=lambda: dict(DEFAULT_DAILY_VOLUME))
    alt_daily_volume: Decimal = ALT_DAILY_VOLUME
    pairs: tuple[tuple[str, str], ...] = DEFAULT_PAIRS
    maker_deposit: Decimal = Decimal(400_000)
    taker_deposit: Decimal = Decimal(250_000)
    major_size: tuple[Decimal, Decimal] = (Decimal(40_000), Decimal(1_200_000))
    alt_size: tuple[Decimal, Decimal] = (Decimal(5_000), Decimal(120_000))
    major_max_position: Decimal = Decimal(600_000)
    alt_max_position: Decimal = Decimal(100_000)

    def __post_init__(self) -> None:
        if not self.hours > 0:
            raise ValueError("hours must be greater than 0")
        if not self.scale >= 0:
            raise ValueError("scale must not be negative")
        if not self.pairs:
            raise ValueError("pairs must not be empty")
        if len(set(self.pairs)) != len(self.pairs):
            raise ValueError("pairs must not repeat a (maker, taker) pair: each has one pool")


@dataclass(frozen=True)
class PlannedTrade:
    """One trade of the seeded past: when, on what, between whom, which way, how big.

    ``side`` is the taker's; ``notional`` is USDC at the plan's reference price, turned into a
    quantity at the mark of ``at_ms`` when the trade is played.
    """

    at_ms: int
    underlying: str
    maker: str
    taker: str
    notional: Decimal
    index: int


def plan_history(
    seed: int,
    underlyings: list[str],
    majors: set[str],
    start_ms: int,
    end_ms: int,
    config: HistoryConfig,
) -> list[PlannedTrade]:
    """The seeded trades of ``[start_ms, end_ms)``, in time order (a pure function).

    Per listing, trades are drawn one after another until their notionals add up to the
    listing's daily volume times the span in days times ``config.scale``; each gets a seeded
    time in the span and a seeded pair of ``config.pairs``.
    """
    span_ms = end_ms - start_ms
    if span_ms <= 0:
        return []
    days = Decimal(span_ms) / Decimal(86_400_000)
    trades: list[PlannedTrade] = []
    for underlying in underlyings:
        daily = config.daily_volume.get(underlying, config.alt_daily_volume)
        target = daily * days * Decimal(str(config.scale))
        low, high = config.major_size if underlying in majors else config.alt_size
        total = Decimal(0)
        index = 0
        while total < target:
            key = ("history", underlying, index)
            notional = log_uniform(seed, low, high, *key, "size")
            at_ms = start_ms + int(draw(seed, *key, "time") * span_ms)
            maker, taker = config.pairs[int(draw(seed, *key, "pair") * len(config.pairs))]
            trades.append(PlannedTrade(at_ms, underlying, maker, taker, notional, index))
            total += notional
            index += 1
    trades.sort(key=lambda t: (t.at_ms, t.underlying, t.index))
    return trades
