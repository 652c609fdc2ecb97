"""Where RFQ Desk keeps its files: the app name, the user config and data folders, how a
private folder (one that holds keys) is made, and how a file holding a secret is written and
checked (as ssh keeps its keys: 0600 in a 0700 folder, and a file others can read is refused
with the ``chmod`` that fixes it).

One definition for the desk and the sandbox, so the desk finds the database and credentials
file of the sandbox it starts (same data folder, same file names, same folder modes) without
importing the sandbox.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

__all__ = [
    "APP_NAME",
    "PRIVATE_FILE_MODE",
    "PRIVATE_FOLDER_MODE",
    "SANDBOX_CREDENTIALS_NAME",
    "SANDBOX_DB_NAME",
    "ExposedSecretError",
    "config_dir",
    "data_dir",
    "private_folder",
    "refuse_exposed",
    "sandbox_credentials_path",
    "sandbox_db_path",
    "write_private_file",
]

APP_NAME = "rfq-desk"
SANDBOX_DB_NAME = "sandbox.db"
"""The sandbox database's file name in the data folder."""
SANDBOX_CREDENTIALS_NAME = "sandbox-credentials.json"
"""The credentials file next to the default database (keys and wallet keys, mode 0600)."""
PRIVATE_FOLDER_MODE = 0o700
"""The mode of every folder RFQ Desk creates for keys, credentials and the sandbox database."""
PRIVATE_FILE_MODE = 0o600
"""The mode of every file RFQ Desk writes with a secret in it."""


def config_dir() -> Path:
    """Where config.toml and user themes live (platformdirs' user config folder)."""
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME))


def data_dir() -> Path:
    """Where the sandbox database, its credentials and CSV exports live (user data folder)."""
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME))


def sandbox_db_path(data: Path | None = None) -> Path:
    """The sandbox database in ``data`` (default: the user data folder)."""
    return (data if data is not None else data_dir()) / SANDBOX_DB_NAME


def sandbox_credentials_path(db_path: Path) -> Path:
    """The credentials file next to a sandbox DB: ``sandbox.db`` -> ``sandbox-credentials.json``."""
    return db_path.with_name(f"{db_path.stem}-credentials.json")


def private_folder(folder: Path) -> None:
    """Create ``folder`` and each missing folder above it with mode 0700.

    ``mkdir(parents=True, mode=...)`` would give the mode to the last folder only, leaving the
    ones above it to the umask. Folders that already exist, ``folder`` itself included, are
    left as they are: they are the user's. A folder is set to exactly 0700 after creation,
    whatever the umask took away.
    """
    missing: list[Path] = []
    current = folder
    while not current.is_dir() and current.parent != current:
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=PRIVATE_FOLDER_MODE)
        except FileExistsError:
            continue  # made meanwhile by somebody else: theirs to keep
        path.chmod(PRIVATE_FOLDER_MODE)


class ExposedSecretError(PermissionError):
    """A file holding a secret is readable or writable by group or others; names the fix."""

    def __init__(self, path: Path, mode: int) -> None:
        self.path = path
        self.mode = mode
        super().__init__(
            f"{path} holds a secret and its permissions {mode:04o} let others read it; "
            f"refusing to use it. Fix: chmod 600 {path}"
        )


def refuse_exposed(path: Path) -> None:
    """Refuse (`ExposedSecretError`) a secret-holding file that group or others may access.

    As ssh treats a private key: any permission bit for group or others is too much, whatever
    the secret. On systems without POSIX modes (Windows) nothing is checked.
    """
    if os.name != "posix":
        return
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ExposedSecretError(path, mode)


def write_private_file(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` with mode 0600 from its first byte, replaced atomically.

    The folders made on the way are 0700 (`private_folder`); the file's own folder is
    tightened to 0700 when it is RFQ Desk's own config or data folder (a folder the user
    chose, such as their home, is left alone). A reader never sees half a file.
    """
    folder = path.parent
    private_folder(folder)
    if folder.resolve() in {config_dir().resolve(), data_dir().resolve()}:
        folder.chmod(PRIVATE_FOLDER_MODE)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        raise
    return path
