"""Atomic chess: explosions, touching kings, self-explosion, compared with Fairy-Stockfish
(pyffish 0.0.90) where it is installed."""

from __future__ import annotations

import pytest

from ferz import variants
from ferz.board import Board
from ferz.core import endrules, factory
from tests.variants.oracle import pyffish

pytestmark = pytest.mark.variant


def _after(fen: str, moves: list[str]) -> Board:
    """The atomic board after the moves, its FEN asserted equal to FSF's."""
    board = Board(fen, variant="atomic")
    for move in moves:
        board.push_uci(move)
    assert board.fen() == pyffish().get_fen("atomic", fen, moves)
    return board


def _moves(fen: str) -> list[str]:
    """ferz's legal moves, asserted equal to FSF's."""
    ours = sorted(m.text for m in Board(fen, variant="atomic").legal_moves)
    assert ours == sorted(pyffish().legal_moves("atomic", fen, []))
    return ours


def test_a_capture_explodes_the_capturer_and_pieces_but_pawns_around() -> None:
    fen = "4k3/8/2b1p3/3p4/2P1n3/5N2/8/4K3 w - - 0 1"
    board = _after(fen, ["c4d5"])
    assert board.fen() == "4k3/8/4p3/8/8/5N2/8/4K3 b - - 0 1"  # the e6 pawn survives
    key = Board(fen, variant="atomic").position.key
    board.pop()
    assert board.fen() == fen and board.position.key == key


def test_en_passant_explodes_around_the_capturing_pawn() -> None:
    board = _after("4k3/3p4/2n5/4P3/8/8/8/4K3 b - - 0 1", ["d7d5", "e5d6"])
    assert board.fen().split()[0] == "4k3/8/8/8/8/8/8/4K3"


def test_kings_may_touch_and_a_touching_king_is_not_in_check() -> None:
    fen = "8/8/8/3kK3/8/8/8/3Q4 b - - 0 1"  # the queen attacks d5 along the file
    assert not Board(fen, variant="atomic").is_check()
    moves = _moves(fen)
    assert "d5d4" in moves and "d5d6" in moves  # attacked, but next to the white king


def test_no_capture_may_explode_the_own_king() -> None:
    # Qxd3 would explode the king on e2; the king itself never captures
    assert _moves("4k3/8/8/8/8/3p4/3QK3/8 w - - 0 1") == [
        "e2d1",
        "e2e1",
        "e2e3",
        "e2f1",
        "e2f2",
        "e2f3",
    ]


def test_exploding_the_enemy_king_wins_even_in_check() -> None:
    fen = "4r3/5k2/6n1/8/8/8/8/4K1R1 w - - 0 1"
    assert Board(fen, variant="atomic").is_check()
    assert "g1g6" in _moves(fen)
    board = _after(fen, ["g1g6"])
    assert endrules.end_value(board.position) == -1
    assert board.outcome().winner is True and board.legal_moves == []
    assert pyffish().is_immediate_game_end("atomic", fen, ["g1g6"])[0]
    # the finished game's FEN (no black king; White's own king attacked) reads back
    again = Board(board.fen(), variant="atomic")
    assert again.fen() == board.fen() and endrules.end_value(again.position) == -1
    assert pyffish().is_immediate_game_end("atomic", board.fen(), []) == (True, -32000)


def test_an_exploded_rook_loses_its_castling_right() -> None:
    board = _after("r3k2r/8/8/4b3/8/8/1P5P/R3K2R b KQkq - 0 1", ["e5h2"])
    assert board.fen().split()[2] == "Qkq"


def test_blast_needs_pseudo_royal_extinction() -> None:
    with pytest.raises(variants.DefinitionError, match="only with extinctionPseudoRoyal"):
        variants.parse_text("[x:chess]\nblastOnCapture = true\n")
    with pytest.raises(variants.DefinitionError, match="remove the king"):
        variants.parse_text(
            "[x:chess]\nblastOnCapture = true\nextinctionPseudoRoyal = true\n"
            "extinctionValue = loss\nextinctionPieceTypes = q\n"
        )


# ---------------------------------------------------------------- search and evaluation


def _search(fen: str):
    """A core position of `fen` with an installed evaluation, its Search and its Board."""
    search = factory.search(variants.get("atomic"), fen)
    return search, search.ev, search.pos, Board(fen, variant="atomic")


def _value(ev, board: Board, letter: str) -> int:
    """The evaluation's value of a piece letter."""
    return ev.value[board.rules.piece_index(letter)]


