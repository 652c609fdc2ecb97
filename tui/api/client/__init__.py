"""The signed client of the trading API: typed calls, one attempt's sending, retries, paging.

`ServiceClient` (`service`) is what the desk holds: one typed method per catalogue endpoint,
the list endpoints and `iterate` coming from `lists`. Underneath, `transport` sends a call
(budget, signing, server clock, notification), `wire` encodes the request and reads the answer,
`retry` decides as a pure policy whether a failed attempt goes again, and `paging` reads the
list endpoints page after page from the catalogue's rows.

Nothing is loaded until it is used (``from tui.api.client import ServiceClient`` loads the
client and httpx then): a program that only names the client, or imports a room of it, does not
pay for httpx before its first frame (issue 11).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.api.client.service import ServiceClient
    from tui.api.client.transport import CallInfo
    from tui.api.client.wire import encode_body, encode_query

__all__ = ["CallInfo", "ServiceClient", "encode_body", "encode_query"]

_HOMES = {
    "ServiceClient": "tui.api.client.service",
    "CallInfo": "tui.api.client.transport",
    "encode_body": "tui.api.client.wire",
    "encode_query": "tui.api.client.wire",
}
"""Where each name of the package lives."""


def __getattr__(name: str) -> Any:
    """A name of the package, loaded from its room at the first use (then kept here)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
