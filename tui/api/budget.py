"""The client side of the request-token budget: a window that agrees with the server's.

The venue allows each company 100 tokens per sliding 10 s window (`tui.api.endpoints`), and
every endpoint has a cost. The client charges its own window *before* sending, so it waits
instead of being refused. The desk's live feed asks with ``keep_free`` so that part of every
window stays free for the user's own actions (a quote must never wait behind a poll).

The rule, so that the client's window always holds at least what the server's holds (the
server's side is `tui.sandbox.http.limits`: a charge stamped ``s``, the ``X-Request-Received-Ms``
of its answer, counts until exactly ``s + 10 000`` server ms; a 429 charges nothing):

- **At send** a `Charge` is made, and it counts for as long as its request is under way: the
  server may take the request in (stamp it) at any moment until its answer comes.
- **On an answer** (any status but 429) the charge is re-stamped: it leaves the window when the
  server's clock passes the answer's stamp plus the window, plus the error of the client's
  estimate of the server clock (`tui.api.clock.ServerClock.most_ms_between`). Never later than one
  window from the answer: the server stamped the request before answering.
- **On a 429** the charge is refunded (the server charged nothing), and nothing is sent until
  the server's clock passes the 429's stamp plus its ``X-Rate-Limit-Resets-In-Ms``.
- **On no answer** (a lost connection, a timeout, a cancelled call) the charge is never
  refunded: it counts for one window plus the margin from the moment the answer was given up.
  The margin (`TokenBudget.margin_s`) is the largest delay seen between sending a request and
  the server's stamp on it, plus the clock's error, and never less than ``slack_s`` (250 ms).

Time here is the budget's own clock (monotonic seconds by default): the sender turns the
server's stamps into "seconds from now" with the server clock it keeps, so a skewed server
clock, or a local wall clock that is stepped, changes nothing here.

Two clients of one company share one server window: give each its share (``TokenBudget(45)``
for each of two desks; shares adding up to the whole budget are safe too, as every client's
window holds at least what the server holds of its calls), or have one keep the other's part
free (``keep_free``). Shares adding up to more than the budget meet the odd 429: it refunds and
blocks until the server's reset, which brings the two windows back in step.

Time is injectable (a clock in seconds and an async sleep), so tests run instantly.
"""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui.api.endpoints import BUDGET_TOKENS, BUDGET_WINDOW_S

if TYPE_CHECKING:
    from tui.api.clock import ServerClock

__all__ = [
    "DESK_RESERVE_TOKENS",
    "Charge",
    "TokenBudget",
    "asyncio_sleep",
    "reset_from_now",
    "settle_answer",
]

DESK_RESERVE_TOKENS = 20
"""Tokens of every window that background polling leaves free for the user's own actions: one
write (a quote, an accept, a cancel costs 20) always goes at once. A second one waits only for
tokens leaving the window, never behind a poll: no poll starts while an action waits
(`TokenBudget.waiting`)."""


async def asyncio_sleep(seconds: float) -> None:
    """`asyncio.sleep`: the default wait of the budget and the clients, with asyncio loaded
    when something first waits rather than when the client is imported (issue 11)."""
    import asyncio

    await asyncio.sleep(seconds)


_DEFAULT_SLACK_S = 0.25
_MIN_NAP_S = 0.001
_RECHECK_S = 0.05
"""How often a caller waiting on the tokens of a request still under way looks again."""


@dataclass(eq=False, slots=True)
class Charge:
    """The tokens of one request, from its sending until they leave the window.

    ``free_at`` is when (on the budget's clock) they leave; None while the request is under
    way, when nobody knows yet when the server stamped it.
    """

    cost: int
    sent_at: float
    free_at: float | None = None


