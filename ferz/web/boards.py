"""The web layer's view of ferz.board: build boards, read the side to move and the outcome."""

from __future__ import annotations

from dataclasses import dataclass

from ..board import Board


@dataclass(frozen=True)
class Outcome:
    """How a game ended: PGN result and a short reason (checkmate, stalemate, ...)."""

    result: str
    termination: str


def variant_names() -> list[str]:
    """The variants the browser can play, standard chess first."""
    from .. import variants

    return ["chess", *[n for n in variants.names() if n != "chess"]]


def pocket_letters(variant: str) -> list[str] | None:
    """The pieces a player can hold in hand (drop variants), in the variant's order; else None.

    Those are the pieces of the start position's pocket (sittuyin sets its pieces up from
    there, the king too) and, where captures go to hand, the non-royal pieces of its board:
    promoted forms go back to them.
    """
    from .. import variants

    rules = variants.get(variant)
    if not rules.drops:
        return None
    placement = rules.start_fen.split()[0]
    board, _, pocket = placement.partition("[")
    held = set(pocket.upper())
    if rules.captures_to_hand:
        held |= {p.letter for p in rules.pieces if not p.royal and p.letter in board}
    return [p.letter for p in rules.pieces if not p.demoted and p.letter in held]


def board_look(variant: str) -> dict[str, object]:
    """How the browser draws a variant: its board family and each piece letter's kind.

    family is "xiangqi" (pieces on the lines, river, palaces), "shogi" (koma on a plain
    grid) or "chess"; pieces maps each lowercase letter to the piece's name in the rules
    ("archbishop", "cannon", "shogiPawn"...), since a letter means different pieces in
    different variants (A: archbishop, amazon or advisor).
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
    return {"family": family, "pieces": pieces}


def variant_card(variant: str) -> dict[str, object]:
    """What the new-game page shows of a variant: its start position, board, pieces and
    description; ValueError for an unknown variant."""
    from .. import variants

    if variant not in variant_names():
        raise ValueError(f"unknown variant {variant!r}")
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
    if name in variant_names():
        return name
    raise ValueError(f"unknown variant {tag!r}")


def new_board(fen: str | None, variant: str = "chess") -> Board:
    """A board at `fen` (None: the variant's start); ValueError on a bad FEN or variant."""
    if variant not in variant_names():
        raise ValueError(f"unknown variant {variant!r}")
    if fen is not None:
        fen = fen.strip()
        if not fen:
            raise ValueError("empty FEN")
        if len(fen) > 300:
            raise ValueError("FEN too long")
    return Board(fen, variant=variant) if fen else Board(variant=variant)


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
    """'white' or 'black', read from the FEN so that no bool/int colour convention leaks in."""
    return "white" if board.fen().split()[1] == "w" else "black"


def legal_uci(board: Board) -> list[str]:
    """Every legal move in UCI."""
    return [board.uci(m) for m in board.legal_moves]


def outcome(board: Board) -> Outcome | None:
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
    return Outcome(result, termination.replace("_", " "))
