"""The search and evaluation work for every built-in variant (nothing assumes chess)."""

from __future__ import annotations

import pytest

from ferz import variants
from ferz.board import Board
from ferz.core import factory
from ferz.core.evaluate import Evaluator
from ferz.engine import Engine, Limits
from ferz.params import TERMS


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
    rules = variants.get("horde")
    ev = Evaluator(rules)
    assert abs(ev.eval(factory.position(rules, None, ev))) < 150


@pytest.mark.variant
def test_perpetual_check_is_a_loss_in_the_search():
    """xiangqi (perpetualCheckIllegal): a repetition reached by checking every move loses
    for the checker; the search scores it so instead of as a draw."""
    board = Board("3k5/9/9/9/9/9/9/9/4A4/R3K4 w - - 0 1", variant="xiangqi")
    values = []
    for move in ["a1a10", "d10d9", "a10a9", "d9d10", "a9a10", "d10d9"]:
        board.push_uci(move)
        values.append(board.position.perpetual())
    # no repetition yet, then Black (checked every time) to move wins, Red to move loses
    assert values == [0, 0, 0, 0, 1, -1]
    chess = Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    for move in ["a1a8", "e8e7", "a8a7", "e7e8", "a7a8"]:
        chess.push_uci(move)
    assert chess.position.perpetual() == 0  # chess: a repetition is a draw


@pytest.mark.variant
def test_a_makruk_pawn_gains_by_promoting():
    """Passed-pawn terms scale with what promotion gains: a pawn one step from becoming a met
    is not worth more than the met (it was, with chess's weights, and ferz shuffled instead of
    promoting); chess keeps its tuned weights."""
    scores = _evals(
        "makruk",
        ("8/8/2M2M2/1P4PP/3k1SK1/8/8/6r1 w - - 0 1", "8/8/2M2MM1/1P5P/3k1SK1/8/8/6r1 w - - 0 1"),
    )
    assert scores[1] > scores[0]
    ev = Evaluator(variants.get("makruk"))
    chess = Evaluator(variants.get("chess"))
    sixth = chess.o_passed + 5  # a passed pawn on the sixth rank: chess keeps the tuned weight
    assert chess.weg[sixth] == TERMS["passed"][5][1] and 0 <= ev.weg[sixth] < chess.weg[sixth]


def _evals(variant: str, fens: tuple[str, ...]) -> list[int]:
    """Static evaluations of positions in a variant (side to move's view)."""
    rules = variants.get(variant)
    ev = Evaluator(rules)
    return [ev.eval(factory.position(rules, fen, ev)) for fen in fens]


@pytest.mark.variant
def test_mating_material_is_judged_by_square_colours():
    """Against a bare king, mets on both square colours (or a met and a khon) can mate and
    are worth more than the pawn they promote from; mets on one colour, like two bishops on
    one colour in chess, cannot, and score a draw. (ferz used to call all these draws, as a
    lone minor piece, and shuffled in won makruk endings instead of promoting.)"""
    both, one, khon, pawn = _evals(
        "makruk",
        (
            "8/8/8/2k5/8/2M1M3/4M3/4K3 w - - 0 1",
            "8/8/8/2k5/8/2M1M3/3M4/4K3 w - - 0 1",
            "8/8/8/2k5/8/4M3/2S5/4K3 w - - 0 1",
            "8/8/8/2k5/8/2P1M3/4M3/4K3 w - - 0 1",
        ),
    )
    assert both > pawn > 0 and khon > 300 and one == 0
    same, opposite = _evals(
        "chess", ("4k3/8/8/8/8/8/8/2B1K1B1 w - - 0 1", "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1")
    )
    assert same == 0 and opposite > 500


@pytest.mark.variant
def test_pawns_that_become_mets_of_the_mets_colour_cannot_mate():
    """A makruk pawn only ever becomes a met, on its file's promotion square: against a bare
    king, a met and pawns that will be mets on the same square colour cannot mate and score a
    draw, as a lone pawn does; a pawn on a file of the other colour can. (ferz scored the
    first +2 to +5 in a game of 3 263 plies that neither engine's rules could end.) A chess
    pawn may become a queen and keeps its value."""
    same, other, lone = _evals(
        "makruk",
        (
            "8/3K4/8/6k1/6p1/8/8/6m1 b - - 0 1",
            "8/3K4/8/6k1/5p2/8/8/6m1 b - - 0 1",
            "8/3K4/8/6k1/6p1/8/8/8 b - - 0 1",
        ),
    )
    assert same == 0 and lone == 0 and other > 100
    assert _evals("chess", ("8/3K4/8/6k1/6p1/8/8/6b1 b - - 0 1",))[0] > 300


