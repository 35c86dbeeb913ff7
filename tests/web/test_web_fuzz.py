"""Fuzzing ferz web: random and mutated HTTP requests to every endpoint and messages of every
kind on both sockets, against uvicorn with the real engine. Whatever comes in, the answer is
a 2xx/3xx/4xx (never a 5xx) and no socket is dropped (every close has a close frame with a
code that says why; a socket that got bad input still answers afterwards).

The default run sends a few thousand cases; `-m slow` runs at least 10 000 (the issue's
target). FERZ_FUZZ_CASES and FERZ_FUZZ_SEED change the count and the seed.
"""

from __future__ import annotations

import asyncio
import copy
import http.client
import json
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
ws_client = pytest.importorskip("websockets.asyncio.client")
ws_exceptions = pytest.importorskip("websockets.exceptions")

from ferz.web.security import SecurityPolicy  # noqa: E402
from ferz.web.server import create_app  # noqa: E402
from tests.web.webserver import serving  # noqa: E402

BIG = 2**31
FEN = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
# One person plays every game the fuzz creates (its moves and offers reach the game's code).
PLAYER = {"cookie": "ferz_player=" + "f" * 32}
PGN = '[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0'
ODD_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1,
    7,
    BIG,
    2**63,
    -(2**63),
    10**30,
    0.5,
    1e308,
    "",
    "x" * 5000,
    "\u0000",
    "😀♞",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    [],
    {},
    [[[[]]]],
    {"a": {"b": {"c": {}}}},
    "e2e4",
    "a1a8",
    "P@e4",
    "e7e8q",
    f"{FEN[:-4]} {BIG} 1",
    f"{FEN[:-4]} 0 {2**63}",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "chess",
    "xiangqi",
    "crazyhouse",
    "shogi",
    "nochess",
    "1-0",
    "*",
]
HTTP_TEMPLATES: dict[str, list[dict[str, Any]]] = {
    "/api/games": [
        {"color": "white", "movetime_ms": 50, "variant": "chess", "fen": None, "elo": None},
        {"color": "black", "clock": {"initial_ms": 60000, "increment_ms": 1000}},
        {"depth": 2, "variant": "capablanca", "show_pv": True},
        {"movetime_ms": 30, "fen": FEN, "elo": 1500},
        {"opponent": "friend", "color": "white", "clock": {"initial_ms": 60000}},
        {"opponent": "hotseat", "flip": True},
        {"opponent": "seek", "variant": "crazyhouse", "color": "random"},
        {"movetime_ms": 50, "book": True},
    ],
    "/api/seeks/quick": [
        {"variant": "chess", "clock": {"initial_ms": 180000, "increment_ms": 2000}},
        {"variant": "shogi", "clock": {"initial_ms": 60000, "increment_ms": 0}, "rated": True},
    ],
    "/api/import": [
        {"text": PGN},
        {"text": FEN, "variant": "chess"},
        {"text": "1. Che3 Che8", "variant": "xiangqi"},
    ],
    "/api/export": [
        {"moves": ["e2e4", "e7e5"], "evals": [{"score_cp": 10}, {"score_mate": -3}]},
        {"fen": FEN, "moves": ["e7e5"], "tags": {"White": "x"}, "result": "1-0"},
        {"variant": "xiangqi", "moves": ["h3e3"], "evals": [None]},
        {"tree": {"comment": "c", "nodes": [{"parent": -1, "uci": "e2e4", "nags": [1]}]}},
    ],
    "/api/tree": [
        {"op": "add", "path": [], "uci": "e2e4", "tree": {"nodes": []}},
        {
            "op": "promote",
            "path": ["e2e4"],
            "variant": "shogi",
            "tree": {"nodes": [{"parent": -1, "uci": "c3c4"}, {"parent": -1, "uci": "e2e4"}]},
        },
        {"op": "comment", "path": [], "comment": "x", "tree": None, "fen": FEN},
    ],
}
GAME_MESSAGES: list[dict[str, Any]] = [
    {"type": "move", "uci": "e2e4", "ply": 0},
    {"type": "move", "uci": "d2d4"},
    {"type": "takeback"},
    {"type": "draw"},
    {"type": "sync"},
    {"type": "resign"},
    {"type": "abort"},
    {"type": "rematch"},
    {"type": "claim", "result": "win"},
    {"type": "accept", "offer": "draw"},
    {"type": "decline", "offer": "takeback"},
]
ANALYSIS_MESSAGES: list[dict[str, Any]] = [
    {"type": "analyse", "seq": 1, "moves": ["e2e4"], "ply": 1, "multipv": 2, "think": False},
    {"type": "analyse", "seq": 2, "fen": FEN, "moves": [], "variant": "chess"},
    {"type": "stop"},
    {"type": "review", "moves": ["e2e4", "e7e5", "g1f3"]},
    {"type": "analyse", "seq": 3, "variant": "xiangqi", "moves": ["h3e3"], "think": False},
]


