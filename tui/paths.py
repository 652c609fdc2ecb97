"""Where RFQ Desk keeps its files: the app name and the user config and data folders.

One definition for the desk and the sandbox, so the desk finds the database and credentials
file of the sandbox it starts (same data folder, same file names) without importing the sandbox.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "APP_NAME",
    "SANDBOX_CREDENTIALS_NAME",
    "SANDBOX_DB_NAME",
    "config_dir",
    "data_dir",
    "sandbox_credentials_path",
    "sandbox_db_path",
]

APP_NAME = "rfq-desk"
SANDBOX_DB_NAME = "sandbox.db"
"""The sandbox database's file name in the data folder."""
SANDBOX_CREDENTIALS_NAME = "sandbox-credentials.json"
"""The credentials file next to the default database (keys and wallet keys, mode 0600)."""


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
