"""A venue profile's credentials checked against the venue: good key, bad secret, unknown key,
nobody there, something that is not a venue, and a venue whose clock is 30 s off ours."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from tui.desk.profiles.check import check_credentials


def _on_sandbox_time(sandbox: Any) -> Any:
    # The test sandbox's clock is frozen; this machine "is" on it, as every desk test's client.
    return sandbox.clock.now_ms


async def test_a_good_key_names_its_company_and_role(sandbox: Any) -> None:
    entry = sandbox.credentials["DESK"]
    result = await check_credentials(
        sandbox.base_url,
        entry["api_key"],
        SecretStr(entry["api_secret"]),
        local_ms=_on_sandbox_time(sandbox),
    )
    assert result.ok, result.problem
    assert result.identity is not None
    assert result.identity.company_id == sandbox.company_ids["DESK"]
    assert result.identity.short_name == "DESK" and result.identity.role == "writer"
    assert result.notes == () and abs(result.skew_ms or 0) < 1000
    assert result.lines()[0].startswith("found DESK (")


async def test_a_reader_key_is_found_and_said_to_be_unable_to_trade(sandbox: Any) -> None:
    entry = sandbox.readers["DESK"]
    result = await check_credentials(
        sandbox.base_url,
        entry["api_key"],
        SecretStr(entry["api_secret"]),
        local_ms=_on_sandbox_time(sandbox),
    )
    assert result.ok and result.identity is not None and result.identity.role == "reader"
    assert any("cannot trade" in note for note in result.notes)


async def test_a_bad_secret_is_refused_in_the_venues_words_and_never_echoed(sandbox: Any) -> None:
    entry = sandbox.credentials["DESK"]
    wrong = "cd" * 32
    result = await check_credentials(
        sandbox.base_url, entry["api_key"], SecretStr(wrong), local_ms=_on_sandbox_time(sandbox)
    )
    assert not result.ok and result.identity is None
    assert "refused the key" in result.problem and "invalid API key or signature" in result.problem
    assert "bad signature" in result.problem and "code 2000" in result.problem
    assert wrong not in repr(result) and entry["api_secret"] not in repr(result)


async def test_an_unknown_key_and_a_malformed_secret(sandbox: Any) -> None:
    unknown = await check_credentials(
        sandbox.base_url, "no-such-key", SecretStr("ab" * 32), local_ms=_on_sandbox_time(sandbox)
    )
    assert not unknown.ok and "key is unknown" in unknown.problem
    not_hex = await check_credentials(
        sandbox.base_url, "k", SecretStr("not hex!"), local_ms=_on_sandbox_time(sandbox)
    )
    assert not_hex.field == "api_secret" and "not hexadecimal" in not_hex.problem
    assert "not hex!" not in repr(not_hex)


async def test_nobody_there_and_not_a_venue(sandbox: Any, unused_port: int) -> None:
    gone = await check_credentials(f"http://127.0.0.1:{unused_port}", "k", SecretStr("ab"))
    assert gone.field == "base_url" and gone.problem.startswith("venue unreachable at ")
    not_venue = await check_credentials(sandbox.base_url + "/v1", "k", SecretStr("ab"))
    assert not_venue.field == "base_url" and "not an RFQ venue" in not_venue.problem


@pytest.fixture
def unused_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture(scope="module")
def skewed_venue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A real sandbox process whose clock runs 30 s ahead of real time (``--faults``)."""
    import json

    folder = tmp_path_factory.mktemp("skewed")
    credentials = folder / "credentials.json"
    command = [
        sys.executable,
        "-m",
        "tui",
        "sandbox",
        "--no-actors",
        "--no-history",
        "--db",
        str(folder / "sandbox.db"),
        "--credentials",
        str(credentials),
        "--faults",
        "skew=+30s",
    ]
    child = subprocess.Popen(  # noqa: S603 (our own interpreter)
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert child.stdout is not None
        for line in child.stdout:
            if line.startswith("sandbox ready at"):
                break
        else:
            pytest.fail(f"the sandbox did not start (exit {child.wait()})")
        document = json.loads(Path(credentials).read_text())
        yield document
    finally:
        child.terminate()
        child.wait(timeout=30)


async def test_a_skewed_clock_is_named_with_its_size_and_the_key_still_found(
    skewed_venue: dict[str, Any],
) -> None:
    entry = next(
        e for e in skewed_venue["companies"] if e["short_name"] == "DESK" and e["role"] == "writer"
    )
    result = await check_credentials(
        skewed_venue["base_url"], entry["api_key"], SecretStr(entry["api_secret"])
    )
    assert result.ok and result.identity is not None and result.identity.short_name == "DESK"
    (note,) = result.notes
    found = re.match(r"clock skewed by (\d+) ms: this machine's clock is behind", note)
    assert found is not None, note
    assert abs(int(found.group(1)) - 30_000) < 2_000
    assert result.skew_ms is not None and result.skew_ms > 0
