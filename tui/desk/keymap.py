"""The trader's keys: the ``[keymap]`` table of config.toml, checked against every binding.

    keymap_preset = "vim"          # optional: hjkl, G, ctrl+f/ctrl+b on the tables
    [keymap]
    desk.new_rfq = "ctrl+n,n"      # binding id = keys, comma-separated
    "board.buy" = "B"

Every binding of the desk has an id (`tui.desk.keys` and the widgets' ``BINDINGS``); Textual's
keymap (`App.set_keymap`) puts the keys in place, so the footer shows them, and the help screen
asks `DeskKeymap.display` for them. Before that, each entry is checked: an unknown id, a key
Textual does not know, a printable key on a binding that works while a field is typed into,
and a key that lands on another action of the same pane (a clash) are refused with the file and
line (tomllib gives no line numbers: `entry_lines` finds them in the text), and the binding
keeps its default keys.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from textual.app import App
from textual.binding import Binding, Keymap
from textual.dom import DOMNode
from textual.keys import (
    KEY_NAME_REPLACEMENTS,
    Keys,
    _character_to_key,
    format_key,
    key_to_character,
)
from textual.screen import Screen

from tui.desk.toml_lines import entry_lines, line_of

PRESETS: dict[str, dict[str, str]] = {
    "vim": {
        "table.up": "up,k",
        "table.down": "down,j",
        "table.left": "left,h",
        "table.right": "right,l",
        "table.bottom": "end,ctrl+end,G",
        "table.page_up": "pageup,ctrl+b",
        "table.page_down": "pagedown,ctrl+f",
        "desk.journal": "J",  # j moves down on the tables, which hide the app's j
    },
}
"""Named sets of keys a config picks with ``keymap_preset``; its own ``[keymap]`` wins over them.
The vim set moves only the tables' cursors, which no form field is part of, so typing is safe."""

MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
_NAMED_KEYS = frozenset(
    key.value for key in Keys if "+" not in key.value and not key.value.startswith("<")
) | frozenset(KEY_NAME_REPLACEMENTS.values())
_DISPLAY = {"up": "↑", "down": "↓", "left": "←", "right": "→", "escape": "esc"}


@dataclass(frozen=True)
class KeymapProblem:
    """One refused keymap entry: where it is written and what is wrong with it."""

    path: Path | None
    line: int | None
    message: str

    def __str__(self) -> str:
        where = str(self.path) if self.path else "keymap"
        return f"{where}:{self.line}: {self.message}" if self.line else f"{where}: {self.message}"


@dataclass(frozen=True)
class Scope:
    """A pane, screen or the app: the bindings that answer one key together."""

    name: str
    bindings: tuple[Binding, ...]  # one key each, in Textual's order
    modal: bool  # a screen of its own: the app's keys other than priority ones stop there


@cache
def desk_scopes() -> tuple[Scope, ...]:
    """Every class of the desk with bindings (the app, its panes and screens), merged as
    Textual merges them (a class's own ``BINDINGS`` over its bases')."""
    import pkgutil

    importlib.import_module("tui.desk.app")
    for package in ("tui.desk.widgets", "tui.desk.screens"):
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, f"{package}."):
            importlib.import_module(info.name)
    scopes = []
    for cls in _subclasses(DOMNode):
        if not cls.__module__.startswith("tui.desk.") or "BINDINGS" not in cls.__dict__:
            continue
        merged = cls._merge_bindings().key_to_bindings  # Textual's own merge, private API
        flat = tuple(binding for bindings in merged.values() for binding in bindings)
        if issubclass(cls, App):  # the palette's key is bound when the app starts, not by class
            flat += (Binding(cls.COMMAND_PALETTE_BINDING, "command_palette"),)
        scopes.append(Scope(cls.__name__, flat, issubclass(cls, Screen)))
    return tuple(sorted(scopes, key=lambda scope: scope.name))


