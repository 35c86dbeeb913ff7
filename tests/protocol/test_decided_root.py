"""A root already decided by a rule scores as Fairy-Stockfish scores it (issue #53): `mate 0`
when won or lost (a checkmate, a king on the hill, an exploded king...), `cp 0` when drawn."""

from __future__ import annotations

import pytest

from tests.protocol.proc import EngineProcess

DECIDED = [
    ("kingofthehill", "rnbq1bnr/pppppppp/8/3k4/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "mate 0"),
    ("horde", "rnbqkbnr/pppppppp/8/8/8/8/8/8 w kq - 0 1", "mate 0"),
    ("racingkings", "4K3/8/8/8/8/8/k7/8 b - - 0 1", "mate 0"),
    ("atomic", "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQ - 0 1", "mate 0"),
    ("antichess", "8/8/8/8/8/8/8/4K3 b - - 0 1", "mate 0"),  # no pieces left: won
    ("3check", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+0 0 1", "mate 0"),
    ("shatranj", "8/8/8/1K5Q/8/5P2/6k1/2B5 b - - 0 62", "mate 0"),  # a bared king
    ("xiangqi", "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1", "mate 0"),  # stalemated: lost
    ("chess", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", "mate 0"),
    ("chess", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "cp 0"),  # stalemate: drawn
]


@pytest.mark.parametrize(("variant", "fen", "score"), DECIDED)
def test_a_decided_root_is_scored_as_fsf_scores_it(variant: str, fen: str, score: str) -> None:
    engine = EngineProcess("uci")
    engine.send(f"setoption name UCI_Variant value {variant}", f"position fen {fen}", "go depth 5")
    lines = engine.expect("bestmove", timeout=20)
    assert lines[-2:] == [f"info depth 0 score {score}", "bestmove (none)"]
    engine.send("quit")
    assert engine.close() == 0