@pytest.mark.parametrize(
    ("fen", "move", "gain", "loss"),
    [
        # no recapture can follow: the capturer dies with its victim (a queen for a pawn)
        ("4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", "p", "Q"),
        # the blast takes the rook next to the victim and the capturer's own bishop
        ("4k3/8/8/2nr4/1B1P4/8/8/4K3 w - - 0 1", "d4c5", "nr", "PB"),
        # pawns next to the target survive
        ("4k3/8/8/1ppn4/2P5/8/8/4K3 w - - 0 1", "c4d5", "n", "P"),
        # a quiet move where the opponent's cheapest capture would blow up more of ours
        ("4k3/6p1/8/7N/8/8/8/4K3 w - - 0 1", "h5f6", "p", "N"),
        ("4k3/8/8/8/8/4p3/2B5/3N1K2 w - - 0 1", "c2d3", "", ""),  # no capture: nothing lost
    ],
)
def test_exchange_value_is_the_blast(fen: str, move: str, gain: str, loss: str) -> None:
    """SEE where captures explode: what the blast removes on both sides, no recaptures; a quiet
    move loses what the opponent's best capture of the moved piece would win."""
    search, ev, _, board = _search(fen)
    expected = sum(_value(ev, board, x) for x in gain) - sum(_value(ev, board, x) for x in loss)
    value = search.see_value(board.parse_uci(move).code)
    assert value == (expected if board.piece_at(move[2:4]) else -max(-expected, 0))


def test_exchange_value_of_blowing_up_a_king() -> None:
    search, ev, _, board = _search("r1bqkbnr/pppppppp/2n5/4N3/8/8/PPPPPPPP/RNBQKB1R w KQkq - 0 1")
    royal = _value(ev, board, "k")  # evaluate.ROYAL_VALUE
    assert search.see_value(board.parse_uci("e5f7").code) > royal // 2  # f7 touches e8
    assert search.see_value(board.parse_uci("e5c6").code) == 0  # a knight for a knight
    # a quiet move next to the own king onto a square the opponent can capture on loses it all
    search, _, _, board = _search("4k3/8/8/2n5/8/8/8/3RK3 b - - 0 1")
    assert search.see_value(board.parse_uci("c5d7").code) < -royal // 2
    search, _, _, board = _search("4k3/8/8/2n5/8/8/8/4K3 b - - 0 1")
    assert search.see_value(board.parse_uci("c5d7").code) == 0


@pytest.mark.parametrize(
    ("fen", "white", "black"),
    [
        # the knight next to White's king is attacked by the rook: capturing it blows up e1
        ("4k3/8/8/8/8/8/r3N3/4K3 b - - 0 1", 1, 0),
        ("4k3/8/8/8/8/8/r7/4K1N1 b - - 0 1", 0, 0),
        # not when the capture would blow up Black's own king too, nor by the king itself
        ("8/8/8/8/8/3k4/r3N3/4K3 b - - 0 1", 0, 0),
        ("8/8/8/8/8/8/3kN3/4K3 b - - 0 1", 0, 0),
        # two of White's men next to its king under attack, one of Black's
        ("4k3/R4b2/8/4r3/7q/8/4NB2/4K3 b - - 0 1", 2, 1),
    ],
)
def test_evaluation_counts_the_captures_that_blow_up_a_king(fen: str, white: int, black: int):
    _, ev, pos, _ = _search(fen)
    assert (ev.king_threats(pos, 0), ev.king_threats(pos, 1)) == (white, black)


def test_evaluation_scores_a_king_that_can_be_blown_up() -> None:
    """The side to move that can blow up the enemy king is winning; the side that faces such a
    capture is worse off than without it."""
    from ferz.params import EVAL

    _, ev, pos, _ = _search("4k3/8/8/8/8/8/r3N3/4K3 b - - 0 1")
    assert ev.eval(pos) >= EVAL["blast_win"]
    _, ev, threatened, _ = _search("4k3/8/8/8/8/8/r3N3/4K3 w - - 0 1")
    _, ev, safe, _ = _search("4k3/8/8/8/8/8/r7/4K1N1 w - - 0 1")
    assert ev.eval(threatened) + EVAL["blast_threat"] // 2 < ev.eval(safe)


# A win in two moves from the suite of docs/variants.md, found exhaustively: after Qh5 no reply
# stops a capture next to Black's king. Before SEE knew explosions, depth 3 chose another move.
WIN_IN_TWO = ("r1bqkbnr/1ppppp1p/p7/8/8/4P3/PPPP1KPP/RNBQ2NR w kq - 0 5", ("d1h5",))


def test_search_finds_an_explosion_win_in_two() -> None:
    """The search finds the win in two: by depth 3 with the hand-made evaluation, whose
    blast terms see the threat next to the king; with the shipped network (atomic-1), whose
    static score does not, the first iterations prune the threat away and depth 4 finds it
    (docs/measurements/networks.md, atomic-1)."""
    from ferz.engine import Engine, Limits

    for network, depth in ((False, 3), (True, 4)):
        engine = Engine(variant="atomic")
        engine.set_option("Use NNUE", network)
        assert (engine.network is not None) == network
        engine.set_position(WIN_IN_TWO[0])
        best: list = []
        engine.go(
            Limits(depth=depth), on_bestmove=lambda move, _ponder, best=best: best.append(move)
        )
        assert engine.wait(30)
        assert best[0] in WIN_IN_TWO[1], (network, depth)
