"""What the keys of a variant definition mean: merged `key = value` entries -> `core.rules.Rules`.

The accepted keys are a strict subset of Fairy-Stockfish's variants.ini. Keys that FSF knows but
ferz does not implement are accepted only with their default value, so that a file never loads
with a rule silently missing; anything else is refused with the line that caused it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ferz.core import fen as fenmod
from ferz.core.chase import ROLES as CHASE_ROLES
from ferz.core.defs import MAXMOVES, MAXP
from ferz.core.position import Position
from ferz.core.rules import MAX_FILES, MAX_RANKS, MAX_TYPES, Atom, PieceType, Rules

from . import betza
from .ini import DefinitionError, IniEntry

# Fairy-Stockfish's predefined piece types and their moves (its own Betza for each).
PREDEFINED: dict[str, str] = {
    "pawn": "fmWfceFifmnD",
    "knight": "N",
    "bishop": "B",
    "rook": "R",
    "queen": "Q",
    "fers": "F",
    "alfil": "A",
    "fersAlfil": "FA",
    "silver": "FfW",
    "aiwok": "RNF",
    "bers": "RF",
    "archbishop": "BN",
    "chancellor": "RN",
    "amazon": "QN",
    "knibis": "mNcB",
    "biskni": "mBcN",
    "kniroo": "mNcR",
    "rookni": "mRcN",
    "shogiPawn": "fW",
    "lance": "fR",
    "shogiKnight": "fN",
    "gold": "WfF",
    "dragonHorse": "BW",
    "clobber": "cW",
    "breakthrough": "fmWfF",
    "immobile": "",
    "cannon": "mRcpR",
    "soldier": "fsW",
    "horse": "nN",
    "elephant": "nA",
    "banner": "RcpRnN",
    "wazir": "W",
    "commoner": "K",
    "centaur": "KN",
    "king": "K",
    "janggiCannon": "pR",
    "janggiElephant": "mafsmafW",  # FSF's notation; the atoms come from janggi_elephant()
}
CUSTOM = re.compile(r"customPiece([1-9]|1[0-9]|2[0-5])\Z")
MOBILITY = re.compile(r"mobilityRegion(White|Black)([A-Z][A-Za-z0-9]*)\Z")
VALUES = ("win", "loss", "draw")
CHESS_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
FILES = "abcdefghijklmnop"

# Keys that only help XBoard draw the board: kept in Rules.extra, no effect on play.
COSMETIC = {"variantTemplate", "pieceToCharTable", "pocketSize"}

# FSF keys ferz does not implement: accepted only when set to the value that means "off".
UNSUPPORTED_DEFAULTS: dict[str, tuple[str, ...]] = {
    "blastImmuneTypes": ("-",),
    "mutuallyImmuneTypes": ("-",),
    "petrifyOnCapture": ("false",),
    "tripleStepRegionWhite": ("-",),
    "tripleStepRegionBlack": ("-",),
    "dropOnTop": ("false",),
    "enclosingDrop": ("none",),
    "arrowGating": ("false",),
    "duckGating": ("false",),
    "staticGating": ("false",),
    "pastGating": ("false",),
    "passOnStalemate": ("false",),
    "kingPassOnStalemate": ("false",),
    "flipEnclosedPieces": ("none",),
    "moveRepetitionIllegal": ("false",),
    "chasingRule": ("none", "axf"),
    "dupleCheck": ("false",),
    "flagPieceCount": ("1",),
    "flagPieceBlockedWin": ("false",),
    "connectN": ("0",),
    "connectVertical": ("true",),
    "connectHorizontal": ("true",),
    "connectDiagonal": ("true",),
    "countingRule": ("none", "makruk", "asean", "cambodian"),
}

# Keys this module reads (the rule keys); pieces and mobility regions are matched separately.
RULE_KEYS = {
    "castlingDroppedPiece",
    "dropOppositeColoredBishop",
    "makpongRule",
    "stalematePieceCount",
    "maxRank",
    "maxFile",
    "startFen",
    "chess960",
    "pawnTypes",
    "promotionPawnTypes",
    "promotionPawnTypesWhite",
    "promotionPawnTypesBlack",
    "promotionRegionWhite",
    "promotionRegionBlack",
    "promotionPieceTypes",
    "promotionPieceTypesWhite",
    "promotionPieceTypesBlack",
    "promotionLimit",
    "promotedPieceType",
    "mandatoryPawnPromotion",
    "mandatoryPiecePromotion",
    "doubleStep",
    "doubleStepRegionWhite",
    "doubleStepRegionBlack",
    "enPassantRegion",
    "enPassantTypes",
    "enPassantTypesWhite",
    "enPassantTypesBlack",
    "castling",
    "castlingKingsideFile",
    "castlingQueensideFile",
    "castlingRank",
    "castlingKingFile",
    "castlingKingPiece",
    "castlingRookPieces",
    "castlingRookKingsideFile",
    "castlingRookQueensideFile",
    "pieceDrops",
    "capturesToHand",
    "dropLoop",
    "firstRankPawnDrops",
    "promotionZonePawnDrops",
    "whiteDropRegion",
    "blackDropRegion",
    "dropNoDoubled",
    "dropNoDoubledCount",
    "dropChecks",
    "immobilityIllegal",
    "shogiPawnDropMateIllegal",
    "flyingGeneral",
    "soldierPromotionRank",
    "stalemateValue",
    "checkmateValue",
    "nMoveRule",
    "nMoveRuleTypes",
    "nMoveRuleTypesWhite",
    "nMoveRuleTypesBlack",
    "nFoldRule",
    "nFoldValue",
    "nFoldValueAbsolute",
    "perpetualCheckIllegal",
    "extinctionValue",
    "extinctionPieceTypes",
    "extinctionPieceCount",
    "extinctionOpponentPieceCount",
    "extinctionClaim",
    "flagPiece",
    "flagPieceWhite",
    "flagPieceBlack",
    "flagRegion",
    "flagRegionWhite",
    "flagRegionBlack",
    "mustCapture",
    "checkCounting",
    "checking",
    "flagMove",
    "blastOnCapture",
    "extinctionPseudoRoyal",
    "mustDrop",
    "sittuyinRookDrop",
    "sittuyinPromotion",
    "gating",
    "cambodianMoves",
    "pieceValueMg",
    "pieceValueEg",
    "description",
    # gating and two-board games (vargate)
    "seirawanGating",
    "twoBoards",
    "mustDropType",
    "diagonalLines",
    "kingPass",
    "pass",
    "bikjangRule",
    "materialCounting",
    "pieceDemotion",
    "piecePromotionOnCapture",
    "dropPromoted",
    "shatarMateRule",
}


def known_key(key: str) -> bool:
    """Whether a key is one ferz reads (possibly only at its default value)."""
    return (
        key in RULE_KEYS
        or key in PREDEFINED
        or key in COSMETIC
        or key in UNSUPPORTED_DEFAULTS
        or bool(CUSTOM.match(key))
        or bool(MOBILITY.match(key))
    )


class _Reader:
    """Typed access to the merged entries of one variant, with errors naming the line."""

    def __init__(
        self, name: str, entries: dict[str, IniEntry], source: str, line: int, own: set[str]
    ) -> None:
        self.name = name
        self.entries = entries
        self.source = source
        self.line = line
        self.own = own

    def error(self, key: str | None, message: str) -> DefinitionError:
        """An error at the key's line; at the section header when the key is absent or inherited."""
        entry = self.entries.get(key) if key else None
        if entry is not None and key in self.own:
            return entry.error(message)
        if entry is not None:
            message = f"{key} (inherited from {entry.source}:{entry.line}): {message}"
        return DefinitionError(self.source, self.line, f"[{self.name}]: {message}")

    def raw(self, key: str) -> str | None:
        """The text of a key, or None."""
        entry = self.entries.get(key)
        return entry.value if entry else None

    def boolean(self, key: str, default: bool) -> bool:
        """A [bool] key: true or false."""
        text = self.raw(key)
        if text is None:
            return default
        if text not in ("true", "false"):
            raise self.error(key, f"expected true or false, got {text!r}")
        return text == "true"

    def integer(self, key: str, default: int, low: int = 0, high: int = 10_000) -> int:
        """An [int] key within bounds."""
        text = self.raw(key)
        if text is None:
            return default
        if not text.isdigit() or not low <= int(text) <= high:
            raise self.error(key, f"expected a whole number {low}..{high}, got {text!r}")
        return int(text)

    def value(self, key: str, default: str) -> str:
        """A [Value] key: win, loss or draw."""
        text = self.raw(key)
        if text is None:
            return default
        if text not in VALUES:
            raise self.error(key, f"expected win, loss or draw, got {text!r}")
        return text


