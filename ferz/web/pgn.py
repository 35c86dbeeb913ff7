"""The web app's PGN: a pasted game read as one line (tags, start, moves, result) and as its
tree, and a game, an analysis line or a whole tree written with `[%eval]` comments; all go
through ferz.pgn, the one PGN module."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .. import pgn
from . import boards
from .tree import MAX_NODES

MAX_PLIES = 1000
SEVEN_TAGS = pgn.SEVEN_TAGS
RESULTS = pgn.RESULTS
UNKNOWN = ("?", "????.??.??")  # the values PGN writes for a tag nobody filled in


@dataclass
class Game:
    """A parsed game: its tags, start position, moves (UCI and SAN) and result."""

    tags: dict[str, str] = field(default_factory=dict)
    variant: str = "chess"
    start_fen: str = ""
    uci: list[str] = field(default_factory=list)
    san: list[str] = field(default_factory=list)
    result: str = "*"
    tree: pgn.Game | None = None  # the whole game: variations, comments and NAGs


def read(text: str, variant: str = "chess") -> Game:
    """The first game of `text`: its main line, and its whole tree (variations, comments and
    NAGs) in `tree`; ValueError names the first problem. The Variant tag, when present, names the
    variant; otherwise it is `variant`."""
    try:
        parsed = pgn.read_game(text, variant)
    except pgn.PgnError as error:
        raise ValueError(f"PGN: {error}") from None
    if parsed is None:
        raise ValueError("PGN: no tags and no moves found")
    nodes = list(parsed.mainline())
    if len(nodes) > MAX_PLIES:
        raise ValueError(f"PGN: more than {MAX_PLIES} plies")
    if parsed.root.count() > MAX_NODES:
        raise ValueError(f"PGN: more than {MAX_NODES} moves with the variations")
    tags = {k: v for k, v in parsed.headers.items() if v not in UNKNOWN}
    result = parsed.headers.get("Result", "*")
    tags.pop("Result", None)
    if parsed.variant == "chess":
        tags.pop("Variant", None)
    return Game(
        tags=tags,
        variant=parsed.variant,
        start_fen=parsed.board().fen(),
        uci=[node.move or "" for node in nodes],
        san=[node.san for node in nodes],
        result=result if result in RESULTS else "*",
        tree=parsed,
    )


def write(
    tags: dict[str, str],
    start_fen: str,
    san: Sequence[str],
    *,
    default_fen: str,
    evals: Sequence[str | None] = (),
    nags: Sequence[int | None] = (),
) -> str:
    """A PGN text: the seven tag roster first, SetUp/FEN when not the default start, SAN movetext.

    `evals[i]`, when given, is the evaluation after ply i+1 written as a `[%eval ...]` comment,
    and `nags[i]` the mark of that move (`$2` for a mistake).
    """
    headers = {name: tags.get(name, "?") for name in SEVEN_TAGS}
    headers["Result"] = tags.get("Result", "*")
    headers.update({k: " ".join(str(v).split()) for k, v in tags.items() if k not in headers})
    for name in ("FEN", "SetUp"):
        headers.pop(name, None)
    game = pgn.Game(headers)
    variant = pgn.variant_name(headers.get("Variant", "chess"))
    if start_fen != default_fen:
        game.headers["SetUp"] = "1"
        game.headers["FEN"] = start_fen
    board = boards.new_board(start_fen, variant)
    moves = []
    for text in san:
        move = board.parse_san(text)
        moves.append(board.uci(move))
        board.push(move)
    notes = [f"[%eval {e}]" if e is not None else "" for e in evals]
    game.add_line(moves, notes)
    for node, nag in zip(game.mainline(), nags, strict=False):
        if nag:
            node.nags.append(nag)
    return pgn.write(game)


def write_tree(
    tags: dict[str, str],
    tree: pgn.Game,
    *,
    evals: Sequence[str | None] = (),
    nags: Sequence[int | None] = (),
) -> str:
    """A PGN text of a whole tree (variations, comments, NAGs), the seven tag roster first;
    `evals` and `nags` (a review) belong to the main line's moves, as in `write`."""
    headers = {name: tags.get(name, "?") for name in SEVEN_TAGS}
    headers["Result"] = tags.get("Result", "*")
    headers.update({k: " ".join(str(v).split()) for k, v in tags.items() if k not in headers})
    for name in ("FEN", "SetUp", "Variant"):
        headers.pop(name, None)
    game = pgn.Game(headers, tree.root)
    game.set_start(tree.variant, tree.board().fen())
    for ply, node in enumerate(game.mainline()):  # the tree is the caller's, built for this
        note = evals[ply] if ply < len(evals) else None
        nag = nags[ply] if ply < len(nags) else None
        if note:
            node.comment = " ".join(part for part in (node.comment, f"[%eval {note}]") if part)
        if nag and nag not in node.nags:
            node.nags.append(nag)
    return pgn.write(game)


def line_result(outcome: boards.Outcome | None, given: str | None) -> str:
    """The result of an exported line: the rules' when its last position ends the game, else
    the one it came with (a stored or imported game's, sent only for its unchanged line)."""
    if outcome is not None:
        return outcome.result
    return given if given in RESULTS else "*"


def export_tags(kept: dict[str, str], *, variant: str, date: str, result: str) -> dict[str, str]:
    """Tags of an exported analysis line: ours by default, the line's own (White, Black,
    Event...) kept; the variant and the result always from the line itself."""
    tags = {"Event": "ferz analysis", "Site": "ferz web", "Date": date}
    tags.update({k: v for k, v in kept.items() if k not in ("FEN", "SetUp", "Variant", "Result")})
    if variant != "chess":
        tags["Variant"] = variant
    tags["Result"] = result
    return tags
