"""The sandbox's HTTP face: the Starlette app, its hosting under uvicorn, routes, query decoding,
auth and replies.

Everything about a request that is the contract's (order of checks, signatures over the raw
target and body, budgets, envelopes, headers) lives here; the business rules live in `engine`.
`app` builds the application from the endpoint catalogue, `hosting` serves it, `auth` says who
calls (signatures, skew, replays), `limits` how much they may, `query` and `routes` turn a
request into an engine call, `replies` into bytes, `injected` applies the ``--faults`` a request
drew, and `admin` moves the sandbox clock for tests and demos.
"""

from __future__ import annotations
