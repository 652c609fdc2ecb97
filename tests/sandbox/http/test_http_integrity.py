"""What the sandbox answers is what it stored: text that cannot be encoded, answers that fail to
render, and the envelope plus ``X-Request-Received-Ms`` on every failure (over real HTTP)."""

from __future__ import annotations

import json
from typing import Any

from tui.sandbox.engine.seed import default_margin_params

RECEIVED = "X-Request-Received-Ms"


def error_of(response: Any) -> tuple[int, int, str]:
    body = response.json()
    assert set(body) == {"error"}, body
    return response.status_code, body["error"]["code"], body["error"]["message"]


def pool_body(sandbox: Any, other: str, name: str, extra_other: str = "") -> bytes:
    params = json.dumps(default_margin_params().model_dump(mode="json"))
    other_params = params[:-1] + extra_other + "}" if extra_other else params
    company = sandbox.company_ids[other]
    return (
        f'{{"pool_name":"{name}","company_other":"{company}",'
        f'"creator_params":{params},"other_params":{other_params}}}'
    ).encode()


def pool_names(sandbox: Any, company: str) -> list[str]:
    response = sandbox.request("GET", "/v1/settlement_pools?limit=1000", as_company=company)
    assert response.status_code == 200, response.text
    return [p["data"]["name"] for p in response.json()["result"]]


def test_a_lone_surrogate_anywhere_in_a_body_is_refused_naming_the_field(sandbox: Any) -> None:
    nested = pool_body(sandbox, "FJRD", "poison", extra_other=',"note":"\\ud800"')
    refused = sandbox.request("POST", "/v1/settlement_pools/new", nested, as_company="CBLT")
    status, code, message = error_of(refused)
    assert (status, code) == (400, 1000)
    assert message.startswith("other_params.note: ") and "unicode" in message
    in_name = pool_body(sandbox, "FJRD", "x\\udc00y")
    status, code, message = error_of(
        sandbox.request("POST", "/v1/settlement_pools/new", in_name, as_company="CBLT")
    )
    assert (status, code) == (400, 1000) and message.startswith("pool_name: ")
    # Nothing was stored, so both companies' reads stay healthy.
    assert "poison" not in pool_names(sandbox, "FJRD")
    assert "poison" not in pool_names(sandbox, "CBLT")
    # A valid escaped pair is one ordinary character, and welcome.
    emoji = pool_body(sandbox, "FJRD", "desk \\ud83d\\ude00")
    created = sandbox.request("POST", "/v1/settlement_pools/new", emoji, as_company="CBLT")
    assert created.status_code == 200, created.text
    assert "desk \U0001f600" in pool_names(sandbox, "FJRD")


def test_a_write_whose_answer_cannot_be_rendered_is_rolled_back_and_a_500(sandbox: Any) -> None:
    def unrenderable(_pool: Any, _viewer: str) -> Any:
        return {"not json": {1, 2}}

    sandbox.call(lambda ex: setattr(ex.views, "pool", unrenderable))
    response = sandbox.request(
        "POST", "/v1/settlement_pools/new", pool_body(sandbox, "FJRD", "ghost"), as_company="CBLT"
    )
    assert error_of(response) == (500, 9000, "internal server error")
    assert response.headers[RECEIVED] == str(sandbox.clock.now_ms())
    assert response.headers["content-type"] == "application/json"
    stored = sandbox.call(
        lambda ex: ex.store.scalar("SELECT COUNT(*) FROM pools WHERE name = 'ghost'")
    )
    assert stored == 0  # "500" means nothing happened


def test_a_read_that_fails_to_render_is_a_500_with_the_envelope(sandbox: Any) -> None:
    def unrenderable(*_args: Any, **_kwargs: Any) -> Any:
        return {"not json": object()}

    sandbox.call(lambda ex: setattr(ex, "portfolio_summary", unrenderable))
    response = sandbox.request("GET", "/v1/portfolio/summary")
    assert error_of(response) == (500, 9000, "internal server error")
    assert response.headers[RECEIVED] == str(sandbox.clock.now_ms())


def test_text_stored_before_the_check_still_reads_as_escaped_json(sandbox: Any) -> None:
    def poison(ex: Any) -> None:
        pool_id = ex.store.scalar("SELECT id FROM pools ORDER BY seq LIMIT 1")
        data = ex.store.data("pools", "id = ?", (pool_id,))
        data["name"] = "old \ud800 name"
        with ex.store.transaction():
            ex.store.update("pools", "id", pool_id, {"data": data})

    sandbox.call(poison)
    response = sandbox.request("GET", "/v1/settlement_pools?limit=1000")
    assert response.status_code == 200
    assert response.headers[RECEIVED] == str(sandbox.clock.now_ms())
    assert "old \\ud800 name" in response.text  # an ASCII escape: valid JSON, still readable
