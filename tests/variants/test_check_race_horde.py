"""Rules of three-check, racing kings and horde, on positions chosen to exercise them, each
compared with Fairy-Stockfish (pyffish 0.0.90) where it is installed."""

from __future__ import annotations

import pytest

from ferz import variants
from ferz.board import Board, InvalidFenError
from ferz.core import endrules
from ferz.core.defs import NO_END
from ferz.core.perft import perft
from ferz.core.position import Position
from tests.variants.oracle import normal_fen, pyffish

pytestmark = pytest.mark.variant

START_3CHECK = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1"


def _sign(value: int) -> int:
    """+1, 0 or -1."""
    return (value > 0) - (value < 0)


def _fsf_end(name: str, fen: str, moves: list[str]) -> int | None:
    """FSF's immediate game end as a value for the side to move, or None."""
    over, value = pyffish().is_immediate_game_end(name, fen, moves)
    return _sign(value) if over else None


def _same_moves(name: str, fen: str, moves: list[str]) -> list[str]:
    """ferz's legal moves after `moves`, asserted equal to FSF's."""
    board = Board(fen, variant=name)
    for move in moves:
        board.push_uci(move)
    ours = sorted(m.text for m in board.legal_moves)
    assert ours == sorted(pyffish().legal_moves(name, fen, moves))
    return ours


# ------------------------------------------------------------------ three-check


def test_3check_counters_in_fen_round_trip() -> None:
    board = Board(variant="3check")
    assert board.fen() == START_3CHECK
    fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 2+1 0 2"
    assert Board(fen, variant="3check").fen() == fen
    # lichess writes the checks given: +1+2 is 2+1 still to give
    lichess = fen.replace("2+1", "+1+2")
    assert Board(lichess, variant="3check").fen() == fen
    # without counters Fairy-Stockfish assumes that the next check wins
    assert Board(fen.replace(" 2+1", ""), variant="3check").fen() == fen.replace("2+1", "1+1")


@pytest.mark.parametrize(
    ("fen", "match"),
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3x3 0 1", "check counters"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 33+3 0 1", "check counters"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - +4+0 0 1", "more checks"),
    ],
)
def test_3check_bad_counters_are_refused(fen: str, match: str) -> None:
    with pytest.raises(InvalidFenError, match=match):
        Board(fen, variant="3check")


def test_counters_only_where_checks_count() -> None:
    with pytest.raises(InvalidFenError, match="does not count checks"):
        Board(START_3CHECK)


def test_3check_a_check_uses_a_counter_hash_and_undo_follow() -> None:
    board = Board(variant="3check")
    for move in ("e2e4", "f7f6"):
        board.push_uci(move)
    before_fen, before_key = board.fen(), board.position.key
    board.push_uci("d1h5")
    assert board.fen().split()[4] == "2+3"
    assert board.fen() == Board(board.fen(), variant="3check").fen()
    # the counters are part of the hash: the same board with other counters hashes apart
    fresh = Board(board.fen(), variant="3check")
    assert fresh.position.key == board.position.key
    other = Board(board.fen().replace("2+3", "3+3"), variant="3check")
    assert other.position.key != board.position.key
    board.pop()
    assert board.fen() == before_fen and board.position.key == before_key


def test_3check_third_check_wins_like_fsf() -> None:
    fen = "rnbqkbnr/ppppp1pp/5p2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1+3 0 2"
    board = Board(fen, variant="3check")
    board.push_uci("d1h5")
    assert board.fen().split()[4] == "0+3"
    assert endrules.end_value(board.position) == -1  # Black, to move, has lost
    assert board.legal_moves == [] and board.is_game_over()
    assert board.outcome().winner is True
    assert _fsf_end("3check", fen, ["d1h5"]) == -1


def test_3check_perft_restores_counters() -> None:
    fen = "rnbqkbnr/ppppp1pp/5p2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1+2 0 2"
    pos = Position(variants.get("3check"))
    pos.set_fen(fen)
    key = pos.key
    assert perft(pos, 3) > 0
    assert pos.fen() == fen and pos.key == key


