"""The credentials file the sandbox hands to clients (where it lives: `tui.paths`).

The credentials file holds API secrets and sandbox wallet keys, so it is created with mode 0600
from the first byte (``os.open`` with the mode, never chmod after the fact) and replaced
atomically, so a reader never sees half a file or a world-readable one. Every folder the sandbox
creates on the way to it or to the database is 0700, at every level (`tui.paths.private_folder`).
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from tui.paths import private_folder

__all__ = [
    "credentials_document",
    "read_credentials",
    "write_credentials",
]


def credentials_document(
    base_url: str, companies: list[dict[str, Any]], stats_base_url: str | None = None
) -> dict[str, Any]:
    """The JSON document of the credentials file: where to connect and every company's keys."""
    return {
        "base_url": base_url,
        "stats_base_url": stats_base_url or base_url,
        "companies": companies,
    }


def write_credentials(path: Path, document: dict[str, Any]) -> None:
    """Write ``document`` to ``path`` as JSON, mode 0600 from creation, replaced atomically."""
    private_folder(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=2)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def read_credentials(path: Path) -> dict[str, Any]:
    """The credentials document written by `write_credentials`."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data
