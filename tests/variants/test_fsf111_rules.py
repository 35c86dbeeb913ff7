"""The Fairy-Stockfish 11.1 games added with their rules (issue 21): positions that put each new
rule to work, compared with Debian's `fairy-stockfish`; game ends; aliases; a smoke game each."""

from __future__ import annotations

import pytest

from ferz import variants
from ferz.board import Board
from ferz.core.perft import perft
from ferz.engine import Engine, Limits
from ferz.web import boards
from tests.variants.oracle import fairy_stockfish

pytestmark = pytest.mark.variant

# Variants added for issue 21 (Fairy-Stockfish 11.1's list).
NEW = [
    "5check",
    "fairy",
    "dobutsu",
    "giveaway",
    "codrus",
    "extinction",
    "kinglet",
    "suicide",
    "losers",
    "makpong",
    "jesonmor",
    "placement",
]

# (variant, FEN): each exercises one rule; perft 1-3 must equal fairy-stockfish 11.1's.
POSITIONS = [
    ("makpong", "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1"),  # the king may take its lone checker
    ("makpong", "4k3/8/8/8/8/4r3/4r3/4K3 w - - 0 1"),  # a defended checker: no king move
    ("makpong", "4k3/8/8/8/8/3n4/8/R3K3 w - - 0 1"),  # a knight's check: the king stays
    ("makpong", "4k3/8/8/8/8/3n4/4r3/4K3 w - - 0 1"),  # double check: the king may not move
    ("losers", "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1"),  # the king must take its checker
    ("losers", "4k3/8/8/8/8/2b5/8/R3K2R w KQ - 0 1"),  # the only capture would be illegal
    ("giveaway", "r3k2r/p6p/8/8/8/7b/P6P/R3K2R w KQkq - 0 1"),  # castles through an attack
    ("codrus", "r3k2r/p6p/8/8/8/7b/P6P/R3K2R w KQkq - 0 1"),
    ("extinction", "r3k2r/p6p/8/8/8/7b/P6P/R3K2R w KQkq - 0 1"),
    ("placement", "8/pppppppp/8/8/8/8/PPPPPPPP/B7[KQRRBNNkqrrbbnn] w - - 0 1"),  # bishops
    ("placement", "8/pppppppp/8/8/8/8/PPPPPPPP/1B6[KQRRBNNkqrrbbnn] w - - 0 1"),
    ("placement", "r3k3/pppppppp/8/8/8/8/PPPPPPPP/R3K3[RBBNNQrbbnnq] w Qq - 0 1"),
    ("placement", "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3[RRBBNNQrrbbnnq] w - - 0 1"),  # rooks
    ("jesonmor", "4n4/9/9/9/4N4/9/9/9/9 b - - 0 1"),  # White's knight on the centre
    ("jesonmor", "9/9/9/9/9/5n3/9/9/4N4 w - - 0 1"),
    ("dobutsu", "2l/C2/3/EL1[Gge] w - - 0 1"),  # a chick to promote, a lion to reach
]


@pytest.fixture(scope="module")
def fsf():
    """One fairy-stockfish process for the module."""
    engine = fairy_stockfish()
    yield engine
    engine.close()


@pytest.mark.parametrize(("name", "fen"), POSITIONS)
def test_rule_positions_match_fsf(fsf, name: str, fen: str) -> None:
    board = Board(fen, variant=name)
    for depth in (1, 2, 3):
        assert perft(board.position, depth) == fsf.perft(name, fen, [], depth), (name, fen, depth)


# (variant, FEN, value for the side to move when the game is over)
ENDINGS = [
    ("suicide", "8/7p/8/p7/P7/8/8/8 w - - 0 1", 1),  # stalemated with fewer pieces: a win
    ("suicide", "8/8/8/p7/P7/8/8/8 w - - 0 1", 0),  # with as many: a draw
    ("suicide", "8/8/8/p7/P7/P7/8/8 w - - 0 1", -1),  # with more: a loss
    ("antichess", "8/8/8/p7/P7/P7/8/8 w - - 0 1", 1),  # antichess: every stalemate wins
    ("losers", "4k3/8/8/8/8/8/8/R3K3 b - - 0 1", 1),  # a bare king wins
    ("losers", "3k4/3Q4/3K4/8/8/8/8/8 b - - 0 1", 1),  # being mated wins
    ("codrus", "4k3/8/8/8/8/8/8/R7 b - - 0 1", -1),  # White has lost its king: White wins
    ("codrus", "8/8/8/8/8/8/8/R3K2r w - - 0 1", -1),  # Black has lost its king: Black wins
    ("extinction", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1", -1),  # no queen
    ("kinglet", "4k3/p7/8/8/8/8/8/4K3 w - - 0 1", -1),  # White has no pawn left
    ("jesonmor", "4n4/9/9/9/4N4/9/9/9/9 b - - 0 1", None),  # Black answers first
    ("jesonmor", "9/4n4/9/9/4N4/9/9/9/9 w - - 0 1", 1),  # still there after the answer
    ("dobutsu", "3/1l1/3/EL1[] b - - 0 1", None),
    ("dobutsu", "1L1/3/1l1/3[] b - - 0 1", -1),  # White's lion reached the last rank
    ("5check", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 5+0 0 1", -1),
]


@pytest.mark.parametrize(("name", "fen", "value"), ENDINGS)
def test_game_ends(name: str, fen: str, value: int | None) -> None:
    board = Board(fen, variant=name)
    outcome = board.outcome()
    if value is None:
        assert outcome is None
        return
    assert outcome is not None
    mine = 0 if outcome.winner is None else (1 if outcome.winner == board.turn else -1)
    assert mine == value, outcome


def test_aliases_name_the_variants_fsf_names() -> None:
    assert variants.get("normal").name == "chess"
    assert variants.get("fischerandom").name == "chess960"
    assert variants.get("mini").name == "minishogi"
    assert Board(variant="mini").fen() == Board(variant="minishogi").fen()
    assert boards.known_variant("normal") == "chess"
    assert boards.known_variant("nonsense") is None
    for alias in variants.ALIASES:
        assert alias in Engine().options["UCI_Variant"].choices
    with pytest.raises(ValueError, match="unknown variant"):
        variants.get("fourboardchess")


def test_uci_variant_accepts_an_alias() -> None:
    engine = Engine()
    engine.set_option("UCI_Variant", "mini")
    assert engine.board.rules.name == "minishogi"
    engine.set_option("UCI_Variant", "fischerandom")
    assert engine.board.rules.name == "chess960"


@pytest.mark.parametrize("name", NEW)
def test_smoke_game(name: str) -> None:
    """ferz plays itself a few moves of each new variant: legal moves, no crash."""
    engine = Engine(variant=name)
    board = Board(variant=name)
    for _ in range(12):
        if board.outcome() is not None:
            break
        move = engine.play(board, Limits(nodes=1500)).move
        assert move in {board.uci(m) for m in board.legal_moves}, (name, board.fen(), move)
        board.push(board.parse_uci(move))
    assert len(board.move_stack) >= 4