class TokenBudget:
    """The client's side of the request-token budget, shared by every call of one client.

    It mirrors the server's meter (the venue's, or the sandbox's) so that a request waits here
    rather than be refused there; the server still decides. The module docstring has the rule.
    `spending` is how a sender charges a request it sends; `acquire` and `try_acquire` charge
    a spend whose outcome nobody reports (kept one window plus the margin from now).
    """

    def __init__(
        self,
        tokens: int = BUDGET_TOKENS,
        window_s: float = BUDGET_WINDOW_S,
        *,
        slack_s: float = _DEFAULT_SLACK_S,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio_sleep,
    ) -> None:
        if tokens <= 0 or window_s <= 0 or slack_s < 0:
            raise ValueError("tokens and window_s must be positive, slack_s not negative")
        self.tokens = tokens
        self.window_s = window_s
        self.slack_s = slack_s
        self._clock = clock
        self._sleep = sleep
        self._charges: list[Charge] = []
        self._used = 0
        self._blocked_until = float("-inf")
        self._largest_lag_s = 0.0
        self.waiting = 0
        """Callers napping until their tokens fit (a user's action waiting): polls hold off."""

    def __repr__(self) -> str:
        return f"TokenBudget(used={self.used()}/{self.tokens}, window_s={self.window_s})"

    # -- reading ---------------------------------------------------------------------------

    @property
    def margin_s(self) -> float:
        """How long past one window a charge whose stamp is unknown is kept: the largest delay
        seen from sending to the server's stamp (clock error included), at least ``slack_s``."""
        return max(self.slack_s, self._largest_lag_s)

    def _expire(self, now: float) -> None:
        kept = [c for c in self._charges if c.free_at is None or c.free_at > now]
        if len(kept) != len(self._charges):
            self._charges = kept
            self._used = sum(c.cost for c in kept)

    def used(self) -> int:
        """Tokens charged in the current window (requests under way included)."""
        self._expire(self._clock())
        return self._used

    def blocked_for(self) -> float:
        """Seconds until a penalty from a 429 ends (0 when there is none)."""
        return max(0.0, self._blocked_until - self._clock())

    def available(self, keep_free: int = 0) -> int:
        """Tokens that can be spent right now while leaving ``keep_free`` untouched."""
        if self.blocked_for() > 0:
            return 0
        return max(0, self.tokens - keep_free - self.used())

    def _free_estimate(self, charge: Charge, now: float) -> float:
        if charge.free_at is not None:
            return charge.free_at
        # Under way: at the earliest one window and the margin after sending, and never before
        # a look a moment from now (its answer may have come by then).
        return max(charge.sent_at + self.window_s + self.margin_s, now + _RECHECK_S)

    def wait_time(self, cost: int, keep_free: int = 0) -> float:
        """Seconds until ``cost`` tokens fit with ``keep_free`` left over (0: they fit now).

        While a request the wait depends on is under way, this is when to look again.
        """
        self._check(cost, keep_free)
        now = self._clock()
        self._expire(now)
        ready = max(now, self._blocked_until)
        limit = self.tokens - keep_free - cost
        running = self._used
        if running > limit:
            leaving = sorted((self._free_estimate(c, now), c.cost) for c in self._charges)
            for free_at, charged in leaving:
                running -= charged
                ready = max(ready, free_at)
                if running <= limit:
                    break
        return ready - now

    # -- spending --------------------------------------------------------------------------

    def _check(self, cost: int, keep_free: int) -> None:
        if cost < 0:
            raise ValueError("cost must not be negative")
        if keep_free < 0:
            raise ValueError("keep_free must not be negative")
        if cost + keep_free > self.tokens:
            raise ValueError(
                f"cost {cost} with keep_free {keep_free} can never fit a budget of {self.tokens}"
            )

    def _charge(self, cost: int) -> Charge:
        charge = Charge(cost, self._clock())
        if cost:
            self._charges.append(charge)
            self._used += cost
        return charge

    async def _wait_and_charge(self, cost: int, keep_free: int) -> Charge:
        # No lock is held while waiting: a caller with a smaller need (the user's action, with
        # no reserve) gets through while a background poll with ``keep_free`` still waits.
        while True:
            delay = self.wait_time(cost, keep_free)
            if delay <= 0:
                return self._charge(cost)
            # A floor on the nap guarantees progress even when float rounding leaves a
            # vanishing remainder.
            self.waiting += 1
            try:
                await self._sleep(max(delay, _MIN_NAP_S))
            finally:
                self.waiting -= 1

    def try_acquire(self, cost: int, keep_free: int = 0) -> bool:
        """Charge ``cost`` now if it fits with ``keep_free`` left over; never waits.

        Nobody reports how the spend went: it is kept one window plus the margin from now.
        """
        if self.wait_time(cost, keep_free) > 0:
            return False
        self.lost(self._charge(cost))
        return True

    async def acquire(self, cost: int, keep_free: int = 0) -> None:
        """Wait until ``cost`` tokens fit (leaving ``keep_free``), then charge them.

        Nobody reports how the spend went: it is kept one window plus the margin from now.
        """
        self.lost(await self._wait_and_charge(cost, keep_free))

    @asynccontextmanager
    async def spending(self, cost: int, keep_free: int = 0) -> AsyncIterator[Charge]:
        """Wait until ``cost`` tokens fit, then hold them for one request under way.

        Inside the block the sender reports how the request went (`answered`, `refunded`);
        leaving it without a report (no answer, or the call was cancelled) is `lost`.
        """
        charge = await self._wait_and_charge(cost, keep_free)
        try:
            yield charge
        finally:
            if charge.free_at is None:
                self.lost(charge)

    def answered(self, charge: Charge, free_in_s: float, lag_s: float = 0.0) -> None:
        """The server answered: the charge leaves the window ``free_in_s`` from now (clamped to
        one window). ``lag_s`` is how long after sending the server stamped it (the margin
        learns from it)."""
        if math.isfinite(lag_s):
            self._largest_lag_s = max(self._largest_lag_s, min(max(lag_s, 0.0), self.window_s))
        free_in = free_in_s if math.isfinite(free_in_s) else self.window_s
        charge.free_at = self._clock() + min(max(free_in, 0.0), self.window_s)

    def refunded(self, charge: Charge) -> None:
        """The server refused the request without charging it (a 429): give the tokens back."""
        if charge in self._charges:
            self._charges.remove(charge)
            self._used -= charge.cost
        charge.free_at = self._clock()

    def lost(self, charge: Charge) -> None:
        """No answer: the server may have stamped the request until now, and as late as the
        margin after; the charge stays one window plus the margin from now."""
        charge.free_at = self._clock() + self.window_s + self.margin_s

    def penalize(self, resets_in_ms: int | float | None) -> None:
        """After a 429: spend nothing until the server says enough budget is back.

        ``resets_in_ms`` counts from now (the sender turns the server's hint, which counts
        from its stamp, into that). The server saw more than this client counted (another desk
        on the same company, or an injected storm); the penalty resynchronises the two. The
        hint is believed only when it is a finite, non-negative number, and never beyond one
        window plus the slack (by then every charge the server counted has left its window);
        no hint, or garbage such as ``inf`` or a negative number, waits one whole window.
        """
        wait_s = self.window_s
        hint: object = resets_in_ms
        if isinstance(hint, int) and not isinstance(hint, bool):
            # Bounded before the conversion: an int past float's range would overflow it.
            hint = float(max(-1, min(hint, 10**12)))
        if isinstance(hint, float) and math.isfinite(hint) and hint >= 0:
            wait_s = min(hint / 1000.0, self.window_s + self.slack_s)
        self._blocked_until = max(self._blocked_until, self._clock() + wait_s)


