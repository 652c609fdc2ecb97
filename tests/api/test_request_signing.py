"""The signing function and the httpx auth reproduce every published signing vector."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from tui.api.signing import (
    KEY_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    ServiceAuth,
    sign,
    signing_message,
    verify,
)

VECTORS_FILE = Path(__file__).resolve().parents[1] / "data" / "signing-vectors.json"
DATA: dict[str, Any] = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))
KEY: str = DATA["api_key"]
SECRET: str = DATA["api_secret"]
VECTORS: list[dict[str, Any]] = DATA["vectors"]


def _body(vector: dict[str, Any]) -> bytes | None:
    return bytes.fromhex(vector["body_hex"]) if vector["body_hex"] is not None else None


def _id(vector: dict[str, Any]) -> str:
    return f"{vector['method']} {vector['path_and_query']}"


@pytest.mark.parametrize("vector", VECTORS, ids=_id)
def test_sign_reproduces_vector(vector: dict[str, Any]) -> None:
    body = _body(vector)
    if body is not None:
        assert body == vector["body_utf8"].encode("utf-8")
    got = sign(
        KEY, SECRET, vector["timestamp_ms"], vector["method"], vector["path_and_query"], body
    )
    assert got == vector["signature"]
    assert verify(
        KEY, SECRET, vector["timestamp_ms"], vector["method"], vector["path_and_query"], body, got
    )


@pytest.mark.parametrize("vector", VECTORS, ids=_id)
async def test_service_auth_signs_what_httpx_sends(vector: dict[str, Any]) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"result": True})

    auth = ServiceAuth(KEY, SECRET, timestamp_ms=lambda: vector["timestamp_ms"])
    async with httpx.AsyncClient(
        base_url="http://sandbox.test", transport=httpx.MockTransport(handler), auth=auth
    ) as client:
        await client.request(
            vector["method"],
            vector["path_and_query"],
            content=_body(vector),
            headers={"content-type": "application/json"} if _body(vector) else None,
        )
    (request,) = seen
    assert request.url.raw_path.decode() == vector["path_and_query"]
    assert request.headers[TIMESTAMP_HEADER] == str(vector["timestamp_ms"])
    assert request.headers[KEY_HEADER] == KEY
    assert request.headers[SIGNATURE_HEADER] == vector["signature"]


def test_null_and_empty_body_add_no_separator() -> None:
    plain = signing_message(KEY, 1, "post", "/v1/quotes/cancel_all", None)
    assert plain == f"{KEY}|1|POST|/v1/quotes/cancel_all".encode()
    assert signing_message(KEY, 1, "POST", "/v1/quotes/cancel_all", b"") == plain
    with_body = signing_message(KEY, 1, "POST", "/v1/quotes/cancel", b"{}")
    assert with_body == plain.replace(b"cancel_all", b"cancel") + b"|{}"


def test_verify_rejects_tampering() -> None:
    vector = VECTORS[4]
    args = (KEY, SECRET, vector["timestamp_ms"], "POST", vector["path_and_query"])
    good = vector["signature"]
    assert verify(*args, _body(vector), good.upper())
    assert not verify(*args, b'{"id":"other"}', good)
    assert not verify(*args, _body(vector), "0" * 64)
    assert not verify(
        KEY,
        SECRET,
        vector["timestamp_ms"] + 1,
        "POST",
        vector["path_and_query"],
        _body(vector),
        good,
    )


def test_secret_accepted_as_secretstr() -> None:
    vector = VECTORS[0]
    got = sign(KEY, SecretStr(SECRET), vector["timestamp_ms"], "GET", "/v1/status", None)
    assert got == vector["signature"]


def test_bad_secret_is_a_clear_error_without_the_secret() -> None:
    bad = "not-hex-" + SECRET
    with pytest.raises(ValueError, match="api_secret") as info:
        ServiceAuth(KEY, bad)
    assert SECRET not in str(info.value)
    with pytest.raises(ValueError, match="api_secret"):
        sign(KEY, bad, 1, "GET", "/v1/status", None)


def test_repr_and_str_hide_the_secret() -> None:
    auth = ServiceAuth(KEY, SECRET)
    for text in (repr(auth), str(auth), repr(vars(auth)), f"{auth}"):
        assert SECRET not in text
    assert KEY in repr(auth)


async def test_each_send_is_signed_with_a_fresh_timestamp() -> None:
    ticks = iter([1000, 2000])
    stamps: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        stamps.append(request.headers[TIMESTAMP_HEADER])
        expected = sign(KEY, SECRET, int(stamps[-1]), "GET", request.url.raw_path.decode(), None)
        assert request.headers[SIGNATURE_HEADER] == expected
        return httpx.Response(200, json={"result": True})

    auth = ServiceAuth(KEY, SECRET, timestamp_ms=lambda: next(ticks))
    async with httpx.AsyncClient(
        base_url="http://sandbox.test", transport=httpx.MockTransport(handler), auth=auth
    ) as client:
        await client.get("/v1/companies", params={"limit": "5", "id": "a b"})
        await client.get("/v1/companies")
    assert stamps == ["1000", "2000"]
