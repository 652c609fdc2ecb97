"""SQLite storage of the sandbox exchange: the one source of truth, and it survives restarts.

One connection, used from one thread at a time (the server runs everything on its event-loop
thread; a re-entrant lock guards it anyway). The database runs in WAL mode with
``synchronous=NORMAL``: a committed transaction survives the *process* being killed (the WAL is
in the OS page cache and is replayed on the next open); only a power loss or OS crash can lose
the last few commits, which a sandbox can live with.

The schema and its migrations are `tui.sandbox.engine.schema`'s.

Every write of the exchange runs inside `Store.transaction`: one ``BEGIN IMMEDIATE`` ...
``COMMIT``, rolled back whole when anything raises. A transaction opened inside another one is
a savepoint of it: when it raises, only its own writes are undone and the outer one goes on (so
a refused request inside a bigger unit of work, such as the seeded history or the HTTP layer's
transaction around a write and its answer, leaves nothing behind).

The file holds API secrets and wallet keys: the database and its ``-wal``/``-shm`` companions
are created readable by their owner only (0600), and a missing data directory is made 0700.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from tui.sandbox.engine.schema import MIGRATIONS, SCHEMA_VERSION, TABLES_WITH_DATA

__all__ = ["RecordSink", "Store", "deterministic_hash", "deterministic_uuid"]

_PRIVATE_FILE = 0o600
_PRIVATE_DIR = 0o700
_COMPANIONS = ("-wal", "-shm", "-journal")


def _private_file(path: Path) -> None:
    """Make sure ``path`` exists and only its owner may read or write it.

    A new file is created with mode 0600 from the first byte (``os.open`` with the mode, so
    there is no moment it is world-readable); an existing one of ours is tightened to 0600.
    """
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, _PRIVATE_FILE))
    status = path.stat()
    if status.st_mode & 0o777 != _PRIVATE_FILE and status.st_uid == os.getuid():
        os.chmod(path, _PRIVATE_FILE)


def deterministic_hash(seed: int | str, counter: int, namespace: str) -> str:
    """A 32-byte hash as ``0x`` + 64 hex derived from ``seed`` and ``counter`` (transaction
    ids): reproducible, never random."""
    return "0x" + hashlib.sha256(f"rfq-desk:{namespace}:{seed}:{counter}".encode()).hexdigest()


def deterministic_uuid(seed: int | str, counter: int, namespace: str = "id") -> str:
    """A UUIDv4-shaped id derived from ``seed`` and ``counter``: reproducible, never random.

    The version and variant bits are set as a random v4 would have them, so every UUID parser
    takes it; the rest is a SHA-256 of the inputs.
    """
    digest = hashlib.sha256(f"rfq-desk:{namespace}:{seed}:{counter}".encode()).digest()
    raw = bytearray(digest[:16])
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(raw)))


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _encoded(columns: dict[str, Any]) -> dict[str, Any]:
    """Column values as stored: a ``data`` value that is not a string becomes its JSON."""
    return {
        k: (_json(v) if k == "data" and not isinstance(v, str) else v) for k, v in columns.items()
    }


class RecordSink(Protocol):
    """Where the rules put new records: the `Store` itself, or a buffer that writes them in
    bulk later (the seeded history's, `tui.sandbox.engine.history_book`)."""

    def new_id(self) -> str:
        """A fresh record id."""
        ...

    def insert(self, table: str, columns: dict[str, Any]) -> int:
        """Add a row to ``table``; returns its ``seq``."""
        ...


class Store:
    """The SQLite file of one sandbox: schema, transactions, ids, timers and paging helpers.

    Table names passed to the generic helpers come from this codebase only, never from a
    request; every value goes through a ``?`` parameter.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._depth = 0
        self._savepoints = 0
        self._protect_files()
        self._conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._conn.execute("PRAGMA busy_timeout=5000")
        self._migrate()

    # -- lifecycle ------------------------------------------------------------------------

    def _protect_files(self) -> None:
        """Owner-only modes for the data directory (when made here), the file and companions.

        SQLite creates ``-wal`` and ``-shm`` with the mode of the database file, so a 0600
        database keeps its companions 0600 too; companions left by an older run are tightened.
        """
        if not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, mode=_PRIVATE_DIR)
        _private_file(self.path)
        for suffix in _COMPANIONS:
            companion = self.path.with_name(self.path.name + suffix)
            if companion.exists():
                _private_file(companion)

    def _migrate(self) -> None:
        with self.transaction():
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )
            current = int(self.meta_get("schema_version") or 0)
            if current > SCHEMA_VERSION:
                raise RuntimeError(
                    f"{self.path} has schema version {current}, newer than this sandbox "
                    f"({SCHEMA_VERSION}); upgrade rfq-desk or start a fresh sandbox file"
                )
            for version in range(current + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[version].split(";"):
                    if statement.strip():
                        self._conn.execute(statement)
                self.meta_set("schema_version", str(version))

    @property
    def schema_version(self) -> int:
        """The schema version the file is at (always `SCHEMA_VERSION` once opened)."""
        return int(self.meta_get("schema_version") or 0)

    def close(self) -> None:
        """Checkpoint the WAL into the main file and close the connection."""
        with self._lock:
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self._conn.close()

    # -- transactions ---------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction; any exception rolls it back.

        Nested use opens a savepoint of the outer transaction: an exception undoes the nested
        part only (and goes on up); the outer transaction decides whether it all commits.
        """
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    with self.savepoint():
                        yield
                finally:
                    self._depth -= 1
                return
            self._conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                self._conn.execute("ROLLBACK")
                raise
            self._depth = 0
            self._conn.execute("COMMIT")

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        """A nested rollback point inside a transaction (one failing timer must not undo all)."""
        with self._lock:
            if not self._depth:
                raise RuntimeError("savepoint outside a transaction")
            self._savepoints += 1
            name = f"sp{self._savepoints}"
            self._conn.execute(f"SAVEPOINT {name}")
            try:
                yield
            except BaseException:
                self._conn.execute(f"ROLLBACK TO {name}")
                self._conn.execute(f"RELEASE {name}")
                raise
            finally:
                self._savepoints -= 1
            self._conn.execute(f"RELEASE {name}")

    # -- raw access -----------------------------------------------------------------------

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run one statement."""
        with self._lock:
            return self._conn.execute(sql, params)

    def one(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        """The first row of a query, or None."""
        with self._lock:
            row: sqlite3.Row | None = self._conn.execute(sql, params).fetchone()
            return row

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """Every row of a query."""
        with self._lock:
            return list(self._conn.execute(sql, params).fetchall())

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first column of the first row, or None."""
        row = self.one(sql, params)
        return None if row is None else row[0]

    # -- meta, counters and ids -----------------------------------------------------------

    def meta_get(self, key: str) -> str | None:
        """A value of the meta table."""
        value = self.scalar("SELECT value FROM meta WHERE key = ?", (key,))
        return None if value is None else str(value)

    def meta_set(self, key: str, value: str) -> None:
        """Set a value of the meta table."""
        self.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def next_counter(self, name: str) -> int:
        """Increment and return a persisted counter (rolled back with its transaction)."""
        key = f"counter:{name}"
        value = int(self.meta_get(key) or 0) + 1
        self.meta_set(key, str(value))
        return value

    def new_id(self) -> str:
        """A fresh record id: deterministic from the stored seed and the persisted counter.

        A fixed seed gives the same ids run after run; a restart continues the counter, so an
        id is never handed out twice.
        """
        seed = self.meta_get("seed") or "0"
        return deterministic_uuid(seed, self.next_counter("ids"))

    def new_hash(self, namespace: str) -> str:
        """A fresh 32-byte hash as ``0x`` + 64 hex (transaction ids), deterministic likewise."""
        seed = self.meta_get("seed") or "0"
        return deterministic_hash(seed, self.next_counter(namespace), namespace)

    # -- JSON records ---------------------------------------------------------------------

    def insert(self, table: str, columns: dict[str, Any]) -> int:
        """Insert a row; a ``data`` value that is not a string is stored as JSON. Returns seq."""
        values = _encoded(columns)
        names = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        cursor = self.execute(
            f"INSERT INTO {table} ({names}) VALUES ({marks})",  # noqa: S608 - names are ours
            tuple(values.values()),
        )
        return int(cursor.lastrowid or 0)

    def insert_many(self, table: str, rows: Sequence[dict[str, Any]], upsert: str = "") -> None:
        """Insert rows (all with the same columns, in order) in one ``executemany``.

        ``upsert`` is an ``ON CONFLICT ...`` clause to append, for rows that may exist.
        """
        if not rows:
            return
        encoded = [_encoded(row) for row in rows]
        names = ", ".join(encoded[0])
        marks = ", ".join("?" for _ in encoded[0])
        with self._lock:
            self._conn.executemany(
                f"INSERT INTO {table} ({names}) VALUES ({marks}) {upsert}",  # noqa: S608
                [tuple(row.values()) for row in encoded],
            )

    def last_seq(self, table: str) -> int:
        """The last ``seq`` (or ``id``) an AUTOINCREMENT table handed out (0: none yet)."""
        value = self.scalar("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,))
        return int(value or 0)

    def set_last_seq(self, table: str, seq: int) -> None:
        """Record that an AUTOINCREMENT table handed out every ``seq`` up to this one (rows
        written with explicit ``seq``s, some of them deleted since, as the history writes)."""
        if self.last_seq(table) >= seq:
            return
        updated = self.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = ?", (seq, table))
        if not updated.rowcount:
            self.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (table, seq))

    def update(self, table: str, key: str, key_value: Any, columns: dict[str, Any]) -> None:
        """Update the row whose ``key`` column equals ``key_value``."""
        values = _encoded(columns)
        assignments = ", ".join(f"{name} = ?" for name in values)
        self.execute(
            f"UPDATE {table} SET {assignments} WHERE {key} = ?",  # noqa: S608 - names are ours
            (*values.values(), key_value),
        )

    def data(self, table: str, where: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        """The decoded ``data`` of the first row matching ``where``, or None."""
        assert table in TABLES_WITH_DATA
        row = self.one(f"SELECT data FROM {table} WHERE {where} LIMIT 1", params)  # noqa: S608
        return None if row is None else dict(json.loads(row[0]))

    def page(
        self,
        table: str,
        where: str,
        params: Sequence[Any],
        *,
        limit: int,
        offset: int,
        column: str = "data",
    ) -> tuple[list[Any], bool]:
        """One page of rows in creation order and whether more follow.

        Asks for one row more than ``limit`` to know about the next page without a COUNT.
        Returns decoded JSON when ``column`` is ``data``, else whole rows.
        """
        select = "data" if column == "data" else "*"
        rows = self.all(
            f"SELECT {select} FROM {table} WHERE {where} "  # noqa: S608 - names are ours
            "ORDER BY seq LIMIT ? OFFSET ?",
            (*params, limit + 1, offset),
        )
        has_more = len(rows) > limit
        rows = rows[:limit]
        if column == "data":
            return [json.loads(row[0]) for row in rows], has_more
        return rows, has_more

    # -- timers ---------------------------------------------------------------------------

    def add_timer(self, due_ms: int, kind: str, ref: str) -> None:
        """Schedule ``kind`` for ``ref`` at ``due_ms`` (run by the exchange's tick)."""
        self.execute("INSERT INTO timers (due_ms, kind, ref) VALUES (?, ?, ?)", (due_ms, kind, ref))

    def due_timers(self, now_ms: int, limit: int = 200) -> list[sqlite3.Row]:
        """Timers due at ``now_ms``, earliest first."""
        return self.all(
            "SELECT id, due_ms, kind, ref FROM timers WHERE due_ms <= ? "
            "ORDER BY due_ms, id LIMIT ?",
            (now_ms, limit),
        )

    def delete_timer(self, timer_id: int) -> None:
        """Forget a timer once it ran."""
        self.execute("DELETE FROM timers WHERE id = ?", (timer_id,))

    def next_due_ms(self) -> int | None:
        """When the earliest timer is due, or None when nothing is scheduled."""
        value = self.scalar("SELECT MIN(due_ms) FROM timers")
        return None if value is None else int(value)
