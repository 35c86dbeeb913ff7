"""The search and evaluation work for every built-in variant (nothing assumes chess)."""

from __future__ import annotations

import pytest

from ferz import variants
from ferz.board import Board
from ferz.core.evaluate import Evaluator
from ferz.engine import Engine, Limits


@pytest.mark.variant
@pytest.mark.parametrize("name", variants.names())
def test_engine_plays_legal_moves_in_every_variant(name):
    """A few moves of self-play at low depth: always legal, and evaluation tables built."""
    engine = Engine(variant=name)
    board = Board(variant=name)
    for _ in range(4):
        if board.is_game_over():
            break
        engine.set_position(board.starting_fen, [m.uci() for m in board.move_stack])
        got = []
        engine.go(Limits(depth=3, nodes=20000), on_bestmove=lambda b, p, got=got: got.append(b))
        assert engine.wait(60)
        assert got[0] is not None
        board.push_uci(got[0])


@pytest.mark.variant
@pytest.mark.parametrize("name", variants.names())
def test_piece_values_come_from_movement(name):
    """Every non-royal piece gets a positive value; royal pieces are never material."""
    rules = variants.get(name)
    ev = Evaluator(rules)
    for index, piece in enumerate(rules.pieces, start=1):
        if piece.royal:
            assert ev.value[index] >= 20000
        else:
            assert ev.value[index] > 0, piece.letter


@pytest.mark.variant
def test_derived_values_weigh_moving_and_capturing_alike():
    """A piece that captures otherwise than it moves is valued by both halves: the xiangqi
    cannon (moves as a rook, captures only over a screen) is worth less than the chariot and
    more than the horse (minixiangqi: xiangqi's own values are given in its definition);
    hoppelpoppel's knight-bishop hybrids are minor pieces."""
    rules = variants.get("minixiangqi")
    ev = Evaluator(rules)
    value = {p.name: ev.value[i] for i, p in enumerate(rules.pieces, start=1)}
    assert value["rook"] > value["cannon"] > value["horse"] > value["soldier"]
    rules = variants.get("hoppelpoppel")
    ev = Evaluator(rules)
    value = {p.name: ev.value[i] for i, p in enumerate(rules.pieces, start=1)}
    assert value["pawn"] * 3 < value["knibis"] == value["biskni"] < value["rook"]


@pytest.mark.variant
def test_horde_starts_about_even():
    """36 pawns against an army: the definition's pawn value keeps the start near balance."""
    from ferz.core.position import Position

    rules = variants.get("horde")
    ev = Evaluator(rules)
    pos = Position(rules)
    ev.install(pos)
    pos.set_fen(rules.start_fen)
    assert abs(ev.eval(pos)) < 150


@pytest.mark.variant
def test_king_of_the_hill_win_is_found():
    """A variant end (the king reaches the centre) is a win the search sees and takes."""
    engine = Engine(variant="kingofthehill")
    engine.set_position("4k3/p7/8/8/8/4K3/P7/8 w - - 0 1")
    infos: list = []
    got: list = []
    engine.go(Limits(depth=3), on_info=infos.append, on_bestmove=lambda b, p: got.append(b))
    assert engine.wait(30)
    assert got[0] in ("e3d4", "e3e4")
    assert infos[-1].score_mate == 1


@pytest.mark.variant
def test_antichess_plays_legal_moves_to_the_end():
    """A game whose rules invert material (antichess) is played to its end without errors."""
    engine = Engine(variant="antichess")
    board = Board(variant="antichess")
    for _ in range(200):
        if board.is_game_over():
            break
        engine.set_position(board.starting_fen, [m.uci() for m in board.move_stack])
        got: list = []
        engine.go(Limits(nodes=3000), on_bestmove=lambda b, p, got=got: got.append(b))
        assert engine.wait(30)
        board.push_uci(got[0])
    assert board.is_game_over() or len(board.move_stack) == 200
