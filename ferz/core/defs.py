"""Constants and move-encoding helpers of the core (the compiled build reads defs.pxd instead).

A move is an int: from | to << 9 | promo << 18 | kind << 24. A piece is 2 * type + colour.
"""

EMPTY = 0
WALL = 1
WHITE = 0
BLACK = 1
MAXP = 64  # pieces per colour on the board
MAXPLY = 4096  # undo stack: moves of the game plus the search
NN_RING = 256  # network accumulators kept for unmake (a power of two; more than a search's plies)
MAX_GAME_PLY = 3800  # moves of a game (Board): leaves MAXPLY room for a search's plies
LINE_REACH = 15  # file/rank offsets -15..15 index the legality line table
LINE_SPAN = 31
MAXHAND = 64  # Zobrist keys per piece in hand (counts 0..63)
MAXMOVES = 1024  # pseudo-legal moves of one position (shogi drops need a few hundred)
UNLIMITED = 64  # range of an unlimited rider (longer than any line on a 16x16 board)
NORMAL = 0
DOUBLE = 1
CASTLE = 2
EP = 3
PROMO = 4
DROP = 5
F_MOVE = 1  # atom may move to an empty square
F_CAPT = 2  # atom may capture
F_HOP = 4  # atom needs one screen before its target (cannon)
F_LEG = 8  # lame leaper: a square on the way must be empty
F_INITIAL = 16  # only from the double-step region
F_RANK = 32  # only from Atom.min_rank on
F_DIAG = 64  # along the palace diagonals only (Atom.diagonal)
PROBE_RAY = 0  # attack probe kinds: a ray (leaper or rider)
PROBE_HOP = 1  # a hopper (cannon)
PROBE_LEG = 2  # a lame leaper
PROBE_DIAG = 3  # a palace-diagonal atom (a step, ride or hop along Rules.diagonal_lines)
GEN_ALL = 0  # move generation modes: every move,
GEN_CAPTURES = 1  # captures, e.p. and promotions,
GEN_QUIETS = 2  # the others (quiet moves, castling, drops)
MAX_CHECKS = 10  # check counters run 0..9 (one FEN digit, as FSF)
NO_END = 2  # endrules.end_value when no variant rule has ended the game


def move_from(m: int) -> int:
    """Origin square of a move (the piece type for a drop)."""
    return m & 511


def move_to(m: int) -> int:
    """Destination square of a move (the rook's square for castling)."""
    return (m >> 9) & 511


def move_promo(m: int) -> int:
    """Piece type a move promotes to, or 0."""
    return (m >> 18) & 63


def move_kind(m: int) -> int:
    """NORMAL, DOUBLE, CASTLE, EP, PROMO or DROP."""
    return (m >> 24) & 7


def encode(fr: int, to: int, promo: int, kind: int) -> int:
    """Pack a move into an int."""
    return fr | (to << 9) | (promo << 18) | (kind << 24)
