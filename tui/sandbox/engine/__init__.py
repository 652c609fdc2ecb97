"""The sandbox's engine: the exchange's business rules over SQLite, on the sandbox clock.

Knows nothing of HTTP. What is where:

- `exchange`: the facade, one method per endpoint (`Exchange`, `Caller`, `PageSlice`);
  `venue`: the machinery under it (rooms wired together, open/close, `tick`, transactions).
- The rules of each endpoint, one room each: `companies` (directory, credentials),
  `statements` (``/portfolio``), `rfqs`, `quotes` (a maker's quotes), `accepts` (accept and
  last look), `pools` (settlement pools), `transfers` (transfers and permits), `activity`
  (what ``/market_stats`` counts).
- `clearing`: the clearing state machine, from an accepted quote to booked trades
  (`clearing_end`: how a trade's clearing ends, settled and booked or failed, shared with
  `history_clearing`); `risk`
  (risk checks, margin held back by trades still clearing), `booking` (the deposits and trades
  a cleared trade writes), `timers` (expiries, deadlines, failed timers).
- Money: `portfolio` (balances, positions), `fills` (a fill's arithmetic on a position),
  `margin` (initial and maintenance margin), `margin_rules` (bounds of a pool's parameters),
  `chain` (wallets, allowances, permits, blocks).
- Records: `store` (SQLite), `schema`, `records` (reading, writing and building records),
  `views` (what each viewer may see of them), `errors`, `clock`, `market_api` (what the engine
  asks of the market).
- The opening state: `seed` (companies, keys, the first pool); `history` (a seeded day of
  past trading: `history_plan` what trades, `history_clearing` each trade's way by the
  clearing rules, `history_book` the books in memory, written in bulk).
"""

from __future__ import annotations