def _file_number(text: str, high: int) -> int | None:
    """A [File] value (a number from 1 or a letter from a) as a count, or None if malformed."""
    if text.isdigit():
        number = int(text)
    elif len(text) == 1 and text in FILES:
        number = FILES.index(text) + 1
    else:
        return None
    return number if 1 <= number <= high else None


def _rank_number(text: str, high: int) -> int | None:
    """A [Rank] value (a number from 1) or None if malformed."""
    return int(text) if text.isdigit() and 1 <= int(text) <= high else None


def _region(r: _Reader, key: str, files: int, ranks: int) -> frozenset[tuple[int, int]] | None:
    """A [Bitboard] key: squares like `d4` and whole ranks like `*8`; None when absent."""
    text = r.raw(key)
    if text is None:
        return None
    squares: set[tuple[int, int]] = set()
    if text == "-":
        return frozenset()
    for token in text.split():
        match = re.fullmatch(r"([a-p*])([1-9][0-9]?)", token)
        if not match:
            raise r.error(key, f"bad square {token!r} (use squares like d4 or ranks like *8)")
        rank = int(match.group(2)) - 1
        if rank >= ranks:
            raise r.error(key, f"{token!r} is off the {files}x{ranks} board")
        if match.group(1) == "*":
            squares.update((f, rank) for f in range(files))
        else:
            file = FILES.index(match.group(1))
            if file >= files:
                raise r.error(key, f"{token!r} is off the {files}x{ranks} board")
            squares.add((file, rank))
    return frozenset(squares)


def _whole_ranks(
    r: _Reader, key: str, region: frozenset[tuple[int, int]], files: int
) -> frozenset[int]:
    """The ranks of a region that must consist of whole ranks."""
    ranks = frozenset(rank for _, rank in region)
    if len(region) != files * len(ranks):
        raise r.error(key, "ferz supports only whole ranks here (like *7 *8)")
    return ranks


def _paired_ranks(
    r: _Reader, white_key: str, black_key: str, default: frozenset[int], files: int, ranks: int
) -> frozenset[int]:
    """White's ranks of a White/Black region pair; Black's must mirror White's."""
    white = _region(r, white_key, files, ranks)
    black = _region(r, black_key, files, ranks)
    w = _whole_ranks(r, white_key, white, files) if white is not None else default
    b = (
        _whole_ranks(r, black_key, black, files)
        if black is not None
        else frozenset(ranks - 1 - x for x in default)
    )
    if frozenset(ranks - 1 - x for x in b) != w:
        raise r.error(
            black_key if black is not None else white_key,
            f"{black_key} must mirror {white_key} (ferz supports symmetric regions only)",
        )
    return w


