"""Who the simulated counterparties are: configuration, seeded profiles and seeded draws.

Every decision an actor takes (quote this RFQ or not, after how long, reject this trade at last
look, when to send the next RFQ, what to ask for) comes from `draw`, a hash of the sandbox seed,
the actor and what the decision is about. No shared random stream is consumed, so the order in
which the runner happens to look at things can never change an outcome: the same seed and the
same sequence of clock steps give the very same actions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum

from tui.sandbox.market.pricepath import seeded_int

__all__ = [
    "DEFAULT_MAKER_ARCHETYPES",
    "ActorConfig",
    "LastLookAction",
    "MakerArchetype",
    "MakerProfile",
    "TakerProfile",
    "choose",
    "draw",
    "exponential",
    "log_uniform",
    "maker_profile",
    "taker_profile",
    "uniform",
]

_TWO_64 = float(1 << 64)


def draw(seed: int, *parts: object) -> float:
    """A number in [0, 1) that depends only on ``seed`` and ``parts`` (the decision's key)."""
    return seeded_int(seed, "actor", *parts) / _TWO_64


def uniform(seed: int, low: float, high: float, *parts: object) -> float:
    """A seeded draw spread evenly over [low, high)."""
    return low + (high - low) * draw(seed, *parts)


def exponential(seed: int, mean: float, *parts: object) -> float:
    """A seeded exponential draw with the given mean (waiting times of a Poisson process)."""
    return -mean * math.log(1.0 - draw(seed, *parts))


def log_uniform(seed: int, low: Decimal, high: Decimal, *parts: object) -> Decimal:
    """A seeded amount between ``low`` and ``high``, as likely in each decade (to the cent).

    Sizes of trades spread this way: as many between 10k and 100k as between 100k and 1m.
    """
    if not 0 < low <= high:
        raise ValueError("log_uniform needs 0 < low <= high")
    fraction = Decimal(repr(draw(seed, *parts)))
    return (low * (high / low) ** fraction).quantize(Decimal("0.01"))


def choose(seed: int, weights: dict[str, float], *parts: object) -> str:
    """One key of ``weights``, picked with probability proportional to its weight."""
    total = sum(weights.values())
    point = draw(seed, *parts) * total
    running = 0.0
    for key, weight in weights.items():
        running += weight
        if point < running:
            return key
    return next(reversed(weights))


class LastLookAction(StrEnum):
    """What a maker does with a trade waiting for its last look."""

    ACCEPT = "accept"
    REJECT = "reject"
    EXPIRE = "expire"
    """Say nothing, so the exchange rejects the trade when the last-look window closes."""


@dataclass(frozen=True)
class ActorConfig:
    """How the simulated counterparties behave; the sandbox command's flags fill it.

    ``pace`` speeds the whole simulated market up (2.0: twice as many RFQs, answers in half
    the time) or slows it down; it never changes *what* actors decide, only when.
    """

    enabled: bool = True
    """Master switch: False runs no actor at all."""
    makers: bool = True
    """Simulated makers (ALPHA, BORE, CBLT, DUNE) quote RFQs targeted at them."""
    takers: bool = True
    """Simulated takers (EMBR, FJRD) send RFQs to the user's company."""
    pace: float = 1.0
    """Speed factor: rates are multiplied and latencies divided by it (> 0)."""
    taker_rfq_interval_s: float = 45.0
    """Mean time between two RFQs of one taker at pace 1 (a Poisson process)."""
    taker_rfq_lifetime_s: float = 60.0
    """How long a simulated taker's RFQ stays open."""
    taker_limit_bps: Decimal = Decimal(40)
    """The worst price a taker accepts, in bps of the traded notional away from the mark."""
    taker_competition: float = 0.5
    """Chance that a taker's RFQ also goes to one or two simulated makers besides the user."""
    user_company: str = "DESK"
    """Short name of the user's company: the takers' audience."""
    maker_names: tuple[str, ...] = ("ALPHA", "BORE", "CBLT", "DUNE")
    taker_names: tuple[str, ...] = ("EMBR", "FJRD")
    first_rfq_delay_s: float = 5.0
    """A taker's first RFQ comes at least this long after the runner starts (pace 1)."""

    def __post_init__(self) -> None:
        if not self.pace > 0:
            raise ValueError("pace must be greater than 0")
        if not self.taker_rfq_interval_s > 0:
            raise ValueError("taker_rfq_interval_s must be greater than 0")
        if not self.taker_rfq_lifetime_s >= 10:
            raise ValueError("taker_rfq_lifetime_s must be at least 10 seconds")
        if self.taker_limit_bps < 0:
            raise ValueError("taker_limit_bps must not be negative")
        if not 0 <= self.taker_competition <= 1:
            raise ValueError("taker_competition must be between 0 and 1")

    def scaled(self, seconds: float) -> float:
        """A duration of the pace-1 market at this config's pace."""
        return seconds / self.pace


@dataclass(frozen=True)
class MakerArchetype:
    """The character of a simulated maker, before the seed jitters it.

    Latencies are seconds at pace 1; ``answer_rate`` is the share of RFQs it quotes at all;
    ``last_look`` the probabilities of accepting, rejecting or letting a trade expire.
    """

    latency_s: tuple[float, float]
    spread_multiplier: float
    answer_rate: float
    quote_lifetime_s: float
    restate_after_s: float
    restate_move_bps: float
    last_look: dict[str, float]
    last_look_delay_s: tuple[float, float] = (0.3, 2.0)
    quotes_options: bool = True


DEFAULT_MAKER_ARCHETYPES: dict[str, MakerArchetype] = {
    # Fast and keen: answers nearly everything within two seconds, a normal spread.
    "ALPHA": MakerArchetype(
        latency_s=(0.5, 2.0),
        spread_multiplier=1.0,
        answer_rate=0.97,
        quote_lifetime_s=30.0,
        restate_after_s=20.0,
        restate_move_bps=4.0,
        last_look={"accept": 0.85, "reject": 0.10, "expire": 0.05},
    ),
    # Slow but sharp: the tightest prices, after a thoughtful 5-15 s.
    "BORE": MakerArchetype(
        latency_s=(5.0, 15.0),
        spread_multiplier=0.8,
        answer_rate=0.9,
        quote_lifetime_s=45.0,
        restate_after_s=30.0,
        restate_move_bps=6.0,
        last_look={"accept": 0.9, "reject": 0.07, "expire": 0.03},
        last_look_delay_s=(1.0, 4.0),
    ),
    # Middling speed, wide: quotes almost anything for a fee.
    "CBLT": MakerArchetype(
        latency_s=(1.5, 5.0),
        spread_multiplier=1.5,
        answer_rate=0.95,
        quote_lifetime_s=20.0,
        restate_after_s=15.0,
        restate_move_bps=3.0,
        last_look={"accept": 0.8, "reject": 0.15, "expire": 0.05},
    ),
    # Picky: ignores a good share of RFQs and all options, fast when it does answer.
    "DUNE": MakerArchetype(
        latency_s=(0.8, 3.0),
        spread_multiplier=1.2,
        answer_rate=0.6,
        quote_lifetime_s=25.0,
        restate_after_s=20.0,
        restate_move_bps=5.0,
        last_look={"accept": 0.75, "reject": 0.15, "expire": 0.10},
        quotes_options=False,
    ),
}
"""The four seeded makers' characters, by short name."""

_GENERIC_MAKER = MakerArchetype(
    latency_s=(1.0, 6.0),
    spread_multiplier=1.2,
    answer_rate=0.85,
    quote_lifetime_s=30.0,
    restate_after_s=20.0,
    restate_move_bps=10.0,
    last_look={"accept": 0.85, "reject": 0.10, "expire": 0.05},
)


@dataclass(frozen=True)
class MakerProfile:
    """One simulated maker as it trades in this sandbox: its archetype jittered by the seed."""

    name: str
    latency_s: tuple[float, float]
    spread_multiplier: Decimal
    answer_rate: float
    quote_lifetime_s: float
    restate_after_s: float
    restate_move_bps: Decimal
    last_look: dict[str, float] = field(default_factory=dict)
    last_look_delay_s: tuple[float, float] = (0.3, 2.0)
    quotes_options: bool = True

    def answers(self, seed: int, rfq_id: str) -> bool:
        """Whether this maker quotes the RFQ at all (some are never answered)."""
        return draw(seed, self.name, rfq_id, "answer") < self.answer_rate

    def latency(self, seed: int, rfq_id: str) -> float:
        """Seconds (pace 1) between the RFQ's arrival and this maker's first quote."""
        low, high = self.latency_s
        return uniform(seed, low, high, self.name, rfq_id, "latency")

    def last_look_action(self, seed: int, quote_id: str) -> LastLookAction:
        """The maker's answer to the trade on ``quote_id`` (reject, accept or silence)."""
        return LastLookAction(choose(seed, self.last_look, self.name, quote_id, "last-look"))

    def last_look_delay(self, seed: int, quote_id: str) -> float:
        """Seconds (pace 1) the maker takes over its last look."""
        low, high = self.last_look_delay_s
        return uniform(seed, low, high, self.name, quote_id, "last-look-delay")


def maker_profile(seed: int, name: str) -> MakerProfile:
    """The profile of maker ``name`` in the sandbox of ``seed``.

    Spread and lifetimes move by up to +-10 % with the seed, so two sandboxes' makers are
    recognisably the same firms yet not identical; latencies and probabilities stay as the
    archetype says (tests rely on their ranges).
    """
    base = DEFAULT_MAKER_ARCHETYPES.get(name, _GENERIC_MAKER)

    def jitter(value: float, purpose: str) -> float:
        return value * uniform(seed, 0.9, 1.1, name, "profile", purpose)

    return MakerProfile(
        name=name,
        latency_s=base.latency_s,
        spread_multiplier=Decimal(str(round(jitter(base.spread_multiplier, "spread"), 3))),
        answer_rate=base.answer_rate,
        quote_lifetime_s=round(jitter(base.quote_lifetime_s, "lifetime"), 1),
        restate_after_s=round(jitter(base.restate_after_s, "restate"), 1),
        restate_move_bps=Decimal(str(round(jitter(base.restate_move_bps, "move"), 2))),
        last_look=dict(base.last_look),
        last_look_delay_s=base.last_look_delay_s,
        quotes_options=base.quotes_options,
    )


@dataclass(frozen=True)
class TakerProfile:
    """One simulated taker: how big it trades, how patient and how price-sensitive it is."""

    name: str
    notional_usdc: tuple[Decimal, Decimal]
    """Range (log-uniform) of an RFQ's notional, USDC."""
    decide_after_s: tuple[float, float]
    """Seconds (pace 1) the taker collects quotes before it looks at them."""
    limit_bps: Decimal
    """Worst accepted price, bps of notional away from the mark."""


def taker_profile(seed: int, name: str, config: ActorConfig) -> TakerProfile:
    """The profile of taker ``name``: sizes, patience and price limit jittered by the seed."""
    small = name.upper() == "FJRD"
    notional = (
        (Decimal(10_000), Decimal(400_000)) if small else (Decimal(25_000), Decimal(1_500_000))
    )
    limit = config.taker_limit_bps * Decimal(str(round(uniform(seed, 0.8, 1.2, name, "lim"), 3)))
    return TakerProfile(
        name=name,
        notional_usdc=notional,
        decide_after_s=(12.0, 30.0) if small else (8.0, 25.0),
        limit_bps=limit.quantize(Decimal("0.01")),
    )
