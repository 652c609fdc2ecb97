"""The intent journal: every write, written down before it leaves, and what came of it.

A file of JSON lines, one event a line, appended and fsynced before `WriteDesk` lets a request
leave, so that after a crash the intents whose outcome was never learnt can be listed
(`Journal.open_intents`) and resolved. It is also the trader's audit trail of every action
sent. The events of one intent, by its id:

- ``sent``: the intent (kind, payload: the body without any secret) just before a request
  leaves; once per sending.
- ``lost``: the answer never came (a timeout, a dropped connection, a 5xx): maybe landed.
- ``landed`` / ``not_landed``: the outcome, how it is known, and for a landed write its record.

An intent whose last event is ``sent`` or ``lost`` is open. The file is made 0600 in a folder
made 0700 (`tui.paths.private_folder`; give the journal a folder of its own); an existing folder
others can read is made private, or refused when it is not ours. A line torn by a crash
mid-write is skipped on reading (and counted in `Journal.skipped`); the next event starts on a
line of its own. One process writes a journal at a time.
"""

from __future__ import annotations

import json
import os
import stat
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tui.api.writes.intents import (
    Intent,
    Landed,
    NotLanded,
    Resolution,
    WriteKind,
    record_id,
    without_secrets,
)
from tui.paths import PRIVATE_FOLDER_MODE, private_folder

__all__ = ["Journal", "JournalEntry", "JournalError"]

_PRIVATE_FILE = 0o600


class JournalError(OSError):
    """The journal cannot be kept where it was asked to be (a folder others can read)."""


@dataclass(slots=True)
class JournalEntry:
    """What the journal knows of one intent: its last sending, whether its answer was lost,
    and its outcome once known (``record`` is the landed record as JSON)."""

    intent: Intent
    sent_at_ms: int
    lost_at_ms: int | None = None
    outcome: str | None = None
    how: Resolution | None = None
    reason: str = ""
    record: Any = None

    @property
    def open(self) -> bool:
        """True while the outcome is unknown: sent (a crash may have cut it short) or lost."""
        return self.outcome is None


def _as_json(record: Any) -> Any:
    if isinstance(record, BaseModel):
        return record.model_dump(mode="json")
    return record


def _journal_folder(folder: Path) -> None:
    """Made private where missing; an existing folder others can read is made private too, as a
    journal tells what was traded (`tui.paths.private_folder` leaves existing folders alone)."""
    private_folder(folder)
    info = folder.stat()
    if stat.S_IMODE(info.st_mode) & 0o077:
        if info.st_uid != os.getuid():
            raise JournalError(f"{folder} is readable by others and not ours to make private")
        folder.chmod(PRIVATE_FOLDER_MODE)


class Journal:
    """The append-only journal of one profile's writes, at ``path`` (created if missing)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser()
        _journal_folder(self.path.parent)
        self.skipped = 0
        self._entries: dict[str, JournalEntry] = {}
        self._claimed: dict[WriteKind, set[str]] = defaultdict(set)
        self._fd = os.open(
            self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, _PRIVATE_FILE
        )
        os.fchmod(self._fd, _PRIVATE_FILE)
        content = self.path.read_bytes()
        for line in content.splitlines():
            self._replay(line)
        if content and not content.endswith(b"\n"):
            self._write(b"\n")  # the torn last line ends here; the next event starts afresh

    def close(self) -> None:
        """Close the file (the journal can be opened again from its path)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- reading ---------------------------------------------------------------------------

    def entry(self, intent_id: str) -> JournalEntry | None:
        """What the journal knows of the intent ``intent_id``, or None if it never saw it."""
        return self._entries.get(intent_id)

    def entries(self) -> list[JournalEntry]:
        """Every intent in the order it was first sent: the audit trail."""
        return list(self._entries.values())

    def open_intents(self) -> list[Intent]:
        """The intents whose outcome is not known (sent, or answer lost), oldest first."""
        return [entry.intent for entry in self._entries.values() if entry.open]

    def claimed(self, kind: WriteKind) -> frozenset[str]:
        """Ids of the records intents of ``kind`` landed as: never another intent's record."""
        return frozenset(self._claimed[kind])

    # -- writing ---------------------------------------------------------------------------

    def sending(self, intent: Intent, at_ms: int) -> None:
        """Write the intent down (and fsync) before its request leaves."""
        self._append(
            {
                "event": "sent",
                "intent": intent.id,
                "kind": intent.kind.value,
                "at_ms": at_ms,
                "payload": without_secrets(dict(intent.payload)),
            }
        )
        self._entries[intent.id].intent = intent  # keeps the body to send, signature and all

    def lost(self, intent: Intent, at_ms: int, reason: str) -> None:
        """Note that the answer never came: the intent may have landed."""
        self._append({"event": "lost", "intent": intent.id, "at_ms": at_ms, "reason": reason})

    def settled(self, outcome: Landed | NotLanded, at_ms: int) -> None:
        """Write the outcome of an intent down, with how it is known."""
        event: dict[str, Any] = {
            "intent": outcome.intent.id,
            "at_ms": at_ms,
            "how": outcome.how.value,
        }
        if isinstance(outcome, Landed):
            event["event"] = "landed"
            event["record"] = without_secrets(_as_json(outcome.record))
            event["record_id"] = record_id(outcome.intent.kind, outcome.record)
        else:
            event["event"] = "not_landed"
            event["reason"] = outcome.reason
        self._append(event)

    def _append(self, event: dict[str, Any]) -> None:
        line = json.dumps(event, separators=(",", ":"), ensure_ascii=False) + "\n"
        self._write(line.encode("utf-8", "backslashreplace"))
        self._replay_event(event)

    def _write(self, data: bytes) -> None:
        if self._fd < 0:
            raise ValueError("the journal is closed")
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]
        os.fsync(self._fd)

    # -- replaying -------------------------------------------------------------------------

    def _replay(self, line: bytes) -> None:
        try:
            event = json.loads(line)
        except ValueError:
            self.skipped += 1  # torn by a crash mid-write
            return
        if not isinstance(event, dict) or not self._replay_event(event):
            self.skipped += 1

    def _replay_event(self, event: dict[str, Any]) -> bool:
        """Apply one event to the index; False for one this journal cannot read."""
        intent_id, kind, at_ms = event.get("intent"), event.get("event"), event.get("at_ms")
        if not isinstance(intent_id, str) or not isinstance(at_ms, int):
            return False
        entry = self._entries.get(intent_id)
        if kind == "sent":
            payload = event.get("payload")
            if not isinstance(payload, dict):
                return False
            try:
                intent = Intent.from_journal(str(event.get("kind")), intent_id, payload)
            except ValueError:
                return False  # a kind of write this version does not know
            if entry is None:
                self._entries[intent_id] = JournalEntry(intent, at_ms)
            else:
                entry.sent_at_ms, entry.lost_at_ms, entry.outcome = at_ms, None, None
            return True
        if entry is None:
            return False
        if kind == "lost":
            entry.lost_at_ms = at_ms
        elif kind in ("landed", "not_landed"):
            try:
                entry.how = Resolution(str(event.get("how")))
            except ValueError:
                return False
            entry.outcome, entry.reason = kind, str(event.get("reason", ""))
            entry.record = event.get("record")
            claim = event.get("record_id")
            if kind == "landed" and isinstance(claim, str):
                self._claimed[entry.intent.kind].add(claim)
        else:
            return False
        return True
