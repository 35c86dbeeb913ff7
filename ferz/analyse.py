"""Annotate games with an engine's evaluations: `ferz analyse` (and `judge` for the web's review).

Every position of a game's main line is searched once (ferz by default, any UCI engine), from
the last to the first, so that the hash table already knows the reply that punishes a blunder
when the blunder's position is searched (backward analysis, as blunder checkers do). Each
move then gets `[%eval x,depth]` (White's view; `#n` a mate in n, `#-n` Black mates, `#0` the
side to move is mated), and a move that loses winning chances gets a NAG: ?! (inaccuracy), ?
(mistake) or ?? (blunder), with the engine's better line as a variation. The thresholds are
lichess's: the drop in the mover's winning chances w = 2 / (1 + exp(-0.00368208 cp)) - 1 (cp
clamped to +-1000, a mate counting as 1000) of at least 0.1, 0.2 or 0.3. A move whose drop
first lies in the VERIFY band is searched again, after and before it, by a longer search
(`verify`), whose scores replace the first ones. Each side gets:

- average centipawn loss (ACPL): the mean over its moves of max(0, eval before - eval after),
  in its own view, evaluations clamped to +-1000 cp;
- accuracy: the mean over its moves of 103.1668 exp(-0.04354 (W_before - W_after)) - 3.1669,
  clamped to 0..100, with W = 50 + 50 w the winning percentage (lichess's move accuracy).

These go into tags (WhiteACPL, BlackACPL, WhiteAccuracy, BlackAccuracy) and a comment before
the first move.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass, field

from . import pgn
from .board import Board, IllegalMoveError
from .score import MATE_CP, Score
from .syzygy import CHESS_RULES, Tablebase
from .tablebase import bundled
from .tablebase import note as own_note

CLAMP = 1000
#: drops of winning chances (on -1..1) that make an inaccuracy, a mistake, a blunder
THRESHOLDS = ((0.3, pgn.NAG_BLUNDER), (0.2, pgn.NAG_MISTAKE), (0.1, pgn.NAG_DUBIOUS))
#: drops searched again by the verifying search: a first judgement of ?!, ?, or ?? by less
#: than 0.05, where a longer search most often changes the mark
VERIFY = (0.1, 0.35)
#: how much longer the verifying search of a doubtful move is, by default (time, nodes; depth
#: + log2): `ferz analyse --verify`, and the web app's review
VERIFY_FACTOR = 3
NAG_WORDS = {
    pgn.NAG_DUBIOUS: "inaccuracies",
    pgn.NAG_MISTAKE: "mistakes",
    pgn.NAG_BLUNDER: "blunders",
}


@dataclass(frozen=True)
class Line:
    """One line of an analysis: score for the side to move (mates as MATE_CP - n), depth, pv."""

    score: int
    depth: int
    pv: tuple[str, ...]


#: analyse(fen, moves) -> the best lines of the position (best first)
Analyser = Callable[[str, list[str]], list[Line]]


def winning_chances(cp: int) -> float:
    """lichess's winning chances (-1..1) of a score in centipawns."""
    cp = max(-CLAMP, min(CLAMP, cp))
    return 2 / (1 + math.exp(-0.00368208 * cp)) - 1


def clamp(score: int) -> int:
    """A score clamped to +-1000 cp (mates count as 1000)."""
    return max(-CLAMP, min(CLAMP, score))


def move_accuracy(before: int, after: int) -> float:
    """lichess's accuracy (0..100) of a move from the mover's scores before and after it."""
    drop = 50 * (winning_chances(before) - winning_chances(after))
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * drop) - 3.1669))


def drop(before: int, after: int) -> float:
    """The fall of the mover's winning chances from its scores before and after a move."""
    return winning_chances(clamp(before)) - winning_chances(clamp(after))


def judge(before: int, after: int) -> int | None:
    """The NAG a move earns (?!, ?, ??) from the mover's scores before and after it (mates
    as +-MATE_CP), by the drop of its winning chances; None for a good enough move."""
    fall = drop(before, after)
    return next((nag for limit, nag in THRESHOLDS if fall >= limit), None)


def eval_text(score: int, white_to_move: bool, depth: int | None = None) -> str:
    """`[%eval ...]` of a score given for the side to move."""
    white = Score.from_cp(score if white_to_move else -score)
    text = f"#{white.mate}" if white.mate is not None else f"{white.to_cp() / 100:.2f}"
    return f"[%eval {text}{f',{depth}' if depth else ''}]"


