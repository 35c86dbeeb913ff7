"""Who may talk to `ferz web`: the Host allow-list, the Origin check, the access token and the
security headers of every response (one ASGI middleware, `Guard`)."""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

from starlette.responses import JSONResponse, RedirectResponse

TOKEN_COOKIE = "ferz_token"
TOKEN_HEADER = b"x-ferz-token"
LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost")

# Scripts and connections (fetch, WebSocket) from this server only; no framing by any page
# (clickjacking of Resign/Takeback). Styles allow 'unsafe-inline' because the board widget
# writes a <style> per board (piece images by variant); images allow data: URIs (the pieces).
CSP = (
    "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'self' 'unsafe-inline'; font-src 'self'; manifest-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an address, as given to --host) is this machine only."""
    name = host.strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def split_host(header: str) -> str:
    """The name or address of a Host header, without its port, lowercased ('' if malformed)."""
    header = header.strip().lower()
    if header.startswith("["):  # an IPv6 literal: [::1]:8765
        end = header.find("]")
        return header[1:end] if end > 0 else ""
    name, colon, port = header.rpartition(":")
    if colon and port.isdigit():
        header = name
    return header.rstrip(".")


@dataclass(frozen=True)
class SecurityPolicy:
    """What the Guard accepts: the Host names, whether any IP address may be the Host (the
    server listens beyond loopback), and the access token (None: none needed)."""

    names: frozenset[str]
    any_address: bool = False
    token: str | None = None

    @classmethod
    def make(cls, host: str, allow: Iterable[str] = (), token: str | None = None) -> SecurityPolicy:
        """The policy for a server bound to `host`, with the extra names of --allow-host."""
        names = set(LOOPBACK_NAMES)
        names.update(split_host(name) for name in allow if name)
        loop = is_loopback(host)
        try:
            ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            if host:
                names.add(host.lower())  # bound to a name: that name is how users reach it
        return cls(frozenset(names), any_address=not loop, token=token)

    def host_allowed(self, header: str) -> bool:
        """Whether a request with this Host header may be served.

        A DNS-rebinding page always sends its own *name* as Host, so names must be on the
        list; an IP literal cannot be rebound, so addresses pass when the server listens on
        them (loopback ones always, others only when bound beyond loopback).
        """
        name = split_host(header)
        if not name:
            return False
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return name in self.names
        return self.any_address or address.is_loopback


def new_token() -> str:
    """A fresh random access token."""
    return secrets.token_urlsafe(24)


class Guard:
    """ASGI middleware in front of the whole app.

    Refuses (403) a request whose Host is not allowed (DNS rebinding) or whose Origin is
    another site (cross-site requests, WebSocket hijacking); with a token, refuses (401) API
    calls and sockets that do not carry it (cookie, X-Ferz-Token header or ?token=); adds
    the security headers to every HTTP response.
    """

    def __init__(self, app: Any, policy: SecurityPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Check one request or socket, then pass it on with the headers added."""
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers: dict[bytes, bytes] = {}
        for name, value in scope.get("headers") or []:
            headers.setdefault(name, value)
        host = headers.get(b"host", b"").decode("latin-1")
        origin = headers.get(b"origin")
        problem: tuple[int, str] | None = None
        if not self.policy.host_allowed(host):
            problem = (403, f"host {host[:80]!r} is not served here (ferz web --allow-host NAME)")
        elif origin is not None and origin.decode("latin-1") not in (
            f"http://{host}",
            f"https://{host}",
        ):
            problem = (403, "cross-origin request refused")
        elif self.policy.token is not None:
            given = self._token(scope, headers)
            ok = given is not None and secrets.compare_digest(
                given.encode("utf-8", "surrogateescape"), self.policy.token.encode()
            )
            path = scope.get("path", "")
            if (
                ok
                and kind == "http"
                and path == "/"
                and b"token=" in scope.get("query_string", b"")
            ):
                # The printed link carries the token once; keep it in a same-site cookie and
                # drop it from the address bar (and from history).
                response = RedirectResponse("/", 303)
                response.set_cookie(
                    TOKEN_COOKIE, given or "", httponly=True, samesite="strict", path="/"
                )
                await response(scope, receive, self._with_headers(send))
                return
            if not ok and (kind == "websocket" or path.startswith(("/api/", "/ws/"))):
                problem = (401, "this server needs its access token (open the link it printed)")
        if problem is not None:
            status, message = problem
            if kind == "websocket":
                # Closing before accepting answers the upgrade with HTTP 403: no socket opens.
                await send({"type": "websocket.close", "code": 4000 + status})
            else:
                response = JSONResponse({"error": message}, status)
                await response(scope, receive, self._with_headers(send))
            return
        await self.app(scope, receive, self._with_headers(send) if kind == "http" else send)

    @staticmethod
    def _token(scope: dict[str, Any], headers: dict[bytes, bytes]) -> str | None:
        """The token a request carries: header, then cookie, then ?token=."""
        header = headers.get(TOKEN_HEADER)
        if header:
            return header.decode("latin-1")
        cookie_header = headers.get(b"cookie")
        if cookie_header:
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(cookie_header.decode("latin-1"))
            except Exception:  # noqa: BLE001 - a malformed Cookie header is just no token
                jar = SimpleCookie()
            if TOKEN_COOKIE in jar:
                return jar[TOKEN_COOKIE].value
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        values = query.get("token")
        return values[0] if values else None

    @staticmethod
    def _with_headers(send: Any) -> Any:
        """`send` that adds the security headers to the response start."""

        async def wrapped(message: dict[str, Any]) -> None:
            """Add the headers the response does not set itself."""
            if message["type"] == "http.response.start":
                have = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in HEADERS if n not in have]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        return wrapped
