"""`ferz analyse`: every move annotated with [%eval], mistakes marked with a better line, the
per-side summary; python-chess reads the output back; the annotation rules themselves."""

from __future__ import annotations

import io

import chess.pgn
import pytest

from ferz import analyse, commands, pgn
from ferz.score import MATE_CP

# White gives its queen away on move 3 (3. Qxe5+ Nxe5)
GAME = """[Event "blunder"]
[White "w"]
[Black "b"]
[Result "0-1"]

1. e4 e5 2. Qh5 Nc6 3. Qxe5+ Nxe5 4. d4 Ng6 0-1

[Event "second"]
[Variant "xiangqi"]

1. h3e3 h10g8 *
"""


def test_every_move_gets_an_eval_and_the_blunder_a_mark(tmp_path, capsys) -> None:
    source = tmp_path / "games.pgn"
    source.write_text(GAME)
    out = tmp_path / "out.pgn"
    assert commands.main(["analyse", str(source), "--depth", "6", "-o", str(out), "--quiet"]) == 0
    text = out.read_text()
    handle = io.StringIO(text)
    first = chess.pgn.read_game(handle)
    assert first is not None and not first.errors
    nodes = list(first.mainline())
    assert all(node.eval() is not None for node in nodes), text
    queen_loss = nodes[4]  # 3. Qxe5+
    assert chess.pgn.NAG_BLUNDER in queen_loss.nags, text
    assert len(queen_loss.parent.variations) > 1  # the better line
    assert first.headers["WhiteACPL"].isdigit() and float(first.headers["BlackAccuracy"]) > 50
    assert first.comment.startswith("ferz depth 6: White ACPL")
    second = pgn.read_games(text)
    games = list(second)
    assert games[1].variant == "xiangqi"
    assert all("[%eval" in node.comment for node in games[1].mainline())


def test_analyse_bad_input_is_a_clear_error(tmp_path, capsys) -> None:
    assert commands.main(["analyse", str(tmp_path / "none.pgn")]) == 2
    assert "cannot read" in capsys.readouterr().err
    bad = tmp_path / "bad.pgn"
    bad.write_text("1. e4 e5 2. Ke3 *")
    assert commands.main(["analyse", str(bad)]) == 2
    assert "illegal move 'Ke3'" in capsys.readouterr().err
    good = tmp_path / "good.pgn"
    good.write_text("1. e4 *")
    assert commands.main(["analyse", str(good), "--engine", "/no/such/engine"]) == 2
    assert "cannot run" in capsys.readouterr().err
    assert commands.main(["analyse", str(good), "--verify", "0"]) == 2
    assert "--verify must be at least 1" in capsys.readouterr().err


def test_eval_text_and_winning_chances() -> None:
    assert analyse.eval_text(35, True, 12) == "[%eval 0.35,12]"
    assert analyse.eval_text(35, False) == "[%eval -0.35]"
    assert analyse.eval_text(MATE_CP - 3, True) == "[%eval #3]"
    assert analyse.eval_text(MATE_CP - 3, False) == "[%eval #-3]"
    assert analyse.eval_text(-MATE_CP, True) == "[%eval #0]"
    assert analyse.winning_chances(0) == 0.0
    assert analyse.winning_chances(5000) == analyse.winning_chances(1000)
    # lichess: 300 cp is a winning chance of about 0.5
    assert analyse.winning_chances(300) == pytest.approx(0.5023, abs=1e-4)
    assert analyse.move_accuracy(50, 50) == pytest.approx(100.0, abs=0.01)
    assert analyse.move_accuracy(0, -1000) < 20


def test_annotate_with_a_scripted_analyser() -> None:
    """A fixed analyser: Black's 1...e5 drops from -0.20 to -3.80 (a blunder; d5 was better)."""
    game = pgn.read_game("1. e4 e5 2. Nf3 *")
    scores = {0: 20, 1: -20, 2: 380, 3: -380}  # the side to move's view before each ply
    best = {0: "e2e4", 1: "d7d5", 2: "g1f3", 3: "b8c6"}

    def analyser(fen: str, moves: list[str]) -> list[analyse.Line]:
        """The scripted line of the position after `moves`."""
        return [analyse.Line(scores[len(moves)], 5, (best[len(moves)],))]

    summaries = analyse.annotate(game, analyser, "test")
    nodes = list(game.mainline())
    assert [n.comment for n in nodes] == ["[%eval 0.20,5]", "[%eval 3.80,5]", "[%eval 3.80,5]"]
    assert [n.nags for n in nodes] == [[], [pgn.NAG_BLUNDER], []]
    better = nodes[0].variations[1]
    assert better.san == "d5" and better.comment == "[%eval 0.20,5]"
    assert summaries["Black"].acpl() == 360 and summaries["White"].acpl() == 0
    assert game.headers["BlackACPL"] == "360"
    assert game.comment.startswith("test: White ACPL 0, accuracy 100.0 %")


def test_positions_are_searched_last_first() -> None:
    """Backward analysis: the engine sees the game's last position first, so the hash table holds
    the punishing reply when the blunder's position is searched; a finished game's last position
    is scored by the rules, not searched."""
    game = pgn.read_game("1. f3 e5 2. g4 Qh4# 0-1")
    asked: list[int] = []

    def analyser(fen: str, moves: list[str]) -> list[analyse.Line]:
        """Records the ply of each position asked for."""
        asked.append(len(moves))
        return [analyse.Line(0, 1, ())]

    analyse.annotate(game, analyser, "test")
    assert asked == [3, 2, 1, 0]


