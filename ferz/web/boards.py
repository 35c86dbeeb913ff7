"""The web layer's view of ferz.board: build boards, read the side to move and the outcome."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..board import Board, Move

if TYPE_CHECKING:
    from ..core.rules import Rules


@dataclass(frozen=True)
class GameEnd:
    """How a game ended: PGN result and a short reason (checkmate, stalemate, ...)."""

    result: str
    termination: str


def variant_names() -> list[str]:
    """The variants the browser can play, standard chess first."""
    from .. import variants

    return ["chess", *[n for n in variants.names() if n != "chess"]]


def known_variant(name: str) -> str | None:
    """The variant a name or Fairy-Stockfish alias (`normal`, `fischerandom`) stands for, or
    None if the browser cannot play it."""
    from .. import variants

    name = variants.canonical(name) if isinstance(name, str) else ""
    return name if name in variant_names() else None


def pocket_letters(variant: str) -> list[str] | None:
    """The pieces a player can hold in hand (drop variants), in the variant's order; else None.

    Those are the pieces of the start position's pocket (sittuyin sets its pieces up from
    there, the king too) and, where captures go to hand, the non-royal pieces of its board:
    promoted forms go back to them.
    """
    from .. import variants

    rules = variants.get(variant)
    if not (rules.drops or rules.seirawan_gating):  # (seirawan: the pieces waiting to gate)
        return None
    placement = rules.start_fen.split()[0]
    board, _, pocket = placement.partition("[")
    held = set(pocket.upper())
    if rules.captures_to_hand:
        held |= {p.letter for p in rules.pieces if not p.royal and p.letter in board}
    return [p.letter for p in rules.pieces if not p.demoted and p.letter in held]


def board_look(variant: str) -> dict[str, object]:
    """How the browser draws a variant: its board family, each piece letter's kind, the
    xiangqi family's board lines and the shogi family's turned-over pieces.

    family is "xiangqi" (pieces on the lines), "shogi" (koma on a plain grid) or "chess";
    pieces maps each lowercase letter to the piece's name in the rules ("archbishop",
    "cannon", "shogiPawn"...), since a letter means different pieces in different variants
    (A: archbishop, amazon or advisor); river, palaces and faces: see `river`, `palaces` and
    `turned_faces`.
    """
    from .. import variants

    rules = variants.get(variant)
    names = {p.name for p in rules.pieces}
    if rules.flying_general or names & {"soldier", "horse"}:
        family = "xiangqi"
    elif "shogiPawn" in names or any((p.promoted or "").startswith("+") for p in rules.pieces):
        family = "shogi"
    else:
        family = "chess"
    pieces = {p.letter.lower(): p.name for p in rules.pieces if len(p.letter) == 1}
    return {
        "family": family,
        "pieces": pieces,
        "river": river(rules),
        "palaces": palaces(rules),
        "faces": turned_faces(rules),
    }


def river(rules: Rules) -> bool:
    """Whether the rules split the board in two halves (xiangqi's river): a piece kept to its
    own half (the elephant) or one that moves otherwise once across (the soldier). Janggi's
    pieces ignore the middle of the board, and its board has no river."""
    if rules.ranks % 2:
        return False
    half = rules.ranks // 2
    for piece in rules.pieces:
        if any(atom.min_rank == half for atom in piece.atoms):
            return True
        own = piece.region[0] if piece.region else frozenset()
        files, ranks = {f for f, _ in own}, {r for _, r in own}
        if files == set(range(rules.files)) and ranks and max(ranks) == half - 1:
            return True
    return False


def palaces(rules: Rules) -> list[list[int]]:
    """The palaces, drawn with their diagonals: the rectangle each side's royal piece is kept
    to (xiangqi, janggi), as [first file, first rank, last file, last rank] from 0, where it is
    a small one (at most half the board each way)."""
    out: list[list[int]] = []
    for piece in rules.pieces:
        if not (piece.royal and piece.region):
            continue
        for squares in piece.region:
            files = {f for f, _ in squares}
            ranks = {r for _, r in squares}
            width, height = len(files), len(ranks)
            if (
                width > 1
                and height > 1
                and len(squares) == width * height
                and max(files) - min(files) == width - 1
                and max(ranks) - min(ranks) == height - 1
                and 2 * width <= rules.files
                and 2 * height <= rules.ranks
            ):
                out.append([min(files), min(ranks), max(files), max(ranks)])
    return out


# A turned-over piece that moves as a gold is the tokin (と, written T) where the sets of
# those games pair it so: kyoto shogi's lance (香/と: its name is "kyo-to") and micro shogi's
# bishop (角/と); any other is a gold (金).
TOKIN_BACKS = frozenset({"lance", "bishop"})


def turned_faces(rules: Rules) -> dict[str, dict[str, str]]:
    """The piece each promoted side is, in games whose pieces turn over (kyoto shogi: every
    move; micro shogi: every capture): `+l` -> {"name": "tokin", "letter": "T"}. There the
    other side is a piece of its own (the one whose moves it takes), not a promoted form;
    in other games (shogi's promoted lance 杏) nothing."""
    if not (rules.piece_demotion or rules.promotion_on_capture):
        return {}
    by_letter = {p.letter: p for p in rules.pieces}
    plain = [p for p in rules.pieces if not p.demoted and not p.royal]
    faces: dict[str, dict[str, str]] = {}
    for piece in rules.pieces:
        if piece.demoted is None:
            continue
        target = next((p for p in plain if p.atoms == piece.atoms), None)
        if target is None:
            continue  # moves as no piece of the game: drawn as a promoted piece
        name, letter = target.name, target.letter
        if name == "gold" and by_letter[piece.demoted].name in TOKIN_BACKS:
            name, letter = "tokin", "T"
        faces[piece.letter.lower()] = {"name": name, "letter": letter}
    return faces


def move_text(board: Board, move: Move) -> str:
    """A legal move as the web writes it: the variant's notation (WXF, Hodges, else SAN), a
    turned-over piece named as the piece it is (kyoto's `+L-1b` as `T-1b`, `+N*2b` as `G*2b`)."""
    from ..notation import move_text as native

    text = native(board, move)
    if text.startswith("+"):
        face = turned_faces(board.rules).get(text[:2].lower())
        if face is not None:
            text = face["letter"] + text[2:]
    return text


def move_texts(variant: str, start_fen: str, moves: list[str], sans: list[str]) -> list[str]:
    """A line's moves as its players write them: WXF for xiangqi, Hodges for shogi, else the
    SAN given (computed only for those variants: a game's state is sent after every move)."""
    from ..notation import style

    board = new_board(start_fen, variant)
    if style(board.rules) == "san":
        return list(sans)
    out = []
    for uci in moves:
        move = board.parse_uci(uci)
        out.append(move_text(board, move))
        board.push(move)
    return out


def variant_card(variant: str) -> dict[str, object]:
    """What the new-game page shows of a variant: its start position, board, pieces and
    description; ValueError for an unknown variant."""
    from .. import variants

    if known_variant(variant) is None:
        raise ValueError(f"unknown variant {variant!r}")
    variant = variants.canonical(variant)
    rules = variants.get(variant)
    board = Board(variant=variant)
    return {
        "name": variant,
        "description": rules.description,
        "fen": board.fen(),
        "files": board.files,
        "ranks": board.ranks,
        "pockets": pocket_letters(variant),
        "look": board_look(variant),
    }


def variant_from_tag(tag: str) -> str:
    """Map a PGN Variant tag ("Standard", "Chess960", "crazyhouse") to a ferz variant name."""
    name = tag.strip().lower()
    if name in ("", "standard", "chess", "normal", "from position"):
        return "chess"
    if known_variant(name):
        return known_variant(name)
    raise ValueError(f"unknown variant {tag!r}")


MAX_FEN = 300  # characters; the longest start position (16x16 with pockets) is ~180
MAX_COUNTER = 100_000  # halfmove clock and fullmove number: far above any real game
MAX_RUN = 16  # an empty run in the piece placement: boards are at most 16 files wide
_DIGITS = re.compile(r"\d+")


def check_fen_fields(fen: str) -> None:
    """Refuse a FEN whose numbers are out of range before the core sees it (ValueError).

    The core stores counters in C ints: 2**31 and more overflowed (a 500 and a dropped
    socket); here every number is bounded and named: the placement's empty runs, the
    halfmove clock and the fullmove number (the last two fields), check counters.
    """
    fields = fen.split()
    if len(fields) > 8:
        raise ValueError(f"FEN has {len(fields)} fields, at most 8")
    for run in _DIGITS.findall(fields[0]):
        if len(run) > 2 or int(run) > MAX_RUN:
            raise ValueError(f"FEN piece placement: an empty run of {run[:12]} squares")
    names = {len(fields) - 2: "halfmove clock", len(fields) - 1: "fullmove number"}
    for index, text in enumerate(fields[1:], 1):
        for number in _DIGITS.findall(text):
            if len(number) > 6 or int(number) > MAX_COUNTER:
                name = names.get(index, f"field {index + 1}")
                raise ValueError(f"FEN {name} {number[:12]} is out of range (0 to {MAX_COUNTER})")


def new_board(fen: str | None, variant: str = "chess") -> Board:
    """A board at `fen` (None: the variant's start); ValueError on a bad FEN or variant."""
    if known_variant(variant) is None:
        raise ValueError(f"unknown variant {variant[:40]!r}")
    variant = known_variant(variant)
    if fen is not None:
        fen = fen.strip()
        if not fen:
            raise ValueError("empty FEN")
        if len(fen) > MAX_FEN:
            raise ValueError("FEN too long")
        if not fen.isprintable() or not fen.isascii():
            raise ValueError("FEN has characters no FEN uses")
        check_fen_fields(fen)
    try:
        return Board(fen, variant=variant) if fen else Board(variant=variant)
    except ValueError:
        raise
    except (OverflowError, IndexError, KeyError, TypeError) as error:
        # Input the core's parser did not foresee: still the client's bad FEN, not a crash.
        raise ValueError(f"invalid FEN ({type(error).__name__})") from None


def cannot_mate(board: Board, color: str) -> bool:
    """Whether `color` could not win by any series of legal moves (FIDE 6.9), so that a flag
    fall against it is a draw: ferz.board's rule (has_insufficient_material)."""
    probe = getattr(board, "has_insufficient_material", None)
    return probe is not None and bool(probe(color == "white"))


# The ten ways to put two knights on five empty squares, in Scharnagl's order.
_KNIGHTS = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)]