def tablebase_note(tables: Tablebase | None, board: Board) -> str | None:
    """What the Syzygy tables say of a position, as lichess shows it ("tablebase: White wins,
    DTZ 11"; "tablebase: draw"), None where they do not cover it; without Syzygy, what ferz's
    own tables bundled for the variant say ("tablebase: Black wins, mate in 3")."""
    if tables is None or board.rules.name not in CHESS_RULES:
        own = bundled(board.rules.name)
        return None if own is None else own_note(own, board)
    wdl = tables.get_wdl(board)
    if wdl is None:
        return None
    if wdl == 0:
        return "tablebase: draw"
    mover, other = ("White", "Black") if board.turn else ("Black", "White")
    winner = mover if wdl > 0 else other
    dtz = tables.get_dtz(board)
    spoiled = " (a draw by the fifty-move rule)" if abs(wdl) == 1 else ""
    return f"tablebase: {winner} wins{spoiled}" + (f", DTZ {abs(dtz)}" if dtz else "")


@dataclass
class SideSummary:
    """One side's figures."""

    losses: list[int] = field(default_factory=list)
    accuracies: list[float] = field(default_factory=list)
    nags: dict[int, int] = field(default_factory=dict)

    def acpl(self) -> float:
        """Average centipawn loss."""
        return sum(self.losses) / len(self.losses) if self.losses else 0.0

    def accuracy(self) -> float:
        """Mean move accuracy."""
        return sum(self.accuracies) / len(self.accuracies) if self.accuracies else 100.0

    def add(self, judged: Judgement) -> None:
        """Count one more move of this side."""
        self.losses.append(judged.loss)
        self.accuracies.append(judged.accuracy)
        if judged.nag is not None:
            self.nags[judged.nag] = self.nags.get(judged.nag, 0) + 1

    def text(self) -> str:
        """`ACPL 34, accuracy 85.2 %, 2 inaccuracies, 1 mistakes, 0 blunders`."""
        counts = ", ".join(f"{self.nags.get(nag, 0)} {word}" for nag, word in NAG_WORDS.items())
        return f"ACPL {self.acpl():.0f}, accuracy {self.accuracy():.1f} %, {counts}"


def terminal(board: Board) -> Line | None:
    """The score of a finished game's last position (mated: -MATE_CP; a draw: 0), None for a
    position to search."""
    outcome = board.outcome(claim_draw=True)
    if outcome is None:
        return None
    if outcome.winner is None:
        return Line(0, 0, ())
    return Line(MATE_CP if outcome.winner == board.turn else -MATE_CP, 0, ())


#: a search a review asks for: the ply of the position, and whether by the longer search
Request = tuple[int, bool]


def searches(
    ends: list[Line | None], verify: bool
) -> Generator[Request, list[Line], list[list[Line]]]:
    """The searches of a review, in their order: the review of positions 0..len(ends)-1 (the
    finished ones' lines given in `ends`) yields (ply, longer) for each search it needs, is
    sent that position's lines (best first), and returns every position's lines. `ferz
    analyse` and the web app's review both run it, so that they search alike.

    Backward: the last position first, so that what the search learned about later positions
    (kept in its hash table) is known when it searches the earlier ones: the reply that
    punishes a blunder has been searched when the blunder's position is. With `verify`, a
    doubtful move (its drop in the VERIFY band) is searched again at once by the longer search,
    after and before it, while the hash table holds both positions; a verified search replaces
    the first one, so that each position has one score and both moves next to it are judged
    from that."""

    def search(ply: int, longer: bool) -> Generator[Request, list[Line], list[Line]]:
        """The lines of position `ply` (a finished game's by the rules)."""
        end = ends[ply]
        if end is not None:
            return [end]
        lines = yield ply, longer
        return lines or [Line(0, 0, ())]

    lines: list[list[Line]] = [[] for _ in ends]
    verified = [False] * len(ends)
    for ply in reversed(range(len(ends))):
        lines[ply] = yield from search(ply, False)
        if verify and ply + 1 < len(ends) and _doubtful(lines[ply], lines[ply + 1]):
            if not verified[ply + 1]:
                lines[ply + 1], verified[ply + 1] = (yield from search(ply + 1, True)), True
            lines[ply], verified[ply] = (yield from search(ply, True)), True
    return lines


@dataclass(frozen=True)
class Judgement:
    """A move judged: its centipawn loss, its accuracy and its NAG (?!, ?, ?? or None)."""

    loss: int
    accuracy: float
    nag: int | None


