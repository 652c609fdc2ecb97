"""The venue's companies: the public directory, lookups by name, and their credentials.

``/companies`` is public to every key (the one read that is not scoped to the caller's
company). The credentials are what the sandbox writes into its credentials file for the desk,
the demos and the simulated actors.
"""

from __future__ import annotations

import json
from typing import Any

from tui.api.models import ApiRole, Company
from tui.sandbox.engine.chain import Chain
from tui.sandbox.engine.store import Store

__all__ = ["company_exists", "company_id", "company_page", "credentials"]


def company_page(
    store: Store, *, limit: int, offset: int, id: str | None
) -> tuple[list[Company], bool]:
    """A page of every company of the venue, optionally one by id."""
    where, params = ("id = ?", (id,)) if id else ("1 = 1", ())
    rows, more = store.page("companies", where, params, limit=limit, offset=offset)
    return [Company.model_validate(r) for r in rows], more


def company_exists(store: Store, company_id: str) -> bool:
    """Whether ``company_id`` is a company of the venue."""
    return store.scalar("SELECT 1 FROM companies WHERE id = ?", (company_id,)) is not None


def company_id(store: Store, short_name: str) -> str:
    """The id of a company by its short name; KeyError if there is none."""
    value = store.scalar("SELECT id FROM companies WHERE short_name = ?", (short_name,))
    if value is None:
        raise KeyError(short_name)
    return str(value)


def credentials(store: Store, chain: Chain) -> list[dict[str, Any]]:
    """One entry per API key, companies in seed order with the writer key first.

    Shape of each entry: ``{id, short_name, legal_name, is_lp, role, key_id, api_key,
    api_secret (hex), wallet_address, wallet_private_key (0x hex)}``. A ``reader`` entry
    carries ``wallet_private_key: null``: a read-only key has no business signing permits.
    """
    rows = store.all(
        "SELECT k.key_id, k.role, k.secret, c.data, w.address FROM api_keys k "
        "JOIN companies c ON c.id = k.company_id JOIN wallets w ON w.company_id = c.id "
        "ORDER BY c.seq, k.role DESC, k.seq"
    )
    out = []
    for row in rows:
        company = json.loads(row["data"])
        writer = row["role"] == ApiRole.WRITER
        out.append(
            {
                "id": company["id"],
                "short_name": company["short_name"],
                "legal_name": company["legal_name"],
                "is_lp": company["is_lp"],
                "role": row["role"],
                "key_id": row["key_id"],
                "api_key": row["key_id"],
                "api_secret": bytes(row["secret"]).hex(),
                "wallet_address": row["address"],
                "wallet_private_key": (chain.wallet_private_key(company["id"]) if writer else None),
            }
        )
    return out
