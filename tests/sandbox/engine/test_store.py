"""The SQLite store: WAL mode, schema version, transactions, deterministic ids, timers, pages."""

from __future__ import annotations

import uuid

import pytest

from tui.sandbox.engine.schema import SCHEMA_VERSION
from tui.sandbox.engine.store import Store, deterministic_uuid


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "s.db")
    yield s
    s.close()


def test_wal_mode_and_schema_version(store, tmp_path):
    assert str(store.scalar("PRAGMA journal_mode")).lower() == "wal"
    assert store.scalar("PRAGMA synchronous") == 1  # NORMAL
    assert store.schema_version == SCHEMA_VERSION
    assert store.meta_get("schema_version") == str(SCHEMA_VERSION)


def test_newer_schema_refuses_to_open(tmp_path):
    s = Store(tmp_path / "n.db")
    with s.transaction():
        s.meta_set("schema_version", str(SCHEMA_VERSION + 1))
    s.close()
    with pytest.raises(RuntimeError, match="newer than this sandbox"):
        Store(tmp_path / "n.db")


def test_deterministic_uuid_is_a_v4_uuid_and_reproducible():
    first = deterministic_uuid(7, 1)
    parsed = uuid.UUID(first)
    assert parsed.version == 4
    assert parsed.variant == uuid.RFC_4122
    assert deterministic_uuid(7, 1) == first
    assert deterministic_uuid(7, 2) != first
    assert deterministic_uuid(8, 1) != first


def test_ids_follow_the_seed_and_a_persisted_counter(tmp_path):
    def ids(path):
        s = Store(path)
        with s.transaction():
            if s.meta_get("seed") is None:
                s.meta_set("seed", "42")
            out = [s.new_id() for _ in range(3)]
        s.close()
        return out

    first = ids(tmp_path / "a.db")
    assert first == ids(tmp_path / "b.db")  # same seed, same ids
    again = ids(tmp_path / "a.db")  # a restart continues the counter
    assert not set(first) & set(again)


def test_a_failed_transaction_rolls_back_everything_including_the_counter(store):
    with store.transaction():
        store.meta_set("seed", "1")
        before = store.new_id()
    with pytest.raises(ValueError), store.transaction():
        store.new_id()
        store.meta_set("note", "lost")
        raise ValueError("boom")
    assert store.meta_get("note") is None
    with store.transaction():
        after = store.new_id()
    assert after == deterministic_uuid("1", 2)
    assert before == deterministic_uuid("1", 1)


def test_nested_transactions_join_the_outer_one(store):
    with pytest.raises(KeyError), store.transaction():
        store.meta_set("outer", "1")
        with store.transaction():
            store.meta_set("inner", "1")
        raise KeyError("outer fails")
    assert store.meta_get("inner") is None
    assert store.meta_get("outer") is None


def test_savepoint_undoes_only_its_part(store):
    with store.transaction():
        store.meta_set("kept", "1")
        with pytest.raises(RuntimeError), store.savepoint():
            store.meta_set("dropped", "1")
            raise RuntimeError("one timer failed")
    assert store.meta_get("kept") == "1"
    assert store.meta_get("dropped") is None


def test_pages_are_in_creation_order_with_has_more(store):
    with store.transaction():
        for n in range(7):
            store.insert(
                "transfers",
                {"id": f"t{n}", "company_id": "c", "pool_id": "p", "status": "x", "data": {"n": n}},
            )
    rows, more = store.page("transfers", "company_id = ?", ("c",), limit=3, offset=0)
    assert [r["n"] for r in rows] == [0, 1, 2] and more
    rows, more = store.page("transfers", "company_id = ?", ("c",), limit=3, offset=6)
    assert [r["n"] for r in rows] == [6] and not more
    rows, more = store.page("transfers", "company_id = ?", ("c",), limit=4, offset=3)
    assert [r["n"] for r in rows] == [3, 4, 5, 6] and not more


def test_timers_come_due_in_order(store):
    with store.transaction():
        store.add_timer(300, "b", "2")
        store.add_timer(100, "a", "1")
        store.add_timer(900, "c", "3")
    assert store.next_due_ms() == 100
    due = store.due_timers(300)
    assert [(t["kind"], t["ref"]) for t in due] == [("a", "1"), ("b", "2")]
    with store.transaction():
        for t in due:
            store.delete_timer(t["id"])
    assert store.next_due_ms() == 900


