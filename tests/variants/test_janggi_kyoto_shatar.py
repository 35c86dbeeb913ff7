"""Janggi's four rule sets, kyoto and micro shogi, shatar: their rules in chosen positions
against Debian's `fairy-stockfish` 11.1 perft, their game ends, notation and FEN round trips.

(Start-position perft is test_startpos_perft.py's, perft after random play test_fsf_perft.py's:
both cover these games as built-ins.)
"""

from __future__ import annotations

import random

import pytest

from ferz import variants
from ferz.board import Board
from ferz.core.perft import perft
from ferz.core.position import Position
from ferz.engine import Engine, Limits
from ferz.variants.ini import DefinitionError
from tests.variants.oracle import fairy_stockfish

pytestmark = pytest.mark.variant

JANGGI = ("janggi", "janggitraditional", "janggimodern", "janggicasual")
GAMES = (*JANGGI, "kyotoshogi", "micro", "shatar")

# (variant, FEN, moves): positions that put each rule to work
POSITIONS = [
    # palace diagonals: a rook and a cannon (screen on the centre) on the corners, a guard
    # and the king on the lines, a soldier in the enemy palace
    ("janggi", "3k5/4a4/3P5/9/9/9/9/5C3/4N4/3RK4 w - - 0 1", []),
    ("janggi", "4k4/9/3aPa3/9/9/9/9/3C5/4A4/3K1R3 w - - 0 1", []),
    ("janggi", "3ak4/4n4/5c3/9/9/9/9/3r5/4A4/5K3 b - - 0 1", []),
    # janggi cannons: no hop over a cannon, no capture of one; elephants blocked on the way
    ("janggi", "4k4/9/4c4/9/4C4/4c4/9/2B1C4/3A1A3/4K4 w - - 0 1", []),
    ("janggi", "4k4/9/9/9/9/9/2p6/2Pn5/3B5/4K4 w - - 0 1", []),
    # bikjang: the kings face each other; a pass keeps them facing and ends the game
    ("janggi", "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1", []),
    ("janggi", "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1", ["e1e1"]),
    ("janggitraditional", "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1", ["e1e1"]),
    ("janggimodern", "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1", ["e1e1"]),
    ("janggicasual", "3k5/9/9/9/4r4/9/9/9/9/4K4 w - - 0 1", ["e1d1"]),
    # two passes end the game
    (
        "janggicasual",
        "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1",
        ["e2e2", "e9e9"],
    ),
    # kyoto: every move turns the piece over; pieces in hand drop either side up
    ("kyotoshogi", "p+nks+l/5/5/5/+LSK+NP[Ll] w - - 0 1", []),
    ("kyotoshogi", "4k/5/2+P2/5/K4[NSns] b - - 0 1", []),
    # micro: a piece turns over only by capturing
    ("micro", "kb+r+l/p3/1P2/3P/+L+RBK[] w - - 0 1", []),
    ("micro", "k3/1+p2/4/1R2/K3[Bb] w - - 0 1", []),
    # shatar: bers, promotion to the bers, a bare king ends the game
    ("shatar", "4k3/1P6/8/8/8/8/8/R2JK3 w - - 0 1", []),
    ("shatar", "4k3/8/8/8/8/8/8/R3K3 b - - 0 1", []),
]


@pytest.fixture(scope="module")
def fsf():
    """One fairy-stockfish process for the module."""
    engine = fairy_stockfish()
    yield engine
    engine.close()


@pytest.mark.programs("fairy-stockfish")
@pytest.mark.parametrize(("name", "fen", "moves"), POSITIONS)
def test_rules_in_chosen_positions_match_fsf(fsf, name: str, fen: str, moves: list[str]) -> None:
    board = Board(fen, rules=variants.get(name))
    for text in moves:
        board.push_uci(text)
    for depth in (1, 2, 3):
        assert perft(board.position, depth) == fsf.perft(name, fen, moves, depth), depth


def test_janggi_pass_is_written_as_the_king_standing_still() -> None:
    board = Board(variants.get("janggi").start_fen, rules=variants.get("janggi"))
    passes = [m for m in board.legal_moves if m.text == "e2e2"]
    assert len(passes) == 1
    assert board.san(passes[0]) == "pass"
    assert board.parse_san("pass") == passes[0] and board.parse_san("--") == passes[0]
    board.push_san("pass")
    assert board.parse_uci("e9e9").text == "e9e9"


@pytest.mark.parametrize(
    ("name", "winner"),
    [
        ("janggi", False),
        ("janggimodern", False),
        ("janggitraditional", None),
        ("janggicasual", None),
    ],
)
def test_two_passes_end_janggi_by_the_count_or_drawn(name: str, winner: bool | None) -> None:
    """Equal material: the count gives Black (the second player) the point."""
    board = Board(variants.get(name).start_fen, rules=variants.get(name))
    board.push_uci("e2e2")
    assert board.outcome() is None
    board.push_uci("e9e9")
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is winner
    assert board.legal_moves == []


