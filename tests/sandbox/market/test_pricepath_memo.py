"""A path's memos (midpoints drawn, steps read) never change a value: the very same floats.

The reference below is the path's definition with nothing remembered: the block boundaries as
running sums of one draw per block, then Levy's midpoint descent to the step.
"""

from __future__ import annotations

import math
import random

from tui.sandbox.market import pricepath
from tui.sandbox.market.pricepath import BLOCK_STEPS, BrownianPath, seeded_normal

SEED, KEY = 11, "asset:ETH"


def _reference(step: int) -> float:
    block, offset = divmod(step, BLOCK_STEPS)
    scale = math.sqrt(BLOCK_STEPS)
    start = 0.0
    for at in range(block) if block > 0 else range(-1, block - 1, -1):
        draw = seeded_normal(SEED, KEY, "block", at)
        start = start + scale * draw if block > 0 else start - scale * draw
    if offset == 0:
        return start
    lo, hi = 0, BLOCK_STEPS
    w_lo, w_hi = start, start + scale * seeded_normal(SEED, KEY, "block", block)
    while True:
        mid = (lo + hi) // 2
        spread = math.sqrt(hi - lo) / 2.0
        noise = seeded_normal(SEED, KEY, "bridge", block * BLOCK_STEPS + mid)
        w_mid = 0.5 * (w_lo + w_hi) + spread * noise
        if offset == mid:
            return w_mid
        if offset < mid:
            hi, w_hi = mid, w_mid
        else:
            lo, w_lo = mid, w_mid


def test_remembered_values_are_the_values_of_the_definition():
    rng = random.Random(3)
    near = [5_000 + rng.randrange(40) for _ in range(60)]  # nearby steps share midpoints
    far = [rng.randrange(-3 * BLOCK_STEPS, 3 * BLOCK_STEPS) for _ in range(60)]
    edges = [0, 1, -1, BLOCK_STEPS, -BLOCK_STEPS, BLOCK_STEPS - 1, 2 * BLOCK_STEPS + 1]
    steps = near + far + edges + near  # and read again
    rng.shuffle(steps)
    path = BrownianPath(SEED, KEY)
    assert [path.at(step) for step in steps] == [_reference(step) for step in steps]


def test_full_memos_start_afresh_and_stay_exact(monkeypatch):
    monkeypatch.setattr(pricepath, "MIDPOINT_MEMO", 16)
    monkeypatch.setattr(pricepath, "_RECENT_STEPS", 4)
    path = BrownianPath(SEED, KEY)
    steps = list(range(100, 400, 7)) * 2
    assert [path.at(step) for step in steps] == [_reference(step) for step in steps]
    assert len(path._midpoints) <= 16 and len(path._recent) <= 4
