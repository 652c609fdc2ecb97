"""The sandbox's market: listings, seeded marks, pricing and greeks, funding, statistics.

Pure functions of (seed, listings, time): no store, no HTTP. The engine values positions with
it and the actors price their quotes with it. What is where:

- `marks`: `Market`, the one object the others hold: the seeded walk of marks, unit values
  and greeks, snapshot and restore.
- `valuation`: what a structure, a position and a portfolio are worth from their legs' values.
- `statistics`: the public statistics (indicative quotes, funding, LP vault, refund pool).
- `listings` (static specs), `pricepath` (seeded Brownian paths), `pricing` (Black-Scholes and
  linear greeks), `funding` (the funding-rate curve).
"""

from __future__ import annotations
