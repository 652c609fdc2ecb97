"""The ``[keymap]`` of config.toml: every binding has an id, entries are checked with file and
line, and a rebound key works in the desk (the old one does not), in the footer and the help."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import Footer, Input, Static

from tests.desk.kit.desk import SIZE, make_desk
from tests.desk.kit.scenes import build_world
from tui.desk.keymap import (
    PRESETS,
    DeskKeymap,
    default_keys,
    describe_keymap,
    desk_scopes,
    parse_keymap,
    read_keymap,
    use_keymap,
)
from tui.desk.screens.help import HelpScreen, help_text
from tui.desk.screens.new_rfq import NewRfqScreen
from tui.desk.toml_lines import entry_lines
from tui.desk.widgets.common.virtual_table import VirtualTable
from tui.desk.widgets.quote_board import QuoteBoard


def test_every_desk_binding_has_an_id() -> None:
    desk_scopes()  # imports every pane and screen of the desk
    missing = [
        f"{cls.__module__}.{cls.__name__}: {binding.key} -> {binding.action}"
        for cls in _desk_classes(DOMNode)
        for binding in Binding.make_bindings(cls.__dict__.get("BINDINGS", []))
        if binding.id is None
    ]
    assert missing == []


def _desk_classes(cls: type[DOMNode]) -> list[type[DOMNode]]:
    """The desk's own widget, screen and app classes (Textual's own bindings have no ids)."""
    found = []
    for sub in cls.__subclasses__():
        if sub.__module__.startswith("tui.desk."):
            found.append(sub)
        found.extend(_desk_classes(sub))
    return found


def test_defaults_and_every_preset_are_clean() -> None:
    assert parse_keymap("").problems == ()
    for name in PRESETS:
        keymap = parse_keymap(f'keymap_preset = "{name}"\n')
        assert keymap.problems == (), keymap.warnings
        assert dict(keymap.overrides) == {k: v for k, v in PRESETS[name].items()}
    assert default_keys()["desk.help"] == ("question_mark", "f1")


CONFIG = """\
theme = "desk-dark"
keymap_preset = "vim"

[profiles.sandbox2]
base_url = "http://127.0.0.1:1"

[keymap]
desk.new_rfq = "f2, f6"
"board.buy" = "B"
desk.nwe_rfq = "m"
desk.export = "ctrl+foo"
desk.kill_switch = "k"
board.sell = "x"

