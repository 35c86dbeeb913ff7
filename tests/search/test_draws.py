"""Stalemate, repetition and the fifty-move rule are draws inside the search."""

from __future__ import annotations

from ferz.engine import Engine
from tests.search.helpers import scored, think


def test_stalemating_move_scores_zero(engine: Engine):
    """Qc7 stalemates (score 0) while Qc8 mates: the search tells them apart."""
    fen = "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1"
    best, infos = think(engine, fen, depth=4)
    assert best == "c1c8"
    assert scored(infos)[-1].score_mate == 1
    engine.new_game()
    _, infos = think(engine, fen, depth=4, searchmoves=["c1c7"])
    # (depth 1 ends in quiescence, which does not look for stalemate)
    assert all(i.score_cp == 0 for i in scored(infos) if i.depth >= 2)


def test_repetition_scores_zero(engine: Engine):
    """A move that repeats an earlier position of the game scores exactly 0."""
    moves = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]
    for depth in (1, 4, 7):
        engine.new_game()
        _, infos = think(engine, None, moves, depth=depth, searchmoves=["f6g8"])
        assert scored(infos)[-1].score_cp == 0, f"depth {depth}"
    # without the history the same move is not a draw
    engine.new_game()
    _, infos = think(
        engine,
        "rnbqkb1r/pppppppp/5n2/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
        depth=4,
        searchmoves=["f6g8"],
    )
    assert scored(infos)[-1].score_cp != 0


def test_repetition_after_another_search_has_a_clean_line(engine: Engine):
    """A root move that repeats returns at once: its line is that move alone, not the moves
    an earlier search left at the next ply (they made the ponder move fail and the engine
    play its first legal move instead of the search's; #48)."""
    think(engine, "7k/8/8/8/8/8/6q1/7K w - - 0 1", depth=8)  # Kxg2 and the king's walk
    fen = "6r1/8/8/8/8/8/5k1K/8 b - - 0 1"  # Kh1-h2 then repeats the first position
    best, infos = think(engine, fen, ["g8g7", "h2h1", "g7g8"], depth=10)
    assert best == "h1h2"
    assert not [i.string for i in infos if i.string]
    assert all(i.pv == ["h1h2"] for i in scored(infos))


def test_fifty_move_rule_draws_a_won_position(engine: Engine):
    """With the halfmove clock at 99 and no capture or mate available, a queen up is a draw."""
    _, infos = think(engine, "7k/8/8/8/8/8/8/1Q5K w - - 99 120", depth=5)
    assert scored(infos)[-1].score_cp == 0
    _, infos = think(engine, "7k/8/8/8/8/8/8/1Q5K w - - 0 120", depth=5)
    assert scored(infos)[-1].score_cp > 500
