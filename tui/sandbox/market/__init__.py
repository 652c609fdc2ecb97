"""The sandbox's market: listings, seeded price paths, pricing and greeks, funding, statistics.

Pure functions of (seed, listings, time): no store, no HTTP. The engine values positions with
it and the actors price their quotes with it.
"""

from __future__ import annotations
