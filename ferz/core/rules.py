"""The rules of one variant as plain data: geometry, piece movement atoms, castling, promotion.

`ferz.variants` builds these from definitions; `core.position.Position` compiles them into its
arrays once. Nothing here is hot, so this module stays plain Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Wall rows above and below the board, wall columns between ranks, and wall cells before the
# first row and after the last: a leap of up to 3 files and 3 ranks (a camel, a (3,3)-leaper)
# from any square lands inside the array, on a wall if off the board.
PAD = 3
MAX_FILES = 16
MAX_RANKS = 16
MAX_TYPES = 62  # piece types of a variant (a move carries the type in 6 bits, 0 = none)


@dataclass(frozen=True)
class Atom:
    """One way a piece moves, seen from White (Black's moves are mirrored vertically).

    A rider repeats the step (dx, dy) up to `range` times (0 = unlimited) while squares are
    empty. `leg` is a square (relative to the origin) that must be empty for a lame leaper
    (xiangqi horse and elephant, a pawn's double step). `hop` means the move needs exactly one
    piece (a screen) on the line before the target (xiangqi cannon). `initial` moves exist only
    for a piece standing on its double-step region.
    """

    dx: int
    dy: int
    range: int = 1
    move: bool = True
    capture: bool = True
    hop: bool = False
    leg: tuple[int, int] | None = None
    initial: bool = False
    min_rank: int = 0  # only from this relative rank on (xiangqi soldier's sideways steps)
    # a second square that must be empty for a lame leaper (janggi elephant: both squares of
    # its path), None = only `leg`
    leg2: tuple[int, int] | None = None
    # palace diagonals (diagonalLines): the move exists only from a square of
    # `Rules.diagonal_lines`, and every square it passes or lands on must be one
    diagonal: bool = False


@dataclass
class PieceType:
    """A kind of piece: its letter in FEN, how it moves, and its role in the rules."""

    letter: str  # upper case; White's pieces use it, Black's the lower case
    name: str
    atoms: tuple[Atom, ...]
    royal: bool = False  # checkmate ends the game when this piece cannot escape attack
    pawn: bool = False  # double steps, en passant, promotion into `Rules.promotion_letters`
    promoted: str | None = None  # shogi-style optional promotion into this letter
    demoted: str | None = None  # the piece this promoted piece came from (for captures to hand)
    value_mg: int | None = None  # evaluation overrides (centipawns), else derived from mobility
    value_eg: int | None = None
    region: tuple[frozenset[tuple[int, int]], frozenset[tuple[int, int]]] | None = None
    # squares (file, rank) each colour's piece may stand on (xiangqi palace, river), or None
    # janggi cannon: its hops may neither jump over nor capture a piece of its own type
    janggi_cannon: bool = False


@dataclass
class Rules:
    """Everything the core needs to know about a variant."""

    name: str
    files: int
    ranks: int
    pieces: list[PieceType]
    start_fen: str
    castling: bool = True
    castling_rank: int = 0  # White's rank; Black's is mirrored
    castling_king_file: int = 4
    castling_kingside_file: int = 6  # where the king lands
    castling_queenside_file: int = 2
    castling_rook: str = "R"
    chess960: bool = False
    double_step_ranks: frozenset[int] = frozenset({1})  # White's ranks; Black's mirrored
    en_passant: bool = True
    promotion_ranks: frozenset[int] = frozenset({7})  # White's promotion zone (ranks)
    promotion_letters: str = "QRBN"
    promotion_letters_black: str | None = None  # Black's choices when they differ (chigorin)
    drops: bool = False
    captures_to_hand: bool = False
    stalemate_value: str = "draw"  # result for the side to move: "draw", "loss" or "win"
    n_move_rule: int = 50
    n_fold_rule: int = 3
    flying_general: bool = False
    # Fields below are set by ferz.variants from variants.ini keys (FSF names in comments).
    castling_king: str = "K"  # castlingKingPiece
    mandatory_promotion: bool = True  # mandatoryPawnPromotion (grand: optional before last rank)
    promotion_limit: dict[str, int] = field(default_factory=dict)  # promotionLimit, letter -> max
    mandatory_piece_promotion: bool = False  # mandatoryPiecePromotion (shogi-style pieces)
    immobility_illegal: bool = False  # immobilityIllegal: no move/drop to a square without moves
    drop_no_doubled: str = ""  # dropNoDoubled: letter that may not be dropped on a file with one
    drop_no_doubled_count: int = 1  # dropNoDoubledCount
    first_rank_pawn_drops: bool = False  # firstRankPawnDrops
    promotion_zone_pawn_drops: bool = False  # promotionZonePawnDrops
    drop_regions: tuple[frozenset[tuple[int, int]], frozenset[tuple[int, int]]] | None = None
    drop_checks: bool = True  # dropChecks
    pawn_drop_mate_illegal: bool = False  # shogiPawnDropMateIllegal
    checkmate_value: str = "loss"  # checkmateValue, for the side to move
    extinction_value: str = ""  # extinctionValue ("" = no extinction rule)
    extinction_letters: str = ""  # extinctionPieceTypes: letters each counted, or "*" all together
    extinction_count: int = 0  # extinctionPieceCount
    extinction_opponent_count: int = 0  # extinctionOpponentPieceCount
    extinction_claim: bool = False  # extinctionClaim
    flag_letters: tuple[str, str] = ("", "")  # flagPieceWhite/Black ("*" = any piece)
    flag_regions: tuple[frozenset[tuple[int, int]], frozenset[tuple[int, int]]] = (
        frozenset(),
        frozenset(),
    )  # flagRegionWhite/Black, (file, rank) from 0
    n_fold_value: str = "draw"  # nFoldValue
    n_fold_value_absolute: bool = False  # nFoldValueAbsolute
    perpetual_check_illegal: bool = False  # perpetualCheckIllegal
    chasing_rule: bool = False  # chasingRule = axf: a perpetual chase loses (xiangqi)
    must_capture: bool = False  # mustCapture: a capture must be made if one is possible
    # stalematePieceCount: a stalemated side with fewer pieces than the opponent gets
    # stalemate_value, with more its opposite, with as many a draw (suicide)
    stalemate_piece_count: bool = False
    makpong: bool = False  # makpongRule: a royal in check may only move to take its one checker
    check_counting: bool = False  # checkCounting: giving the n-th check wins (3check; FEN `3+3`)
    # countingRule: "makruk" = Thai counting (board's and pieces' honour), "asean" = pieces'
    # honour only, "cambodian" = Ouk Khmer's (board's honour from three men down, pieces'
    # honour one move shorter than makruk's); limits by the rook, khon (silver) and knight
    # counts; "none" = no counting
    counting_rule: str = "none"
    # cambodianMoves (with gating): while on its gate square (the castling field's file
    # letters, `DEde`) the king may leap like a knight to the next rank unless in check, and a
    # `fers` (the met) may jump two squares straight ahead; a rook move onto the enemy king's
    # file or rank takes its leap away
    cambodian_moves: bool = False
    checking: bool = True  # checking: false = no move may give check (racing kings)
    flag_move: bool = False  # flagMove: the other side gets one more move to reach its flag
    # doubleStepRegionBlack when it does not mirror White's (horde): Black's ranks seen from
    # Black (0 = Black's first rank); None = the same as double_step_ranks
    double_step_ranks_black: frozenset[int] | None = None
    # enPassantRegion: squares (file, rank) where an e.p. square may arise, None = everywhere
    en_passant_region: frozenset[tuple[int, int]] | None = None
    # blastOnCapture with extinctionPseudoRoyal (atomic): a capture explodes the capturer and
    # the pieces but pawns around it; the royal piece is the pseudo-royal extinction piece
    blast_on_capture: bool = False
    must_drop: bool = False  # mustDrop: while a piece in hand can be dropped, only drops
    sittuyin_rook_drop: bool = False  # sittuyinRookDrop: rooks are dropped on the first rank
    # sittuyinPromotion: no promotion by moving; a pawn standing in `promotion_region` (any pawn,
    # if it is the side's last) may instead turn into a promotion piece where it stands or on
    # an empty square that piece attacks, if it then attacks no enemy piece and gives no check
    sittuyin_promotion: bool = False
    promotion_region: frozenset[tuple[int, int]] | None = None  # White's squares, Black mirrored
    # The pieces the rules above give a part, as letters ("" = none), chosen by
    # ferz.variants.build from the variants.ini piece names: the core knows no piece by name.
    rook_drop_letter: str = ""  # sittuyinRookDrop: dropped on the first rank only (rook)
    # dropOppositeColoredBishop: a side's bishops (this letter) must be dropped on squares of
    # both colours, and no drop may leave too few free squares of a colour for them (placement)
    opposite_bishop_letter: str = ""
    # castlingDroppedPiece: a king dropped on its castling square gains the castling rights of
    # the rooks on the corner files of its castling rank, a rook dropped there with the king
    # on its square gains its own (placement)
    castling_dropped: bool = False
    drop_mate_letter: str = ""  # shogiPawnDropMateIllegal: may not mate by a drop (shogiPawn)
    counting_letters: tuple[str, str, str] = ("", "", "")  # countingRule: rook, khon, knight
    cambodian_letters: tuple[str, str] = ("", "")  # cambodianMoves: the leaping met, the rook
    # chasingRule: the letters of the pieces of the kinds the rule names (core.chase.ROLES: rook,
    # horse, cannon, elephant, fers, king, soldier), "" for a kind the variant lacks
    chase_letters: tuple[str, ...] = ("",) * 7
    # --- gating and two-board games (vargate)
    # seirawanGating (with gating): a piece in hand may enter on the square a piece leaves on
    # its first move from a gate (the castling rank's files in the castling field, `KQBCDFG`;
    # castling gates on the king's or the rook's square); gates are part of the hash. The
    # gated piece's types: any type in hand that may be dropped there.
    seirawan_gating: bool = False
    # twoBoards: a game of two boards (bughouse); on one board its hands change only through
    # the FEN (a GUI sets a new position when the partner's board sends a piece)
    two_boards: bool = False
    must_drop_letter: str = ""  # mustDropType: mustDrop only while this piece is in hand
    # janggi (varmore): diagonalLines, squares (file, rank) whose diagonals the palace pieces
    # may follow (Atom.diagonal); kingPass: the king may pass (UCI `e2e2`), not in check;
    # bikjangRule: kings facing each other on an open line must be parted (or the side passes)
    # and a second facing position in a row ends the game; materialCounting ("none",
    # "janggi", "unweighted") decides the game ends that would be draws (bikjang, two passes,
    # the n-move rule, repetition) by material, `material_letters` weighing each letter
    diagonal_lines: frozenset[tuple[int, int]] = frozenset()
    king_pass: bool = False
    bikjang: bool = False
    material_counting: str = "none"
    material_letters: tuple[tuple[str, int], ...] = ()
    # kyoto and micro shogi (varmore): pieceDemotion, a promoted piece moving in the zone
    # turns back into its base piece (shogi-style, like a promotion: optional or, with
    # mandatoryPiecePromotion, compulsory); piecePromotionOnCapture, promotions and
    # demotions only by capturing; dropPromoted, a piece in hand may also be dropped as its
    # promoted form (UCI `+L@b1`)
    piece_demotion: bool = False
    promotion_on_capture: bool = False
    drop_promoted: bool = False
    # shatar (varmore): shatarMateRule, a mate given by knights alone loses for the mating
    # side, and a mate ends as a draw unless a check of the unbroken series of checks that
    # led to it was a shak (a check by a piece of `shak_letters`: knight, rook, bers);
    # `mate_knight_letter` is the knight
    shatar_mate: bool = False
    shak_letters: str = ""
    mate_knight_letter: str = ""
    description: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 1 <= self.files <= MAX_FILES or not 1 <= self.ranks <= MAX_RANKS:
            raise ValueError(
                f"board {self.files}x{self.ranks} is outside 1x1..{MAX_FILES}x{MAX_RANKS}"
            )
        letters = [p.letter for p in self.pieces]
        if len(set(letters)) != len(letters):
            raise ValueError(f"duplicate piece letters in {''.join(letters)}")

    @property
    def stride(self) -> int:
        """Distance between vertically adjacent squares in the padded mailbox."""
        return self.files + PAD

    @property
    def nsq(self) -> int:
        """Size of the padded mailbox array."""
        return self.stride * (self.ranks + 2 * PAD) + 2 * PAD

    def square(self, file: int, rank: int) -> int:
        """Mailbox index of (file, rank), both from 0."""
        return (rank + PAD) * self.stride + file + PAD

    def file_of(self, sq: int) -> int:
        """File (from 0) of a mailbox index."""
        return (sq - PAD) % self.stride

    def rank_of(self, sq: int) -> int:
        """Rank (from 0) of a mailbox index."""
        return (sq - PAD) // self.stride - PAD

    def castling_rank_of(self, color: int) -> int:
        """The rank on which `color` castles (Black's mirrors White's `castling_rank`)."""
        return self.castling_rank if color == 0 else self.ranks - 1 - self.castling_rank

    def on_board(self, sq: int) -> bool:
        """Whether a mailbox index is a playing square."""
        return 0 <= self.file_of(sq) < self.files and 0 <= self.rank_of(sq) < self.ranks

    def squares(self) -> list[int]:
        """All playing squares, a1 first, rank by rank."""
        return [self.square(f, r) for r in range(self.ranks) for f in range(self.files)]

    def square_name(self, sq: int) -> str:
        """Name of a square: file letter and rank number ('a1', 'j10')."""
        return "abcdefghijklmnop"[self.file_of(sq)] + str(self.rank_of(sq) + 1)

    def parse_square(self, name: str) -> int:
        """Mailbox index of a square name; ValueError if it is not on this board."""
        if len(name) < 2 or not name[0].isalpha() or not name[1:].isdigit():
            raise ValueError(f"bad square {name!r}")
        file = ord(name[0].lower()) - ord("a")
        rank = int(name[1:]) - 1
        if not (0 <= file < self.files and 0 <= rank < self.ranks):
            raise ValueError(f"square {name!r} is not on a {self.files}x{self.ranks} board")
        return self.square(file, rank)

    def promotion_type(self, letter: str) -> int:
        """Type a pawn promoting to `letter` becomes: the crazyhouse-style promoted twin `X~`
        (which goes back to hand as a pawn when captured) if the variant has one, else X."""
        for index, piece in enumerate(self.pieces, start=1):
            if piece.letter == letter.upper() + "~":
                return index
        return self.piece_index(letter)

    def piece_index(self, letter: str) -> int:
        """Piece type number (from 1) of a letter, either case; ValueError if unknown."""
        upper = letter.upper()
        for index, piece in enumerate(self.pieces, start=1):
            if piece.letter == upper:
                return index
        raise ValueError(f"unknown piece letter {letter!r} in {self.name}")


def _slider(steps: list[tuple[int, int]]) -> tuple[Atom, ...]:
    """Unlimited riders along the given steps."""
    return tuple(Atom(dx, dy, 0) for dx, dy in steps)


def _leaper(steps: list[tuple[int, int]]) -> tuple[Atom, ...]:
    """Single leaps along the given steps."""
    return tuple(Atom(dx, dy) for dx, dy in steps)


ORTHOGONAL = [(1, 0), (-1, 0), (0, 1), (0, -1)]
DIAGONAL = [(1, 1), (-1, 1), (1, -1), (-1, -1)]
KNIGHT = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
PAWN_ATOMS = (
    Atom(0, 1, 1, move=True, capture=False),
    Atom(0, 2, 1, move=True, capture=False, leg=(0, 1), initial=True),
    Atom(1, 1, 1, move=False, capture=True),
    Atom(-1, 1, 1, move=False, capture=True),
)


def chess() -> Rules:
    """Standard chess (FIDE rules), the first variant definition."""
    pieces = [
        PieceType("P", "pawn", PAWN_ATOMS, pawn=True),
        PieceType("N", "knight", _leaper(KNIGHT)),
        PieceType("B", "bishop", _slider(DIAGONAL)),
        PieceType("R", "rook", _slider(ORTHOGONAL)),
        PieceType("Q", "queen", _slider(ORTHOGONAL + DIAGONAL)),
        PieceType("K", "king", _leaper(ORTHOGONAL + DIAGONAL), royal=True),
    ]
    return Rules("chess", 8, 8, pieces, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
