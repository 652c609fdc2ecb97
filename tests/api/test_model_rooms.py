"""`tui.api.models` loads its rooms lazily: every public name has one room, the same one the
type checker sees, and using a name loads only what it needs."""

from __future__ import annotations

import ast
import inspect
import json
import subprocess
import sys

import tui.api.models as models


def _checked_imports() -> dict[str, str]:
    """Each name the package imports for the type checker, with its room."""
    tree = ast.parse(inspect.getsource(models))
    guard = next(node for node in tree.body if isinstance(node, ast.If))
    return {
        alias.name: node.module.rsplit(".", 1)[1]
        for node in guard.body
        if isinstance(node, ast.ImportFrom) and node.module is not None
        for alias in node.names
    }


def test_every_public_name_has_one_room_that_holds_it() -> None:
    assert _checked_imports() == models._ROOM_OF
    assert sorted(models.__all__) == sorted(models._ROOM_OF)
    for name, room in models._ROOM_OF.items():
        assert getattr(models, name) is getattr(
            __import__(f"tui.api.models.{room}", fromlist=[name]), name
        )


def test_an_enum_loads_no_pydantic_and_a_record_only_its_rooms() -> None:
    probe = (
        "import json, sys\n"
        "from tui.api.models import ErrorCode\n"
        "prefixes = ('tui.api.models.', 'pydantic')\n"
        "enum_only = sorted(m for m in sys.modules if m.startswith(prefixes))\n"
        "from tui.api.models import Company\n"
        "rooms = sorted(m for m in sys.modules if m.startswith('tui.api.models.'))\n"
        "print(json.dumps([enum_only, rooms]))"
    )
    done = subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    enum_only, rooms = json.loads(done.stdout)
    assert enum_only == ["tui.api.models.enums"]
    assert "tui.api.models.requests" not in rooms and "tui.api.models.margin" not in rooms
