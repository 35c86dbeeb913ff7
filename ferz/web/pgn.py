"""The web app's PGN and FEN: a pasted game read as one line (tags, start, moves, result) and
as its tree, a pasted FEN told from a PGN and read, an imported game as a stored row, and a
game, an analysis line or a whole tree written with `[%eval]` comments; all go through
ferz.pgn, the one PGN module."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import pgn
from . import boards
from .game import GameSettings, new_id
from .messages import eval_text
from .store import StoredGame
from .tree import MAX_NODES, of_record

if TYPE_CHECKING:
    from ..board import Board
    from .game import LiveGame

MAX_PLIES = 1000
SEVEN_TAGS = pgn.SEVEN_TAGS
RESULTS = pgn.RESULTS
UNKNOWN = ("?", "????.??.??")  # the values PGN writes for a tag nobody filled in


@dataclass
class ParsedGame:
    """A parsed game: its tags, start position, moves (UCI and SAN) and result."""

    tags: dict[str, str] = field(default_factory=dict)
    variant: str = "chess"
    start_fen: str = ""
    uci: list[str] = field(default_factory=list)
    san: list[str] = field(default_factory=list)
    result: str = "*"
    tree: pgn.Game | None = None  # the whole game: variations, comments and NAGs


def read(text: str, variant: str = "chess") -> ParsedGame:
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
    return ParsedGame(
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


def line_result(outcome: boards.GameEnd | None, given: str | None) -> str:
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


def is_fen(text: str) -> bool:
    """Whether pasted text (stripped) is a FEN rather than a PGN."""
    # A FEN is one line with the board's slashes; a pocket ("[RPb]") may follow the board,
    # but PGN tags start a line with "[" and movetext has move numbers.
    return (
        "\n" not in text and not text.startswith("[") and "." not in text and text.count("/") >= 4
    )


def read_fen(text: str, variant: str) -> dict[str, Any]:
    """A pasted FEN as an analysis line without moves; ValueError ("bad FEN: ...")."""
    try:
        board = boards.new_board(text, variant)
    except ValueError as error:
        raise ValueError(f"bad FEN: {error}") from None
    line = {"variant": variant, "start_fen": board.fen(), "moves": [], "san": []}
    return {**line, "tags": {}, "result": "*"}


def imported_record(parsed: ParsedGame) -> StoredGame:
    """The games list's row of an imported PGN game: its moves, result and tags (the tree,
    if any, is stored apart: tree.dumps)."""
    now = time.time()
    result = parsed.result if parsed.result in ("1-0", "0-1", "1/2-1/2") else None
    tags = {k: v for k, v in parsed.tags.items() if k not in ("FEN", "SetUp")}
    settings = dataclasses.asdict(GameSettings(imported=True))
    rec = StoredGame(new_id(), now, now, parsed.variant, parsed.start_fen, settings, parsed.uci)
    rec.result, rec.tags = result, tags
    rec.termination = tags.get("Termination") or ("imported" if result else None)
    return rec


def game_tags(game: LiveGame, extra: dict[str, str] | None = None) -> dict[str, str]:
    """PGN tags of a stored game (an imported one keeps the tags it came with); `extra`:
    the players' ratings (WhiteElo, BlackElo, and a rated game's WhiteRatingDiff...)."""
    s = game.settings
    if s.imported:
        return {**game.tags, "Result": game.result or "*"}
    tags = {
        "Event": "ferz web game",
        "Site": "ferz web",
        "Date": time.strftime("%Y.%m.%d", time.localtime(game.created)),
        "Round": "-",
        "White": game.player_name("white"),
        "Black": game.player_name("black"),
        "Result": game.result or "*",
        **(extra or {}),
    }
    if game.variant != "chess":
        tags["Variant"] = game.variant
    if s.initial_ms is not None:
        tags["TimeControl"] = f"{s.initial_ms // 1000}+{s.increment_ms // 1000}"
    if game.termination:
        tags["Termination"] = game.termination
    return tags


def write_game(game: LiveGame, kept: str | None, extra: dict[str, str] | None = None) -> str:
    """A stored game's PGN download: its moves with ferz's evaluations, or the analysis tree
    `kept` with it (as the store holds it), variations and comments too; `extra`: more tags
    (the players' ratings)."""
    evals = [game.evals.get(ply) for ply in range(1, len(game.moves) + 1)]
    if kept:
        held = of_record(game.variant, game.start_fen, list(game.moves), kept)
        # the evaluations belong to the game's moves: only while the tree still starts with them
        same = held.mainline_moves()[: len(evals)] == list(game.moves)
        return write_tree(game_tags(game, extra), held, evals=evals if same else [])
    return write(
        game_tags(game, extra),
        game.start_fen,
        game.sans,
        default_fen=boards.start_fen(game.variant),
        evals=evals,
    )


def export(
    line: Sequence[dict[str, str]],
    end: Board,
    held: pgn.Game | None,
    *,
    variant: str,
    fen: str | None,
    evals: Sequence[Any],
    tags: dict[str, str],
    result: str | None,
) -> str:
    """The analysis board's line (checked by analysis.parse_line, ending on `end`) or whole
    tree `held` as PGN: the tags it came with, the result (the rules' when the line ends the
    game, else `result`), the review's `[%eval]` comments and marks on the main line."""
    reviewed = list(evals)[: len(line)]
    comments = [eval_text(e) for e in reviewed]
    nags = [e.get("nag") if isinstance(e, dict) else None for e in reviewed]
    start = boards.new_board(fen, variant).fen()
    tags = export_tags(
        tags,
        variant=variant,
        date=time.strftime("%Y.%m.%d"),
        result=line_result(boards.outcome(end), result),
    )
    if held is not None:
        return write_tree(tags, held, evals=comments, nags=nags)
    return write(
        tags,
        start,
        [m["san"] for m in line],
        default_fen=boards.start_fen(variant),
        evals=comments,
        nags=nags,
    )
