"""ferz web's analysis socket (MultiPV lines, review) and PGN/FEN import and export."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from ferz.web import pgn  # noqa: E402
from ferz.web.server import create_app  # noqa: E402
from tests.web.web_standin import TEST_POLICY, Limits, Stats, factory  # noqa: E402

pytestmark = pytest.mark.timeout(60)

SCHOLAR = """[Event "Casual"]
[Site "?"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Bc4 {a comment} Nc6 (2... Nf6 3. d3) 3. Qh5 $2 Nf6?? 4. Qxf7# 1-0
"""


def client_for(tmp_path, stats: Stats | None = None, **engine: Any) -> TestClient:
    app = create_app(
        tmp_path / "games.sqlite3",
        engine_factory=factory(stats or Stats(), **engine),
        limits_type=Limits,
        slots=1,
        max_think_ms=500,
        review_ms=20,
        policy=TEST_POLICY,
    )
    return TestClient(app)


def until(ws, kind: str, limit: int = 100) -> dict[str, Any]:
    for _ in range(limit):
        message = ws.receive_json()
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind} message")


# ---------------------------------------------------------------- PGN reading and writing


def test_pgn_read_skips_comments_variations_and_nags():
    game = pgn.read(SCHOLAR)
    assert game.san == ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]
    assert game.uci[-1] == "h5f7" and game.result == "1-0" and game.tags["White"] == "A"


def test_pgn_reads_only_the_first_game():
    two = SCHOLAR + "\n" + SCHOLAR.replace("1. e4 e5", "1. d4 d5")
    assert pgn.read(two).san[0] == "e4"


def test_pgn_from_a_fen_with_black_to_move():
    text = '[FEN "4k3/8/8/8/8/8/4P3/4K3 b - - 0 12"]\n12... Kd7 13. e4 *'
    game = pgn.read(text)
    assert game.san == ["Kd7", "e4"] and game.start_fen.endswith("b - - 0 12")
    out = pgn.write({}, game.start_fen, game.san, default_fen="x", evals=[None, "0.50"])
    assert '[SetUp "1"]' in out and "12... Kd7 13. e4 { [%eval 0.50] } *" in out


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1. e4 e5 2. Nf9", "illegal move 'Nf9' \\(move 2\\)"),
        ("1. e4 e5 2. Ke3", "illegal move 'Ke3' \\(move 2\\)"),
        ('[FEN "not a fen"]\n1. e4', "FEN"),
        ('[Variant "Fourboard"]\n1. e4', "unknown variant"),
        ("1. e4 (1. d4", "not closed"),
        ("1. e4 )", "without '\\('"),
        ("", "no tags and no moves"),
    ],
)
def test_pgn_errors_name_the_problem(text, expected):
    with pytest.raises(ValueError, match=expected):
        pgn.read(text)


def test_pgn_round_trip_of_a_stored_game(tmp_path):
    with client_for(tmp_path) as client:
        game = client.post("/api/games", json={"movetime_ms": 50}).json()
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            ws.send_json({"type": "move", "uci": "g1f3", "ply": 0})
            for _ in range(50):
                message = ws.receive_json()
                if message["type"] == "state" and len(message["game"]["moves"]) == 2:
                    break
        text = client.get(f"/api/games/{game['id']}/pgn").text
        assert text.startswith('[Event "ferz web game"]') and '[White "Anonymous"]' in text
        assert "1. Nf3 a5 { [%eval -0.20] } *" in text  # the engine's own eval (20 for Black)
        back = client.post("/api/import", json={"text": text}).json()
        assert back["moves"][0] == "g1f3" and len(back["moves"]) == 2


# ---------------------------------------------------------------- import and export endpoints


def test_import_pgn_and_fen(tmp_path):
    with client_for(tmp_path) as client:
        line = client.post("/api/import", json={"text": SCHOLAR}).json()
        assert line["variant"] == "chess" and line["san"][-1] == "Qxf7#"
        fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
        assert client.post("/api/import", json={"text": fen}).json()["start_fen"] == fen
        for bad in ("1. e4 e5 2. Qxf7", "4k3/8/8/8/8/8/8/4K3/8 w - - 0 1", "", 7):
            response = client.post("/api/import", json={"text": bad})
            assert response.status_code == 400 and response.json()["error"]


def test_export_writes_eval_comments(tmp_path):
    with client_for(tmp_path) as client:
        body = {"moves": ["e2e4", "e7e5"], "evals": [{"score_cp": 31}, {"score_mate": -2}]}
        text = client.post("/api/export", json=body).json()["pgn"]
        assert "1. e4 { [%eval 0.31] } 1... e5 { [%eval #-2] } *" in text
        bad = client.post("/api/export", json={"moves": ["e2e5"]})
        assert bad.status_code == 400 and "illegal move" in bad.json()["error"]


# ---------------------------------------------------------------- the analysis socket


def test_analysis_streams_multipv_lines_from_whites_side(tmp_path):
    stats = Stats()
    with (
        client_for(tmp_path, stats, score_cp=40) as client,
        client.websocket_connect("/ws/analysis") as ws,
    ):
        ws.send_json({"type": "analyse", "seq": 1, "moves": ["e2e4"], "multipv": 3})
        position = until(ws, "position")
        assert position["seq"] == 1 and position["turn"] == "black" and position["ply"] == 1
        assert position["moves"][0]["san"] == "e4" and "e7e5" in position["legal"]
        lines = {}
        while len(lines) < 3:
            info = until(ws, "info")
            lines[info["info"]["multipv"]] = info["info"]
        assert lines[1]["score_cp"] == -40  # 40 for Black, the side to move
        assert all(line["pv_san"] for line in lines.values())
        assert until(ws, "done")["seq"] == 1  # stopped by the think-time ceiling
        assert stats.searches[0][0].infinite and stats.searches[0][1]["MultiPV"] == 3


def test_analysis_shows_an_earlier_ply_and_refuses_bad_lines(tmp_path):
    with client_for(tmp_path) as client, client.websocket_connect("/ws/analysis") as ws:
        moves = ["e2e4", "e7e5", "g1f3"]
        ws.send_json({"type": "analyse", "seq": 2, "moves": moves, "ply": 1, "think": False})
        position = until(ws, "position")
        assert position["ply"] == 1 and position["turn"] == "black"
        assert len(position["moves"]) == 3
        for bad in (
            {"moves": ["e2e4", "e2e4"]},
            {"moves": "e2e4"},
            {"fen": "garbage"},
            {"moves": ["e2e4"], "ply": 5},
            {"multipv": 9},
            {"variant": "nochess"},
        ):
            ws.send_json({"type": "analyse", "seq": 3, **bad})
            assert until(ws, "error")["message"]
        ws.send_text("{")
        assert "JSON" in until(ws, "error")["message"]


def test_review_scores_every_position(tmp_path):
    with (
        client_for(tmp_path, score_cp=10) as client,
        client.websocket_connect("/ws/analysis") as ws,
    ):
        line = client.post("/api/import", json={"text": SCHOLAR}).json()
        ws.send_json({"type": "review", "moves": line["moves"]})
        reviews = []
        while True:
            message = ws.receive_json()
            if message["type"] == "review_done":
                break
            if message["type"] == "review":
                reviews.append(message)
        # searched from the last position to the first, then every position again with
        # its mark: the last message of each ply is its final entry
        assert sorted({r["ply"] for r in reviews}) == list(range(8))
        assert reviews[0]["ply"] == 7 and reviews[1]["ply"] == 6
        reviews = sorted({r["ply"]: r for r in reviews}.values(), key=lambda r: r["ply"])
        assert reviews[0]["score_cp"] == 10 and reviews[1]["score_cp"] == -10
        # Checkmate: decided without a search, and no score (the result says it).
        assert reviews[7]["score_cp"] is None and reviews[7]["outcome"] == "1-0"


def test_review_reads_exact_scores_not_bounds(tmp_path):
    """A search's last lowerbound report (a deeper iteration that failed high and was cut
    short) is no score: the review keeps the last exact one, as `ferz analyse` reads UCI."""
    with (
        client_for(tmp_path, score_cp=10, bound_cp=900) as client,
        client.websocket_connect("/ws/analysis") as ws,
    ):
        line = client.post("/api/import", json={"text": SCHOLAR}).json()
        ws.send_json({"type": "review", "moves": line["moves"]})
        final: dict[int, dict[str, Any]] = {}
        while (message := ws.receive_json())["type"] != "review_done":
            if message["type"] == "review":
                final[message["ply"]] = message
        assert final[0]["score_cp"] == 10 and final[1]["score_cp"] == -10
        assert all(final[ply]["score_cp"] in (10, -10) for ply in range(7))


def test_review_marks_moves_as_ferz_analyse_does(tmp_path):
    """Each reviewed move carries the NAG ferz.analyse.judge gives it: a stand-in that always
    thinks the side to move is 3 pawns up makes every move a blunder (the mover drops from +3
    to -3), except a move that was the engine's own choice; the export writes the marks."""
    with (
        client_for(tmp_path, score_cp=300) as client,
        client.websocket_connect("/ws/analysis") as ws,
    ):
        ws.send_json({"type": "review", "moves": ["e2e4", "e7e5"]})
        reviews = {}
        while (message := ws.receive_json())["type"] != "review_done":
            if message["type"] == "review":
                reviews[message["ply"]] = message
        assert reviews[0]["nag"] is None
        for ply in (1, 2):
            played = ["e2e4", "e7e5"][ply - 1]
            expected = None if reviews[ply - 1]["best"] == played else 4
            assert reviews[ply]["nag"] == expected
        evals = [reviews[1], reviews[2]]
        body = {"moves": ["e2e4", "e7e5"], "evals": evals}
        text = client.post("/api/export", json=body).json()["pgn"]
        marked = [ply for ply in (1, 2) if reviews[ply]["nag"] == 4]
        assert text.count("$4") == len(marked) and marked