def judge_move(best: Line, after: Line, move: str) -> Judgement:
    """A move judged from its position's best line and the best line of the position after it
    (both scores clamped to +-1000 cp, in the mover's view): no NAG where it was the engine's
    own choice."""
    before_cp, after_cp = clamp(best.score), clamp(-after.score)
    nag = judge(before_cp, after_cp)
    if not (best.pv and best.pv[0] != move):
        nag = None
    return Judgement(max(0, before_cp - after_cp), move_accuracy(before_cp, after_cp), nag)


def annotate(
    game: pgn.Game,
    analyse: Analyser,
    label: str = "ferz",
    on_move: Callable[[], None] | None = None,
    verify: Analyser | None = None,
    tables: Tablebase | None = None,
) -> dict[str, SideSummary]:
    """Annotate the main line of `game` in place; returns the summaries of White and Black.
    With Syzygy `tables` (or ferz's own tables bundled for the variant), each position that
    they cover gets their verdict (tablebase_note). `on_move` hears each position searched.

    With `verify` (a longer search), a move whose drop lies in the VERIFY band has the positions
    after and before it searched again by it, and is judged (as is the move before it) from
    those scores (`searches`)."""
    board = game.board()
    fen = board.fen()
    nodes = list(game.mainline())
    moves = [node.move or "" for node in nodes]
    ends: list[Line | None] = []
    for ply in range(len(nodes) + 1):
        ends.append(terminal(board))
        if ply < len(nodes):
            board.push_uci(moves[ply])

    def answer(ply: int, longer: bool) -> list[Line]:
        """A search the review asks for."""
        lines = (verify if longer and verify else analyse)(fen, moves[:ply])
        if on_move is not None and not longer:
            on_move()
        return lines

    lines = run(searches(ends, verify is not None), answer)
    summaries = {"White": SideSummary(), "Black": SideSummary()}
    board = game.board()
    parent = game.root
    for ply, node in enumerate(nodes):
        white = board.turn
        side = summaries["White" if white else "Black"]
        after = lines[ply + 1][0]
        judged = judge_move(lines[ply][0], after, node.move or "")
        side.add(judged)
        node.comment = _with_eval(node.comment, eval_text(after.score, not white, after.depth))
        if judged.nag is not None:
            node.nags = [n for n in node.nags if n not in NAG_WORDS] + [judged.nag]
            for alternative in lines[ply]:
                if alternative.pv and alternative.pv[0] != node.move:
                    _add_line(parent, board, alternative, white)
        board.push_uci(node.move or "")
        node.comment = _join(node.comment, tablebase_note(tables, board) or "")
        parent = node
    for colour, side in summaries.items():
        game.headers[f"{colour}ACPL"] = f"{side.acpl():.0f}"
        game.headers[f"{colour}Accuracy"] = f"{side.accuracy():.1f}"
    note = f"{label}: White {summaries['White'].text()}; Black {summaries['Black'].text()}"
    game.root.comment = _join(note, game.root.comment)
    return summaries


def run(
    review: Generator[Request, list[Line], list[list[Line]]],
    answer: Callable[[int, bool], list[Line]],
) -> list[list[Line]]:
    """A review (`searches`) run to its end with `answer(ply, longer)` as the engine."""
    try:
        request = next(review)
        while True:
            request = review.send(answer(*request))
    except StopIteration as stop:
        return stop.value


def _doubtful(before: list[Line], after: list[Line]) -> bool:
    """Whether a move's drop (its position's best line, the reply's) lies in the VERIFY band."""
    fall = drop(before[0].score, -after[0].score)
    return VERIFY[0] <= fall < VERIFY[1]


def _add_line(parent: pgn.Node, board: Board, line: Line, white: bool) -> None:
    """The engine's line as a variation below `parent` (its legal prefix), its score on the
    first move."""
    copy = board.copy()
    node = parent
    for index, move in enumerate(line.pv[:12]):
        try:
            legal = copy.parse_uci(move)
        except IllegalMoveError:
            break
        node = node.add_variation(copy, legal)
        if index == 0:
            node.comment = eval_text(line.score, white, line.depth)
        copy.push(legal)


def _with_eval(comment: str, evaluation: str) -> str:
    """A comment with its [%eval] replaced by (or starting with) `evaluation`."""
    import re

    rest = re.sub(r"\s*\[%eval [^\]]*\]\s*", " ", comment).strip()
    return _join(evaluation, rest)


def _join(first: str, second: str) -> str:
    """Two comment texts as one."""
    return " ".join(part for part in (first, second) if part)
