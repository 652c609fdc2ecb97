"""When a failed call goes again: the retry rules as a pure policy (no I/O, no sleeping).

The caller reports what happened to one attempt as an `Outcome`; `RetryPolicy.decide` answers
with an `Action` and `Tries.after` moves the count on. Sending, sleeping and resynchronising
stay with the caller, so the rules can be read, and tested, as a table:

- a GET is idempotent: a lost connection, a timeout or a 5xx is retried after a jittered
  backoff, up to ``max_attempts``; a 429 is retried at once (the budget, penalised with the
  server's reset time, does the waiting), up to ``max_rate_limit_waits`` times;
- a POST is resent only when the server provably did not act on it: the connection never
  opened (the request never left), or the signature was refused for clock skew (refused before
  acting; the clock is resynchronised first, once per call). Anything else is raised: a
  `ConnectionLost` with ``maybe_sent`` tells the desk to check before trying again, and a 429
  is raised as `RateLimited` so the user decides whether a quote is still worth sending.

A wait for the budget or a resynchronisation is not a failed attempt: neither counts towards
``max_attempts``.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from tui.api.endpoints import Method
from tui.api.errors import ApiError, ConnectionLost, RateLimited, ServerError, TimestampSkew

__all__ = ["Action", "Outcome", "RetryPolicy", "Tries", "outcome_of"]


class Outcome(Enum):
    """What happened to one attempt that did not succeed."""

    NEVER_SENT = "never_sent"
    """The connection could not be opened: the request never left."""
    LOST = "lost"
    """A timeout or broken connection after sending: the server may have acted."""
    SERVER_ERROR = "server_error"
    """A 5xx answer."""
    RATE_LIMITED = "rate_limited"
    """A 429: the company's request-token budget was exhausted on the server."""
    CLOCK_SKEW = "clock_skew"
    """A 401 refusing a signed request's timestamp: refused before acting."""
    REFUSED = "refused"
    """Any other answer: final."""


class Action(Enum):
    """What to do after a failed attempt."""

    RETRY_NOW = "retry_now"
    """Send again at once (the budget waits for the server's reset first)."""
    BACKOFF = "backoff"
    """Wait the jittered backoff for this attempt, then send again."""
    RESYNC_CLOCK = "resync_clock"
    """Learn the server clock again, then send again."""
    RAISE = "raise"
    """Give up: raise the attempt's error."""


class Tries(NamedTuple):
    """How far one call has got: its attempt number (from 1) and the free retries it used."""

    attempt: int = 1
    rate_limit_waits: int = 0
    resynced: bool = False

    def after(self, action: Action) -> Tries:
        """The count for the next send once ``action`` is done; only a backoff is an attempt."""
        if action is Action.BACKOFF:
            return self._replace(attempt=self.attempt + 1)
        if action is Action.RETRY_NOW:
            return self._replace(rate_limit_waits=self.rate_limit_waits + 1)
        if action is Action.RESYNC_CLOCK:
            return self._replace(resynced=True)
        return self


class RetryPolicy(NamedTuple):
    """The retry rules of one client: how many failed attempts, and 429 waits, a call may use."""

    max_attempts: int = 3
    max_rate_limit_waits: int = 3

    def decide(self, method: Method, tries: Tries, outcome: Outcome) -> Action:
        """What to do after an attempt of a ``method`` call ended in ``outcome``."""
        idempotent = method is Method.GET
        attempts_left = tries.attempt < self.max_attempts
        if outcome is Outcome.RATE_LIMITED:
            if idempotent and tries.rate_limit_waits < self.max_rate_limit_waits:
                return Action.RETRY_NOW
            return Action.RAISE
        if outcome is Outcome.CLOCK_SKEW:
            return Action.RAISE if tries.resynced else Action.RESYNC_CLOCK
        if outcome is Outcome.NEVER_SENT or (
            idempotent and outcome in (Outcome.LOST, Outcome.SERVER_ERROR)
        ):
            return Action.BACKOFF if attempts_left else Action.RAISE
        return Action.RAISE


def outcome_of(error: ApiError, *, signed: bool) -> Outcome:
    """The `Outcome` an error stands for; a skew refusal counts only for a signed request."""
    if isinstance(error, ConnectionLost):
        return Outcome.LOST if error.maybe_sent else Outcome.NEVER_SENT
    if isinstance(error, RateLimited):
        return Outcome.RATE_LIMITED
    if isinstance(error, TimestampSkew) and signed:
        return Outcome.CLOCK_SKEW
    if isinstance(error, ServerError):
        return Outcome.SERVER_ERROR
    return Outcome.REFUSED