def mutate(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """A mutated copy of a JSON value: a field replaced, removed or added, a type changed."""
    value = copy.deepcopy(value)
    choice = rng.random()
    if isinstance(value, dict) and value and choice < 0.45:
        key = rng.choice(list(value))
        if rng.random() < 0.25:
            del value[key]
        elif isinstance(value[key], (dict, list)) and depth < 3 and rng.random() < 0.5:
            value[key] = mutate(rng, value[key], depth + 1)
        else:
            value[key] = rng.choice(ODD_VALUES)
        return value
    if isinstance(value, dict) and choice < 0.55:
        value[rng.choice(["extra", "type", "__proto__", "", "x" * 60])] = rng.choice(ODD_VALUES)
        return value
    if isinstance(value, list) and value and choice < 0.55:
        value[rng.randrange(len(value))] = rng.choice(ODD_VALUES)
        return value
    if choice < 0.65:
        return rng.choice(ODD_VALUES)
    if choice < 0.7:
        return [value] * rng.randint(0, 3)
    return value


def raw_body(rng: random.Random, template: dict[str, Any] | None) -> bytes:
    """A request body or message: a mutated template as JSON, or broken text of some kind."""
    roll = rng.random()
    if template is not None and roll < 0.6:
        value = template
        for _ in range(rng.randint(1, 3)):
            value = mutate(rng, value)
        return json.dumps(value).encode()
    if roll < 0.66:
        return b"[" * rng.choice([10, 1000, 20_000]) + b"]" * rng.randint(0, 5)
    if roll < 0.72:
        return b'{"a":' * rng.choice([9, 500, 5000]) + b"1" + b"}" * rng.randint(0, 10)
    if roll < 0.78:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
    if roll < 0.84 and template is not None:
        text = json.dumps(template).encode()
        return text[: rng.randrange(len(text) + 1)]
    if roll < 0.88:
        return rng.choice([b"NaN", b"Infinity", b"-0", b"1e999", b'"\\ud800"', b"null", b"{}"])
    if roll < 0.92 and template is not None:
        text = json.dumps(template)
        return ("{" + '"type": 1, ' * 3 + text[1:]).encode()  # duplicate keys
    return json.dumps(rng.choice(ODD_VALUES)).encode()


@dataclass
class Tally:
    """What the fuzzer saw."""

    cases: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    server_errors: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    closes: dict[int, int] = field(default_factory=dict)


class Http:
    """One keep-alive HTTP connection that reconnects when the server closes it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def send(self, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> int:
        """One request; its status (a connection dropped mid-request counts as status 0)."""
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                response.read()
                if response.getheader("connection", "").lower() == "close":
                    self.conn.close()
                return response.status
            except (http.client.HTTPException, ConnectionError, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                if attempt:
                    return 0
        return 0


def http_case(rng: random.Random, client: Http, port: int, ids: list[str], tally: Tally) -> None:
    """One random or mutated HTTP request."""
    gid = rng.choice(ids + ["0123456789ab", "nothex", "x" * 300, "%2e%2e", "", "'"])
    path = rng.choice(
        [
            "/",
            "/api/meta",
            "/api/stats",
            "/api/games",
            "/api/games",
            "/api/import",
            "/api/export",
            f"/api/games/{gid}",
            f"/api/games/{gid}/pgn",
            f"/api/games/{gid}/rematch",
            "/api/seeks",
            f"/api/seeks/{gid}/accept",
            f"/api/seeks/{gid}",
            f"/api/games/{gid}/tree",
            f"/api/variants/{rng.choice(['chess', 'xiangqi', 'nochess', '%00', 'x' * 200])}",
            "/api/variants",
            "/api/seeks/quick",
            "/static/app.js",
            "/static/../../etc/passwd",
            "/static/%2e%2e/%2e%2e/etc/passwd",
            "/ws/analysis",
            "/nothing",
        ]
    )
    if path == "/api/games" and rng.random() < 0.4:
        query = {
            "offset": rng.choice(["0", "5", "-1", "x", "9" * 30, ""]),
            "limit": rng.choice(["1", "50", "201", "0", "true", "1e3"]),
            "status": rng.choice(["all", "playing", "finished", "imported", "won", ""]),
            "variant": rng.choice(["chess", "xiangqi", "", "'--"]),
        }
        keys = rng.sample(list(query), rng.randint(1, 4))
        path += "?" + "&".join(f"{k}={query[k]}" for k in keys)
    if rng.random() < 0.5:  # half the cases go where the JSON is read
        path = rng.choice(list(HTTP_TEMPLATES))
        method = "POST" if rng.random() < 0.95 else rng.choice(["GET", "PUT", "DELETE"])
    else:
        method = rng.choice(["GET", "GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS"])
    if method == "DELETE" and gid in ids and rng.random() < 0.7:
        method = "GET"  # keep most games for the other cases
    templates = HTTP_TEMPLATES.get(path.split("?")[0])
    body = None
    if method in ("POST", "PUT", "PATCH"):
        body = raw_body(rng, rng.choice(templates) if templates else None)
        if rng.random() < 0.01:
            body = b"x" * 300_000  # over MAX_BODY: 413
    headers = {"host": f"127.0.0.1:{port}", "content-type": "application/json", **PLAYER}
    roll = rng.random()
    if roll < 0.03:
        headers["host"] = "evil.example"
    elif roll < 0.06:
        headers["origin"] = "http://evil.example"
    elif roll < 0.08:
        headers["content-type"] = "text/plain; charset=\u00ff".encode().decode("latin-1")
    status = client.send(method, path, body, headers)
    tally.cases += 1
    tally.statuses[status] = tally.statuses.get(status, 0) + 1
    if status >= 500 or status == 0:
        shown = (body or b"")[:120]
        tally.server_errors.append(f"{method} {path[:80]} {shown!r} -> {status}")


async def socket_cases(
    rng: random.Random, port: int, path: str, templates: list[dict[str, Any]], n: int, t: Tally
) -> None:
    """`n` random or mutated messages on one socket kind (reconnecting after a clean close);
    after each burst a well-formed message must still be answered."""
    url = f"ws://127.0.0.1:{port}{path}"
    probe = {"type": "sync"} if "games" in path else {"type": "analyse", "think": False}
    sent = 0
    while sent < n:
        try:
            async with ws_client.connect(
                url, max_size=None, open_timeout=30, additional_headers=PLAYER
            ) as ws:
                while sent < n:
                    for _ in range(rng.randint(1, 8)):
                        data = raw_body(rng, rng.choice(templates))
                        if rng.random() < 0.15:
                            await ws.send(data)  # a binary frame
                        else:
                            await ws.send(data.decode("utf-8", "replace"))
                        sent += 1
                        t.cases += 1
                    await ws.send(json.dumps(probe))
                    await answered(ws, "state" if "games" in path else "position")
        except ws_exceptions.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
            if code is None or code in (1006, 1011):
                t.dropped.append(f"{path}: closed without a proper frame ({code})")
            else:
                t.closes[code] = t.closes.get(code, 0) + 1
        except TimeoutError:
            t.dropped.append(f"{path}: no answer to a well-formed message")


async def answered(ws: Any, kind: str) -> None:
    """Read until a message of `kind` (the probe's answer) comes; TimeoutError otherwise."""
    deadline = time.monotonic() + 30
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        message = json.loads(await asyncio.wait_for(ws.recv(), left))
        if message.get("type") == kind:
            return


def fuzz(port: int, cases: int, seed: int) -> Tally:
    """Run `cases` fuzz cases (HTTP requests and socket messages) against the server."""
    rng = random.Random(seed)
    tally = Tally()
    client = Http(port)
    ids = []
    for body in ({"depth": 1}, {"movetime_ms": 20, "color": "black"}, {"depth": 1}):
        data = json.dumps(body).encode()
        headers = {"host": f"127.0.0.1:{port}", "content-type": "application/json", **PLAYER}
        client.conn.request("POST", "/api/games", body=data, headers=headers)
        ids.append(json.loads(client.conn.getresponse().read())["id"])
    game_id = ids.pop()  # the socket's game is never deleted by the HTTP cases
    # Socket messages cost engine time (moves, analyses), HTTP cases little: 80 % HTTP.
    per_kind = cases // 10
    for _ in range(cases - 2 * per_kind):
        http_case(rng, client, port, ids, tally)
    game_rng, board_rng = random.Random(rng.random()), random.Random(rng.random())

    async def both() -> None:
        """The two socket kinds at once (they share the engine, as real clients do)."""
        game = f"/ws/games/{game_id}"
        await asyncio.gather(
            socket_cases(game_rng, port, game, GAME_MESSAGES, per_kind, tally),
            socket_cases(board_rng, port, "/ws/analysis", ANALYSIS_MESSAGES, per_kind, tally),
        )

    asyncio.run(both())
    return tally


def run_fuzz(tmp_path, cases: int) -> Tally:
    """Fuzz a fresh server (real engine, one slot, short think-time ceiling)."""
    seed = int(os.environ.get("FERZ_FUZZ_SEED", "22"))
    cases = int(os.environ.get("FERZ_FUZZ_CASES", str(cases)))
    app = create_app(
        tmp_path / "games.sqlite3",
        slots=1,
        max_think_ms=300,
        review_ms=20,
        policy=SecurityPolicy.make("127.0.0.1"),
    )
    with serving(app) as port:
        started = time.monotonic()
        tally = fuzz(port, cases, seed)
        seconds = time.monotonic() - started
        client = Http(port)
        alive = client.send("GET", "/api/meta", None, {"host": f"127.0.0.1:{port}"})
    print(
        f"fuzz: {tally.cases} cases in {seconds:.1f} s, seed {seed}; statuses "
        f"{dict(sorted(tally.statuses.items()))}; 5xx/no answer {len(tally.server_errors)}; "
        f"dropped sockets {len(tally.dropped)}; clean closes {tally.closes}"
    )
    assert alive == 200
    assert tally.server_errors == []
    assert tally.dropped == []
    assert tally.cases >= cases
    return tally


@pytest.mark.timeout(300)
def test_fuzz_every_endpoint_and_message(tmp_path):
    tally = run_fuzz(tmp_path, 2500)
    assert {200, 201, 400, 403, 404, 405} <= set(tally.statuses)


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_fuzz_ten_thousand_cases(tmp_path):
    run_fuzz(tmp_path, 10_000)
