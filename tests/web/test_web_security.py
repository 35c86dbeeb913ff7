"""Who may talk to ferz web, and hostile input: DNS rebinding (Host allow-list), security
headers, the token beyond loopback, `--help`, deep JSON, out-of-range FEN numbers, strict
types. In process (Starlette's TestClient) and against a real `ferz web` process."""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
websockets_client = pytest.importorskip("websockets.asyncio.client")

from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from ferz.commands import build_parser  # noqa: E402
from ferz.web.security import SecurityPolicy  # noqa: E402
from ferz.web.server import access, create_app  # noqa: E402
from tests.web.web_standin import TEST_POLICY, Limits, Stats, factory  # noqa: E402
from tests.web.webserver import running_server  # noqa: E402

pytestmark = pytest.mark.timeout(60)

BIG = 2**31
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"


def app(tmp_path, policy: SecurityPolicy | None = TEST_POLICY, **kw: Any):
    """An app with stand-in engines (policy None: the default one, loopback only)."""
    kw.setdefault("slots", 1)
    kw.setdefault("max_think_ms", 2000)
    if policy is not None:
        kw["policy"] = policy
    return create_app(
        tmp_path / "games.sqlite3", engine_factory=factory(Stats()), limits_type=Limits, **kw
    )


# ---------------------------------------------------------------- a real server process


@pytest.fixture(scope="module")
def port(tmp_path_factory) -> Iterator[int]:
    """The port of a running `ferz web` with an empty database."""
    with running_server(tmp_path_factory.mktemp("web") / "games.sqlite3") as port:
        yield port