@pytest.mark.parametrize(
    ("name", "over", "winner"),
    [("janggi", True, False), ("janggitraditional", True, None), ("janggimodern", False, None)],
)
def test_bikjang_twice_in_a_row_ends_the_game(name: str, over: bool, winner: bool | None) -> None:
    rules = variants.get(name)
    board = Board("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1", rules=rules)
    if rules.bikjang:  # the kings must be parted: the king steps aside or passes
        assert sorted(m.text for m in board.legal_moves) == ["e1d1", "e1e1", "e1f1"]
    board.push_uci("e1e1")
    outcome = board.outcome()
    assert (outcome is not None) is over
    if over:
        assert outcome.winner is winner


def test_material_count_decides_with_more_material() -> None:
    """White a chariot up: the count (13 - 1 > 0) gives White the game after two passes."""
    rules = variants.get("janggi")
    board = Board("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1", rules=rules)
    board.push_uci("e1e1")
    board.push_uci("d10d10")
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is True


def test_kyoto_notation_turns_pieces_over() -> None:
    rules = variants.get("kyotoshogi")
    board = Board("p+nks+l/5/5/5/+LSK+NP[Ll] w - - 0 1", rules=rules)
    texts = {m.text for m in board.legal_moves}
    assert {"e1e2+", "a1a2-", "+L@b2", "L@b2"} <= texts
    assert "e1e2" not in texts  # turning over is compulsory
    board.push_uci("a1a2-")
    assert board.fen().startswith("p+nks+l/5/5/L4/1SK+NP[Ll] b")


@pytest.mark.parametrize(
    ("fen", "move", "winner"),
    [
        ("6rk/6pp/8/6N1/8/8/8/K7 w - - 0 1", "g5f7", False),  # a knights' mate loses
        ("k7/7p/1K6/8/8/8/8/3R4 w - - 0 1", "d1d8", True),  # a shak: mate
        ("k7/2K5/1P5p/8/8/8/4B3/8 w - - 0 1", "e2f3", None),  # no shak in the series: draw
    ],
)
def test_shatar_mate_rule(fen: str, move: str, winner: bool | None) -> None:
    board = Board(fen, rules=variants.get("shatar"))
    board.push_uci(move)
    outcome = board.outcome()
    assert outcome is not None and outcome.termination == "checkmate"
    assert outcome.winner is winner


def test_shatar_series_of_checks_remembers_an_earlier_shak() -> None:
    """Rook check (a shak), the king steps away, a bishop mates still in the series: a mate;
    the same bishop mate without the rook's check before it is a draw (FSF's search, too,
    plays it only in the first case)."""
    rules = variants.get("shatar")
    board = Board("7k/p7/2B2P2/7K/8/8/8/4R3 w - - 0 1", rules=rules)
    for text in ("e1e8", "h8h7", "c6e4"):
        board.push_uci(text)
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is True
    board = Board("4R3/p6k/2B2P2/7K/8/8/8/8 w - - 0 1", rules=rules)
    board.push_uci("c6e4")
    outcome = board.outcome()
    assert outcome is not None and outcome.termination == "checkmate" and outcome.winner is None


def test_shatar_bare_king_draws() -> None:
    board = Board("4k3/8/8/8/8/8/8/R3K3 b - - 0 1", rules=variants.get("shatar"))
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is None and board.legal_moves == []


@pytest.mark.parametrize("name", GAMES)
def test_fen_round_trip_after_random_play(name: str) -> None:
    rules = variants.get(name)
    rng = random.Random(7)
    board = Board(rules.start_fen, rules=rules)
    other = Position(rules)
    for _ in range(60):
        moves = board.legal_moves
        if not moves:
            break
        board.push(rng.choice(moves))
        fen = board.fen()
        other.set_fen(fen)
        assert other.fen() == fen
        assert sorted(other.legal_moves()) == sorted(m.code for m in board.legal_moves) or (
            name in JANGGI  # (a FEN forgets the passes and bikjang before it, as in FSF)
        )


@pytest.mark.parametrize("name", GAMES)
def test_engine_plays_legal_moves(name: str) -> None:
    engine = Engine(variant=name)
    engine.set_position()
    done: list = []
    for _ in range(4):
        engine.go(Limits(depth=3), on_bestmove=lambda best, ponder: done.append(best))
        engine.wait()
        best = done[-1]
        if best is None:
            break
        assert best in {m.text for m in engine.board.legal_moves}
        engine.set_position(moves=[m.text for m in engine.board.move_stack] + [best])


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[x:chess]\nmaterialCounting = points\n", "expected none, janggi or unweighted"),
        ("[x:chess]\npieceDemotion = true\n", "needs promotedPieceType"),
        ("[x:chess]\ndropPromoted = true\n", "needs promotedPieceType"),
        ("[x:xiangqi]\nshatarMateRule = true\n", "plain leapers and riders"),
        ("[x:chess]\nking = -\ncommoner = k\nkingPass = true\n", "needs a royal king"),
    ],
)
def test_new_keys_refuse_what_they_cannot_mean(text: str, match: str) -> None:
    with pytest.raises(DefinitionError, match=match):
        variants.parse_text(text)


def test_user_janggi_variant_loads_from_the_keys() -> None:
    """The built-in definition's keys work in a user file: janggi on a board without the
    material count is janggicasual's perft."""
    rules = variants.parse_text("[myjanggi:janggi]\nbikjangRule = false\nmaterialCounting = none\n")
    pos = Position(rules["myjanggi"])
    pos.set_fen(rules["myjanggi"].start_fen)
    assert perft(pos, 3) == 33316
