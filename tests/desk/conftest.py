"""Fixtures of the desk's tests: a desk factory on the shared test sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.desk.kit.desk import DeskFactory, make_desk


@pytest.fixture
def desk(sandbox: Any, tmp_path: Path) -> DeskFactory:
    """Build a `DeskApp` for a seeded company (default DESK) on the running sandbox."""

    def factory(short_name: str = "DESK", **options: Any) -> Any:
        return make_desk(sandbox, tmp_path, short_name, **options)

    return factory
