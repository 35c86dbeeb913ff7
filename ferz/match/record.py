"""A finished match game as PGN, written through `ferz.pgn`.

Tags: the seven-tag roster, then Variant/FEN/SetUp where needed, TimeControl (the PGN form of
a clock, `-` for limits PGN cannot write: those go in FerzLimits, `nodes=20000`), Termination
(the PGN standard's values: normal, adjudication, time forfeit, rules infraction, abandoned),
PlyCount and, for a failure, FerzFailure with its kind. Each engine move carries a comment
`score/depth time` as cutechess writes it (`+0.35/12 0.101s`, mates as `+M5/20`); the
opening's moves carry `book`; the last move's comment ends with the reason the game ended.
"""

from __future__ import annotations

from .. import pgn
from .clock import MatchLimits
from .referee import GameRecord, format_score


def ply_comment(score: int | None, depth: int | None, ms: int) -> str:
    """`+0.35/12 0.101s` (score and depth only when the engine reported them)."""
    parts = []
    if score is not None:
        parts.append(f"{format_score(score)}/{depth or 0}")
    parts.append(f"{ms / 1000:.3f}s")
    return " ".join(parts)


def to_game(record: GameRecord, event: str, budget: MatchLimits, site: str = "?") -> pgn.Game:
    """The record as a pgn.Game."""
    headers = {
        "Event": event,
        "Site": site,
        "Date": record.date or "????.??.??",
        "Round": str(record.index + 1),
        "White": record.white,
        "Black": record.black,
        "Result": record.result,
    }
    game = pgn.Game(headers)
    game.set_start(record.variant, record.opening.fen)
    game.headers["TimeControl"] = str(budget.tc) if budget.tc is not None else "-"
    if budget.tc is None or budget.nodes is not None or budget.depth is not None:
        game.headers["FerzLimits"] = budget.describe()
    game.headers["Termination"] = record.termination
    game.headers["PlyCount"] = str(len(record.opening.moves) + len(record.plies))
    if record.failure:
        game.headers["FerzFailure"] = f"{record.failed} {record.failure}"
    moves = list(record.opening.moves) + [ply.uci for ply in record.plies]
    comments = ["book"] * len(record.opening.moves)
    comments += [ply_comment(ply.score, ply.depth, ply.ms) for ply in record.plies]
    last = game.add_line(moves, comments)
    if record.reason:
        if last is game.root:
            game.root.comment = record.reason
        else:
            last.comment = f"{last.comment}, {record.reason}" if last.comment else record.reason
    return game


def to_pgn(record: GameRecord, event: str, budget: MatchLimits) -> str:
    """The record as PGN text."""
    return pgn.write(to_game(record, event, budget))
