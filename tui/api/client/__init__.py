"""The signed client of the trading API: typed calls, one attempt's sending, retries, paging.

`ServiceClient` (`service`) is what the desk holds: one typed method per catalogue endpoint.
Underneath, `transport` sends a call (budget, signing, server clock, notification), `wire`
encodes the request and reads the answer, `retry` decides as a pure policy whether a failed
attempt goes again, and `paging` reads the list endpoints page after page from the catalogue's
rows.
"""

from __future__ import annotations

from tui.api.client.service import ServiceClient
from tui.api.client.transport import CallInfo
from tui.api.client.wire import encode_body, encode_query

__all__ = ["CallInfo", "ServiceClient", "encode_body", "encode_query"]
