"""What a poll costs the client beyond its bytes (issue 11): no search of the import path per
request. httpcore asks for ``sniffio`` on every request; where it is not installed, the client
files it as missing once (`remember_missing_sniffio`) instead of letting each request look for
it in every folder of the path."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from typing import Any

import pytest


async def test_a_poll_does_not_search_the_path_for_sniffio(
    sandbox: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is not None:
        pytest.skip("sniffio is installed: httpcore imports it once")
    monkeypatch.delitem(sys.modules, "sniffio", raising=False)  # as in a fresh process
    searched: list[str] = []
    find_spec = importlib.machinery.PathFinder.find_spec

    def spy(name: str, *args: Any, **kwargs: Any) -> Any:
        searched.append(name)
        return find_spec(name, *args, **kwargs)

    async with sandbox.client("DESK") as client:
        await client.companies()  # the first connection is made
        monkeypatch.setattr(importlib.machinery.PathFinder, "find_spec", spy)
        for _ in range(3):
            await client.quotes_sent()
            await client.rfqs_received()
    assert "sniffio" not in searched
