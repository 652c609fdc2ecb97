"""Start the desk from the command line: pick the profile (or the sandbox), then run the app.

``rfq-desk`` with no profile configured runs on the built-in sandbox; ``rfq-desk --profile NAME``
opens a configured venue. Configuration problems are reported in one line on stderr, before the
terminal is taken over.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tui.desk.config import ConfigError, load_config, resolve_profile


def run_desk(
    profile: str | None = None, theme: str | None = None, *, data: Path | None = None
) -> int:
    """Run the desk until the user quits; the process exit code."""
    try:
        config = load_config()
        chosen = resolve_profile(config, profile)
    except ConfigError as error:
        print(f"rfq-desk: {error}", file=sys.stderr)
        return 2

    from tui.desk.app import DeskApp
    from tui.desk.session import Connector, ProfileConnector, SandboxConnector

    connector: Connector = SandboxConnector(data) if chosen is None else ProfileConnector(chosen)
    app = DeskApp(connector, theme=theme or config.theme)
    app.run()
    return 0