def _subclasses(cls: type[DOMNode]) -> Iterator[type[DOMNode]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


@cache
def default_keys() -> dict[str, tuple[str, ...]]:
    """Each binding id's keys when nothing is rebound."""
    keys: dict[str, list[str]] = {}
    for scope in desk_scopes():
        for binding in scope.bindings:
            if binding.id is not None and binding.key not in keys.setdefault(binding.id, []):
                keys[binding.id].append(binding.key)
    return {binding_id: tuple(found) for binding_id, found in keys.items()}


def binding_descriptions() -> dict[str, str]:
    """Each binding id's description (for ``rfq-desk config`` and the checks' messages)."""
    described: dict[str, str] = {}
    for scope in desk_scopes():
        for binding in scope.bindings:
            if binding.id is not None:
                described.setdefault(binding.id, binding.description or binding.action)
    return described


def normalize_key(key: str) -> str:
    """A key as Textual names it (``?`` -> ``question_mark``), surrounding blanks dropped."""
    key = key.strip()
    return _character_to_key(key) if len(key) == 1 else key


def key_problem(key: str) -> str | None:
    """Why ``key`` is not a key Textual can bind, or None."""
    if not key:
        return "an empty key"
    *modifiers, base = key.split("+")
    unknown = [m for m in modifiers if m not in MODIFIERS]
    if unknown or len(set(modifiers)) != len(modifiers):
        return f"unknown key {key!r} (modifiers are {', '.join(sorted(MODIFIERS))})"
    if len(base) == 1 or base in _NAMED_KEYS or key_to_character(base) is not None:
        return None
    return f"unknown key {key!r} (e.g. 'x', 'ctrl+x', 'f5', 'pagedown', 'question_mark')"


def is_printable(key: str) -> bool:
    """True for a key a text field types (``x``, ``X``, ``space``), not a command key."""
    *modifiers, base = key.split("+")
    if set(modifiers) - {"shift"}:
        return False
    return len(base) == 1 or base == "space" or key_to_character(base) is not None


def display_key(key: str) -> str:
    """A key as the help screen writes it: ``?``, ``ctrl+k``, ``↑``."""
    *modifiers, base = key.split("+")
    return "+".join([*modifiers, _DISPLAY.get(base) or format_key(base)])


@dataclass(frozen=True)
class DeskKeymap:
    """The keys in force: the checked overrides by binding id, and what was refused."""

    overrides: Mapping[str, str] = field(default_factory=dict)
    problems: tuple[KeymapProblem, ...] = ()
    preset: str | None = None

    @property
    def textual(self) -> Keymap:
        """The overrides as Textual's keymap."""
        return dict(self.overrides)

    @property
    def warnings(self) -> list[str]:
        """Each problem in one line, file and line first."""
        return [str(problem) for problem in self.problems]

    def keys(self, binding_id: str) -> tuple[str, ...]:
        """The keys of a binding now (rebound or default)."""
        override = self.overrides.get(binding_id)
        return tuple(override.split(",")) if override else default_keys().get(binding_id, ())

    def display(self, binding_id: str) -> str:
        """The keys of a binding as the help screen shows them (``? f1``); ``-`` for none."""
        return " ".join(display_key(key) for key in self.keys(binding_id)) or "-"


class KeymapHolder(Protocol):
    """An app that takes a keymap (the desk): Textual's `set_keymap` and the desk's copy."""

    desk_keymap: DeskKeymap

    def set_keymap(self, keymap: Keymap) -> None:
        """Textual's keymap setter."""


def use_keymap(app: KeymapHolder, keymap: DeskKeymap) -> None:
    """Put ``keymap`` in force in ``app`` (before or while it runs)."""
    app.desk_keymap = keymap
    app.set_keymap(keymap.textual)


# -- reading ---------------------------------------------------------------------------------


def _flatten(
    table: Mapping[str, Any], path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], Any]]:
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _flatten(value, (*path, key))
        else:
            yield (*path, key), value


