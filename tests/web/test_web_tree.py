"""The analysis tree's API: edits of a stored game's tree (kept in SQLite), edits of a tree the
page holds, PGN import and export with variations, the store's migration of older files."""

from __future__ import annotations

import io
import json
import re
import sqlite3

import chess.pgn
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from ferz import notation  # noqa: E402
from ferz.board import Board  # noqa: E402
from ferz.web import tree  # noqa: E402
from ferz.web.store import Store  # noqa: E402
from tests.web.test_web_analysis import client_for, until  # noqa: E402

NESTED = """[Event "tree"]
[White "A"]
[Black "B"]

{ start } 1. e4 e5 ( 1... c5 { Sicilian } 2. Nf3 ( 2. c3 d5 ) 2... d6 $1 ) 2. Nf3 $5 Nc6 *
"""


def shape(text: str) -> list:
    """A PGN's tree as python-chess reads it."""
    game = chess.pgn.read_game(io.StringIO(text))

    def walk(node) -> list:
        return [(c.move.uci(), c.comment, sorted(c.nags), walk(c)) for c in node.variations]

    return [game.comment, walk(game)]


def test_edits_of_a_stored_game_are_kept_and_never_cut_the_line(tmp_path):
    with client_for(tmp_path) as client:
        gid = client.post("/api/import", json={"text": "1. e4 e5 2. Nf3 Nc6 *"}).json()["id"]
        url = f"/api/games/{gid}/tree"
        res = client.post(url, json={"op": "add", "path": ["e2e4", "e7e5"], "uci": "f1c4"})
        assert res.status_code == 200 and res.json()["path"] == ["e2e4", "e7e5", "f1c4"]
        nodes = client.get(url).json()["tree"]["nodes"]
        assert [n["uci"] for n in nodes] == ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"]
        assert nodes[4]["parent"] == 1 and nodes[4]["text"] == "Bc4"
        path = ["e2e4", "e7e5", "f1c4"]
        client.post(url, json={"op": "comment", "path": path, "comment": "Italian"})
        client.post(url, json={"op": "nags", "path": path, "nags": [5]})
        client.post(url, json={"op": "promote", "path": path})
        # a fresh app on the same file: the tree came from SQLite
    with client_for(tmp_path) as client:
        nodes = client.get(url).json()["tree"]["nodes"]
        assert [n["uci"] for n in nodes][:3] == ["e2e4", "e7e5", "f1c4"]
        assert nodes[2]["comment"] == "Italian" and nodes[2]["nags"] == [5]
        text = client.get(f"/api/games/{gid}/pgn").text
        assert "1. e4 e5 2. Bc4 $5 { Italian } (2. Nf3 Nc6) *" in text
        res = client.post(url, json={"op": "delete", "path": ["e2e4", "e7e5", "g1f3"]})
        assert res.json()["path"] == ["e2e4", "e7e5"]
        assert [n["uci"] for n in res.json()["tree"]["nodes"]] == ["e2e4", "e7e5", "f1c4"]
    with client_for(tmp_path) as client:  # deleted, even the imported moves stay deleted
        assert [n["uci"] for n in client.get(url).json()["tree"]["nodes"]] == [
            "e2e4",
            "e7e5",
            "f1c4",
        ]


def test_moves_a_game_plays_after_its_tree_was_kept_join_the_tree():
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    game = tree.of_record("chess", start, ["e2e4"], "")
    tree.apply(game, {"op": "add", "path": ["e2e4"], "uci": "c7c5"})
    kept = tree.dumps(game, 1)
    again = tree.of_record("chess", start, ["e2e4", "e7e5", "g1f3"], kept)
    assert again.mainline_moves() == ["e2e4", "c7c5"]  # the tree's main line stays first
    assert again.root.find(["e2e4", "e7e5", "g1f3"]) is not None
    assert tree.of_record("chess", start, ["e2e4"], kept).root.count() == 2


@pytest.mark.parametrize(
    ("op", "message"),
    [
        ({"op": "add", "path": ["e2e4"], "uci": "e2e4"}, "illegal"),
        ({"op": "promote", "path": ["d2d4"]}, "no move"),
        ({"op": "delete", "path": []}, "start position"),
        ({"op": "nags", "path": ["e2e4"], "nags": [0]}, "nags"),
        ({"op": "cut", "path": []}, "op"),
        ({"op": "comment", "path": ["e2e4"], "comment": "x" * 2001}, "comment"),
    ],
)
def test_a_bad_edit_is_refused_and_changes_nothing(tmp_path, op, message):
    with client_for(tmp_path) as client:
        gid = client.post("/api/import", json={"text": "1. e4 e5 *"}).json()["id"]
        url = f"/api/games/{gid}/tree"
        before = client.get(url).json()
        res = client.post(url, json=op)
        assert res.status_code == 400 and message in res.json()["error"]
        assert client.get(url).json() == before
        assert (
            client.post("/api/games/nope/tree", json={"op": "add", "path": []}).status_code == 404
        )


