"""Who a visitor is, without sign-up: a random token in an HttpOnly cookie, and the player id
(the token's hash) that seats store; a browser logged in to an account (people.py) is the
account's player instead."""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable
from http.cookies import SimpleCookie
from typing import Any

PLAYER_COOKIE = "ferz_player"
COOKIE_AGE_S = 400 * 24 * 3600  # the longest lifetime browsers keep a cookie (400 days)
TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{32}")
SCOPE_KEY = "ferz.player"  # where the middleware leaves the player id in the ASGI scope
TOKEN_KEY = "ferz.token"  # ... and the id of the browser's own token (what a login binds)


def new_token() -> str:
    """A fresh random player token (32 URL-safe characters, 192 bits)."""
    return secrets.token_urlsafe(24)


def player_id(token: str) -> str:
    """The id stored in seats: a hash of the token, so the store never holds the secret."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()[:32]


def cookie_token(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The well-formed player token of a request's Cookie header, or None."""
    for name, value in headers:
        if name != b"cookie":
            continue
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(value.decode("latin-1"))
        except Exception:  # noqa: BLE001 - a malformed Cookie header is just no token
            continue
        if PLAYER_COOKIE in jar and TOKEN_RE.fullmatch(jar[PLAYER_COOKIE].value):
            return jar[PLAYER_COOKIE].value
    return None


def current(scope: dict[str, Any]) -> str | None:
    """The player id of a request or socket (None: a socket without the cookie, a spectator)."""
    return scope.get(SCOPE_KEY)


def browser(scope: dict[str, Any]) -> str | None:
    """The id of the browser's own token (the player it is when logged in to no account)."""
    return scope.get(TOKEN_KEY)


class Players:
    """ASGI middleware: every HTTP request gets a player (a new token is set as a cookie on
    the first visit, HttpOnly, SameSite=Lax, kept 400 days); a socket gets the player of its
    cookie, or none. `resolve` maps a token's id to the player it stands for (an account
    the browser logged in to)."""

    def __init__(self, app: Any, resolve: Callable[[str], str] | None = None) -> None:
        self.app = app
        self.resolve = resolve

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Attach the player id to the scope; set the cookie when the request had none."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        token = cookie_token(scope.get("headers") or [])
        fresh = None
        if token is None and scope["type"] == "http":
            token = fresh = new_token()
        own = None if token is None else player_id(token)
        player = own if own is None or fresh or self.resolve is None else self.resolve(own)
        scope = {**scope, SCOPE_KEY: player, TOKEN_KEY: own}
        if fresh is None:
            await self.app(scope, receive, send)
            return
        cookie = (
            f"{PLAYER_COOKIE}={fresh}; Path=/; Max-Age={COOKIE_AGE_S}; HttpOnly; SameSite=Lax"
        ).encode("latin-1")

        async def with_cookie(message: dict[str, Any]) -> None:
            """Add the Set-Cookie header to the response start."""
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), (b"set-cookie", cookie)]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_cookie)