def chess960_fen(number: int) -> str:
    """Chess960 start position number 0..959 (Scharnagl numbering; 518 is the usual start)."""
    if not 0 <= number < 960:
        raise ValueError("Chess960 positions are numbered 0 to 959")
    rank: list[str | None] = [None] * 8
    n, light = divmod(number, 4)
    rank[2 * light + 1] = "B"
    n, dark = divmod(n, 4)
    rank[2 * dark] = "B"
    n, queen = divmod(n, 6)
    rank[[i for i, p in enumerate(rank) if p is None][queen]] = "Q"
    empty = [i for i, p in enumerate(rank) if p is None]
    for k in _KNIGHTS[n]:
        rank[empty[k]] = "N"
    for i, piece in zip([i for i, p in enumerate(rank) if p is None], "RKR", strict=True):
        rank[i] = piece
    white = "".join(p or "" for p in rank)
    return f"{white.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1"


def start_fen(variant: str) -> str:
    """The start position of a variant."""
    return new_board(None, variant).fen()


def turn(board: Board) -> str:
    """'white' or 'black' (Board.turn is True for White, as in python-chess); not read from
    the FEN, which cost a whole FEN per call and was called several times per message."""
    return "white" if board.turn else "black"


def legal_uci(board: Board) -> list[str]:
    """Every legal move in UCI."""
    return [board.uci(m) for m in board.legal_moves]


def outcome(board: Board) -> GameEnd | None:
    """The game's end by the rules, None while it goes on.

    Draws that a player could claim (threefold repetition, fifty moves) end the game at once,
    as on chess sites: nobody has to claim them against the engine.
    """
    done = board.outcome(claim_draw=True)
    if done is None:
        return None
    result = done.result() if callable(getattr(done, "result", None)) else None
    termination = getattr(done.termination, "name", str(done.termination)).lower()
    if result not in ("1-0", "0-1", "1/2-1/2"):
        winner = getattr(done, "winner", None)
        result = "1/2-1/2" if winner is None else ("1-0" if winner in (True, "white") else "0-1")
    return GameEnd(result, termination.replace("_", " "))