BLUNDERS = """[Event "Casual"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Nd4 4. Nxe5 Qg5 5. Nxf7 Qxg2 6. Rf1 Qxe4+ 7. Be2 Nf3# 0-1
"""


def test_review_equals_ferz_analyse_with_a_live_engine(tmp_path):
    """The web review of a game by ferz itself at a fixed node budget gives every move the
    mark `ferz analyse --nodes N` gives, and each side the same summary (the same searches in
    the same order on one engine: ferz.analyse.searches, doubtful moves verified)."""
    from ferz import pgn as library
    from ferz.analyse import NAG_WORDS
    from ferz.commands.analyse import Settings, annotate_text

    nodes = 3000
    settings = Settings((), (), None, None, nodes, 1, f"ferz {nodes} nodes")
    annotated = next(iter(library.read_games(annotate_text(settings, BLUNDERS))))
    expected = [
        next((nag for nag in node.nags if nag in NAG_WORDS), None) for node in annotated.mainline()
    ]
    line = pgn.read(BLUNDERS).uci
    app = create_app(tmp_path / "games.sqlite3", slots=1, review_nodes=nodes, policy=TEST_POLICY)
    with TestClient(app) as client, client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({"type": "review", "moves": line})
        reviews: dict[int, dict[str, Any]] = {}
        while (message := ws.receive_json())["type"] != "review_done":
            if message["type"] == "review":
                reviews[message["ply"]] = message
    summary = message["summary"]
    marks = [reviews[ply]["nag"] for ply in range(1, len(line) + 1)]
    assert marks == expected and any(marks)  # the game has blunders to find
    for colour in ("White", "Black"):
        side = summary[colour.lower()]
        assert str(side["acpl"]) == annotated.headers[f"{colour}ACPL"]
        assert f"{side['accuracy']:.1f}" == annotated.headers[f"{colour}Accuracy"]
        own = marks[0::2] if colour == "White" else marks[1::2]
        assert [side[word] for word in NAG_WORDS.values()] == [own.count(n) for n in NAG_WORDS]


