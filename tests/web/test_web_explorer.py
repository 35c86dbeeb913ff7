"""The opening explorer: the index in SQLite, GET /api/explorer in lichess's shape, PGN
databases imported (bad games reported with their line, uploads over the limit refused with
413), finished games counted once, and the counts of `ferz book build` for the same games."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import random
import sqlite3
import time
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from ferz import book, pgn  # noqa: E402
from ferz.board import Board  # noqa: E402
from ferz.commands import book as book_command  # noqa: E402
from ferz.web import explorer  # noqa: E402
from ferz.web.schema import ClientError  # noqa: E402
from tests.web.test_web_api import app_for  # noqa: E402
from tests.web.webserver import state  # noqa: E402

pytestmark = pytest.mark.timeout(120)

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
OPENINGS = Path(__file__).resolve().parents[2] / "ferz" / "data" / "openings.pgn"


def random_games(count: int, seed: int) -> str:
    """Seeded games: one of the first 8 lines of ferz's openings.pgn (so that games share
    positions), then random legal moves to 36-44 plies; results of every kind, `*` too, and
    Elo tags on most games."""
    rng = random.Random(seed)
    with open(OPENINGS, encoding="utf-8") as handle:
        lines = [game.mainline_moves() for game in pgn.stream_games(handle)][:8]
    texts = []
    for number in range(count):
        board = Board()
        for uci in rng.choice(lines):
            board.push_uci(uci)
        while len(board.move_stack) < rng.randrange(36, 45) and not board.is_game_over():
            board.push(rng.choice(list(board.legal_moves)))
        headers = {
            "Event": f"random {number}",
            "Result": rng.choice(["1-0", "0-1", "1/2-1/2", "*"]),
        }
        if rng.random() < 0.8:
            headers["WhiteElo"] = str(rng.randrange(1200, 2600))
            headers["BlackElo"] = str(rng.randrange(1200, 2600))
        texts.append(pgn.write(pgn.Game.from_board(board, headers)))
    return "\n".join(texts)


def imported(client: TestClient, text: str, variant: str = "chess") -> dict:
    """Import a PGN database through the API; the final report."""
    response = client.post(f"/api/explorer/import?variant={variant}", content=text.encode())
    assert response.status_code == 200, response.text
    report = [line for line in response.text.splitlines() if line.strip()][-1]
    data = json.loads(report)
    assert data["done"] is True
    return data


def explore(client: TestClient, fen: str = START, variant: str = "chess") -> dict:
    """The explorer's answer for a position."""
    response = client.get("/api/explorer", params={"fen": fen, "variant": variant})
    assert response.status_code == 200, response.text
    return response.json()


def test_the_explorer_agrees_with_ferz_book_build(tmp_path):
    """40 games imported: for 20 positions, each move's games are the games `ferz book build`
    counts (its own reader and counting, the same ply limit), and its score the book's."""
    text = random_games(40, seed=5)
    path = tmp_path / "games.pgn"
    path.write_text(text)
    counts = book.count_lines(
        book_command._games([str(path)], book_command._Read(), explorer.MAX_PLY),
        explorer.MAX_PLY,
    )
    with TestClient(app_for(tmp_path)) as client:
        report = imported(client, text)
        assert (report["games"], report["indexed"], report["bad"]) == (40, 40, 0)
        # the 20 positions of the games' first plies played in the most games
        seen: Counter[str] = Counter()
        for game in pgn.stream_games(io.StringIO(text), mainline_only=True):
            board = Board()
            for uci in game.mainline_moves()[: explorer.MAX_PLY]:
                seen[board.fen()] += 1
                board.push_uci(uci)
        positions = [fen for fen, _ in seen.most_common(20)]
        assert len(positions) == 20
        for fen in positions:
            board = Board(fen)
            answer = explore(client, fen)
            mover = "white" if board.turn else "black"
            other = "black" if board.turn else "white"
            mine = {
                m["uci"]: (m["games"], 2 * m[mover] + m["games"] - m[mover] - m[other])
                for m in answer["moves"]
            }
            books = {
                board.parse_uci(book._move_text(raw)).uci(): stat
                for raw, stat in counts[book.key(board)].items()
            }
            assert mine == books, fen
            assert answer["games"] == seen[fen]
            if fen == START:
                start = mine
    # and the book `ferz book build` writes weighs each move with a score by that score
    out = tmp_path / "book.bin"
    parser = argparse.ArgumentParser()
    book_command.add_arguments(parser)
    words = ["build", str(path), "-o", str(out), "--max-ply", "30", "--min-games", "1"]
    assert book_command.main(parser.parse_args(words)) == 0
    weights = {e.move.uci(): e.weight for e in book.Book(out).entries(Board())}
    assert weights == {uci: score for uci, (_, score) in start.items() if score}


