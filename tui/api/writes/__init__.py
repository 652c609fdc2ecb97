"""Writes whose answer may be lost: every write journaled, sent once, and resolved by reading.

A timeout on an accept or a deposit must never leave the trader guessing, nor send the order
twice. `WriteDesk` (``submit``) is the one way to send a write: it writes the `Intent` to the
`Journal` (JSON lines, fsynced, no secret) before the request leaves, tells a request that never
left from one whose answer was lost, and resolves the latter by reading the venue
(``resolve``), never by resending blindly. Every write ends `Landed` (with the venue's record),
`NotLanded` (safe to send again) or `Unresolved` (still unknown, kept open). After a crash,
``journal.open_intents()`` lists what was left open. Usable without the desk.

``intents`` holds the intent and the outcomes, ``journal`` the file, ``resolve`` what each kind
of write is found by, ``submit`` the `WriteDesk`.
"""

from __future__ import annotations

from tui.api.writes.intents import (
    Intent,
    Landed,
    NotLanded,
    Outcome,
    Resolution,
    Unresolved,
    WriteKind,
)
from tui.api.writes.journal import Journal, JournalEntry, JournalError
from tui.api.writes.submit import IN_FLIGHT_MS, SETTLE_MS, WriteDesk

__all__ = [
    "IN_FLIGHT_MS",
    "SETTLE_MS",
    "Intent",
    "Journal",
    "JournalEntry",
    "JournalError",
    "Landed",
    "NotLanded",
    "Outcome",
    "Resolution",
    "Unresolved",
    "WriteDesk",
    "WriteKind",
]
