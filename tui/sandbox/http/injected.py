"""The HTTP side of ``--faults``: acting on what `tui.sandbox.faults.FaultInjector` drew for a
request.

`answer_with_faults` wraps one route's answer: the request waits its drawn latency, is taken in
(stamped on the sandbox clock), then either never reaches the engine (a dropped connection, the
contract's 500, or a 429 of a storm, all charging nothing) or is answered as usual, the answer
then perhaps lost with its connection (for a write, after it committed).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from starlette.responses import Response

from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.faults import FaultInjector
from tui.sandbox.http.limits import rate_limited
from tui.sandbox.http.replies import DroppedConnection, internal_error, refusal

__all__ = ["answer_with_faults"]


async def answer_with_faults(
    faults: FaultInjector, clock: SandboxClock, serve: Callable[[], Awaitable[Response]]
) -> Response:
    """``serve()``'s answer with this request's drawn faults before and after it."""
    delay_s = faults.delay_s()
    if delay_s:
        await asyncio.sleep(delay_s)  # the request is late: taken in (stamped) after the wait
    received_ms = clock.now_ms()
    draw = faults.decide(received_ms)
    if draw.drop_before:
        return DroppedConnection()
    if draw.server_error:
        return internal_error(received_ms)
    if draw.storm_wait_ms:
        storm = rate_limited(
            f"too many requests (an injected 429 storm); retry in {draw.storm_wait_ms} ms",
            draw.storm_wait_ms,
        )
        return refusal(storm, received_ms)
    response = await serve()
    # The answer is ready and a write has committed: losing it now is "lost after commit".
    return DroppedConnection() if draw.drop_after else response
