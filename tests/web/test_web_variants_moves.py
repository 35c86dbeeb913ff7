"""The web server takes the new variants' special moves as the board sends them: janggi's pass,
kyoto shogi's drop of a promoted side, seirawan castling that gates on the rook's square."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from tests.web.test_web_api import app_for, new_game  # noqa: E402
from tests.web.webserver import error, state  # noqa: E402

CASTLES = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[HEhe] w KQBCDFGkqbcdfg - 0 1"


@pytest.mark.parametrize(
    "variant, fen, uci, san",
    [
        ("janggi", "3k5/9/9/8p/9/9/P8/9/4K4/9 w - - 0 1", "e2e2", "pass"),
        ("janggimodern", "3k5/9/9/8p/9/9/P8/9/4K4/9 w - - 0 1", "e2e2", "pass"),
        ("janggitraditional", "3k5/9/9/8p/9/9/P8/9/4K4/9 w - - 0 1", "e2e2", "pass"),
        ("janggicasual", "3k5/9/9/8p/9/9/P8/9/4K4/9 w - - 0 1", "e2e2", "pass"),
        ("kyotoshogi", "p+nks+l/5/5/5/1SK+NP[L] w - - 0 1", "+L@c3", "+L@c3"),
        ("kyotoshogi", "p+nks+l/5/5/5/1SK+NP[L] w - - 0 1", "L@c3", "L@c3+"),
        (
            "seirawan",
            CASTLES,
            "h1e1h",
            "O-O/Hh1",
        ),
        (
            "shouse",
            CASTLES,
            "e1g1e",
            "O-O/Ee1",
        ),
    ],
)
def test_the_move_is_offered_and_played(tmp_path, variant, fen, uci, san):
    with TestClient(app_for(tmp_path)) as client:
        game = new_game(client, variant=variant, fen=fen)
        assert uci in game["legal"]
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            state(ws)
            ws.send_json({"type": "move", "uci": uci, "ply": 0})
            after = state(ws, lambda g: len(g["moves"]) >= 1)
            assert after["moves"][0]["uci"] == uci and after["moves"][0]["san"] == san


def test_no_pass_in_check_or_in_chess(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        game = new_game(client, variant="janggi", fen="3k5/9/9/9/9/4r4/9/9/4K4/9 w - - 0 1")
        assert game["legal"] and "e2e2" not in game["legal"]
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            state(ws)
            ws.send_json({"type": "move", "uci": "e2e2", "ply": 0})
            assert "illegal move e2e2" in error(ws)
        assert "e1e1" not in new_game(client)["legal"]
