"""Fixtures of the API client tests."""

from __future__ import annotations

import pytest

from tests.api.kit import FakeTime


@pytest.fixture
def fake_time() -> FakeTime:
    """Fake monotonic time; sleeping advances it instead of waiting."""
    return FakeTime()
