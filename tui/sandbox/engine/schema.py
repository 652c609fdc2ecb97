"""The sandbox database's schema, and the steps that migrate an older file forward.

Records are stored as their wire JSON in a ``data`` column, next to the indexed columns that
filters and paging need (owner company, pool, id, creation order ``seq``), so a page is one
``ORDER BY seq LIMIT ? OFFSET ?`` query on an index. Money that the engine does arithmetic on
(balances, positions, wallets) lives in plain TEXT decimal columns, never REAL.
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "SCHEMA_V1", "SCHEMA_V2", "SCHEMA_VERSION", "TABLES_WITH_DATA"]

SCHEMA_VERSION = 2
"""Bumped whenever the schema changes; `Store` migrates older files forward on open."""

SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS companies (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    short_name TEXT NOT NULL UNIQUE,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS api_keys (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    key_id TEXT NOT NULL UNIQUE,
    company_id TEXT NOT NULL,
    role TEXT NOT NULL,
    secret BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS wallets (
    company_id TEXT PRIMARY KEY,
    address TEXT NOT NULL UNIQUE,
    private_key TEXT NOT NULL,
    usdc TEXT NOT NULL,
    nonce INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS allowances (
    owner TEXT NOT NULL,
    spender TEXT NOT NULL,
    units INTEGER NOT NULL,
    PRIMARY KEY (owner, spender)
);
CREATE TABLE IF NOT EXISTS pools (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    creator TEXT NOT NULL,
    other TEXT NOT NULL,
    address TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,
    name TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS pools_creator ON pools (creator, seq);
CREATE INDEX IF NOT EXISTS pools_other ON pools (other, seq);
CREATE TABLE IF NOT EXISTS balances (
    pool_id TEXT NOT NULL,
    company_id TEXT NOT NULL,
    asset TEXT NOT NULL,
    qty TEXT NOT NULL,
    PRIMARY KEY (pool_id, company_id, asset)
);
CREATE INDEX IF NOT EXISTS balances_company ON balances (company_id);
CREATE TABLE IF NOT EXISTS rfqs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    taker TEXT NOT NULL,
    status TEXT NOT NULL,
    live_quote TEXT,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS rfqs_taker ON rfqs (taker, seq);
CREATE TABLE IF NOT EXISTS rfq_targets (
    rfq_seq INTEGER NOT NULL,
    rfq_id TEXT NOT NULL,
    company_id TEXT NOT NULL,
    PRIMARY KEY (company_id, rfq_seq)
);
CREATE TABLE IF NOT EXISTS quotes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    rfq_id TEXT NOT NULL,
    maker TEXT NOT NULL,
    taker TEXT NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS quotes_maker ON quotes (maker, seq);
CREATE INDEX IF NOT EXISTS quotes_taker ON quotes (taker, seq);
CREATE INDEX IF NOT EXISTS quotes_rfq ON quotes (rfq_id, seq);
CREATE TABLE IF NOT EXISTS trades (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    company_id TEXT NOT NULL,
    pool_id TEXT NOT NULL,
    role TEXT NOT NULL,
    underlying TEXT NOT NULL,
    notional TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS trades_company ON trades (company_id, seq);
CREATE INDEX IF NOT EXISTS trades_company_pool ON trades (company_id, pool_id, seq);
CREATE INDEX IF NOT EXISTS trades_created ON trades (created_ms);
CREATE TABLE IF NOT EXISTS positions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    pool_id TEXT NOT NULL,
    company_id TEXT NOT NULL,
    ikey TEXT NOT NULL,
    underlying TEXT NOT NULL,
    instrument_type TEXT NOT NULL,
    instrument TEXT NOT NULL,
    qty TEXT NOT NULL,
    avg_entry_price TEXT NOT NULL,
    taker_qty TEXT NOT NULL,
    updated_ms INTEGER NOT NULL,
    UNIQUE (pool_id, company_id, ikey)
);
CREATE INDEX IF NOT EXISTS positions_company ON positions (company_id, seq);
CREATE TABLE IF NOT EXISTS transfers (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    company_id TEXT NOT NULL,
    pool_id TEXT NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS transfers_company ON transfers (company_id, seq);
CREATE INDEX IF NOT EXISTS transfers_company_pool ON transfers (company_id, pool_id, seq);
CREATE TABLE IF NOT EXISTS timers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    due_ms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    ref TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS timers_due ON timers (due_ms, id);
"""
"""Version 1: every table of the sandbox."""

SCHEMA_V2 = """
ALTER TABLE positions ADD COLUMN cost TEXT;
CREATE INDEX IF NOT EXISTS quotes_status ON quotes (status);
"""
"""Version 2: the exact cost basis of a position (``sum of signed qty x price`` of what is
open; NULL on rows written before it, read as ``avg_entry_price x qty``), and an index on the
quote state (the clearing engine looks up the accepted quotes often)."""

MIGRATIONS: dict[int, str] = {1: SCHEMA_V1, 2: SCHEMA_V2}
"""Schema steps by the version they lead to; each runs once, in order, in one transaction."""

TABLES_WITH_DATA = frozenset({"companies", "pools", "rfqs", "quotes", "trades", "transfers"})
"""Tables whose rows carry a record's wire JSON in ``data``."""