def _pieces(r: _Reader) -> tuple[dict[str, tuple[str, tuple[Atom, ...], IniEntry]], dict[str, str]]:
    """Piece definitions: letter -> (type name, atoms, entry), and type name -> letter."""
    by_letter: dict[str, tuple[str, tuple[Atom, ...], IniEntry]] = {}
    by_type: dict[str, str] = {}
    for key, entry in r.entries.items():
        custom = CUSTOM.match(key)
        if key not in PREDEFINED and not custom:
            continue
        value = entry.value
        if value == "-":
            continue
        letter, colon, text = value.partition(":")
        if len(letter) != 1 or not letter.isascii() or not letter.isalpha():
            raise entry.error(f"expected a piece letter a-z, got {letter!r}")
        if custom and not colon:
            raise entry.error("custom pieces are written letter:Betza, e.g. a:mNcB")
        if colon and not custom and key != "king":
            raise entry.error("only custom pieces and the king take a Betza move (letter:Betza)")
        source = text if colon else PREDEFINED[key]
        try:
            atoms = janggi_elephant() if key == "janggiElephant" else betza.parse(source)
        except betza.BetzaError as error:
            raise entry.error(str(error)) from None
        upper = letter.upper()
        if upper in by_letter:
            other = by_letter[upper][2]
            raise entry.error(
                f"letter {letter!r} is already used by {other.key} "
                f"({other.source}:{other.line}); remove it first with '{other.key} = -'"
            )
        by_letter[upper] = (key, atoms, entry)
        by_type[key] = upper
    return by_letter, by_type


def _letters(r: _Reader, key: str, known: dict[str, object], allow_all: bool = False) -> str | None:
    """A [PieceSet] key as upper-case letters ('-' = none, '*' = all if allowed); None if absent."""
    text = r.raw(key)
    if text is None:
        return None
    if text == "-":
        return ""
    if text == "*" and allow_all:
        return "*"
    out = ""
    for char in text:
        if char.upper() not in known or not char.isalpha():
            raise r.error(key, f"{char!r} is not a piece letter of this variant")
        if char.upper() not in out:
            out += char.upper()
    return out


def _values(r: _Reader, key: str, known: dict[str, object]) -> dict[str, int]:
    """A `p:150 n:800` list of piece values."""
    text = r.raw(key)
    out: dict[str, int] = {}
    if text is None:
        return out
    for token in text.split():
        letter, colon, number = token.partition(":")
        if not colon or letter.upper() not in known or not re.fullmatch(r"-?\d{1,6}", number):
            raise r.error(key, f"expected letter:value pairs like p:150, got {token!r}")
        out[letter.upper()] = int(number)
    return out


def _pairs(r: _Reader, key: str, known: dict[str, object]) -> dict[str, str]:
    """A `p:g s:g` mapping between piece letters."""
    text = r.raw(key)
    out: dict[str, str] = {}
    if text is None or text == "-":
        return out
    for token in text.split():
        a, colon, b = token.partition(":")
        if not colon or a.upper() not in known or b.upper() not in known or len(a) != 1:
            raise r.error(key, f"expected pairs of piece letters like p:g, got {token!r}")
        out[a.upper()] = b.upper()
    return out


class _Context:
    """What the key groups share: the reader, the board size and the piece letters."""

    def __init__(self, r: _Reader, files: int, ranks: int) -> None:
        self.r = r
        self.files = files
        self.ranks = ranks
        self.by_letter, self.by_type = _pieces(r)
        if not self.by_letter:
            raise r.error(None, "no pieces defined (e.g. 'king = k')")
        if len(self.by_letter) > 30:
            raise r.error(None, "more than 30 piece types")
        self.royal = self.by_type.get("king")
        self.everywhere = frozenset((f, x) for f in range(files) for x in range(ranks))

    def region(self, key: str) -> frozenset[tuple[int, int]] | None:
        """A [Bitboard] key on this board."""
        return _region(self.r, key, self.files, self.ranks)

    def letters(self, key: str, allow_all: bool = False) -> str | None:
        """A [PieceSet] key of this variant's letters."""
        return _letters(self.r, key, self.by_letter, allow_all)


def _board(r: _Reader) -> tuple[int, int]:
    """maxFile and maxRank, at most 16 x 16."""
    files_text = r.raw("maxFile")
    files = 8 if files_text is None else _file_number(files_text, 99)
    ranks_text = r.raw("maxRank")
    ranks = 8 if ranks_text is None else _rank_number(ranks_text, 99)
    if files is None:
        raise r.error("maxFile", f"expected a file number or letter, got {files_text!r}")
    if ranks is None:
        raise r.error("maxRank", f"expected a rank number, got {ranks_text!r}")
    if files > MAX_FILES or ranks > MAX_RANKS:
        key = "maxFile" if files > MAX_FILES else "maxRank"
        raise r.error(key, f"boards larger than {MAX_FILES}x{MAX_RANKS} are not supported")
    return files, ranks


def _pawn_types(c: _Context) -> str:
    """pawnTypes, and the keys ferz accepts only when they name the same pieces."""
    r = c.r
    pawns = c.letters("pawnTypes")
    if pawns is None:
        pawns = c.by_type.get("pawn", "")
    for group in ("promotionPawnTypes", "enPassantTypes", "nMoveRuleTypes"):
        for key in (group, group + "White", group + "Black"):
            other = c.letters(key)
            if other is not None and set(other) != set(pawns):
                raise r.error(key, f"ferz requires {group} to equal pawnTypes")
    return pawns


