"""``rfq-desk serve``: the desk in a browser, on loopback, behind a token printed at start.

textual-serve runs the desk as a child process per browser tab and streams its screen over a
websocket; it has no authentication of its own (any page that reaches the port gets a desk that
trades). `GuardedServer` puts a guard in front of every route but the static files (xterm.js,
fonts: nothing of the trader's):

- the address printed at start carries a random token (``/?token=...``); the first visit
  with it sets an HttpOnly, SameSite=Strict cookie holding the token and redirects to ``/``,
  so the token leaves the address bar and the history;
- every other request, the websocket that drives the desk included, needs that cookie
  (compared in constant time), and the websocket also an ``Origin`` of this very server, so
  another site open in the same browser cannot drive the desk;
- the ``Host`` must be this server's loopback address, which stops DNS rebinding.

The server binds 127.0.0.1 only; a port of 0 takes a free one, and the printed address names it.
"""

from __future__ import annotations

import hmac
import secrets
import shlex
import socket
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from textual_serve.server import Server

__all__ = ["GuardedServer", "desk_command", "serve_desk"]

HOST = "127.0.0.1"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def desk_command(profile: str | None = None, theme: str | None = None) -> str:
    """The shell command textual-serve runs for each browser tab: this Python's desk."""
    words = [sys.executable, "-m", "tui"]
    if profile:
        words += ["--profile", profile]
    if theme:
        words += ["--theme", theme]
    return shlex.join(words)


class GuardedServer(Server):
    """textual-serve's server with the token guard in front (see module docs)."""

    def __init__(self, command: str, *, token: str, port: int) -> None:
        super().__init__(command, host=HOST, port=port, title="RFQ Desk")
        self.token = token
        self.cookie = f"rfq_desk_{port}"
        self.origin = f"http://{HOST}:{port}"

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self._guard)
        return app

    def _holds_token(self, value: str | None) -> bool:
        return value is not None and hmac.compare_digest(value.encode(), self.token.encode())

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.host != f"{HOST}:{self.port}":
            return web.Response(status=403, text=f"RFQ Desk serves {self.origin} only")
        if request.path.startswith("/static/"):
            return await handler(request)
        if self._holds_token(request.query.get("token")):
            response = web.Response(status=302, headers={"Location": "/"})
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict", path="/")
            return response
        if not self._holds_token(request.cookies.get(self.cookie)):
            return web.Response(
                status=403,
                text="RFQ Desk: open the address `rfq-desk serve` printed (it carries the token)",
            )
        origin = request.headers.get("Origin")
        if request.path == "/ws" and origin is not None and origin != self.origin:
            return web.Response(status=403, text="RFQ Desk: websocket from another origin")
        return await handler(request)

    async def on_startup(self, app: web.Application) -> None:
        """Say nothing more: `serve_desk` printed the address already."""


def serve_desk(
    port: int = 0,
    profile: str | None = None,
    theme: str | None = None,
    *,
    out: Callable[[str], Any] = print,
) -> int:
    """Serve the desk on ``127.0.0.1:port`` until interrupted; prints the address with its token."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((HOST, port))
    except OSError as error:
        print(f"rfq-desk: cannot serve on {HOST}:{port}: {error.strerror}", file=sys.stderr)
        return 2
    listener.listen(16)
    bound = int(listener.getsockname()[1])
    token = secrets.token_urlsafe(24)
    server = GuardedServer(desk_command(profile, theme), token=token, port=bound)
    out(f"RFQ Desk in a browser: http://{HOST}:{bound}/?token={token}")
    out("Only this machine can connect; the token is the key: keep it to yourself. Ctrl+C stops.")
    sys.stdout.flush()
    web.run_app(server._make_app(), sock=listener, print=None, handle_signals=True)
    return 0
