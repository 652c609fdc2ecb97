"""Faults on purpose: ``rfq-desk sandbox --faults SPEC`` makes the sandbox misbehave at chosen
rates, so a client can be shown to lose nothing and double nothing when network and server fail.

SPEC is comma-separated ``NAME=VALUE`` items, each name at most once::

    latency=DUR        every request waits DUR before the server takes it in
    spike=P:DUR        with probability P a request waits DUR more
    5xx=P              answer 500/9000 (the contract's envelope) without touching the engine
    429=P[:DUR]        start a 429 storm of DUR (default 1s): every request until it ends is
                       refused 429/5000, ``X-Rate-Limit-Resets-In-Ms`` = the time left, and
                       charged nothing
    drop_before=P      close the connection without an answer before the engine sees the request
    drop_after=P       let the request run (a write commits), then close the connection without
                       its answer: the "answer lost after commit" a client must resolve
    skew=[+|-]DUR      the server clock runs DUR ahead of (+) or behind (-) real time
    seed=N             seed of the draws (default 0): the same seed and the same sequence of
                       requests meet the same faults

``DUR`` is a number with a unit, ``ms`` or ``s`` (``50ms``, ``2s``, ``1.5s``); ``P`` a probability
from 0 to 1. Example: ``latency=50ms,spike=0.05:2s,5xx=0.05,429=0.02:3s,drop_before=0.03,
drop_after=0.03,skew=+3s,seed=7``.

`parse_faults` reads a SPEC (a `FaultSpecError` names the bad item); `FaultInjector` draws, per
request, what happens to it (`FaultInjector.delay_s`, then `FaultInjector.decide`); the HTTP layer
acts on the draw. The skew is not drawn: `fault_clock` builds the sandbox clock with it.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass

from tui.sandbox.engine.clock import SandboxClock

__all__ = [
    "DEFAULT_STORM_MS",
    "FaultDraw",
    "FaultInjector",
    "FaultSpec",
    "FaultSpecError",
    "fault_clock",
    "parse_faults",
]

DEFAULT_STORM_MS = 1_000
"""How long a 429 storm lasts when the spec gives no duration."""
_MAX_DELAY_MS = 60_000
_MAX_SKEW_MS = 86_400_000
_DURATION = re.compile(r"([+-]?)(\d+(?:\.\d+)?)(ms|s)")


class FaultSpecError(ValueError):
    """A SPEC that does not parse; the message names the bad item and what it should be."""


@dataclass(frozen=True, slots=True)
class FaultSpec:
    """Which faults, at which rates (probabilities per request) and for how long (ms)."""

    latency_ms: int = 0
    spike_rate: float = 0.0
    spike_ms: int = 0
    error_rate: float = 0.0
    storm_rate: float = 0.0
    storm_ms: int = DEFAULT_STORM_MS
    drop_before_rate: float = 0.0
    drop_after_rate: float = 0.0
    skew_ms: int = 0
    seed: int = 0

    def __str__(self) -> str:
        items = (
            ("latency", self.latency_ms, f"{self.latency_ms}ms"),
            ("spike", self.spike_rate, f"{self.spike_rate:g}:{self.spike_ms}ms"),
            ("5xx", self.error_rate, f"{self.error_rate:g}"),
            ("429", self.storm_rate, f"{self.storm_rate:g}:{self.storm_ms}ms"),
            ("drop_before", self.drop_before_rate, f"{self.drop_before_rate:g}"),
            ("drop_after", self.drop_after_rate, f"{self.drop_after_rate:g}"),
            ("skew", self.skew_ms, f"{self.skew_ms:+d}ms"),
        )
        shown = [f"{name}={text}" for name, value, text in items if value]
        return ",".join([*shown, f"seed={self.seed}"])


def _probability(item: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:  # also refuses nan
        raise FaultSpecError(f"{item!r}: {text!r} is not a probability from 0 to 1")
    return value


def _duration(item: str, text: str, *, signed: bool = False, limit: int = _MAX_DELAY_MS) -> int:
    match = _DURATION.fullmatch(text.strip())
    if match is None or (match.group(1) and not signed):
        sign = "[+|-]" if signed else ""
        raise FaultSpecError(
            f"{item!r}: {text!r} is not a duration; write {sign}N with ms or s, e.g. 50ms or 2s"
        )
    sign, number, unit = match.groups()
    ms = round(float(number) * (1 if unit == "ms" else 1000))
    if ms > limit:
        raise FaultSpecError(f"{item!r}: at most {limit} ms")
    return -ms if sign == "-" else ms


def _rate_and_duration(item: str, value: str, default_ms: int | None) -> tuple[float, int]:
    rate_text, colon, duration_text = value.partition(":")
    if not colon:
        if default_ms is None:
            raise FaultSpecError(f"{item!r}: give P:DUR, e.g. spike=0.05:2s")
        return _probability(item, rate_text), default_ms
    duration = _duration(item, duration_text)
    if duration <= 0:
        raise FaultSpecError(f"{item!r}: the duration must be more than 0")
    return _probability(item, rate_text), duration


def _seed(item: str, value: str) -> int:
    text = value.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        raise FaultSpecError(f"{item!r}: the seed is a whole number from 0")
    return int(text)


_NAMES = ("latency", "spike", "5xx", "429", "drop_before", "drop_after", "skew", "seed")


def parse_faults(text: str) -> FaultSpec:
    """The `FaultSpec` of a SPEC (grammar in the module docstring), or a `FaultSpecError`."""
    if not text.strip():
        raise FaultSpecError("the fault spec is empty; e.g. latency=50ms,5xx=0.05,seed=7")
    fields: dict[str, object] = {}
    seen: set[str] = set()
    for raw in text.split(","):
        item = raw.strip()
        name, equals, value = item.partition("=")
        name = name.strip()
        if not equals or not name or not value.strip():
            raise FaultSpecError(f"{item!r}: write NAME=VALUE, e.g. latency=50ms")
        if name not in _NAMES:
            raise FaultSpecError(f"{item!r}: unknown fault {name!r} (known: {', '.join(_NAMES)})")
        if name in seen:
            raise FaultSpecError(f"{item!r}: {name} is given twice")
        seen.add(name)
        value = value.strip()
        if name == "latency":
            fields["latency_ms"] = _duration(item, value)
        elif name == "spike":
            fields["spike_rate"], fields["spike_ms"] = _rate_and_duration(item, value, None)
        elif name == "5xx":
            fields["error_rate"] = _probability(item, value)
        elif name == "429":
            rate, storm = _rate_and_duration(item, value, DEFAULT_STORM_MS)
            fields["storm_rate"], fields["storm_ms"] = rate, storm
        elif name == "drop_before":
            fields["drop_before_rate"] = _probability(item, value)
        elif name == "drop_after":
            fields["drop_after_rate"] = _probability(item, value)
        elif name == "skew":
            fields["skew_ms"] = _duration(item, value, signed=True, limit=_MAX_SKEW_MS)
        else:
            fields["seed"] = _seed(item, value)
    return FaultSpec(**fields)  # type: ignore[arg-type]


def fault_clock(spec: FaultSpec | None) -> SandboxClock:
    """The sandbox clock, running ``spec.skew_ms`` away from real time (none without a spec)."""
    return SandboxClock(offset_ms=spec.skew_ms if spec is not None else 0)


@dataclass(frozen=True, slots=True)
class FaultDraw:
    """What happens to one request once the server has taken it in.

    At most one of ``drop_before``, ``server_error`` and ``storm_wait_ms`` is set (the request
    never reaches the engine); ``drop_after`` only when none of them is.
    """

    drop_before: bool = False
    server_error: bool = False
    storm_wait_ms: int = 0
    drop_after: bool = False

    @property
    def reaches_engine(self) -> bool:
        """True when the request is served (perhaps to lose its answer afterwards)."""
        return not (self.drop_before or self.server_error or self.storm_wait_ms)


_CLEAN = FaultDraw()


class FaultInjector:
    """Draws the faults of each request from a `FaultSpec` with a seeded generator.

    Draws happen in the order requests are taken in, each request drawing in a fixed order
    (spike; then drop before, 5xx, 429, drop after), so the same seed and the same sequence of
    requests meet the same faults. A 429 storm lasts on the sandbox clock: every request taken
    in before it ends is refused, with the time left as its reset.
    """

    def __init__(self, spec: FaultSpec) -> None:
        self.spec = spec
        self._rng = random.Random(spec.seed)
        self._storm_until_ms: int | None = None

    def __repr__(self) -> str:
        return f"FaultInjector({self.spec})"

    def _hit(self, rate: float) -> bool:
        return rate > 0 and self._rng.random() < rate

    def delay_s(self) -> float:
        """Seconds this request waits before the server takes it in (latency plus any spike)."""
        spike = self.spec.spike_ms if self._hit(self.spec.spike_rate) else 0
        return (self.spec.latency_ms + spike) / 1000

    def decide(self, now_ms: int) -> FaultDraw:
        """What happens to the request taken in at sandbox time ``now_ms``."""
        spec = self.spec
        if self._hit(spec.drop_before_rate):
            return FaultDraw(drop_before=True)
        if self._hit(spec.error_rate):
            return FaultDraw(server_error=True)
        if self._hit(spec.storm_rate):
            self._storm_until_ms = max(self._storm_until_ms or now_ms, now_ms + spec.storm_ms)
        if self._storm_until_ms is not None:
            if now_ms < self._storm_until_ms:
                return FaultDraw(storm_wait_ms=self._storm_until_ms - now_ms)
            self._storm_until_ms = None
        if self._hit(spec.drop_after_rate):
            return FaultDraw(drop_after=True)
        return _CLEAN
