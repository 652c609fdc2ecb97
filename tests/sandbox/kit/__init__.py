"""The test kit of the sandbox layer: the engine, the actors and the end-to-end trades.

`common` holds what every sandbox test shares (`START_MS`, `open_sandbox`, `perp`,
`margin_params`, `expect_error`); `engine` is `Kit`, an `Exchange` on a temp file driven
directly, as the HTTP layer calls it; `actors` is `ActorKit`, a sandbox with its simulated
counterparties stepped on a frozen clock (`always`, `MAKERS`); `e2e` builds requests and books
a whole trade through `ServiceClient` over HTTP (``test_e2e_*``); `http` (imported by its own
name) holds what the raw-HTTP tests share (``http/test_http_*``); `history_replay` plays the
seeded history through the engine call by call, the reference the bulk-written history is held
to (``test_history_bulk``).
"""

from __future__ import annotations

from tests.sandbox.kit.actors import MAKERS, ActorKit, always
from tests.sandbox.kit.common import START_MS, expect_error, margin_params, perp
from tests.sandbox.kit.e2e import book_trade, mark, quote_request, rfq_request, seed_pool_id
from tests.sandbox.kit.engine import Kit

__all__ = [
    "MAKERS",
    "START_MS",
    "ActorKit",
    "Kit",
    "always",
    "book_trade",
    "expect_error",
    "margin_params",
    "mark",
    "perp",
    "quote_request",
    "rfq_request",
    "seed_pool_id",
]