def test_3check_minor_pieces_are_not_insufficient() -> None:
    assert not Board("4k3/8/8/8/8/8/8/4KN2 w - - 3+3 0 1", variant="3check").outcome()
    assert Board("4k3/8/8/8/8/8/8/4K3 w - - 3+3 0 1", variant="3check").is_insufficient_material()


# ------------------------------------------------------------------ racing kings


def test_racingkings_no_move_may_give_check() -> None:
    fen = "8/1k6/8/8/8/8/8/R5K1 w - - 0 1"
    moves = _same_moves("racingkings", fen, [])
    assert "a1b1" not in moves and "a1a7" not in moves and "a1a8" in moves


@pytest.mark.parametrize(
    ("fen", "moves", "value"),
    [
        ("8/k5K1/8/8/8/8/8/8 w - - 0 1", ["g7g8"], None),  # Black may still reach its rank
        ("8/k5K1/8/8/8/8/8/8 w - - 0 1", ["g7g8", "a7a8"], 0),  # and does: a draw
        ("8/k5K1/8/8/8/8/8/8 w - - 0 1", ["g7g8", "a7b6"], 1),  # does not: White wins
        ("8/6K1/k7/8/8/8/8/8 w - - 0 1", ["g7g8"], -1),  # Black too far: lost at once
        ("8/k5K1/8/8/8/8/8/8 b - - 0 1", ["a7a8"], -1),  # Black first: White has lost
    ],
)
def test_racingkings_race_ends_like_fsf(fen: str, moves: list[str], value: int | None) -> None:
    board = Board(fen, variant="racingkings")
    for move in moves:
        board.push_uci(move)
    end = endrules.end_value(board.position)
    assert (None if end == NO_END else end) == value
    assert (board.legal_moves == []) == (value is not None)
    assert _fsf_end("racingkings", fen, moves) == value
    if value is None:
        _same_moves("racingkings", fen, moves)


def test_racingkings_blocked_answer_ends_the_race() -> None:
    # Black's king could step to a8 or b8, but the rook guards both: no legal way to the 8th rank
    fen = "2R5/k5K1/8/8/8/8/8/8 w - - 0 1"
    moves = ["g7h8"]
    assert _fsf_end("racingkings", fen, moves) == -1
    board = Board(fen, variant="racingkings")
    board.push_uci("g7h8")
    assert endrules.end_value(board.position) == -1


# ------------------------------------------------------------------ horde


def test_horde_first_rank_pawns_double_step_without_en_passant() -> None:
    fen = "4k3/8/8/8/8/1p6/8/P7 w - - 0 1"
    assert _same_moves("horde", fen, []) == ["a1a2", "a1a3"]
    board = Board(fen, variant="horde")
    board.push_uci("a1a3")
    assert board.fen().split()[3] == "-"  # a2 is outside the e.p. region
    assert "b3a2" not in {m.text for m in board.legal_moves}
    _same_moves("horde", fen, ["a1a3"])


def test_horde_second_rank_double_step_allows_en_passant() -> None:
    fen = "4k3/8/8/8/1p6/8/P7/8 w - - 0 1"
    board = Board(fen, variant="horde")
    board.push_uci("a2a4")
    assert board.fen().split()[3] == "a3"
    assert "b4a3" in _same_moves("horde", fen, ["a2a4"])


def test_horde_kingless_side_loses_by_extinction() -> None:
    fen = "4k3/8/8/8/8/8/1q6/P7 b - - 0 1"
    board = Board(fen, variant="horde")
    board.push_uci("b2a1")
    assert endrules.end_value(board.position) == -1
    assert board.legal_moves == [] and board.outcome().winner is False
    assert _fsf_end("horde", fen, ["b2a1"]) == -1


def test_horde_start_position() -> None:
    board = Board(variant="horde")
    assert normal_fen(board.fen()) == normal_fen(pyffish().start_fen("horde"))
    assert len(board.legal_moves) == 8
    with pytest.raises(InvalidFenError, match="white has 1 kings"):
        Board("4k3/8/8/8/8/8/8/K7 w - - 0 1", variant="horde")
