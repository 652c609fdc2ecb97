"""The live data engine: one scheduler polls the venue through the shared client and budget.

What the user looks at, and what waits for the user's action, is *hot* and polls fastest; the
rest polls slower; a new RFQ for me is urgent and polls ahead of everything. Every poll first
asks the shared `TokenBudget` whether its cost fits while leaving `DESK_RESERVE_TOKENS` free,
and none starts while a user's action waits, so the user's own actions (a quote, an accept,
the kill switch) never wait behind background polling. Results leave as messages; the feed also owns
its policy (which topics are hot given the tab on screen, how fresh each pane is, which RFQs
are new, which failure is news), so the desk only routes what it posts.

``topics`` holds what is polled and how often, ``schedule`` says when and what fits,
``fetch`` turns one poll into its snapshot message, ``policy`` and ``money_watch`` judge, and
``scheduler`` (`Feed`) runs it all.
"""

from __future__ import annotations
