"""Where the desk's per-profile files are kept in its data folder: one journal and one history
log per venue profile (sandbox and production records never mix).

Its own small room so the desk can name its journal before the first frame without loading the
writes (`tui.desk.roles.writes`, which brings the client and the models).
"""

from __future__ import annotations

import re
from pathlib import Path

JOURNALS = "journals"
"""The folder of the journals in the desk's data folder (0700: they tell what was traded)."""

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


HISTORIES = "history"
"""The folder of the history logs (RFQs and quotes, for the scorecards) in the data folder."""


def profile_file(folder: Path, room: str, profile: str) -> Path:
    """Venue ``profile``'s file in ``room`` of the desk's data ``folder``, named safely."""
    name = _UNSAFE_NAME.sub("_", profile) or "default"
    return folder / room / f"{name}.jsonl"


def journal_path_for(folder: Path, profile: str) -> Path:
    """The journal of venue ``profile`` in the desk's data ``folder``: an intent of one venue
    is never resolved against another's records."""
    return profile_file(folder, JOURNALS, profile)


def history_path_for(folder: Path, profile: str) -> Path:
    """The history log of venue ``profile`` in the desk's data ``folder``: a sandbox day never
    counts in production scorecards."""
    return profile_file(folder, HISTORIES, profile)