@pytest.mark.variant
def test_material_draws_only_where_mate_is_the_goal():
    """A knight cannot mate, but on the hill, with drops or with checks counted material on
    the board is not the whole story: the evaluation keeps its terms there."""
    fen = "4k3/8/8/8/8/8/8/4KN2 w - - 0 1"
    assert _evals("chess", (fen,)) == [0]
    hill = _evals("kingofthehill", (fen, "4k3/8/8/8/3K4/8/8/5N2 w - - 0 1"))
    assert hill[0] != 0 and hill[1] > hill[0]
    assert _evals("3check", ("4k3/8/8/8/8/8/8/4KN2 w - - 3+3 0 1",)) != [0]


@pytest.mark.variant
@pytest.mark.parametrize(
    "fen",
    [
        # three mets, two colours (the longer mate: -m slow; the default run keeps the other)
        pytest.param("8/8/3k4/8/8/2M1M3/2K1M3/8 w - 128 10 1", marks=pytest.mark.slow),
        "8/8/8/2k5/8/4M3/2S5/4K3 w - 88 8 1",  # met and khon
    ],
)
def test_makruk_minor_pieces_mate_before_the_count_ends(fen):
    """Self-play converts mets and a khon against a bare king before the count runs out."""
    board = Board(fen, variant="makruk")
    engine = Engine(variant="makruk")
    moves: list[str] = []
    while board.outcome() is None:
        engine.set_position(fen, moves)
        got: list = []
        engine.go(Limits(nodes=200_000), on_bestmove=lambda b, p, got=got: got.append(b))
        assert engine.wait(60)
        moves.append(got[0])
        board.push_uci(got[0])
    outcome = board.outcome()
    assert outcome.termination == "checkmate" and outcome.winner is True, board.fen()


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


@pytest.mark.variant
def test_a_mate_by_a_drop_survives_late_move_pruning():
    """Shogi, from a game ferz lost to Fairy-Stockfish: c4d2+ takes a lance and promotes the
    knight, and G@c7 then mates. The gold drop is a quiet move that the histories do not put
    first: late move pruning skipped it at every depth (ferz played c4d2+ at depth 1 to 8). In
    drop games quiet checks now survive late move pruning, so three plies see the mate (with
    FERZ_PARAMS=drops.lmp_checks=0 the search plays c4d2+ again and this test fails)."""
    fen = "+R8/1Sk5l/p4p1gp/1p5s1/1nP1p4/PKnPb1P1P/1P2+b4/2pL2+n2/LN1S1g2L[GSPPrgpppp] b - - 6 65"
    board = Board(fen, variant="shogi")
    board.push_uci("c4d2+")
    board.push_uci("G@c7")
    assert board.is_checkmate()
    engine = Engine(variant="shogi")
    engine.set_position(fen, [])
    got = []
    engine.go(Limits(depth=3), on_bestmove=lambda b, p: got.append(b))
    assert engine.wait(60)
    assert got[0] != "c4d2+"


@pytest.mark.variant
def test_a_repetition_that_loses_for_sente_is_scored_so_in_the_search():
    """minishogi (nFoldValue loss, absolute): the fourth occurrence of a position loses for
    sente (White). With the position three times in the game, Black's move that makes the
    fourth is a win, mate in 1 as Fairy-Stockfish scores it, not a draw."""
    fen = "4k/4g/5/G4/K4[-] w - - 0 1"
    cycle = ["a1b1", "e5d5", "b1a1", "d5e5"]
    board = Board(fen, variant="minishogi")
    for move in cycle * 2 + cycle[:3]:
        board.push_uci(move)
    result = Engine(variant="minishogi").play(board, Limits(depth=4))
    assert (result.move, result.info.score_mate) == ("d5e5", 1)
    board.push_uci("d5e5")
    assert board.outcome(claim_draw=True).winner is False  # the game's rule agrees
    chess = Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")  # chess: the same cycle is a draw
    for move in ["e1d1", "e8d8", "d1e1", "d8e8"] * 2 + ["e1d1", "e8d8", "d1e1"]:
        chess.push_uci(move)
    assert Engine().play(chess, Limits(depth=4)).info.score_mate is None
