"""The desk's first frame waits for nothing it does not show (issue 11): with nothing
configured to check, the start is read without the settings models, and neither pydantic nor
httpx is loaded before the first frame; whatever needs checking still is, with the same words."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tui.desk import config
from tui.desk.config import ConfigError, DeskStart, desk_start, load_config, resolve_profile

REPO = Path(__file__).resolve().parents[2]

PLAIN = [
    ("", {}, None),
    ('theme = "desk-light"\n', {}, None),
    ('default_profile = "sandbox"\ntheme = "x"\n', {"RFQ_DESK_THEME": "from-env"}, None),
    ('keymap_preset = "vim"\n[keymap]\n"desk.help" = "f3"\n', {}, "sandbox"),
    ("", {"rfq_desk_profile": "sandbox", "RFQ_DESK_CONFIG": "elsewhere", "HOME": "/x"}, None),
    ('default_profile = "prod"\n', {}, "sandbox"),  # --profile sandbox over the file's
]
"""Config file text, environment, --profile: nothing the settings models need to check."""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    path.chmod(0o600)
    return path


def _checked_start(path: Path, env: dict[str, str], profile: str | None) -> DeskStart:
    settings = load_config(path, env)
    return DeskStart(
        settings.theme,
        resolve_profile(settings, profile, env),
        settings.guardrails.settings(),
        settings.alerts.settings(),
    )


@pytest.mark.parametrize(("text", "env", "profile"), PLAIN)
def test_nothing_to_check_is_read_as_the_models_would_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, env: dict[str, str], profile: str
) -> None:
    path = _write(tmp_path, text)
    expected = _checked_start(path, env, profile)

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the settings models were asked")

    monkeypatch.setattr(config, "_checked", never)
    assert desk_start(profile, path, env) == expected


@pytest.mark.parametrize(
    ("text", "env", "profile", "refusal"),
    [
        ("theme = 5\n", {}, None, ":1: theme: Input should be a valid string"),
        ('theme = "x"\nstray = 1\n[guardrails]\nmax_notional = 0\n', {}, None, ":4: guardrails"),
        ("", {"RFQ_DESK_ALERTS__QUIET": "maybe"}, None, "RFQ_DESK_ALERTS__QUIET: alerts.quiet"),
        ("", {"RFQ_DESK_GUARDRAILS": "[1]"}, None, "guardrails"),
        ('default_profile = "prod"\n', {}, None, "no profile named 'prod'"),
        ("", {}, "prod", "no profile named 'prod'"),
        ('[profiles.prod]\nbase_url = "ftp://x"\n', {}, "sandbox", "profiles.prod"),
    ],
)
def test_what_needs_checking_is_checked_with_the_same_words(
    tmp_path: Path, text: str, env: dict[str, str], profile: str | None, refusal: str
) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as refused:
        desk_start(profile, path, env)
    assert refusal in str(refused.value)


def test_a_checked_start_carries_the_tables_and_the_venue(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        'theme = "t"\n[guardrails]\nmax_notional = 5\n[alerts]\nquiet = true\n'
        '[profiles.prod]\nbase_url = "https://x"\napi_key = "k"\napi_secret = "aa"\n',
    )
    start = desk_start("prod", path, {"RFQ_DESK_API_KEY": "from-env"})
    assert start == _checked_start(path, {"RFQ_DESK_API_KEY": "from-env"}, "prod")
    assert start.profile is not None and start.profile.api_key == "from-env"
    assert start.guardrails.max_notional == 5 and start.alerts.quiet is True


FIRST_FRAME = textwrap.dedent(
    """
    import asyncio, pathlib, sys
    import tui.desk.app
    from tui.desk.app import DeskApp
    from tui.desk.config import desk_start

    HEAVY = ("pydantic", "pydantic_core", "pydantic_settings", "httpx", "tui.api.client.service")

    class Never:
        label = "sandbox"
        sandbox = True
        async def connect(self):
            await asyncio.Event().wait()
        async def close(self):
            pass

    class FirstFrame(DeskApp):
        CSS_PATH = str(pathlib.Path(tui.desk.app.__file__).parent / "desk.tcss")
        def on_mount(self):
            super().on_mount()
            self.call_after_refresh(self.seen)
        def seen(self):
            self.loaded = [name for name in HEAVY if name in sys.modules]
            self.exit()

    start = desk_start()
    app = FirstFrame(Never(), export_dir=pathlib.Path(sys.argv[1]), guardrails=start.guardrails)
    app.run(headless=True, size=(140, 45))
    print("loaded before the first frame:", app.loaded)
    """
)


def test_the_first_frame_loads_no_pydantic_and_no_httpx(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RFQ_DESK_", "TEXTUAL"))}
    env.update(
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
    )
    done = subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-c", FIRST_FRAME, str(tmp_path / "exports")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "loaded before the first frame: []" in done.stdout, done.stdout + done.stderr
