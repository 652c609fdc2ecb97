"""Themes: the colour-blind theme tells bid from ask, a bad user theme names its file, line and
field, an unknown ``--theme`` lists the themes, the chosen theme is there after a restart, and
no theme's marks vanish on a 256- or 16-colour terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.color import ColorSystem
from textual.color import Color

from tui.__main__ import main
from tui.desk.themes import BUILTIN_THEMES, COLOURBLIND_THEME, load_user_themes

# Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB.
_SIMULATE = {
    "protanopia": ((0.152, 1.053, -0.205), (0.115, 0.786, 0.099), (-0.004, -0.048, 1.052)),
    "deuteranopia": ((0.367, 0.861, -0.228), (0.280, 0.673, 0.047), (-0.012, 0.043, 0.969)),
}


def _linear(channel: float) -> float:
    channel /= 255
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def _seen(colour: str, vision: str | None) -> tuple[float, float, float]:
    parsed = Color.parse(colour.split()[0])
    rgb = [_linear(parsed.r), _linear(parsed.g), _linear(parsed.b)]
    if vision is None:
        return (rgb[0], rgb[1], rgb[2])
    rows = _SIMULATE[vision]
    simulated = [
        min(1.0, max(0.0, sum(m * c for m, c in zip(row, rgb, strict=True)))) for row in rows
    ]
    return (simulated[0], simulated[1], simulated[2])


def _hue_gap(one: str, other: str, vision: str | None) -> float:
    """How far apart two colours look, lightness taken out: only hue and saturation count."""

    def chroma(colour: str) -> tuple[float, float]:
        r, g, b = _seen(colour, vision)
        total = r + g + b or 1.0
        return (r / total, b / total)

    (r1, b1), (r2, b2) = chroma(one), chroma(other)
    return float(((r1 - r2) ** 2 + (b1 - b2) ** 2) ** 0.5)


def test_the_colourblind_theme_tells_bid_from_ask_by_hue() -> None:
    variables = BUILTIN_THEMES[COLOURBLIND_THEME].variables
    for vision in (None, "protanopia", "deuteranopia"):
        assert _hue_gap(variables["bid"], variables["ask"], vision) > 0.3, vision
        assert _hue_gap(variables["booked"], variables["rejected"], vision) > 0.3, vision
    # The measure does tell: the red/green pair of desk-dark collapses for the same eyes.
    dark = BUILTIN_THEMES["desk-dark"].variables
    assert _hue_gap(dark["bid"], dark["ask"], None) > 0.3
    assert _hue_gap(dark["bid"], dark["ask"], "deuteranopia") < 0.15


def test_a_broken_user_theme_names_file_line_and_field(tmp_path: Path) -> None:
    (tmp_path / "good.toml").write_text('name = "good"\nprimary = "#112233"\n', encoding="utf-8")
    (tmp_path / "bad.toml").write_text(
        'name = "bad"\nprimary = "#112233"\n\n[variables]\nbid = "#3fb950"\nask = "reddish"\n',
        encoding="utf-8",
    )
    (tmp_path / "worse.toml").write_text(
        'name = "worse"\nprimary = "#112233"\nbackground = "nope"\n', encoding="utf-8"
    )
    loaded = load_user_themes([tmp_path])
    assert set(loaded.themes) == {"good"}
    assert loaded.warnings == [
        f"theme skipped: {tmp_path / 'bad.toml'}:6: variable 'ask' is not a colour: 'reddish'",
        f"theme skipped: {tmp_path / 'worse.toml'}:3: 'background' is not a colour: 'nope'",
    ]


def test_an_unknown_theme_is_an_error_listing_the_themes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("RFQ_DESK_THEME", raising=False)
    assert main(["--theme", "nosuch"]) == 2  # the exit code of `rfq-desk --theme nosuch`
    error = capsys.readouterr().err
    assert "nosuch" in error
    for theme in BUILTIN_THEMES:
        assert theme in error


def test_the_chosen_theme_is_there_after_a_restart(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tui.desk import launch
    from tui.desk.app import DeskApp

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("RFQ_DESK_THEME", raising=False)
    monkeypatch.delenv("RFQ_DESK_CONFIG", raising=False)
    opened: list[str] = []

    def session(app: DeskApp, *_: Any, **__: Any) -> None:
        # No terminal: the session opens, the trader picks a theme in the palette, quits.
        opened.append(app.theme)
        app.theme = COLOURBLIND_THEME

    monkeypatch.setattr(DeskApp, "run", session)
    assert launch.run_desk(data=tmp_path / "data") == 0
    assert launch.run_desk(data=tmp_path / "data") == 0
    assert opened == ["desk-dark", COLOURBLIND_THEME]


_MARKS = ("bid", "ask", "stale", "needs-action", "booked", "rejected", "muted", "field-error")


EXAMPLES = load_user_themes([Path(__file__).resolve().parents[2] / "themes"]).themes
"""The example user themes shipped in themes/."""


@pytest.mark.parametrize("system", [ColorSystem.EIGHT_BIT, ColorSystem.STANDARD])
@pytest.mark.parametrize("name", [*BUILTIN_THEMES, *EXAMPLES])
def test_marks_stay_visible_without_true_colour(name: str, system: ColorSystem) -> None:
    """On a terminal without true colour (SSH without COLORTERM) each colour becomes its
    nearest palette entry: no mark may become the background's, and bid and ask stay apart."""
    theme = BUILTIN_THEMES.get(name) or EXAMPLES[name]
    assert theme.background is not None

    def on_terminal(colour: str) -> int | None:
        """The palette entry the terminal shows for ``colour``."""
        return Color.parse(colour.split()[0]).rich_color.downgrade(system).number

    background = on_terminal(theme.background)
    for mark in _MARKS:
        assert on_terminal(theme.variables[mark]) != background, mark
    for one, other in _APART:
        assert on_terminal(theme.variables[one]) != on_terminal(theme.variables[other]), one
    assert theme.foreground is not None
    assert on_terminal(theme.variables["stale"]) != on_terminal(theme.foreground)


_APART = (
    ("bid", "ask"),
    ("bid", "muted"),
    ("ask", "muted"),
    ("booked", "pending"),
    ("rejected", "pending"),
    ("stale", "muted"),
)
"""Marks that must keep different colours: a stale mark greyed like muted text, or a bid
turned the grey of a label, is lost on the terminal."""
