"""The opening state, keys and credentials, status, supported assets and the company list."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from tests.sandbox.kit import Kit
from tui.api.models import ApiRole
from tui.sandbox.engine.exchange import Caller
from tui.sandbox.engine.seed import SEED_COMPANIES, SEED_POOL_DEPOSITS, SEED_POOL_NAME
from tui.sandbox.engine.venue import ApiKey

D = Decimal


@pytest.fixture
def kit(tmp_path):
    k = Kit(tmp_path / "seed.db")
    yield k
    k.close()


def test_companies_makers_and_takers(kit):
    page = kit.ex.companies(kit["DESK"], limit=100, offset=0)
    names = {c.short_name: c for c in page.items}
    assert list(names) == [c.short_name for c in SEED_COMPANIES]
    assert names["DESK"].legal_name == "Desk Trading Ltd" and not names["DESK"].is_lp
    assert sum(c.is_lp for c in page.items) >= 4
    assert sum(not c.is_lp for c in page.items) >= 3
    one = kit.ex.companies(kit["DESK"], limit=10, offset=0, id=names["ALPHA"].id)
    assert [c.short_name for c in one.items] == ["ALPHA"]
    first = kit.ex.companies(kit["DESK"], limit=2, offset=0)
    assert first.has_more and len(first.items) == 2


def test_credentials_file_entries(kit):
    entries = kit.ex.credentials()
    writers = [e for e in entries if e["role"] == "writer"]
    readers = [e for e in entries if e["role"] == "reader"]
    assert [e["short_name"] for e in writers] == [c.short_name for c in SEED_COMPANIES]
    assert [e["short_name"] for e in readers] == ["DESK"]
    for entry in writers:
        assert re.fullmatch(r"[0-9a-f]{64}", entry["api_secret"])
        assert re.fullmatch(r"0x[0-9a-f]{64}", entry["wallet_private_key"])
        assert re.fullmatch(r"0x[0-9a-f]{40}", entry["wallet_address"])
        assert entry["api_key"] == entry["key_id"]
    assert readers[0]["wallet_private_key"] is None
    assert readers[0]["api_key"] != writers[0]["api_key"]
    assert len({e["api_secret"] for e in entries}) == len(entries)


def test_api_key_lookup_and_secret_not_in_repr(kit):
    entry = kit.ex.credentials()[0]
    key = kit.ex.api_key(entry["api_key"])
    assert isinstance(key, ApiKey)
    assert key.company_id == entry["id"] and key.role is ApiRole.WRITER
    assert key.secret == bytes.fromhex(entry["api_secret"])
    assert entry["api_secret"] not in repr(key) and "secret" not in repr(key)
    assert kit.ex.api_key("no-such-key") is None


def test_seeded_pool_is_open_and_funded(kit):
    pool = kit.pool("DESK", kit.seed_pool_id())
    assert pool.data.name == SEED_POOL_NAME and pool.data.status == "open"
    parties = {p.company: p.margin_usage.balance for p in pool.data.parties}
    assert parties == {kit.id(name): amount for name, amount in SEED_POOL_DEPOSITS.items()}
    seeded = {c.short_name: c.wallet_usdc for c in SEED_COMPANIES}
    assert kit.wallet("DESK") == seeded["DESK"] - SEED_POOL_DEPOSITS["DESK"]
    assert kit.wallet("BORE") == seeded["BORE"]


def test_same_seed_same_ids_new_secrets(tmp_path):
    first = Kit(tmp_path / "a.db")
    second = Kit(tmp_path / "b.db")
    try:
        a, b = first.ex.credentials(), second.ex.credentials()
        assert [e["id"] for e in a] == [e["id"] for e in b]
        assert [e["key_id"] for e in a] == [e["key_id"] for e in b]
        assert first.seed_pool_id() == second.seed_pool_id()
        assert {e["api_secret"] for e in a}.isdisjoint({e["api_secret"] for e in b})
        assert {e["wallet_address"] for e in a}.isdisjoint({e["wallet_address"] for e in b})
    finally:
        first.close()
        second.close()


def test_status_and_supported_assets(kit):
    anonymous = kit.ex.status(None)
    assert anonymous.auth is None and anonymous.server_timestamp_ms == kit.clock.now_ms()
    caller = Caller(company_id=kit.id("DESK"), key_id="k1", role=ApiRole.READER)
    status = kit.ex.status(caller)
    assert (status.auth.key_id, status.auth.company_id, status.auth.role) == (
        "k1",
        kit.id("DESK"),
        "reader",
    )
    assets = kit.ex.supported_assets()
    assert "BTC" in assets and "USDC" in assets
    verified = kit.ex.supported_assets(verified=True)
    assert all(d.verified for details in verified.values() for d in details)
