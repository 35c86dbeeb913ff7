"""`ferz web` as a real process (uvicorn): limits enforced below the app, and it keeps serving."""

from __future__ import annotations

import asyncio
import json
import secrets
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from tests.web.webserver import running_server

pytest.importorskip("uvicorn")
websockets_client = pytest.importorskip("websockets.asyncio.client")

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Iterator[str]:
    """host:port of a running `ferz web` with an empty database."""
    with running_server(tmp_path_factory.mktemp("web") / "games.sqlite3") as port:
        yield f"127.0.0.1:{port}"


PLAYER = f"ferz_player={secrets.token_urlsafe(24)}"  # one person: the games are theirs


def post(base: str, path: str, body: bytes) -> tuple[int, dict]:
    headers = {"content-type": "application/json", "cookie": PLAYER}
    request = urllib.request.Request(f"http://{base}{path}", data=body, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_oversized_frames_close_only_that_socket(base):
    status, game = post(base, "/api/games", json.dumps({"depth": 1}).encode())
    assert status == 201

    async def run() -> tuple[int | None, dict]:
        url = f"ws://{base}/ws/games/{game['id']}"
        player = {"cookie": PLAYER}
        async with websockets_client.connect(url, max_size=None, additional_headers=player) as big:
            await big.recv()
            await big.send("x" * 200_000)
            try:
                while True:
                    await big.recv()
            except Exception:  # noqa: BLE001 - the server closed it, which is the point
                code = big.close_code
        async with websockets_client.connect(url, additional_headers=player) as fresh:
            state = json.loads(await fresh.recv())
            await fresh.send(json.dumps({"type": "move", "uci": "e2e4", "ply": 0}))
            while True:
                message = json.loads(await fresh.recv())
                if message["type"] == "state" and len(message["game"]["moves"]) == 2:
                    return code, state

    code, state = asyncio.run(run())
    assert code == 1009 and state["type"] == "state"


def test_oversized_and_malformed_bodies(base):
    status, body = post(base, "/api/games", b"x" * 300_000)
    assert status == 413 and "over" in body["error"]
    status, body = post(base, "/api/import", b'{"text": "1. e4 e5 2. Kf7"}')
    assert status == 400 and "Kf7" in body["error"]
    status, body = post(base, "/api/games", json.dumps({"depth": 1}).encode())
    assert status == 201  # still serving