def test_the_answer_is_lichess_shaped_with_ratings(tmp_path):
    """Totals and moves with uci, san, counts and the average rating of the games' Elo."""
    text = (
        '[Event "a"]\n[WhiteElo "2000"]\n[BlackElo "1800"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n'
        '[Event "b"]\n[WhiteElo "2200"]\n[Result "1/2-1/2"]\n\n1. e4 c5 1/2-1/2\n\n'
        '[Event "c"]\n[Result "0-1"]\n\n1. d4 d5 0-1\n\n'
        '[Event "d"]\n[Result "*"]\n\n1. e4 *\n'
    )
    with TestClient(app_for(tmp_path)) as client:
        assert imported(client, text)["indexed"] == 4
        answer = explore(client)
        assert (answer["white"], answer["draws"], answer["black"], answer["games"]) == (1, 1, 1, 4)
        e4, d4 = answer["moves"]
        assert (e4["uci"], e4["san"], e4["games"], e4["white"], e4["draws"], e4["black"]) == (
            "e2e4",
            "e4",
            3,
            1,
            1,
            0,
        )
        assert e4["averageRating"] == (1900 + 2200) // 2
        assert (d4["san"], d4["black"], d4["averageRating"]) == ("d4", 1, None)
        after = Board()
        after.push_uci("e2e4")
        replies = explore(client, after.fen())["moves"]
        assert {m["san"]: m["games"] for m in replies} == {"e5": 1, "c5": 1}
        assert explore(client, "8/8/8/4k3/8/8/8/4K3 w - - 0 1")["moves"] == []


def test_variants_are_keyed_apart(tmp_path):
    """A crazyhouse game with a drop is found in crazyhouse, not in chess; the index keeps
    the first MAX_PLY plies of a game only."""
    house = '[Variant "crazyhouse"]\n[Result "1-0"]\n\n1. e4 d5 2. exd5 Qxd5 3. P@e4 1-0\n'
    long_game = random_games(1, seed=9)
    with TestClient(app_for(tmp_path)) as client:
        assert imported(client, house)["indexed"] == 1
        board = Board(variant="crazyhouse")
        for uci in ("e2e4", "d7d5", "e4d5", "d8d5"):
            board.push_uci(uci)
        drops = explore(client, board.fen(), "crazyhouse")["moves"]
        assert [(m["uci"], m["san"], m["white"]) for m in drops] == [("P@e4", "P@e4", 1)]
        assert explore(client, START, "crazyhouse")["games"] == 1
        assert explore(client, START)["games"] == 0  # chess has none of it
        assert imported(client, long_game)["indexed"] == 1
        game = next(pgn.stream_games(io.StringIO(long_game)))
        board = Board()
        moves = game.mainline_moves()
        for uci in moves[: explorer.MAX_PLY - 1]:
            board.push_uci(uci)
        assert explore(client, board.fen())["moves"][0]["uci"] == moves[explorer.MAX_PLY - 1]
        board.push_uci(moves[explorer.MAX_PLY - 1])
        assert explore(client, board.fen())["moves"] == []  # past the limit: not indexed


def test_bad_games_are_reported_with_their_line_and_skipped(tmp_path):
    """An illegal move, a broken tag and garbage between games: the good games are counted,
    each bad one reported with its line; nothing crashes."""
    text = (
        '[Event "good 1"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n'
        '[Event "illegal"]\n[Result "0-1"]\n\n1. e4 e5 2. Ke3 0-1\n\n'
        '[Event "broken\n\n1. d4 *\n\n'
        "this is not PGN at all ))\n\n"
        '[Event "good 2"]\n[Result "0-1"]\n\n1. d4 d5 0-1\n\n'
        '[Event "bad fen"]\n[FEN "not a fen"]\n[Result "*"]\n\n1. e4 *\n'
    )
    with TestClient(app_for(tmp_path)) as client:
        report = imported(client, text)
        assert report["indexed"] == 2 and report["bad"] >= 2
        assert all("line " in e["error"] for e in report["errors"])
        assert any("Ke3" in e["error"] and "line 9" in e["error"] for e in report["errors"])
        answer = explore(client)
        assert {m["uci"]: m["games"] for m in answer["moves"]} == {"e2e4": 1, "d2d4": 1}
        assert imported(client, "")["games"] == 0  # an empty file: nothing, no error
        assert imported(client, "\x00\xff garbage")["indexed"] == 0


def test_bad_requests(tmp_path):
    """A bad FEN, an unknown variant, a missing FEN (the start) and bad imports."""
    with TestClient(app_for(tmp_path)) as client:
        bad = client.get("/api/explorer", params={"fen": "garbage"})
        assert bad.status_code == 400 and "FEN" in bad.json()["error"]
        unknown = client.get("/api/explorer", params={"fen": START, "variant": "nope"})
        assert unknown.status_code == 400 and "unknown variant" in unknown.json()["error"]
        assert client.get("/api/explorer").json()["moves"] == []  # no FEN: the start
        assert (
            client.get("/api/explorer", params=[("fen", START), ("fen", START)]).status_code == 400
        )
        response = client.post("/api/explorer/import?variant=nope", content=b"1. e4 *")
        assert response.status_code == 400


