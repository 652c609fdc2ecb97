"""The sandbox's simulated counterparties: makers that quote, takers that ask, their deposits.

Each actor is a seeded company trading through the engine's own endpoint methods, so every rule
of the venue applies to it as to the user; every decision is a seeded draw.
"""

from __future__ import annotations