def test_a_tree_held_by_the_page_is_edited_and_checked(tmp_path):
    with client_for(tmp_path) as client:
        empty = {"comment": "", "nodes": []}
        res = client.post(
            "/api/tree",
            json={"op": "add", "path": [], "uci": "h3e3", "variant": "xiangqi", "tree": empty},
        ).json()
        assert res["path"] == ["h3e3"] and res["tree"]["nodes"][0]["text"] == "C2=5"
        res = client.post(
            "/api/tree",
            json={
                "op": "add",
                "path": [],
                "uci": "b3e3",
                "variant": "xiangqi",
                "tree": res["tree"],
            },
        ).json()
        assert [(n["text"], n["parent"]) for n in res["tree"]["nodes"]] == [
            ("C2=5", -1),
            ("C8=5", -1),
        ]
        bad = {"comment": "", "nodes": [{"parent": 0, "uci": "e2e4"}]}  # its own parent
        res = client.post("/api/tree", json={"op": "add", "path": [], "uci": "e2e4", "tree": bad})
        assert res.status_code == 400 and "parent" in res.json()["error"]
        bad = {"comment": "", "nodes": [{"parent": -1, "uci": "e2e5"}]}
        res = client.post("/api/tree", json={"op": "add", "path": [], "uci": "e2e4", "tree": bad})
        assert res.status_code == 400 and "illegal" in res.json()["error"]


def test_a_tree_in_any_order_of_parents_first_reads_back():
    """Parents before children is all that is asked; preorder is what the server sends."""
    nodes = [
        {"parent": -1, "uci": "e2e4"},
        {"parent": -1, "uci": "d2d4"},
        {"parent": 0, "uci": "e7e5"},
        {"parent": 1, "uci": "d7d5"},
        {"parent": 2, "uci": "g1f3", "comment": "x", "nags": [1]},
    ]
    game = tree.from_json({"nodes": nodes}, "chess", None)
    out = tree.to_json(game)["nodes"]
    assert [(n["uci"], n["parent"]) for n in out] == [
        ("e2e4", -1),
        ("e7e5", 0),
        ("g1f3", 1),
        ("d2d4", -1),
        ("d7d5", 3),
    ]
    assert out[2]["text"] == "Nf3" and out[2]["comment"] == "x" and out[2]["nags"] == [1]


def test_a_pgn_with_variations_is_imported_stored_and_exported_whole(tmp_path):
    with client_for(tmp_path) as client:
        line = client.post("/api/import", json={"text": NESTED}).json()
        assert line["moves"] == ["e2e4", "e7e5", "g1f3", "b8c6"]
        assert len(line["tree"]["nodes"]) == 9 and line["tree"]["comment"] == "start"
        stored = client.get(f"/api/games/{line['id']}/pgn").text
        assert shape(stored) == shape(NESTED)
        body = {"tree": line["tree"], "tags": line["tags"], "moves": line["moves"]}
        exported = client.post("/api/export", json=body).json()["pgn"]
        assert shape(exported) == shape(NESTED) and '[White "A"]' in exported


def test_an_older_database_gains_the_tree_column_and_loses_nothing(tmp_path):
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(
        """CREATE TABLE games (id TEXT PRIMARY KEY, created REAL NOT NULL, updated REAL NOT NULL,
        variant TEXT NOT NULL, start_fen TEXT NOT NULL, settings TEXT NOT NULL,
        moves TEXT NOT NULL DEFAULT '', clock_white INTEGER, clock_black INTEGER, result TEXT,
        termination TEXT);"""
    )
    db.execute(
        "INSERT INTO games VALUES ('abc', 1, 2, 'chess', ?, '{}', 'e2e4 e7e5', 1, 2, '1-0', 'x')",
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",),
    )
    db.commit()
    db.close()
    store = Store(path)
    rec = store.load("abc")
    assert rec is not None and rec.moves == ["e2e4", "e7e5"] and rec.result == "1-0"
    assert rec.tree == ""
    game = tree.of_record(rec.variant, rec.start_fen, rec.moves, rec.tree)
    tree.apply(game, {"op": "add", "path": ["e2e4"], "uci": "c7c5"})
    assert store.save_tree("abc", tree.dumps(game, len(rec.moves)))
    store.save(rec)  # a game's own save (after a move) keeps the tree
    again = store.load("abc")
    assert again is not None and again.moves == ["e2e4", "e7e5"]
    assert [n["uci"] for n in json.loads(again.tree)["nodes"]] == ["e2e4", "e7e5", "c7c5"]
    store.close()


@pytest.mark.parametrize(
    ("variant", "movetext", "texts"),
    [
        ("xiangqi", "1. C2=5 H8+7", ["C2=5", "H8+7"]),  # read without a Notation tag
        ("shogi", "1. P-7f P-3d", ["P-7f", "P-3d"]),
        ("chess", "1. e4 e5", ["e4", "e5"]),
    ],
)
def test_a_games_moves_come_in_its_players_notation(tmp_path, variant, movetext, texts):
    with client_for(tmp_path) as client:
        text = f'[Variant "{variant}"]\n\n{movetext} *'
        gid = client.post("/api/import", json={"text": text}).json()["id"]
        moves = client.get(f"/api/games/{gid}").json()["moves"]
        assert [m["text"] for m in moves] == texts
        pgn_text = client.get(f"/api/games/{gid}/pgn").text
        assert " ".join(texts) in pgn_text


def test_the_engines_lines_come_in_the_variants_notation(tmp_path):
    with client_for(tmp_path) as client, client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "analyse", "seq": 1, "variant": "xiangqi", "multipv": 1})
        position = until(ws, "position")
        info = until(ws, "info")["info"]
        board = Board(position["fen"], variant="xiangqi")
        expected = notation.move_text(board, board.parse_uci(info["pv_uci"][0]))
        assert info["pv_san"] == [expected] and re.fullmatch(r"[KAEHRCP][1-9][+=-][1-9]", expected)
