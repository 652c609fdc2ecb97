"""Seeded Brownian paths that are a pure function of (seed, key, step), readable in any order.

"The same seed gives the same market" must hold however the market is read: every second,
once a day, or after a restart. A path built by adding one random step per second would depend
on nothing else, but reading it a day ahead would cost 86,400 draws. Instead:

- time is cut into blocks of `BLOCK_STEPS` steps; the path at block boundaries is the running
  sum of one seeded normal per block (exactly the distribution of the sum of its steps);
- inside a block the path is filled in by Levy's midpoint construction: the value at the
  midpoint of a dyadic interval is the mean of its ends plus a seeded normal with the Brownian
  bridge's variance. Every step inside a block is the midpoint of exactly one dyadic interval,
  so its draw is keyed by its own step number, and any step costs log2(BLOCK_STEPS) draws.

The draws come from a hash of (seed, key, kind, index), not from a stateful generator, so the
value at a step never depends on which steps were read before it. Block sums are memoised and
can be checkpointed so a restored path does not recompute from its epoch; the sums are always
formed in the same order, so a restored path gives the very same floats.

Reading many steps (a dozen listings valued at every trade of a seeded day, or every second
of a live one) would spend most of its time drawing the same midpoints again: two nearby steps
share all but their last few. So the midpoints drawn are memoised (up to `MIDPOINT_MEMO` of
them; the memo starts afresh when full), and so are the values of the last steps read. A
midpoint depends only on its ends, which depend only on theirs, so a memoised value is the very
float a fresh descent computes.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import threading
from typing import Any

__all__ = ["BLOCK_STEPS", "MIDPOINT_MEMO", "BrownianPath", "seeded_int", "seeded_normal"]

BLOCK_STEPS = 1 << 14
"""Steps per block (16,384: about 4.6 hours of one-second steps)."""
MIDPOINT_MEMO = 1 << 13
"""Midpoints a path keeps (about half a megabyte); past this its memo starts afresh."""
_RECENT_STEPS = 1 << 12
"""Values of steps read that a path keeps; past this they are forgotten at once."""

_BLOCK_SCALE = math.sqrt(BLOCK_STEPS)  # 128.0 exactly: the std of a block's sum of steps
_TWO_64 = float(1 << 64)


def seeded_int(seed: int, *parts: object) -> int:
    """A 64-bit integer that depends only on ``seed`` and ``parts``."""
    text = "|".join([str(seed), *map(str, parts)])
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def seeded_normal(seed: int, key: str, kind: str, index: int) -> float:
    """A standard normal draw that depends only on its arguments (Box-Muller over a hash)."""
    return _normal(hashlib.blake2b(f"{seed}|{key}|{kind}|{index}".encode(), digest_size=16))


def _normal(hashed: Any) -> float:
    digest = hashed.digest()
    high = int.from_bytes(digest[:8], "big")
    low = int.from_bytes(digest[8:], "big")
    u1 = (high + 1) / _TWO_64  # in (0, 1]: log is finite
    u2 = low / _TWO_64
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


class BrownianPath:
    """A standard Brownian motion ``W`` on integer steps: ``W(0) = 0``, ``Var W(n) = |n|``.

    Negative steps are the path before its epoch (for seeded history). Thread-safe.
    """

    def __init__(self, seed: int, key: str) -> None:
        self.seed = seed
        self.key = key
        self._lock = threading.Lock()
        self._known_blocks: list[int] = [0]
        self._known_values: dict[int, float] = {0: 0.0}
        # Memos of pure values: replaced whole (never cleared in place) when full, so a
        # reader on another thread at worst computes a value again.
        self._midpoints: dict[int, float] = {}
        self._block_ends: dict[int, float] = {}
        self._recent: dict[int, float] = {}
        # `seeded_normal`'s hash of a bridge draw, its fixed head already hashed.
        self._bridge_head = hashlib.blake2b(f"{seed}|{key}|bridge|".encode(), digest_size=16)

    def at(self, step: int) -> float:
        """The path's value at ``step``."""
        known = self._recent.get(step)
        if known is not None:
            return known
        value = self._descend(step)
        if len(self._recent) >= _RECENT_STEPS:
            self._recent = {}
        self._recent[step] = value
        return value

    def _descend(self, step: int) -> float:
        block, offset = divmod(step, BLOCK_STEPS)
        start = self._block_start(block)
        if offset == 0:
            return start
        end = self._block_ends.get(block)
        if end is None:
            end = self._block_ends[block] = start + _BLOCK_SCALE * self._block_draw(block)
        base = block * BLOCK_STEPS
        lo, hi, w_lo, w_hi = 0, BLOCK_STEPS, start, end
        while True:
            mid = (lo + hi) // 2
            w_mid = self._midpoints.get(base + mid)
            if w_mid is None:
                spread = math.sqrt(hi - lo) / 2.0
                w_mid = 0.5 * (w_lo + w_hi) + spread * self._bridge_draw(base + mid)
                if len(self._midpoints) >= MIDPOINT_MEMO:
                    self._midpoints = {}
                self._midpoints[base + mid] = w_mid
            if offset == mid:
                return w_mid
            if offset < mid:
                hi, w_hi = mid, w_mid
            else:
                lo, w_lo = mid, w_mid

    def _bridge_draw(self, index: int) -> float:
        """``seeded_normal(seed, key, "bridge", index)``, the head of its hash reused."""
        hashed = self._bridge_head.copy()
        hashed.update(str(index).encode())
        return _normal(hashed)

    def _block_draw(self, block: int) -> float:
        return seeded_normal(self.seed, self.key, "block", block)

    def _block_start(self, block: int) -> float:
        known = self._known_values.get(block)  # a single dict read needs no lock
        if known is not None:
            return known
        with self._lock:
            known = self._known_values.get(block)
            if known is not None:
                return known
            if block > 0:
                # Walk forward from the nearest memoised boundary at or below the target.
                at = self._known_blocks[bisect.bisect_right(self._known_blocks, block) - 1]
                at = max(at, 0)
                value = self._known_values[at]
                while at < block:
                    value += _BLOCK_SCALE * self._block_draw(at)
                    at += 1
            else:
                # Walk backward from the nearest memoised boundary at or above the target.
                at = self._known_blocks[bisect.bisect_left(self._known_blocks, block)]
                at = min(at, 0)
                value = self._known_values[at]
                while at > block:
                    at -= 1
                    value -= _BLOCK_SCALE * self._block_draw(at)
            self._known_values[block] = value
            bisect.insort(self._known_blocks, block)
            return value

    def checkpoint(self) -> dict[str, Any]:
        """JSON-able memo of the farthest block sums in each direction (exact, as float hex)."""
        with self._lock:
            ends = {self._known_blocks[0], self._known_blocks[-1]}
            return {
                "key": self.key,
                "blocks": [[b, self._known_values[b].hex()] for b in sorted(ends)],
            }

    def load_checkpoint(self, data: dict[str, Any]) -> None:
        """Take back block sums written by `checkpoint`; raises ValueError if they are bad."""
        if data.get("key") != self.key:
            raise ValueError(f"checkpoint is for path {data.get('key')!r}, not {self.key!r}")
        try:
            entries = [(int(b), float.fromhex(str(v))) for b, v in data["blocks"]]
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"checkpoint of path {self.key!r} is malformed") from None
        with self._lock:
            for block, value in entries:
                if block == 0 and value != 0.0:
                    raise ValueError(f"checkpoint of path {self.key!r} moves its origin")
                if block not in self._known_values:
                    bisect.insort(self._known_blocks, block)
                self._known_values[block] = value