def settle_answer(
    budget: TokenBudget,
    charge: Charge,
    clock: ServerClock,
    stamp: int | None,
    sent_local_ms: int,
) -> None:
    """Re-stamp the charge of an answered request (the module's rule): free when the server's
    clock passes its stamp plus the window (at most one window from now: it was stamped before
    the answer). ``stamp`` is the answer's ``X-Request-Received-Ms``, ``clock`` the estimate of
    the server's clock, ``sent_local_ms`` when the request left (local ms)."""
    window_s = budget.window_s
    if stamp is None:
        budget.answered(charge, window_s)
        return
    left = clock.most_ms_between(clock.local_ms(), stamp + round(window_s * 1000))
    lag = clock.most_ms_between(sent_local_ms, stamp)
    budget.answered(
        charge,
        window_s if left is None else left / 1000,
        0.0 if lag is None else lag / 1000,
    )


def reset_from_now(clock: ServerClock, resets_in_ms: int | None, stamp: int | None) -> int | None:
    """A 429's reset, counted from the server's stamp, as ms from now (never longer than the
    hint itself: the stamp was read before the answer left)."""
    if resets_in_ms is None or stamp is None:
        return resets_in_ms
    left = clock.most_ms_between(clock.local_ms(), stamp + resets_in_ms)
    if left is None:
        return resets_in_ms
    return max(0, min(resets_in_ms, math.ceil(left)))
