"""The sandbox's simulated counterparties: makers that quote, takers that ask, their deposits.

Each actor is a seeded company trading through the engine's own endpoint methods, so every rule
of the venue applies to it as to the user; every decision is a seeded draw. What is where:

- `runner`: `ActorRunner`, every actor stepped on the sandbox clock (`start_actors`).
- `maker` and `taker`: the two kinds of actor; `actor`: what they share (identity, action log,
  permits).
- `pricing` (quotes around the mark, a taker's requests and limits), `profiles` (seeded
  behaviour and the configuration), `deposits` (the permit flow and deposit estimates).
"""

from __future__ import annotations