def test_an_upload_over_the_limit_is_refused_with_413(tmp_path, monkeypatch):
    """Over the limit by its Content-Length, or by what arrives when it has none (chunked):
    413 with the limit in the message, before the rest is read; nothing is counted."""
    from ferz.web.routes import explorer as routes

    with TestClient(app_for(tmp_path)) as client:
        declared = client.post(
            "/api/explorer/import",
            content=b"x",
            headers={"content-length": str(50 * 1024 * 1024)},
        )
        assert declared.status_code == 413
        assert "over 32 MB" in declared.json()["error"]
        monkeypatch.setattr(routes, "MAX_DATABASE_BYTES", 100_000)
        refused = client.post("/api/explorer/import", content=b"1. e4 e5 1-0\n\n" * 10_000)
        assert refused.status_code == 413
        sent = []

        class Chunked:
            """A request with no Content-Length, whose body comes 10 KB at a time."""

            headers: dict[str, str] = {}

            async def stream(self):
                for _ in range(1000):
                    sent.append(1)
                    yield b"1. e4 e5 1-0\n\n" * 700

        with pytest.raises(ClientError) as caught:
            asyncio.run(routes._spool(Chunked()))
        assert caught.value.status == 413 and len(sent) == 11  # the rest never read
        assert explore(client)["games"] == 0
        assert imported(client, "1. e4 e5 1-0\n")["indexed"] == 1  # the next import runs


def test_a_finished_game_is_counted_once(tmp_path):
    """A hot-seat game ends in mate: its moves are in the explorer at once; a restart counts
    nothing twice, and a finished game not yet counted (an older database) is counted then."""
    with TestClient(app_for(tmp_path)) as client:
        game = client.post("/api/games", json={"opponent": "hotseat", "color": "white"}).json()
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            state(ws)
            for ply, uci in enumerate(("f2f3", "e7e5", "g2g4")):
                ws.send_json({"type": "move", "uci": uci, "ply": ply})
                state(ws, lambda g, n=ply + 1: len(g["moves"]) == n)
            assert explore(client)["games"] == 0  # not over yet
            ws.send_json({"type": "move", "uci": "d8h4", "ply": 3})
            over = state(ws, lambda g: g["result"] is not None)
            assert over["result"] == "0-1"
        answer = explore(client)
        assert [(m["uci"], m["games"], m["black"]) for m in answer["moves"]] == [("f2f3", 1, 1)]
    with TestClient(app_for(tmp_path)) as client:
        assert explore(client)["games"] == 1
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    with db:
        db.execute("DELETE FROM explorer")
        db.execute("DELETE FROM explorer_games")
    db.close()
    with TestClient(app_for(tmp_path)) as client:
        for _ in range(100):  # caught up in a thread at the start
            if explore(client)["games"]:
                break
            time.sleep(0.05)
        assert explore(client)["games"] == 1


def test_a_long_import_tells_how_far_it_is(tmp_path, monkeypatch):
    """Lines of progress while the games are counted, then the report."""
    from ferz.web.routes import explorer as routes

    monkeypatch.setattr(routes, "PROGRESS_S", 0.001)
    run = routes._run

    def slow_run(*args):
        """The import, started a moment late: 60 games can be counted before the first
        progress line is due, which left the lines empty on a fast run."""
        time.sleep(0.05)
        return run(*args)

    monkeypatch.setattr(routes, "_run", slow_run)
    text = random_games(60, seed=3)
    with TestClient(app_for(tmp_path)) as client:
        response = client.post("/api/explorer/import", content=text.encode())
        lines = [json.loads(line) for line in response.text.splitlines() if line.strip()]
        assert response.headers["content-type"].startswith("application/x-ndjson")
        assert lines[-1]["done"] and lines[-1]["indexed"] == 60
        counts = [line["games"] for line in lines[:-1]]
        assert counts and counts == sorted(counts) and counts[-1] <= 60


def test_mutated_queries_get_an_answer_or_a_400(tmp_path):
    """300 FENs with a character changed, cut or doubled, in several variants: 200 or 400
    with an error, never a server error."""
    rng = random.Random(7)
    variants = ["chess", "crazyhouse", "xiangqi", "shogi", "atomic", "chess960", "x" * 41, ""]
    with TestClient(app_for(tmp_path)) as client:
        imported(client, random_games(5, seed=2))
        for _ in range(300):
            variant = rng.choice(variants)
            fen = Board(variant=variant if variant in variants[:6] else "chess").fen()
            at = rng.randrange(len(fen))
            fen = rng.choice(
                [
                    fen[:at] + rng.choice("pPkK/8 -[]~+w") + fen[at + 1 :],
                    fen[:at],
                    fen + fen[at:],
                    fen.replace(" ", "  ", 1),
                ]
            )
            answer = client.get("/api/explorer", params={"fen": fen, "variant": variant})
            assert answer.status_code in (200, 400), (variant, fen, answer.text)
            assert ("moves" in answer.json()) == (answer.status_code == 200)
