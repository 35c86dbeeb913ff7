"""The web app with Fairy-Stockfish's gating and two-board games: the hands shown, gating moves
(`b1c3h`) and drops from a hand set by the FEN accepted, written in SAN as pyffish writes them."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from tests.web.test_web_api import app_for, new_game  # noqa: E402
from tests.web.webserver import error, state  # noqa: E402


def test_seirawan_gating_moves_are_played(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        game = new_game(client, variant="seirawan")
        assert game["pockets"] == ["H", "E"] and {"b1c3h", "g1f3e"} <= set(game["legal"])
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            state(ws)
            ws.send_json({"type": "move", "uci": "e2e4h", "ply": 0})
            assert "illegal move e2e4h" in error(ws)  # pawns do not gate
            ws.send_json({"type": "move", "uci": "b1c3h", "ply": 0})
            after = state(ws, lambda g: len(g["moves"]) == 1)
            assert after["moves"][0]["san"] == "Nc3/H" and "RHBQKBNR[Eeh]" in after["fen"]


def test_bughouse_drops_from_the_fen_hand(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[Nq] w KQkq - 0 2"
        game = new_game(client, variant="bughouse", fen=fen)
        assert "N@f3" in game["legal"]
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            state(ws)
            ws.send_json({"type": "move", "uci": "N@f3", "ply": 0})
            after = state(ws, lambda g: len(g["moves"]) == 1)
            assert after["moves"][0]["san"] == "N@f3" and "[q]" in after["fen"]
