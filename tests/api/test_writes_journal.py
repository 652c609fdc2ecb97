"""The intent journal: private, durable, secret-free, and readable after a crash (issue 10)."""

from __future__ import annotations

import json
import os
import stat
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.api.kit import API_SECRET
from tests.api.kit import records as rec
from tui.api.models import NewTransferRequest, SubmitPermitRequest, Transfer
from tui.api.writes import (
    Intent,
    Journal,
    JournalError,
    Landed,
    NotLanded,
    Resolution,
    WriteKind,
)

SIGNATURE = "0x" + "ab" * 65


def _deposit(qty: str = "10") -> Intent:
    return Intent.of(
        WriteKind.TRANSFER,
        NewTransferRequest(
            qty=Decimal(qty),
            target_pool_location=rec.POOL_ID,
            counterparty=rec.MAKER,
            transfer_type="deposit",
        ),
    )


def _permit() -> Intent:
    template = {
        "types": {"Permit": [{"name": "nonce", "type": "uint256"}]},
        "primaryType": "Permit",
        "domain": {"name": "USD Coin", "chainId": "0x1"},
        "message": {
            "owner": "0x" + "11" * 20,
            "spender": rec.POOL_ADDRESS,
            "value": 10_000_000,
            "nonce": 3,
            "deadline": 1_900_000_000,
        },
    }
    return Intent.of(WriteKind.PERMIT, SubmitPermitRequest(message=template, signature=SIGNATURE))


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def test_the_journal_is_a_private_file_in_a_private_folder(tmp_path: Path) -> None:
    path = tmp_path / "data" / "journal" / "writes.jsonl"
    old_umask = os.umask(0)  # even a permissive umask gives no one else access
    try:
        with Journal(path) as journal:
            journal.sending(_deposit(), 1)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_an_existing_open_folder_and_file_are_made_private(tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    path = folder / "writes.jsonl"
    path.write_text("")
    path.chmod(0o644)
    Journal(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_folder_of_someone_else_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o755)
    monkeypatch.setattr(os, "getuid", lambda: folder.stat().st_uid + 1)
    with pytest.raises(JournalError):
        Journal(folder / "writes.jsonl")


def test_each_event_is_on_disk_before_the_call_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    path = tmp_path / "j" / "writes.jsonl"
    with Journal(path) as journal:
        intent = _deposit()
        journal.sending(intent, 1_000)
        assert len(synced) == 1
        assert _lines(path)[0]["event"] == "sent"
        journal.lost(intent, 2_000, "ReadTimeout")
        assert len(synced) == 2


def test_no_secret_is_ever_written(tmp_path: Path) -> None:
    """The permit's signature stays in memory; what resolving needs is kept (the e2e tests
    check the API secret and the wallet key of every kind of write too)."""
    path = tmp_path / "j" / "writes.jsonl"
    permit = _permit()
    assert permit.request is not None  # the body to send keeps its signature, in memory
    with Journal(path) as journal:
        journal.sending(permit, 1_000)
        journal.lost(permit, 2_000, "ReadError")
        journal.settled(Landed(permit, True, Resolution.FOUND), 3_000)
        assert journal.entry(permit.id) is not None
    text = path.read_text()
    for secret in (SIGNATURE[2:], API_SECRET):
        assert secret not in text
    assert '"signature"' not in text
    (sent, *_) = _lines(path)
    assert sent["payload"]["message"]["message"]["nonce"] == 3  # what resolving needs stays


def test_a_permit_read_back_can_be_resolved_but_not_sent(tmp_path: Path) -> None:
    path = tmp_path / "j" / "writes.jsonl"
    permit = _permit()
    Journal(path).sending(permit, 1_000)
    (read_back,) = Journal(path).open_intents()
    assert read_back.id == permit.id and read_back.kind is WriteKind.PERMIT
    assert read_back.payload == permit.payload
    assert not read_back.sendable
    with pytest.raises(ValueError, match="signed again"):
        read_back.body()


def test_open_intents_survive_a_restart_and_outcomes_close_them(tmp_path: Path) -> None:
    path = tmp_path / "j" / "writes.jsonl"
    sent, lost, landed, refused = _deposit("1"), _deposit("2"), _deposit("3"), _deposit("4")
    record = Transfer.model_validate(dict(rec.TRANSFER, qty="3"))
    with Journal(path) as journal:
        for number, intent in enumerate((sent, lost, landed, refused)):
            journal.sending(intent, number)
        journal.lost(lost, 10, "ReadTimeout")
        journal.settled(Landed(landed, record, Resolution.ANSWERED), 11)
        journal.settled(NotLanded(refused, Resolution.REFUSED, "409"), 12)

    reopened = Journal(path)
    assert reopened.open_intents() == [sent, lost]
    assert [i.request for i in reopened.open_intents()] == [sent.request, lost.request]
    entry = reopened.entry(landed.id)
    assert entry is not None and not entry.open and entry.how is Resolution.ANSWERED
    assert entry.record == record.model_dump(mode="json")
    assert reopened.claimed(WriteKind.TRANSFER) == {record.id}
    lost_entry = reopened.entry(lost.id)
    assert lost_entry is not None and lost_entry.lost_at_ms == 10
    assert [e.intent.id for e in reopened.entries()] == [
        i.id for i in (sent, lost, landed, refused)
    ]


def test_a_torn_last_line_is_skipped_and_the_next_event_starts_afresh(tmp_path: Path) -> None:
    path = tmp_path / "j" / "writes.jsonl"
    first, second = _deposit("1"), _deposit("2")
    with Journal(path) as journal:
        journal.sending(first, 1)
    whole = path.read_bytes()
    with path.open("ab") as handle:
        handle.write(b'{"event":"sent","intent":"torn","kind":"transfers_new","pay')

    with Journal(path) as journal:
        assert journal.skipped == 1
        assert journal.open_intents() == [first]
        journal.sending(second, 2)

    reread = Journal(path)
    assert reread.open_intents() == [first, second]
    assert reread.skipped == 1
    assert path.read_bytes().startswith(whole)


def test_a_retry_writes_a_new_sending_and_reopens_the_intent(tmp_path: Path) -> None:
    path = tmp_path / "j" / "writes.jsonl"
    intent = _deposit()
    with Journal(path) as journal:
        journal.sending(intent, 1)
        journal.settled(NotLanded(intent, Resolution.NEVER_SENT, "refused"), 2)
        assert journal.open_intents() == []
        journal.sending(intent, 3)
        entry = journal.entry(intent.id)
        assert entry is not None and entry.open and entry.sent_at_ms == 3
    assert [line["event"] for line in _lines(path)] == ["sent", "not_landed", "sent"]


def test_events_this_version_cannot_read_are_skipped_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "j" / "writes.jsonl"
    known = _deposit()
    with Journal(path) as journal:
        journal.sending(known, 1)
    odd = [
        {"event": "sent", "intent": "a", "kind": "quotes_teleport", "at_ms": 1, "payload": {}},
        {"event": "landed", "intent": "nobody", "at_ms": 2, "how": "answered"},
        {"event": "landed", "intent": known.id, "at_ms": 3, "how": "by magic"},
        {"event": "sent", "intent": "b", "kind": "transfers_new", "at_ms": "soon"},
        ["not", "an", "event"],
    ]
    with path.open("a") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in odd)
    reread = Journal(path)
    assert reread.skipped == len(odd)
    assert reread.open_intents() == [known]
