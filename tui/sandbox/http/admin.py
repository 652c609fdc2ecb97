"""The sandbox's admin door: moving the sandbox clock forward, for tests and demos.

Served only when the app is built with ``admin=True`` (``rfq-desk sandbox --admin``) and only
to loopback clients: ``POST /admin/clock/advance {"seconds": N}`` moves the clock, lets the
engine and the simulated counterparties catch up, and answers the new server time.
"""

from __future__ import annotations

import ipaddress
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from starlette.datastructures import Address
from starlette.requests import Request
from starlette.responses import Response

from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.http.query import parse_json_object
from tui.sandbox.http.replies import answer

if TYPE_CHECKING:
    from tui.sandbox.http.app import SandboxApp

__all__ = ["ADMIN_ADVANCE_PATH", "MAX_ADVANCE_S", "advance_clock"]

ADMIN_ADVANCE_PATH = "/admin/clock/advance"
"""With ``admin=True``: ``POST {"seconds": N}`` from loopback moves the sandbox clock forward."""
MAX_ADVANCE_S = 10 * 365 * 86_400
"""The longest single step forward (ten years)."""


def _is_loopback(client: Address | None) -> bool:
    if not client:
        return False
    try:
        return ipaddress.ip_address(str(client.host)).is_loopback
    except ValueError:
        return False


def _seconds(value: object) -> Decimal:
    """The ``seconds`` of the request: a finite number in 0..`MAX_ADVANCE_S`, else a 400."""
    if isinstance(value, bool) or not isinstance(value, int | Decimal | str):
        raise ServiceError.bad_request("seconds: must be a number")
    try:
        amount = Decimal(value)
    except InvalidOperation:
        raise ServiceError.bad_request("seconds: must be a number") from None
    if not amount.is_finite() or not 0 <= amount <= MAX_ADVANCE_S:
        raise ServiceError.out_of_range(f"seconds: must be between 0 and {MAX_ADVANCE_S}")
    return amount


async def advance_clock(sandbox: SandboxApp, request: Request, received_ms: int) -> Response:
    """Move the sandbox clock forward by the body's ``seconds`` and let the world catch up."""
    if not _is_loopback(request.client):
        raise ServiceError.forbidden("admin endpoints answer loopback clients only")
    data = parse_json_object(await sandbox.read_body(request))
    now_ms = sandbox.clock.advance(float(_seconds(data.get("seconds"))))
    sandbox.advance_world()
    return answer({"result": {"server_timestamp_ms": now_ms}}, received_ms)