[keymap.pools]
deposit = "+"
"""


def test_entries_are_checked_with_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    keymap = read_keymap(path)
    assert keymap.preset == "vim"
    assert keymap.overrides["desk.new_rfq"] == "f2,f6"
    assert keymap.overrides["board.buy"] == "B"
    assert keymap.overrides["pools.deposit"] == "plus"  # + as Textual names it
    assert keymap.overrides["table.down"] == "down,j"  # from the preset
    warnings = keymap.warnings
    assert warnings[0].startswith(f"{path}:10: unknown binding id 'desk.nwe_rfq'")
    assert "desk.new_rfq" in warnings[0]  # the likely meant id
    assert warnings[1].startswith(f"{path}:11: desk.export: unknown key 'ctrl+foo'")
    assert warnings[2].startswith(f"{path}:12: desk.kill_switch: 'k' would be typed")
    # b's x lands on the cancel of the same board: a clash, refused where it is written
    assert warnings[3] == (
        f"{path}:13: 'x' clashes in QuoteBoard: board.cancel_rfq and board.sell on one key"
    )
    assert len(warnings) == 4
    for refused in ("desk.nwe_rfq", "desk.export", "desk.kill_switch", "board.sell"):
        assert refused not in keymap.overrides
    assert keymap.keys("board.sell") == ("s",)  # a refused entry keeps its default


def test_a_key_that_hides_an_app_key_or_an_unknown_preset_is_reported() -> None:
    keymap = parse_keymap('keymap_preset = "emacs"\n[keymap]\nboard.buy = "n"\n')
    assert keymap.warnings == [
        "keymap:1: unknown keymap_preset 'emacs' (presets: default, vim)",
        "keymap:3: 'n' clashes in QuoteBoard: board.buy and desk.new_rfq on one key",
    ]
    broken = parse_keymap("[keymap\n")
    assert broken.overrides == {} and "not read" in broken.warnings[0]


def test_toml_lines_of_dotted_quoted_and_table_keys() -> None:
    lines = entry_lines('a = 1\n[keymap]\n"x.y" = "k"\nz . w = 2\n[keymap.pools]\nd = "1"\n')
    assert lines[("a",)] == 1
    assert lines[("keymap", "x.y")] == 3
    assert lines[("keymap", "z", "w")] == 4
    assert lines[("keymap", "pools", "d")] == 6


def test_describe_marks_rebound_keys() -> None:
    rows = describe_keymap(parse_keymap('[keymap]\ndesk.new_rfq = "f2"\n'))
    rebound = next(row for row in rows if " desk.new_rfq " in row)
    assert rebound.startswith("*") and "f2" in rebound and "New RFQ" in rebound
    assert next(row for row in rows if " desk.export " in row).startswith(" ")


def test_help_text_shows_the_keys_in_force() -> None:
    default = help_text(DeskKeymap())
    assert "  n " in default and "  f2 " not in default
    rebound = help_text(parse_keymap('[keymap]\ndesk.new_rfq = "f2"\nboard.buy = "B"\n'))
    assert "  f2 " in rebound and "B buy at its ask" in rebound
    assert "b buy at its ask" not in rebound


def _footer_keys(app: Any) -> dict[str, str]:
    return {
        binding.id or binding.action: key
        for key, active in app.screen.active_bindings.items()
        for binding in [active.binding]
    }


async def test_a_rebound_key_works_and_the_old_one_does_not(sandbox: Any, tmp_path: Path) -> None:
    app = make_desk(sandbox, tmp_path)
    use_keymap(app, parse_keymap('[keymap]\ndesk.new_rfq = "f2"\ndesk.help = "f3"\n'))
    async with app.run_test(size=SIZE) as pilot:
        feed = await app.wait_connected()
        await feed.refresh_all()
        await pilot.pause()
        footer = _footer_keys(app)
        assert footer["desk.new_rfq"] == "f2"
        assert footer["desk.help"] == "f3"
        app.query_one(Footer)  # the footer draws from these active bindings
        await pilot.press("n")
        await pilot.pause()
        assert not isinstance(app.screen, NewRfqScreen)
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, NewRfqScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        shown = str(app.screen.query_one("#help-text", Static).render())
        assert "  f2 " in shown and "  n " not in shown


async def test_vim_moves_tables_and_forms_still_type(sandbox: Any, tmp_path: Path) -> None:
    app = make_desk(sandbox, tmp_path)
    use_keymap(app, parse_keymap('keymap_preset = "vim"\n'))
    async with app.run_test(size=SIZE) as pilot:
        await build_world(sandbox)  # RFQs for the inbox
        feed = await app.wait_connected()
        await feed.refresh_all()
        await pilot.pause()
        inbox = app.screen.focused
        assert isinstance(inbox, VirtualTable) and inbox.row_count > 2
        first = inbox.cursor_row
        await pilot.press("j")
        await pilot.pause()
        assert inbox.cursor_row == first + 1
        await pilot.press("k")
        await pilot.pause()
        assert inbox.cursor_row == first
        await pilot.press("G")
        await pilot.pause()
        assert inbox.cursor_row == inbox.row_count - 1
        await pilot.press("n")  # the structure builder: letters are typed, not moves
        await pilot.pause()
        assert isinstance(app.screen, NewRfqScreen)
        field = next(f for f in app.screen.query(Input) if f.restrict is None)  # a text field
        field.focus()
        await pilot.pause()
        await pilot.press("h", "j", "k", "l", "G")
        await pilot.pause()
        assert "hjklG" in field.value


async def test_a_clash_is_a_toast_and_the_board_keeps_its_keys(
    sandbox: Any, tmp_path: Path
) -> None:
    app = make_desk(sandbox, tmp_path)
    use_keymap(app, parse_keymap('[keymap]\nboard.buy = "x"\n', tmp_path / "config.toml"))
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_connected()
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert any(m.startswith(f"{tmp_path / 'config.toml'}:2: 'x' clashes") for m in messages)
        board = app.query_one(QuoteBoard)
        assert {b.key for b in board._bindings.key_to_bindings.get("b", [])} == {"b"}