def test_judge_thresholds() -> None:
    """lichess's winning-chance drops: small losses pass, large ones grade up to a blunder."""
    from ferz.analyse import judge
    from ferz.score import MATE_CP

    assert judge(30, 0) is None
    assert judge(50, -20) == 6  # ?!  (a drop of 0.13 in winning chances)
    assert judge(100, -50) == 2  # ?   (0.27)
    assert judge(200, -400) == 4  # ?? (0.98)
    assert judge(MATE_CP - 3, 0) == 4 and judge(-MATE_CP + 5, -MATE_CP + 3) is None


def test_import_in_a_variant(tmp_path):
    with client_for(tmp_path) as client:
        # coordinates are read as python-chess reads them (ferz.pgn), a bad square is not
        line = client.post("/api/import", json={"text": "1. h3e3", "variant": "xiangqi"})
        assert line.status_code == 200 and line.json()["moves"] == ["h3e3"]
        line = client.post("/api/import", json={"text": "1. h3z3", "variant": "xiangqi"})
        assert line.status_code == 400
        line = client.post("/api/import", json={"text": "1. Che3 Che8", "variant": "xiangqi"})
        assert line.json()["variant"] == "xiangqi" and line.json()["moves"] == ["h3e3", "h8e8"]
        fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
        assert (
            client.post("/api/import", json={"text": fen, "variant": "xiangqi"}).status_code == 200
        )
        assert client.post("/api/import", json={"text": fen}).status_code == 400
        bad = client.post("/api/import", json={"text": fen, "variant": "nochess"})
        assert bad.status_code == 400 and "unknown variant" in bad.json()["error"]
        # a FEN with a pocket is a FEN, not a PGN tag
        for variant, fen in (
            ("crazyhouse", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Pp] w KQkq - 0 4"),
            (
                "shogi",
                "lns1kg1nl/1+B1g3s1/1p1ppp1pp/p5p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL[RPb] b - - 0 5",
            ),
        ):
            line = client.post("/api/import", json={"text": fen, "variant": variant})
            assert line.status_code == 200, line.json()
            assert line.json()["start_fen"].split("[")[1] == fen.split("[")[1]