def _promotion(c: _Context, pawns: str) -> dict:
    """Pawn promotion (pieces, zone, limits) and double steps."""
    r = c.r
    both = c.letters("promotionPieceTypes")
    if both is None:
        kinds = ("queen", "rook", "bishop", "knight")
        both = "".join(c.by_type[t] for t in kinds if t in c.by_type)
    white = c.letters("promotionPieceTypesWhite")
    black = c.letters("promotionPieceTypesBlack")
    promo = both if white is None else white
    promo_black = None if black is None or black == promo else black
    for key, letters in (("promotionPieceTypes", promo), ("promotionPieceTypesBlack", black)):
        if c.royal and letters and c.royal in letters:
            raise r.error(key, "pawns cannot promote to the royal piece")
    sittuyin = r.boolean("sittuyinPromotion", False)
    region = _sittuyin_region(c, promo) if sittuyin else None
    zone = (
        frozenset()  # no promotion by moving
        if sittuyin
        else _paired_ranks(
            r,
            "promotionRegionWhite",
            "promotionRegionBlack",
            frozenset({c.ranks - 1}),
            c.files,
            c.ranks,
        )
    )
    double, double_black = _double_steps(c)
    ep_region = c.region("enPassantRegion")
    if ep_region == c.everywhere:
        ep_region = None
    return {
        "promotion_letters": promo,
        "promotion_letters_black": promo_black,
        "promotion_ranks": zone,
        "promotion_limit": _values(r, "promotionLimit", c.by_letter),
        "mandatory_promotion": r.boolean("mandatoryPawnPromotion", True),
        "mandatory_piece_promotion": r.boolean("mandatoryPiecePromotion", False),
        "double_step_ranks": double,
        "double_step_ranks_black": double_black,
        "sittuyin_promotion": sittuyin,
        "promotion_region": region,
        "en_passant_region": ep_region,
        "en_passant": bool(pawns) and bool(double),
    }


def _sittuyin_region(c: _Context, promo: str) -> frozenset[tuple[int, int]]:
    """sittuyinPromotion: White's promotion squares (any squares; Black's must mirror them),
    for promotion pieces with plain leaps and slides."""
    r = c.r
    white = c.region("promotionRegionWhite")
    black = c.region("promotionRegionBlack")
    if not white:
        raise r.error("promotionRegionWhite", "sittuyinPromotion needs a promotion region")
    if black is None or black != frozenset((f, c.ranks - 1 - x) for f, x in white):
        raise r.error("promotionRegionBlack", "must mirror promotionRegionWhite")
    for letter in promo:
        for atom in c.by_letter[letter][1]:
            if atom.hop or atom.leg is not None or atom.initial or atom.min_rank:
                raise r.error("promotionPieceTypes", "sittuyin promotions need plain pieces")
    return white


def _atomic(c: _Context) -> bool:
    """blastOnCapture (atomic), accepted only with extinctionPseudoRoyal as in Fairy-Stockfish's
    atomic: the single extinction piece type is then the royal piece (kings may touch, a king
    touching the enemy king is not in check), in a game without drops."""
    r = c.r
    blast = r.boolean("blastOnCapture", False)
    pseudo = r.boolean("extinctionPseudoRoyal", False)
    if blast != pseudo:
        key = "blastOnCapture" if blast else "extinctionPseudoRoyal"
        raise r.error(key, "ferz supports blastOnCapture only with extinctionPseudoRoyal (atomic)")
    if not blast:
        return False
    letters = c.letters("extinctionPieceTypes", allow_all=True) or ""
    if len(letters) != 1 or letters == "*":
        raise r.error("extinctionPieceTypes", "atomic needs exactly one extinction piece type")
    if c.royal and c.royal != letters:
        raise r.error(
            "extinctionPseudoRoyal", "remove the king ('king = -'): the extinction piece rules"
        )
    if r.raw("extinctionValue") != "loss":
        raise r.error("extinctionValue", "atomic: losing the royal piece must lose (loss)")
    for key in ("extinctionPieceCount", "extinctionOpponentPieceCount"):
        if r.integer(key, 0, 0, MAXP) != 0:
            raise r.error(key, "atomic: only 0 is supported")
    if r.boolean("pieceDrops", False) or r.boolean("extinctionClaim", False):
        raise r.error("blastOnCapture", "ferz supports explosions without drops or claims only")
    c.royal = letters
    return True


def _cambodian(c: _Context) -> dict:
    """cambodianMoves, accepted only with gating = true (the gates are the castling field's
    letters, as in Fairy-Stockfish) and without castling or drops, which would give the gates
    other meanings; the leaping pieces are the royal king and the `fers` (met)."""
    r = c.r
    moves = r.boolean("cambodianMoves", False)
    gating = r.boolean("gating", False)
    if gating and not moves and not r.boolean("seirawanGating", False):
        raise r.error("gating", "ferz supports gating only for cambodianMoves or seirawanGating")
    if not moves:
        return {"cambodian_moves": False}
    if not gating:
        raise r.error("cambodianMoves", "cambodianMoves needs gating = true (FSF's gates)")
    if r.boolean("castling", True):
        raise r.error("cambodianMoves", "ferz supports cambodianMoves only with castling = false")
    if r.boolean("pieceDrops", False):
        raise r.error("cambodianMoves", "ferz supports cambodianMoves only without drops")
    if not c.royal:
        raise r.error("cambodianMoves", "cambodianMoves needs a king (its leap)")
    letters = (c.by_type.get("fers", ""), c.by_type.get("rook", ""))
    return {"cambodian_moves": True, "cambodian_letters": letters}