def read_keymap(path: Path) -> DeskKeymap:
    """The keymap of a config file; no file or no ``[keymap]`` is the default keymap."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return DeskKeymap()
    except OSError as error:
        return DeskKeymap(problems=(KeymapProblem(path, None, str(error)),))
    return parse_keymap(text, path)


def parse_keymap(text: str, path: Path | None = None) -> DeskKeymap:
    """Check the ``keymap_preset`` and ``[keymap]`` of a config text (see module docs)."""
    import tomllib  # only when there is a config file

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return DeskKeymap(problems=(KeymapProblem(path, None, f"not read: {error}"),))
    lines = entry_lines(text)
    problems: list[KeymapProblem] = []

    def refuse(where: tuple[str, ...], message: str) -> None:
        problems.append(KeymapProblem(path, line_of(lines, where), message))

    wanted: dict[str, str] = {}
    origin: dict[str, tuple[str, ...]] = {}
    preset = data.get("keymap_preset")
    if preset not in (None, "", "default"):
        if isinstance(preset, str) and preset in PRESETS:
            for binding_id, keys in PRESETS[preset].items():
                wanted[binding_id] = keys
                origin[binding_id] = ("keymap_preset",)
        else:
            names = ", ".join(["default", *PRESETS])
            refuse(("keymap_preset",), f"unknown keymap_preset {preset!r} (presets: {names})")
            preset = None
    table = data.get("keymap", {})
    if not isinstance(table, dict):
        refuse(("keymap",), 'keymap must be a table: [keymap] then binding_id = "keys"')
        table = {}
    known = default_keys()
    for parts, value in _flatten(table):
        binding_id, where = ".".join(parts), ("keymap", *parts)
        if binding_id not in known:
            close = difflib.get_close_matches(binding_id, list(known), n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            refuse(where, f"unknown binding id {binding_id!r}{hint}; `?` in the desk lists keys")
            continue
        if not isinstance(value, str) or not value.strip():
            refuse(where, f'{binding_id}: give the keys as a string, e.g. "ctrl+n,f2"')
            continue
        typed = [normalize_key(key) for key in value.split(",")]
        bad = next((p for p in map(key_problem, typed) if p), None)
        if bad:
            refuse(where, f"{binding_id}: {bad}")
            continue
        wanted[binding_id] = ",".join(dict.fromkeys(typed))
        origin[binding_id] = where
    for binding_id in list(wanted):
        typed = [key for key in wanted[binding_id].split(",") if is_printable(key)]
        if typed and _works_while_typing(binding_id):
            refuse(
                origin[binding_id],
                f"{binding_id}: {typed[0]!r} would be typed into fields; this binding works "
                "while a field has the focus, so it takes ctrl/alt/function keys only",
            )
            del wanted[binding_id]
    for binding_id, message in _clashes(wanted):
        refuse(origin[binding_id], message)
    return DeskKeymap(wanted, tuple(problems), preset if isinstance(preset, str) else None)


def _works_while_typing(binding_id: str) -> bool:
    return any(
        binding.priority
        for scope in desk_scopes()
        for binding in scope.bindings
        if binding.id == binding_id
    )


def _clashes(wanted: dict[str, str]) -> Iterator[tuple[str, str]]:
    """Refuse rebound keys that land on another action of one scope (``wanted`` shrinks to the
    entries that are safe; a refused one keeps its default keys, which may clash anew). A pane
    shares its keys with the app's (its own would hide them), a modal screen only with the app's
    priority keys, which work everywhere."""
    app = [b for scope in desk_scopes() if scope.name == "DeskApp" for b in scope.bindings]
    priority = [binding for binding in app if binding.priority]
    while True:
        found: dict[str, str] = {}
        for scope in desk_scopes():
            extra = () if scope.name == "DeskApp" else priority if scope.modal else app
            for key, actions in _effective(scope, extra, wanted).items():
                rebound = [b for b, moved in actions if moved]
                if not rebound or len({b.action for b, _ in actions}) < 2:
                    continue
                names = " and ".join(sorted({b.id or b.action for b, _ in actions}))
                for binding in rebound:
                    assert binding.id is not None
                    found.setdefault(
                        binding.id, f"{key!r} clashes in {scope.name}: {names} on one key"
                    )
        if not found:
            return
        for binding_id, message in found.items():
            del wanted[binding_id]
            yield binding_id, message


def _effective(
    scope: Scope, extra: Iterable[Binding], wanted: Mapping[str, str]
) -> dict[str, list[tuple[Binding, bool]]]:
    """Key -> the bindings it runs in ``scope`` under ``wanted``, each marked if rebound; as
    Textual applies a keymap, a rebound binding takes its old keys away from every binding."""
    bindings = [*scope.bindings, *extra]
    freed = {b.key for b in bindings if b.id in wanted}
    keys: dict[str, list[tuple[Binding, bool]]] = {}
    rebound: dict[str, Binding] = {}
    for binding in bindings:
        if binding.id is not None and binding.id in wanted:
            rebound.setdefault(binding.id, binding)
        elif binding.key not in freed:
            keys.setdefault(binding.key, []).append((binding, False))
    for binding_id, binding in rebound.items():
        for key in wanted[binding_id].split(","):
            keys.setdefault(key, []).append((binding, True))
    return keys


def describe_keymap(keymap: DeskKeymap) -> list[str]:
    """One line per binding id: its keys now, what it does, and ``*`` where rebound (for
    ``rfq-desk config``)."""
    described = binding_descriptions()
    rows = []
    for binding_id in sorted(default_keys()):
        mark = "*" if binding_id in keymap.overrides else " "
        keys = ",".join(keymap.keys(binding_id))
        rows.append(f"{mark} {binding_id:<28} {keys:<22} {described.get(binding_id, '')}")
    return rows
