"""A user-defined variant with custom pieces, loaded by ferz and by pyffish, must play alike."""

from __future__ import annotations

import pytest

from ferz import variants
from ferz.board import Board
from ferz.core.perft import perft
from tests.variants.oracle import pyffish
from tests.variants.test_pyffish import play

pytestmark = pytest.mark.variant

# Custom pieces covering the Betza features: divergent move/capture, a hopper that moves by
# hopping, a lame leaper with a limited directional rider, and initial-only moves.
CUSTOM = """
[ferzcustom:chess]
maxFile = 9
maxRank = 8
customPiece1 = a:mNcK
customPiece2 = c:pB
customPiece3 = h:nNfR2
customPiece4 = e:FimW2
startFen = rnbhkqcae/ppppppppp/9/9/9/9/PPPPPPPPP/RNBHKQCAE w Qq - 0 1
promotionPieceTypes = qache
"""

# More user variants: shogi-style drops and promotions with custom pieces (a hopping bishop,
# a lame dabbaba), palaces with lame leapers and a flying general, and a board so short that a
# pawn's double step reaches the promotion rank.
MORE = """
[ferzshogi]
maxFile = 6
maxRank = 6
shogiPawn = p
king = k
gold = g
customPiece1 = c:pB
customPiece2 = d:nDfW
customPiece3 = e:WfF
customPiece4 = h:BW
customPiece5 = r:R2F
startFen = rcdgdk/2p1pp/6/6/PP1P2/KDGDCR[] w - - 0 1
pieceDrops = true
capturesToHand = true
promotionRegionWhite = *5 *6
promotionRegionBlack = *2 *1
promotionPieceTypes = -
promotedPieceType = p:g c:h d:e
dropNoDoubled = p
immobilityIllegal = true
doubleStep = false
castling = false
stalemateValue = loss

[ferzpalace:chess]
knight = -
bishop = -
queen = -
customPiece1 = n:nN
customPiece2 = e:nA
customPiece3 = a:F
startFen = rneakenr/pppppppp/8/8/8/8/PPPPPPPP/RNEAKENR w - - 0 1
mobilityRegionWhiteKing = c1 d1 e1 c2 d2 e2
mobilityRegionBlackKing = c8 d8 e8 c7 d7 e7
mobilityRegionWhiteCustomPiece3 = c1 d1 e1 c2 d2 e2
mobilityRegionBlackCustomPiece3 = c8 d8 e8 c7 d7 e7
promotionPieceTypes = rne
castling = false
flyingGeneral = true

[tinypromo:chess]
maxFile = 3
maxRank = 4
knight = -
bishop = -
rook = -
queen = -
customPiece1 = a:K
promotionPieceTypes = a
promotionRegionWhite = *4
promotionRegionBlack = *1
castling = false
startFen = 2k/3/PPP/K2 w - - 0 1
"""


@pytest.fixture(scope="module")
def custom():
    """The custom variant compiled by ferz, and registered in pyffish under the same name."""
    sf = pyffish()
    sf.load_variant_config(CUSTOM)
    assert "ferzcustom" in sf.variants()
    return variants.parse_text(CUSTOM)["ferzcustom"]


def test_custom_start_position_agrees(custom) -> None:
    sf = pyffish()
    board = Board(rules=custom)
    start = sf.start_fen("ferzcustom")
    assert sorted(m.text for m in board.legal_moves) == sorted(
        sf.legal_moves("ferzcustom", start, [])
    )
    # perft 2 by pyffish's legal_moves, against the compiled core
    count = sum(
        len(sf.legal_moves("ferzcustom", start, [m]))
        for m in sf.legal_moves("ferzcustom", start, [])
    )
    assert perft(board.position, 2) == count


@pytest.mark.parametrize("seed", range(6))
def test_custom_random_games_agree(custom, seed: int) -> None:
    assert play("ferzcustom", seed, rules=custom, plies=150) > 4


@pytest.fixture(scope="module")
def more():
    """The further user variants, compiled by ferz and registered in pyffish."""
    sf = pyffish()
    sf.load_variant_config(MORE)
    return variants.parse_text(MORE)


@pytest.mark.parametrize("name", ["ferzshogi", "ferzpalace", "tinypromo"])
@pytest.mark.parametrize("seed", range(4))
def test_more_user_variants_agree(more, name: str, seed: int) -> None:
    assert play(name, seed, rules=more[name], plies=100) >= 1