def _gating(c: _Context) -> dict:
    """seirawanGating (with gating, as in Fairy-Stockfish), twoBoards and mustDropType: the
    rules of Fairy-Stockfish's gating and two-board games."""
    r = c.r
    seirawan = r.boolean("seirawanGating", False)
    if seirawan:
        if not r.boolean("gating", False):
            raise r.error("seirawanGating", "seirawanGating needs gating = true (FSF's gates)")
        if r.boolean("cambodianMoves", False):
            raise r.error("seirawanGating", "not together with cambodianMoves")
        if r.boolean("chess960", False):
            raise r.error("seirawanGating", "ferz supports seirawanGating without chess960 only")
    must_type = r.raw("mustDropType")
    letter = ""
    if must_type is not None and must_type not in ("*", "-"):
        letter = c.letters("mustDropType") or ""
        if len(letter) != 1:
            raise r.error("mustDropType", "expected one piece letter or *")
        if not r.boolean("mustDrop", False):
            raise r.error("mustDropType", "mustDropType needs mustDrop = true")
    return {
        "seirawan_gating": seirawan,
        "two_boards": r.boolean("twoBoards", False),
        "must_drop_letter": letter,
    }


def _double_steps(c: _Context) -> tuple[frozenset[int], frozenset[int] | None]:
    """Ranks of the double-step regions: White's, and Black's seen from Black when they do not
    mirror White's (horde: White's pawns double-step from the first rank too)."""
    r = c.r
    if not r.boolean("doubleStep", True):
        return frozenset(), None
    ranks = []
    for key, default in (("doubleStepRegionWhite", 1), ("doubleStepRegionBlack", c.ranks - 2)):
        region = c.region(key)
        absolute = frozenset({default}) if region is None else _whole_ranks(r, key, region, c.files)
        ranks.append(absolute)
    white = ranks[0]
    black = frozenset(c.ranks - 1 - x for x in ranks[1])
    return white, (None if black == white else black)


def _mobility_regions(c: _Context) -> dict[str, tuple]:
    """mobilityRegionWhite<Piece> / ...Black<Piece>: type name -> (White's, Black's) squares."""
    found: dict[str, dict[str, frozenset[tuple[int, int]]]] = {}
    for key in c.r.entries:
        match = MOBILITY.match(key)
        if not match:
            continue
        color, type_name = match.group(1), match.group(2)
        type_name = type_name[0].lower() + type_name[1:]
        if type_name not in c.by_type:
            raise c.r.error(key, f"{type_name!r} is not a piece of this variant")
        found.setdefault(type_name, {})[color] = c.region(key)  # type: ignore[assignment]
    return {
        name: (pair.get("White", c.everywhere), pair.get("Black", c.everywhere))
        for name, pair in found.items()
    }


def _piece_types(c: _Context, pawns: str, promo: str) -> list[PieceType]:
    """The piece types: defined ones, shogi-style promoted `+X`, crazyhouse twins `X~`."""
    r = c.r
    regions = _mobility_regions(c)
    soldier_rank = r.integer("soldierPromotionRank", 1, 1, c.ranks)
    mg = _values(r, "pieceValueMg", c.by_letter)
    eg = _values(r, "pieceValueEg", c.by_letter)
    promoted_map = _pairs(r, "promotedPieceType", c.by_letter)
    pieces: list[PieceType] = []
    for letter, (type_name, atoms, _entry) in c.by_letter.items():
        if type_name == "soldier" and soldier_rank > 1:  # sideways only across the river
            atoms = tuple(
                a
                if a.dx == 0
                else Atom(a.dx, a.dy, a.range, a.move, a.capture, min_rank=soldier_rank - 1)
                for a in atoms
            )
        pieces.append(
            PieceType(
                letter,
                type_name,
                atoms,
                royal=letter == c.royal,
                pawn=letter in pawns,
                promoted=f"+{letter}" if letter in promoted_map else None,
                value_mg=mg.get(letter),
                value_eg=eg.get(letter),
                region=regions.get(type_name),
            )
        )
    for base, target in promoted_map.items():
        target_type = next(p for p in pieces if p.letter == target)
        if c.royal in (base, target):
            raise r.error("promotedPieceType", "the royal piece cannot promote or be promoted to")
        pieces.append(
            PieceType(
                f"+{base}",
                f"promoted {c.by_letter[base][0]}",
                target_type.atoms,
                demoted=base,
                value_mg=target_type.value_mg,
                value_eg=target_type.value_eg,
                region=target_type.region,
            )
        )
    # Pieces promoted from pawns in a game where captures go to hand are twins `X~` of their
    # type: same moves, but a captured one goes to hand as a pawn (crazyhouse; with dropLoop
    # they stay what they are, as in loop and chessgi).
    drop_loop = r.boolean("dropLoop", False)
    if r.boolean("capturesToHand", False) and pawns and not drop_loop:
        for letter in promo:
            base_type = next(p for p in pieces if p.letter == letter)
            pieces.append(
                PieceType(
                    f"{letter}~",
                    f"promoted {base_type.name}",
                    base_type.atoms,
                    demoted=pawns[0],
                    value_mg=base_type.value_mg,
                    value_eg=base_type.value_eg,
                    region=base_type.region,
                )
            )
    return pieces


def janggi_elephant() -> tuple[Atom, ...]:
    """The janggi elephant: one step straight, then two diagonally outwards (a (2,3) leap),
    both squares on the way empty (Fairy-Stockfish's path: the longer axis first)."""
    atoms = []
    for dx, dy in ((2, 3), (3, 2)):
        for sx in (1, -1):
            for sy in (1, -1):
                x, y = dx * sx, dy * sy
                first = (0, sy) if dy > dx else (sx, 0)
                second = (first[0] + sx, first[1] + sy)
                atoms.append(Atom(x, y, leg=first, leg2=second))
    return tuple(atoms)


