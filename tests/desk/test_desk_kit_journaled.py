"""The journaled kit cleans up after itself: a host given no journal writes it in a folder of
its own, and that folder goes with the host (none left behind in the temp folder)."""

from __future__ import annotations

import gc
from pathlib import Path

from tests.desk.kit.journaled import JournaledHost, WritingClient


def test_a_host_without_a_journal_removes_its_folder_when_it_goes() -> None:
    host = JournaledHost(WritingClient())
    folder = Path(host.writes.path).parent
    folder.mkdir(parents=True, exist_ok=True)
    Path(host.writes.path).write_text("{}\n")  # as a write would leave it
    assert folder.is_dir()
    del host
    gc.collect()
    assert not folder.exists()


def test_a_journal_the_test_gives_is_left_alone(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    journal.write_text("{}\n")
    host = JournaledHost(WritingClient(), journal=journal)
    del host
    gc.collect()
    assert journal.read_text() == "{}\n"
