"""The sandbox's engine: the exchange's business rules over SQLite, on the sandbox clock.

The `exchange` facade (one method per endpoint), RFQs and quotes, the clearing state machine,
transfers and the simulated chain, margin and the portfolio, the store and the per-viewer views,
the seeded opening state and its seeded history. Knows nothing of HTTP.
"""

from __future__ import annotations