# What each piece type may do on the palace diagonals (diagonalLines), as Fairy-Stockfish:
# the wazir (and a king that steps like one) steps like a fers, the soldier steps diagonally
# forwards, the rook rides like a bishop and the janggi cannon hops like one.
_DIAGONAL_MOVES = {"wazir": "F", "king": "F", "soldier": "fF", "rook": "B", "janggiCannon": "pB"}
# materialCounting = janggi: the points of each piece type (FSF's weights)
_JANGGI_POINTS = {
    "rook": 13,
    "janggiCannon": 7,
    "horse": 5,
    "janggiElephant": 3,
    "wazir": 3,
    "soldier": 2,
}


def _janggi(c: _Context, pieces: list[PieceType]) -> dict:
    """Janggi's keys: diagonalLines (the pieces' diagonal moves are added to their atoms
    here), kingPass (FSF 11.1's key; `pass` is the later name), bikjangRule, materialCounting."""
    r = c.r
    lines = c.region("diagonalLines") or frozenset()
    for piece in pieces:
        if piece.name == "janggiCannon":
            piece.janggi_cannon = True
        moves = _DIAGONAL_MOVES.get(piece.name) if lines else None
        if piece.name == "king" and {(abs(a.dx), abs(a.dy), a.range) for a in piece.atoms} != {
            (1, 0, 1),
            (0, 1, 1),
        }:
            moves = None  # only a king that steps like a wazir (FSF's kingType)
        if moves:
            extra = tuple(
                Atom(a.dx, a.dy, a.range, a.move, a.capture, a.hop, diagonal=True)
                for a in betza.parse(moves)
            )
            piece.atoms = piece.atoms + extra
    counting = r.raw("materialCounting") or "none"
    if counting not in ("none", "janggi", "unweighted"):
        raise r.error("materialCounting", f"expected none, janggi or unweighted, got {counting!r}")
    points = tuple(
        (letter, _JANGGI_POINTS[name])
        for name, letter in c.by_type.items()
        if name in _JANGGI_POINTS and counting == "janggi"
    )
    king_pass = r.boolean("kingPass", False) or r.boolean("pass", False)
    bikjang = r.boolean("bikjangRule", False)
    if (king_pass or bikjang) and not c.royal:
        raise r.error("kingPass" if king_pass else "bikjangRule", "needs a royal king")
    return {
        "diagonal_lines": lines,
        "king_pass": king_pass,
        "bikjang": bikjang,
        "material_counting": counting,
        "material_letters": points,
    }


def _turning(c: _Context) -> dict:
    """pieceDemotion, piecePromotionOnCapture and dropPromoted (kyoto and micro shogi), which
    need shogi-style promoted pieces (promotedPieceType)."""
    r = c.r
    toggles = {
        "piece_demotion": r.boolean("pieceDemotion", False),
        "promotion_on_capture": r.boolean("piecePromotionOnCapture", False),
        "drop_promoted": r.boolean("dropPromoted", False),
    }
    if any(toggles.values()) and not r.raw("promotedPieceType"):
        key = next(
            k
            for k, on in zip(
                ("pieceDemotion", "piecePromotionOnCapture", "dropPromoted"),
                toggles.values(),
                strict=True,
            )
            if on
        )
        raise r.error(key, "needs promotedPieceType (the pieces that turn over)")
    return toggles


def _shatar(c: _Context) -> dict:
    """shatarMateRule: the shak pieces (knight, rook, bers) and the knight, by type name."""
    if not c.r.boolean("shatarMateRule", False):
        return {}
    if not c.royal:
        raise c.r.error("shatarMateRule", "needs a royal king")
    names = ("knight", "rook", "bers")
    return {
        "shatar_mate": True,
        "shak_letters": "".join(c.by_type[n] for n in names if n in c.by_type),
        "mate_knight_letter": c.by_type.get("knight", ""),
    }


def _castling(c: _Context) -> dict:
    """Castling: where the king lands, the rank, the king and rook pieces."""
    r = c.r
    castling = r.boolean("castling", True)
    files = {}
    for key, default in (
        ("castlingKingsideFile", 6),
        ("castlingQueensideFile", 2),
        ("castlingKingFile", 4),
    ):
        text = r.raw(key)
        number = default + 1 if text is None else _file_number(text, c.files)
        if number is None:
            raise r.error(key, "expected a file on the board")
        files[key] = number - 1
    for key in ("castlingRookKingsideFile", "castlingRookQueensideFile"):
        if r.raw(key) is not None:
            raise r.error(key, "ferz castles with the outermost rooks only")
    king = c.letters("castlingKingPiece")
    rook = c.letters("castlingRookPieces")
    king = (c.royal or "") if king is None else king
    rook = c.by_type.get("rook", "") if rook is None else rook
    if castling and (len(king) != 1 or len(rook) != 1):
        raise r.error(
            "castlingRookPieces" if "castlingRookPieces" in r.entries else "castling",
            "castling needs exactly one king piece and one rook piece (or castling = false)",
        )
    if castling and c.royal and king != c.royal:
        raise r.error("castlingKingPiece", "ferz castles with the royal piece only")
    return {
        "castling": castling,
        "castling_rank": r.integer("castlingRank", 1, 1, c.ranks) - 1,
        "castling_kingside_file": files["castlingKingsideFile"],
        "castling_queenside_file": files["castlingQueensideFile"],
        "castling_king_file": files["castlingKingFile"],
        "castling_king": king or "K",
        "castling_rook": rook or "R",
        "chess960": r.boolean("chess960", False),
    }