def test_a_doubtful_move_is_judged_again_by_the_longer_search() -> None:
    """1...e5 first looks like an inaccuracy (-0.20 to -1.20 for Black, a drop of 0.18 in the
    VERIFY band); the verifying search of the position after it, then before it, finds -3.80:
    a blunder, judged (and its ACPL counted) from the verified pair; both positions' [%eval]
    show the deeper search. The other moves (no drop) are not searched again."""
    game = pgn.read_game("1. e4 e5 2. Nf3 *")
    scores = {0: 20, 1: -20, 2: 120, 3: -120}
    best = {0: "e2e4", 1: "d7d5", 2: "g1f3", 3: "b8c6"}
    verified = {1: -20, 2: 380}
    asked: list[int] = []

    def analyser(fen: str, moves: list[str]) -> list[analyse.Line]:
        """The first, short search."""
        return [analyse.Line(scores[len(moves)], 5, (best[len(moves)],))]

    def verifier(fen: str, moves: list[str]) -> list[analyse.Line]:
        """The longer search; records the plies asked for."""
        asked.append(len(moves))
        return [analyse.Line(verified[len(moves)], 9, (best[len(moves)],))]

    assert analyse.VERIFY[0] <= analyse.drop(-20, -120) < analyse.VERIFY[1]
    summaries = analyse.annotate(game, analyser, "test", verify=verifier)
    nodes = list(game.mainline())
    assert asked == [2, 1]
    assert [n.nags for n in nodes] == [[], [pgn.NAG_BLUNDER], []]
    assert [n.comment for n in nodes] == ["[%eval 0.20,9]", "[%eval 3.80,9]", "[%eval 1.20,5]"]
    assert summaries["Black"].losses == [360]
    # without the verifying search the same move is an inaccuracy
    game = pgn.read_game("1. e4 e5 2. Nf3 *")
    analyse.annotate(game, analyser, "test")
    assert [n.nags for n in game.mainline()] == [[], [pgn.NAG_DUBIOUS], []]


def test_a_position_is_verified_once() -> None:
    """2. Nf3 and 1...e5 are both doubtful (drops of 0.18): the position between them, verified
    for 2. Nf3, is not searched again for 1...e5."""
    game = pgn.read_game("1. e4 e5 2. Nf3 *")
    scores = {0: 20, 1: -20, 2: 120, 3: -20}
    asked: list[int] = []

    def analyser(fen: str, moves: list[str]) -> list[analyse.Line]:
        """The same scores from both searches; records what the verifying one is asked."""
        return [analyse.Line(scores[len(moves)], 5, ("a2a3",))]

    def verifier(fen: str, moves: list[str]) -> list[analyse.Line]:
        """The verifying search: records the ply."""
        asked.append(len(moves))
        return analyser(fen, moves)

    analyse.annotate(game, analyser, "test", verify=verifier)
    assert asked == [3, 2, 1]
    assert [n.nags for n in game.mainline()] == [[], [pgn.NAG_DUBIOUS], [pgn.NAG_DUBIOUS]]


def test_syzygy_verdicts_in_the_comments(tmp_path, capsys) -> None:
    """--syzygy: each position in the tables gets their verdict; the engine uses them too; a
    missing folder is the one-line error."""
    from tests.conftest import DATA
    from tests.programs import need_library

    need_library("fathom", "libfathom1")
    source = tmp_path / "kqk.pgn"
    source.write_text(
        '[FEN "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1"]\n[SetUp "1"]\n\n1. Qf4 Kc3 2. Qe3+ Kc2 *\n'
    )
    out = tmp_path / "out.pgn"
    folder = str(DATA / "syzygy")
    argv = ["analyse", str(source), "--depth", "4", "--syzygy", folder, "-o", str(out), "--quiet"]
    assert commands.main(argv) == 0
    nodes = list(pgn.read_games(out.read_text()))[0].mainline()
    comments = [node.comment for node in nodes]
    assert all("tablebase: White wins, DTZ" in c for c in comments), comments
    assert "DTZ 10" in comments[0]  # 1. Qf4: ten plies from the mate
    assert commands.main(["analyse", str(source), "--syzygy", str(tmp_path / "none")]) == 2
    assert "no Syzygy folder" in capsys.readouterr().err


def test_tablebase_note_words() -> None:
    """The note names the winner, a draw, and a win that the fifty-move rule spoils."""
    from ferz.board import Board
    from ferz.syzygy import open_tablebase
    from tests.conftest import DATA
    from tests.programs import need_library

    need_library("fathom", "libfathom1")
    with open_tablebase(DATA / "syzygy") as tables:
        note = analyse.tablebase_note
        assert (
            note(tables, Board("8/8/8/8/8/2k5/8/K1Q5 b - - 0 1")) == "tablebase: White wins, DTZ 16"
        )
        assert note(tables, Board("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1")) == "tablebase: draw"
        assert note(tables, Board()) is None
        assert note(None, Board()) is None