def test_data_survives_close_and_reopen(tmp_path):
    s = Store(tmp_path / "r.db")
    with s.transaction():
        s.insert("companies", {"id": "c1", "short_name": "X", "data": {"id": "c1"}})
    s.close()
    again = Store(tmp_path / "r.db")
    assert again.data("companies", "id = ?", ("c1",)) == {"id": "c1"}
    again.close()


def test_a_failing_nested_transaction_undoes_only_its_own_writes(store):
    with store.transaction():
        store.meta_set("outer", "1")
        with pytest.raises(ValueError), store.transaction():
            store.meta_set("inner", "1")
            raise ValueError("a refused request inside a bigger unit of work")
        with store.transaction():
            store.meta_set("second", "1")
    assert store.meta_get("outer") == "1"
    assert store.meta_get("inner") is None
    assert store.meta_get("second") == "1"


def test_database_files_are_private_and_a_new_data_dir_is_0700(tmp_path):
    data = tmp_path / "fresh" / "data"
    s = Store(data / "s.db")
    with s.transaction():
        s.meta_set("secret", "x")
    assert data.stat().st_mode & 0o777 == 0o700
    for suffix in ("", "-wal", "-shm"):
        path = data / f"s.db{suffix}"
        assert path.exists()
        assert path.stat().st_mode & 0o777 == 0o600, suffix
    s.close()


def test_an_existing_world_readable_database_is_tightened_on_open(tmp_path):
    path = tmp_path / "old.db"
    Store(path).close()
    path.chmod(0o644)
    wal = tmp_path / "old.db-wal"
    wal.write_bytes(b"")
    wal.chmod(0o644)
    s = Store(path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert wal.stat().st_mode & 0o777 == 0o600
    s.close()


def test_a_version_1_file_migrates_to_the_cost_basis_column(tmp_path):
    import sqlite3

    path = tmp_path / "v1.db"
    conn = sqlite3.connect(path)
    from tui.sandbox.engine.schema import SCHEMA_V1 as _SCHEMA_V1

    conn.executescript(_SCHEMA_V1)
    conn.execute("INSERT INTO meta (key, value) VALUES ('schema_version', '1')")
    conn.commit()
    conn.close()
    s = Store(path)
    assert s.schema_version == SCHEMA_VERSION
    columns = {row[1] for row in s.all("PRAGMA table_info(positions)")}
    assert "cost" in columns
    s.close()


def test_rows_inserted_in_bulk_are_stored_as_one_by_one(store):
    rows = [
        {"id": f"t{i}", "company_id": "c", "pool_id": "p", "status": "confirmed", "data": {"i": i}}
        for i in range(3)
    ]
    with store.transaction():
        store.insert("transfers", rows[0])
        store.insert_many("transfers", rows[1:])
        store.insert_many("transfers", [])
    page, _ = store.page("transfers", "company_id = ?", ["c"], limit=10, offset=0)
    assert page == [{"i": 0}, {"i": 1}, {"i": 2}]
    assert store.last_seq("transfers") == 3
    upsert = "ON CONFLICT (pool_id, company_id, asset) DO UPDATE SET qty = excluded.qty"
    with store.transaction():
        store.insert_many(
            "balances", [{"pool_id": "p", "company_id": "c", "asset": "USDC", "qty": "1"}]
        )
        store.insert_many(
            "balances", [{"pool_id": "p", "company_id": "c", "asset": "USDC", "qty": "2"}], upsert
        )
    assert store.all("SELECT qty FROM balances")[0][0] == "2"


def test_a_table_can_be_told_which_seq_it_handed_out_last(store):
    assert store.last_seq("timers") == 0
    with store.transaction():
        store.set_last_seq("timers", 5)  # no row yet: one is made
        store.set_last_seq("timers", 3)  # never back
    assert store.last_seq("timers") == 5
    with store.transaction():
        store.add_timer(1, "k", "r")
    assert store.one("SELECT id FROM timers")[0] == 6
    with store.transaction():
        store.set_last_seq("timers", 9)
        store.add_timer(2, "k", "r")
    assert [r[0] for r in store.all("SELECT id FROM timers ORDER BY id")] == [6, 10]
