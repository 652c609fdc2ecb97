"""The sandbox's HTTP face: the ASGI app, its hosting under uvicorn, routes, query decoding, auth.

Everything about a request that is the contract's (order of checks, signatures over the raw
target and body, budgets, envelopes, headers) lives here; the business rules live in `engine`.
"""

from __future__ import annotations
