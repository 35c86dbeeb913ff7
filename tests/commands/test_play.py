"""`ferz play` driven with piped input (stand-in engine; the real one in test_play_cli.py)."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import chess
import chess.pgn

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from ferz.commands.play import main, pgn  # noqa: E402
from ferz.textboard import render  # noqa: E402
from tests.protocol.standin import Limits, NamedBoard, StandIn  # noqa: E402


def arguments(**options: object) -> argparse.Namespace:
    """`ferz play`'s parsed arguments: the test defaults, changed by `options`."""
    defaults: dict[str, object] = dict(
        color="white",
        fen=None,
        movetime=50,
        depth=2,
        elo=None,
        variant="chess",
        ascii=False,
        pgn=None,
    )
    defaults.update(options)
    return argparse.Namespace(**defaults)


def play(text: str, **options: object) -> tuple[str, StandIn]:
    """Run a game with these input lines; returns (everything printed, the engine)."""
    engine = StandIn(step=0.001)
    out = io.StringIO()
    code = main(arguments(**options), engine, Limits, io.StringIO(text), out)
    assert code == 0
    return out.getvalue(), engine


def test_render_unicode_board_with_coordinates_and_last_move() -> None:
    board = NamedBoard()
    board.push_uci("e2e4")
    text = render(board, "e2e4")
    lines = text.splitlines()
    assert lines[0].split() == list("abcdefgh") == lines[-1].split()
    assert lines[1] == "8  ♜  ♞  ♝  ♛  ♚  ♝  ♞  ♜  8"
    assert lines[5] == "4  ·  ·  ·  · [♙] ·  ·  ·  4"
    assert lines[7] == "2  ♙  ♙  ♙  ♙ [·] ♙  ♙  ♙  2"
    flipped = render(board, None, flip=True, ascii=True).splitlines()
    assert flipped[0].split() == list("hgfedcba")
    assert flipped[1] == "1  R  N  B  K  Q  B  N  R  1"


def test_moves_in_san_and_uci_engine_replies() -> None:
    out, engine = play("e4\ng1f3\nfen\n")
    assert "ferz plays a5" in out
    assert "ferz plays a4" in out
    assert "Last move: a4" in out
    assert "rnbqkbnr/1ppppppp/8/8/p3P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3" in out
    assert engine.last_limits is not None and engine.last_limits.depth == 2


def test_long_algebraic_moves_are_accepted() -> None:
    """`e2-e4`, `Ng1-f3` (the Centurion seed's input) are read as a PGN reader reads them."""
    out, _ = play("e2-e4\nNg1-f3\nfen\n")
    assert "Illegal move" not in out
    assert "rnbqkbnr/1ppppppp/8/8/p3P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3" in out


def test_illegal_and_garbage_input_changes_nothing() -> None:
    out, engine = play("e5\nKe2\n\xff\xfe\n" + "x" * 10000 + "\nfen\n")
    assert out.count("Illegal move") == 4
    assert "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" in out


def test_takeback_returns_to_our_turn() -> None:
    out, engine = play("e4\nundo\nfen\nd4\nundo\nundo\n")
    assert "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" in out
    assert "Nothing to take back." in out
    assert engine.board.fen().startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP")


def test_engine_moves_first_when_we_play_black_and_time_control() -> None:
    out, engine = play("moves\n", color="black", depth=None, movetime=20)
    assert out.index("ferz plays a3") < out.index("Your move")
    assert engine.last_limits is not None and engine.last_limits.movetime == 20
    assert "a5 a6 b5 b6" in out


def test_mate_ends_the_game_and_pgn_parses(tmp_path: Path) -> None:
    # Fool's mate, with the stand-in (which plays the first move in UCI order) as Black.
    fen = "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2"
    path = tmp_path / "games.pgn"
    out, _ = play("Qh4#\npgn\nquit\n", color="black", fen=fen, pgn=str(path))
    assert "ferz plays" not in out.split("Qh4")[1]
    assert "Game over: 0-1 (Black mates)" in out
    game = chess.pgn.read_game(io.StringIO(path.read_text()))
    assert game is not None
    assert game.headers["Result"] == "0-1" and game.headers["FEN"] == fen
    assert game.end().board().is_checkmate()


def test_pgn_numbering_from_a_black_start() -> None:
    fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 7"
    start = NamedBoard(fen)
    text = pgn(start, ["e8d7", "e2e4", "d7e6"], "*", start_fen=fen)
    assert text.strip().splitlines()[-1] == "7... Kd7 8. e4 Ke6 *"


def test_resign_new_and_eof() -> None:
    out, _ = play("resign\ne4\nnew\n")
    assert "You resign: 0-1" in out
    assert "The game is over" in out
    assert out.rstrip().endswith("Your move:")


def test_pieces_in_hand_are_shown() -> None:
    class Crazyhouse(NamedBoard):
        def pockets(self) -> dict[str, int]:
            return {"P": 2, "N": 1, "q": 1}

    text = render(Crazyhouse())
    assert text.splitlines()[-1] == "In hand: White ♘♙♙ | Black ♛"
    assert "In hand" not in render(NamedBoard())


def test_letters_on_a_console_without_chess_glyphs() -> None:
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii", write_through=True)
    code = main(arguments(depth=1), StandIn(), Limits, io.StringIO("quit\n"), out)
    assert code == 0
    text = raw.getvalue().decode("ascii")
    assert "8  r  n  b  q  k  b  n  r  8" in text and "6  .  .  ." in text