def request(port: int, method: str, path: str, body: bytes | None = None, **headers: str):
    """One HTTP request to 127.0.0.1:port with exactly these headers; (status, headers, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in headers.items():
            conn.putheader(name.replace("_", "-"), value)
        if body is not None:
            conn.putheader("content-length", str(len(body)))
            conn.putheader("content-type", "application/json")
        conn.endheaders(body)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def test_dns_rebinding_is_refused(port):
    """A page on a rebinding domain sends its own name as Host and a matching Origin."""
    evil = f"evil.example:{port}"
    body = json.dumps({"movetime_ms": 100}).encode()
    status, _, text = request(port, "POST", "/api/games", body, host=evil, origin=f"http://{evil}")
    assert status == 403 and b"allow-host" in text
    status, _, _ = request(port, "GET", "/api/games", host=evil)
    assert status == 403

    async def upgrade() -> str:
        """Try the upgrade; what came of it."""
        # The URL's name goes into Host; the TCP connection goes to 127.0.0.1 (as after a
        # rebinding).
        url = f"ws://{evil}/ws/analysis"
        headers = {"Origin": f"http://{evil}"}
        try:
            async with websockets_client.connect(
                url, host="127.0.0.1", port=port, additional_headers=headers
            ):
                return "accepted"
        except Exception as error:  # noqa: BLE001 - InvalidStatus: the upgrade was refused
            return str(error)

    assert "403" in asyncio.run(upgrade())
    # The same request with the loopback name is served.
    status, _, _ = request(port, "GET", "/api/games", host=f"localhost:{port}")
    assert status == 200


def test_every_response_has_the_security_headers(port):
    for path in ("/", "/static/app.js", "/api/games", "/api/nothing", "/static/../x"):
        status, headers, _ = request(port, "GET", path, host=f"127.0.0.1:{port}")
        lower = {k.lower(): v for k, v in headers.items()}
        csp = lower.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp, (path, status)
        assert "script-src 'self'" in csp and "connect-src 'self'" in csp
        assert lower.get("x-content-type-options") == "nosniff"
        assert lower.get("x-frame-options") == "DENY"
        assert lower.get("referrer-policy") == "no-referrer"


def test_deeply_nested_json_gets_a_400_not_a_500(port):
    host = f"127.0.0.1:{port}"
    for path in ("/api/games", "/api/import", "/api/export"):
        status, _, text = request(port, "POST", path, b"[" * 100_000, host=host)
        assert status == 400 and b"nested" in text, (path, status, text[:200])

    async def deep_message() -> tuple[dict, dict]:
        """Send deep JSON, then a good message; both answers."""
        async with websockets_client.connect(f"ws://127.0.0.1:{port}/ws/analysis") as ws:
            await ws.send("[" * 10_000)
            error = json.loads(await ws.recv())
            await ws.send(json.dumps({"type": "analyse", "seq": 1, "think": False}))
            return error, json.loads(await ws.recv())

    error, position = asyncio.run(deep_message())
    assert error["type"] == "error" and "nested" in error["message"]
    assert position["type"] == "position"  # the socket is still open and working


# ---------------------------------------------------------------- in process


def test_host_allow_list_in_process(tmp_path):
    with TestClient(app(tmp_path, policy=None), base_url="http://evil.example:8877") as client:
        origin = {"origin": "http://evil.example:8877"}
        response = client.post("/api/games", json={"movetime_ms": 100}, headers=origin)
        assert response.status_code == 403
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect("ws://evil.example:8877/ws/analysis", headers=origin),
        ):
            pass
        assert refused.value.code == 4403
    for base in ("http://localhost:8765", "http://127.0.0.1:8765", "http://[::1]:8765"):
        with TestClient(app(tmp_path, policy=None), base_url=base) as client:
            assert client.get("/api/games").status_code == 200, base
    allowed = SecurityPolicy.make("127.0.0.1", ["chess.lan"])
    with TestClient(app(tmp_path, policy=allowed), base_url="http://chess.lan:8765") as client:
        assert client.get("/api/games").status_code == 200
    # Bound to loopback, a LAN address in Host is refused; bound beyond, it is served.
    with TestClient(app(tmp_path, policy=None), base_url="http://192.168.1.9:8765") as client:
        assert client.get("/api/games").status_code == 403


def test_beyond_loopback_a_token_is_required(tmp_path):
    policy = SecurityPolicy.make("0.0.0.0", token="s3cret-token")
    base = "http://192.168.1.9:8765"
    with TestClient(app(tmp_path, policy=policy), base_url=base) as client:
        assert client.get("/").status_code == 200  # the page itself, to show the error
        for method, path in (("GET", "/api/games"), ("POST", "/api/games")):
            response = client.request(method, path, json={"movetime_ms": 100})
            assert response.status_code == 401 and "token" in response.json()["error"]
        socket_url = "ws://192.168.1.9:8765/ws/analysis"  # TestClient's own Host: testserver
        with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(socket_url):
            pass
        assert refused.value.code == 4401
        wrong = client.get("/api/games", headers={"x-ferz-token": "guess"})
        assert wrong.status_code == 401
        header = {"x-ferz-token": "s3cret-token"}
        assert client.post("/api/games", json={"depth": 1}, headers=header).status_code == 201
        # The printed link sets a same-site cookie and drops the token from the address.
        link = client.get("/?token=s3cret-token", follow_redirects=False)
        assert link.status_code == 303 and link.headers["location"] == "/"
        cookie = link.headers["set-cookie"]
        assert "ferz_token=s3cret-token" in cookie and "samesite=strict" in cookie.lower()
        assert "httponly" in cookie.lower()
        assert client.get("/api/games").status_code == 200  # the cookie now rides along
        cookies = {"cookie": f"ferz_token={policy.token}"}
        with client.websocket_connect(socket_url, headers=cookies) as ws:
            ws.send_json({"type": "analyse", "seq": 1, "think": False})
            assert ws.receive_json()["type"] == "position"


def test_access_warns_and_makes_a_token_beyond_loopback():
    args = argparse.Namespace(host="0.0.0.0", port=8765, allow_host=["box.lan"], token=None)
    policy, url, warning = access(args)
    assert policy.token and len(policy.token) >= 20 and f"?token={policy.token}" in url
    assert warning and "WARNING" in warning and "0.0.0.0" in warning
    assert policy.host_allowed("box.lan:8765") and not policy.host_allowed("evil.example")
    args = argparse.Namespace(host="0.0.0.0", port=8765, allow_host=[], token="mine")
    assert access(args)[0].token == "mine"
    args = argparse.Namespace(host="127.0.0.1", port=8765, allow_host=[], token=None)
    policy, url, warning = access(args)
    assert policy.token is None and warning is None and url == "http://127.0.0.1:8765/"


def test_help_documents_host_port_and_access():
    parser = build_parser()
    web = parser._subparsers._group_actions[0].choices["web"]  # noqa: SLF001
    text = web.format_help()
    for needle in ("--host", "--port", "--allow-host", "--token", "loopback", "DNS rebinding"):
        assert needle in text, needle


@pytest.mark.parametrize(
    "fen",
    [
        f"{START} 0 {BIG}",
        f"{START} {BIG} 1",
        f"{START} 99999999999999999999 1",
        f"{START} 0 {2**63}",
        "rnbqkbnr/pppppppp/99999999999999999999/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ],
)
def test_out_of_range_fen_numbers_are_refused_everywhere(tmp_path, fen):
    with TestClient(app(tmp_path)) as client:
        response = client.post("/api/games", json={"movetime_ms": 100, "fen": fen})
        assert response.status_code == 400 and "FEN" in response.json()["error"]
        response = client.post("/api/import", json={"text": fen})
        assert response.status_code == 400
        pgn = f'[FEN "{fen}"]\n[SetUp "1"]\n\n1. e4 *'
        assert client.post("/api/import", json={"text": pgn}).status_code == 400
        response = client.post("/api/export", json={"fen": fen, "moves": []})
        assert response.status_code == 400
        with client.websocket_connect("/ws/analysis") as ws:
            ws.send_json({"type": "analyse", "seq": 1, "fen": fen})
            assert "FEN" in ws.receive_json()["message"]
            ws.send_json({"type": "review", "fen": fen, "moves": []})
            assert "FEN" in ws.receive_json()["message"]
            ws.send_json({"type": "analyse", "seq": 2, "think": False})
            assert ws.receive_json()["type"] == "position"  # the socket survived


def test_types_are_strict(tmp_path):
    with TestClient(app(tmp_path)) as client:
        game = client.post("/api/games", json={"movetime_ms": 100}).json()
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            ws.receive_json()
            ws.send_json({"type": "move", "uci": "e2e4", "ply": False})
            assert "ply must be an integer" in ws.receive_json()["message"]
            ws.send_json({"type": "move", "uci": "e2e4", "ply": 0, "extra": 1})
            assert "unknown field" in ws.receive_json()["message"]
            ws.send_json({"type": "sync"})
            assert ws.receive_json()["game"]["moves"] == []
        bad = [
            {"movetime_ms": 100.0},
            {"movetime_ms": "100"},
            {"depth": True},
            {"movetime_ms": 100, "color": None},
            {"movetime_ms": 100, "show_pv": 1},
            {"clock": {"initial_ms": 60000, "increment_ms": False}},
            {"movetime_ms": 100, "hack": 1},
        ]
        for body in bad:
            response = client.post("/api/games", json=body)
            assert response.status_code == 400, body
        assert client.post("/api/import", json={"text": ["1. e4"]}).status_code == 400
        response = client.get("/api/games?limit=true")
        assert response.status_code == 400
        with client.websocket_connect("/ws/analysis") as ws:
            ws.send_json({"type": "analyse", "seq": 1, "ply": False, "think": False})
            assert "ply must be an integer" in ws.receive_json()["message"]
            ws.send_text("NaN")
            assert ws.receive_json()["type"] == "error"
