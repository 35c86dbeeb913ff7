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
