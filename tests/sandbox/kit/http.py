"""What the sandbox's raw-HTTP tests share: the headers every answer carries, a nil id, and
the refusal envelope read and checked (``tests/sandbox/http/test_http_*``).

Those tests build their requests by hand (raw httpx, signed with the shared signing function)
so they can send exactly the malformed, mis-signed or over-budget requests a good client never
would. The happy paths through `ServiceClient` are in ``test_e2e_*``.
"""

from __future__ import annotations

import httpx

RECEIVED = "X-Request-Received-Ms"
"""The header of the instant the server took a request in (Unix ms), on every answer."""
RESETS = "X-Rate-Limit-Resets-In-Ms"
"""The header of a 429: how long until the budget frees up (ms)."""
NIL = "00000000-0000-4000-8000-000000000000"
"""A well-formed id that names nothing."""


def error_of(response: httpx.Response) -> tuple[int, int, str]:
    """(HTTP status, error code, message) of a refusal, checking the envelope's shape."""
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message"}
    return response.status_code, body["error"]["code"], body["error"]["message"]