def _drops(c: _Context) -> dict:
    """Drops from the pocket and where they are allowed."""
    r = c.r
    white, black = c.region("whiteDropRegion"), c.region("blackDropRegion")
    regions = None
    if white is not None or black is not None:
        regions = (white or c.everywhere, black or c.everywhere)
    no_doubled = c.letters("dropNoDoubled") or ""
    if len(no_doubled) > 1:
        raise r.error("dropNoDoubled", "expected one piece letter")
    drops = r.boolean("pieceDrops", False)
    to_hand = r.boolean("capturesToHand", False)
    must_drop = r.boolean("mustDrop", False)
    if must_drop and not drops:
        raise r.error("mustDrop", "mustDrop needs pieceDrops = true")
    rook_drop = r.boolean("sittuyinRookDrop", False)
    if rook_drop and "rook" not in c.by_type:
        raise r.error("sittuyinRookDrop", "the variant has no rook")
    drop_mate = r.boolean("shogiPawnDropMateIllegal", False)
    opposite = r.boolean("dropOppositeColoredBishop", False)
    if opposite and ("bishop" not in c.by_type or not drops):
        raise r.error("dropOppositeColoredBishop", "needs a bishop and pieceDrops = true")
    castling_dropped = r.boolean("castlingDroppedPiece", False)
    if castling_dropped and not (drops and r.boolean("castling", True) and c.royal):
        raise r.error("castlingDroppedPiece", "needs pieceDrops, castling and a royal king")
    if castling_dropped and r.boolean("chess960", False):
        raise r.error("castlingDroppedPiece", "not with chess960")
    if to_hand and not drops:
        raise r.error("capturesToHand", "captured pieces go to hand only when pieceDrops = true")
    return {
        "drops": drops,
        "captures_to_hand": to_hand,
        "drop_regions": regions,
        "drop_no_doubled": no_doubled,
        "drop_no_doubled_count": r.integer("dropNoDoubledCount", 1, 1, 16),
        "first_rank_pawn_drops": r.boolean("firstRankPawnDrops", False),
        "promotion_zone_pawn_drops": r.boolean("promotionZonePawnDrops", False),
        "drop_checks": r.boolean("dropChecks", True),
        "must_drop": must_drop,
        "sittuyin_rook_drop": rook_drop,
        "rook_drop_letter": c.by_type["rook"] if rook_drop else "",
        "opposite_bishop_letter": c.by_type["bishop"] if opposite else "",
        "castling_dropped": castling_dropped,
        "pawn_drop_mate_illegal": drop_mate,
        "drop_mate_letter": c.by_type.get("shogiPawn", "") if drop_mate else "",
        "immobility_illegal": r.boolean("immobilityIllegal", False),
    }


def _endings(c: _Context) -> dict:
    """How games end: mate and stalemate values, extinction, flags, repetition, move rules."""
    r = c.r
    # "*" counts all pieces together (FSF's ALL_PIECES), letters count each type on its own
    extinction = c.letters("extinctionPieceTypes", allow_all=True) or ""
    flag_any = c.letters("flagPiece", allow_all=True)
    flag_w = c.letters("flagPieceWhite", allow_all=True)
    flag_b = c.letters("flagPieceBlack", allow_all=True)
    for key, text in (
        ("flagPiece", flag_any),
        ("flagPieceWhite", flag_w),
        ("flagPieceBlack", flag_b),
    ):
        if text and text != "*" and len(text) != 1:
            raise r.error(key, "expected one piece letter or *")
    both = c.region("flagRegion")
    white, black = c.region("flagRegionWhite"), c.region("flagRegionBlack")
    regions = (
        white if white is not None else (both or frozenset()),
        black if black is not None else (both or frozenset()),
    )
    flags = (flag_w or flag_any or "*", flag_b or flag_any or "*")
    if not regions[0] and not regions[1]:
        flags = ("", "")
    must_capture = r.boolean("mustCapture", False)
    flag_move = r.boolean("flagMove", False)
    if flag_move and (flags[0] != flags[1] or "*" in flags):
        raise r.error("flagMove", "ferz supports flagMove only with one flag piece type for both")
    extinction_value = r.raw("extinctionValue") or ""
    counting = r.raw("countingRule") or "none"  # values checked against UNSUPPORTED
    counting_letters = ("", "", "")
    if counting != "none":  # the pieces whose numbers set the limits (khon: makruk's silver)
        names = c.by_type
        khon = names.get("khon", names.get("silver", ""))
        counting_letters = (names.get("rook", ""), khon, names.get("knight", ""))
    if extinction_value and extinction_value not in VALUES:
        raise r.error("extinctionValue", f"expected win, loss or draw, got {extinction_value!r}")
    return {
        "stalemate_value": r.value("stalemateValue", "draw"),
        "checkmate_value": r.value("checkmateValue", "loss"),
        "extinction_value": extinction_value,
        "extinction_letters": extinction,
        "extinction_count": r.integer("extinctionPieceCount", 0, 0, MAXP),
        "extinction_opponent_count": r.integer("extinctionOpponentPieceCount", 0, 0, MAXP),
        "extinction_claim": r.boolean("extinctionClaim", False),
        "flag_letters": flags,
        "flag_regions": regions,
        "must_capture": must_capture,
        "stalemate_piece_count": r.boolean("stalematePieceCount", False),
        "makpong": r.boolean("makpongRule", False),
        "flag_move": flag_move,
        "check_counting": r.boolean("checkCounting", False),
        "counting_rule": counting,
        "counting_letters": counting_letters,
        "checking": r.boolean("checking", True),
        "flying_general": r.boolean("flyingGeneral", False),
        "n_move_rule": r.integer("nMoveRule", 50),
        "n_fold_rule": r.integer("nFoldRule", 3, 1, 100),
        "n_fold_value": r.value("nFoldValue", "draw"),
        "n_fold_value_absolute": r.boolean("nFoldValueAbsolute", False),
        "perpetual_check_illegal": r.boolean("perpetualCheckIllegal", False),
        "chasing_rule": (r.raw("chasingRule") or "none") == "axf",
        # the chasing rule's kinds by their pieces' names, as FSF writes the rule for its types
        "chase_letters": tuple(c.by_type.get(role, "") for role in CHASE_ROLES),
    }


