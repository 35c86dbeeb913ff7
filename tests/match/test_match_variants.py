# SPDX-License-Identifier: GPL-3.0-or-later
"""Variant matches over xboard with `ferz match` (ferz vs fairymax, ferz vs ferz), checked
against pyffish (Fairy-Stockfish's rules, a test-only oracle): every move the referee took is
legal for pyffish, and the games end where pyffish says they end. Also the notation helpers
that join engines and referee: xboard's rank shift and promotion spellings, and the USI and
UCCI drivers' moves and pvs in ferz's notation."""

from __future__ import annotations

import time

import pytest

from ferz import commands, pgn
from ferz.board import Board
from ferz.match.engines import EngineSpec, MoveLimits
from ferz.match.launch import launch
from ferz.match.openings import random_openings
from ferz.match.referee import find_move
from ferz.match.xboard import shift_ranks
from tests.programs import need, need_module

pytestmark = pytest.mark.variant


def test_rank_shift_and_promotion_spelling() -> None:
    assert shift_ranks("h2e2", -1) == "h1e1"
    assert shift_ranks("a9a8", 1) == "a10a9"
    makruk = Board("8/7k/8/P7/8/8/8/K7 w - - 0 1", variant="makruk")
    # fairymax-style spellings of the met promotion mean the one legal promotion a5a6m
    assert find_move(makruk, "a5a6").uci() == "a5a6m"
    assert find_move(makruk, "a5a6q").uci() == "a5a6m"
    assert find_move(makruk, "a5a7") is None
    capa = Board("10/P8k/10/10/10/10/10/K9 w - - 0 1", variant="capablanca")
    assert find_move(capa, "a7a8") is None  # ambiguous: several promotion pieces


def test_random_openings_are_seeded_and_legal() -> None:
    first = random_openings("xiangqi", 3, 4, seed=7)
    again = random_openings("xiangqi", 3, 4, seed=7)
    assert first == again
    assert all(len(o.moves) == 4 for o in first)
    assert len({o.moves for o in first}) == 3


def run_match(capsys, tmp_path, variant: str, engine_b: list[str]) -> list[pgn.Game]:
    """Two short games ferz (A, xboard) vs engine_b; the games read back from the PGN."""
    out = tmp_path / f"{variant}.pgn"
    code = commands.main(
        [
            "match", "--quiet", "--variant", variant, "--games", "2", "--tc", "1+0.05",
            "--max-moves", "6", "--timemargin", "500", "--concurrency", "1",
            "--engine", "cmd=ferz", "proto=xboard", "name=ferz",
            "--engine", *engine_b, "proto=xboard",
            "--pgn", str(out),
        ]
    )  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0, text
    assert "Games: 2 of 2" in text and "Failures: 0 " in text, text
    return pgn.read_file(str(out))


def agree_with_pyffish(game: pgn.Game) -> None:
    """Every move legal for pyffish; a game that ended by the rules ends there for pyffish."""
    pyffish = need_module("pyffish")
    variant, fen = game.variant, game.board().fen()
    moves: list[str] = []
    for move in game.mainline_moves():
        assert move in pyffish.legal_moves(variant, fen, moves), (move, moves)
        moves.append(move)
    if game.headers["Termination"] == "normal":
        ended = pyffish.is_immediate_game_end(variant, fen, moves)[0]
        optional = pyffish.is_optional_game_end(variant, fen, moves)[0]
        assert ended or optional or not pyffish.legal_moves(variant, fen, moves)


@pytest.mark.parametrize(("protocol", "variant"), [("usi", "shogi"), ("ucci", "xiangqi")])
def test_usi_and_ucci_drivers_give_moves_and_pvs_in_ferz_notation(protocol, variant) -> None:
    """Two moves of ferz over USI/UCCI (the UCI driver's loop with the protocols' hooks): each
    best move legal for ferz's board, each pv starting with it."""
    engine = launch(EngineSpec([], protocol=protocol), variant)
    try:
        board = Board(variant=variant)
        engine.new_game(board.fen(), True, [], board.ranks)
        for white in (True, False):
            reply = engine.play(MoveLimits(depth=3), 30.0, white)
            move = find_move(board, reply.move)
            assert move is not None, reply.move
            assert reply.pv[:1] == [reply.move]
            board.push(move)
            engine.played(reply.move)
    finally:
        engine.quit()


def test_a_ucci_engine_on_a_clock_moves_in_time() -> None:
    """ferz over UCCI with 2 s on its clock: the driver sets the usemillisec it offers, so
    the engine reads milliseconds (as seconds it took minutes and the match abandoned it)."""
    engine = launch(EngineSpec([], protocol="ucci"), "xiangqi")
    try:
        assert engine.millis
        board = Board(variant="xiangqi")
        engine.new_game(board.fen(), True, [], board.ranks)
        limits = MoveLimits(wtime=2000, btime=2000, winc=20, binc=20)
        started = time.monotonic()
        reply = engine.play(limits, 5.0, True)
        assert find_move(board, reply.move) is not None
        assert time.monotonic() - started < 1.5
    finally:
        engine.quit()


@pytest.mark.e2e
def test_ferz_vs_fairymax_shatranj(capsys, tmp_path) -> None:
    fairymax = need("fairymax")
    games = run_match(capsys, tmp_path, "shatranj", [f"cmd={fairymax}", "name=fairymax"])
    assert [g.variant for g in games] == ["shatranj", "shatranj"]
    assert {g.headers["White"] for g in games} == {"ferz", "fairymax"}
    for game in games:
        agree_with_pyffish(game)


@pytest.mark.e2e
def test_ferz_vs_ferz_xiangqi(capsys, tmp_path) -> None:
    games = run_match(capsys, tmp_path, "xiangqi", ["cmd=ferz", "name=ferz2"])
    assert [g.variant for g in games] == ["xiangqi", "xiangqi"]
    for game in games:
        agree_with_pyffish(game)


def test_referee_names_the_end() -> None:
    bare = Board("4k3/8/8/8/8/8/8/R3KN2 b - - 0 1", variant="shatranj")
    assert bare.outcome(claim_draw=True).result() == "1-0"
    board = Board(variant="shatranj")
    for move in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        board.push_uci(move)
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None and outcome.result() == "1/2-1/2"
