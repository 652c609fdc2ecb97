"""Where RFQ Desk keeps its files: the app name, the user config and data folders, and how a
private folder (one that holds keys) is made.

One definition for the desk and the sandbox, so the desk finds the database and credentials
file of the sandbox it starts (same data folder, same file names, same folder modes) without
importing the sandbox.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "APP_NAME",
    "PRIVATE_FOLDER_MODE",
    "SANDBOX_CREDENTIALS_NAME",
    "SANDBOX_DB_NAME",
    "config_dir",
    "data_dir",
    "private_folder",
    "sandbox_credentials_path",
    "sandbox_db_path",
]

APP_NAME = "rfq-desk"
SANDBOX_DB_NAME = "sandbox.db"
"""The sandbox database's file name in the data folder."""
SANDBOX_CREDENTIALS_NAME = "sandbox-credentials.json"
"""The credentials file next to the default database (keys and wallet keys, mode 0600)."""
PRIVATE_FOLDER_MODE = 0o700
"""The mode of every folder RFQ Desk creates for keys, credentials and the sandbox database."""


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