def build(
    name: str,
    entries: dict[str, IniEntry],
    source: str,
    line: int,
    own: set[str] | None = None,
    validate_fen: Callable[[Rules], None] | None = None,
) -> Rules:
    """Compile one variant's merged entries into Rules; DefinitionError names the bad line.

    `own` holds the keys written in the variant's own section (the others are inherited); an
    error in an inherited value is reported at the section header, naming where it came from.
    """
    r = _Reader(name, entries, source, line, set(entries) if own is None else own)
    for key, entry in entries.items():
        if not known_key(key):
            raise entry.error("unknown key (see docs/variants.md for the supported keys)")
        if key in UNSUPPORTED_DEFAULTS and entry.value not in UNSUPPORTED_DEFAULTS[key]:
            allowed = " or ".join(UNSUPPORTED_DEFAULTS[key])
            raise entry.error(f"this rule is not supported by ferz (only {allowed} is accepted)")
    files, ranks = _board(r)
    c = _Context(r, files, ranks)
    blast = _atomic(c)
    pawns = _pawn_types(c)
    promotion = _promotion(c, pawns)
    choices = promotion["promotion_letters"] + (promotion["promotion_letters_black"] or "")
    pieces = _piece_types(c, pawns, "".join(dict.fromkeys(choices)))
    janggi = _janggi(c, pieces)
    try:
        rules = Rules(
            name=name,
            files=files,
            ranks=ranks,
            pieces=pieces,
            start_fen=full_fen(r.raw("startFen") or CHESS_FEN),
            description=r.raw("description") or "",
            extra={k: entries[k].value for k in COSMETIC if k in entries},
            **promotion,
            **_castling(c),
            **_drops(c),
            **_endings(c),
            blast_on_capture=blast,
            **_cambodian(c),
            **_gating(c),
            **janggi,
            **_turning(c),
            **_shatar(c),
        )
    except DefinitionError:
        raise
    except ValueError as error:
        raise r.error(None, str(error)) from None
    _check_start_fen(r, rules, validate_fen)
    return rules


def full_fen(fen: str) -> str:
    """Insert the castling and en-passant fields that shogi-style FENs (`[-] w 0 1`) leave out."""
    fields = fen.split()
    if len(fields) == 4 and fields[2].isdigit() and fields[3].isdigit():
        fields[2:2] = ["-", "-"]
    return " ".join(fields)


def _reach(rules: Rules, atoms: tuple[Atom, ...]) -> int:
    """Most destinations the atoms reach from any square of an empty board."""
    best = 0
    for file in range(rules.files):
        for rank in range(rules.ranks):
            total = 0
            for a in atoms:
                limit = a.range or 99
                steps = 0
                f, g = file + a.dx, rank + a.dy
                while steps < limit and 0 <= f < rules.files and 0 <= g < rules.ranks:
                    steps += 1
                    f, g = f + a.dx, g + a.dy
                total += steps - 1 if a.hop else steps
            best = max(best, total)
    return best


def _check_capacity(r: _Reader, rules: Rules, setup) -> None:
    """Refuse definitions whose positions would not fit the core's fixed-size tables."""
    if len(rules.pieces) > MAX_TYPES:
        count = len(rules.pieces)
        raise r.error(None, f"{count} piece types with promoted forms; at most {MAX_TYPES}")
    # destinations of the starting army on an empty board (promotions left out: the core
    # stops at MAXMOVES moves and Position.pseudo_moves raises if a position ever exceeds it)
    reach = [_reach(rules, p.atoms) for p in rules.pieces]
    owners: list[list[int]] = [[], []]  # per colour: the reach of each piece it owns
    in_hand = set()  # the types that can ever be in hand: captured ones go there demoted
    for code in list(setup.pieces.values()) + [c for c, n in setup.hand.items() for _ in range(n)]:
        owners[code & 1].append(reach[(code >> 1) - 1])
        piece = rules.pieces[(code >> 1) - 1]
        if not piece.royal:
            in_hand.add(piece.demoted or piece.letter)
    squares = rules.files * rules.ranks
    for color in (0, 1):
        # captured pieces change sides in drop games: a side may come to own every piece
        mine = owners[0] + owners[1] if rules.captures_to_hand else owners[color]
        if len(mine) > MAXP:
            raise r.error("startFen", f"a side could own {len(mine)} pieces; at most {MAXP}")
        mine = sorted(mine, reverse=True)
        moves = sum(mine)
        if rules.drops:  # k pieces in hand: the others move, each hand type drops anywhere empty
            moves = max(
                sum(mine[: len(mine) - k]) + min(k, len(in_hand)) * (squares - len(mine) + k)
                for k in range(len(mine) + 1)
            )
        if moves > MAXMOVES:
            raise r.error(
                "startFen",
                f"{'white' if color == 0 else 'black'} could have about {moves} moves in one "
                f"position; ferz handles at most {MAXMOVES} (fewer or shorter-ranged pieces)",
            )


def _check_start_fen(r: _Reader, rules: Rules, validate: Callable[[Rules], None] | None) -> None:
    """The start position must parse for these rules (and, if given, load into the core)."""
    key = "startFen"
    if rules.drops and "[" not in rules.start_fen.split(" ")[0]:
        raise r.error(key, "a drop variant's start FEN needs a pocket, e.g. [] after the board")
    try:
        setup = fenmod.parse(rules, rules.start_fen)
        if validate is None:
            Position(rules).set_fen(rules.start_fen)  # also checks attacks (side not to move)
        else:
            validate(rules)
    except ValueError as error:
        raise r.error(key, f"start position does not fit the variant: {error}") from None
    _check_capacity(r, rules, setup)
