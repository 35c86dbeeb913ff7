"""One game between two engines, refereed with ferz's Board.

The referee keeps the clocks, checks every move against the legal moves of the variant, ends
the game by the rules (mate, stalemate, repetition, the fifty-move and counting rules, variant
ends, insufficient material) or by adjudication (always a draw at MAX_GAME_PLY plies, the most
its board holds), and turns every engine failure into a loss for that engine with the reason
recorded:

- `time`: its clock fell below minus the margin;
- `illegal`: a move that is not legal here (or a false result claim);
- `crash`, `disconnect`, `stall`, `protocol`: see `engines.EngineError`.
"""

from __future__ import annotations

import datetime
import random
import re
import time
from dataclasses import dataclass, field

from ..board import Board, IllegalMoveError, Move
from ..core.defs import MAX_GAME_PLY
from ..score import Score
from .adjudication import Adjudication
from .clock import Clocks, MatchLimits
from .engines import Driver, EngineError
from .openings import Opening
from .uci import UciDriver

#: PGN Termination tag values (PGN standard, section 9.8.1) for each way a game ends
TERMINATIONS = {
    "normal": "normal",
    "adjudication": "adjudication",
    "time": "time forfeit",
    "illegal": "rules infraction",
    "crash": "abandoned",
    "disconnect": "abandoned",
    "stall": "abandoned",
    "protocol": "rules infraction",
}
FAILURES = ("time", "illegal", "crash", "disconnect", "stall", "protocol")
_SQUARES = re.compile(r"^([a-p]\d{1,2})([a-p]\d{1,2})")


@dataclass
class Ply:
    """A move of the game as played: UCI text, the mover's score, depth, nodes, time."""

    uci: str
    score: int | None = None
    depth: int | None = None
    nodes: int | None = None
    ms: int = 0
    best: str = ""  # the engine's move when a random one replaced it (data generation)


@dataclass
class GameRecord:
    """A finished game, in plain data (it travels between processes and machines)."""

    index: int
    variant: str
    opening: Opening
    a_white: bool
    white: str = ""
    black: str = ""
    plies: list[Ply] = field(default_factory=list)
    result: str = "*"
    termination: str = "normal"
    reason: str = ""
    failed: str = ""  # "A" or "B": the engine that failed, if one did
    failure: str = ""  # the kind of failure (FAILURES)
    seconds: float = 0.0
    date: str = ""

    def score_a(self) -> float | None:
        """Engine A's points (1, 0.5, 0), or None for an unfinished game."""
        white = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(self.result)
        if white is None:
            return None
        return white if self.a_white else 1.0 - white

    def key(self) -> tuple:
        """What two runs of a deterministic match must agree on."""
        return (self.index, self.result, self.termination, tuple(p.uci for p in self.plies))


def find_move(board: Board, text: str) -> Move | None:
    """The legal move an engine's text means, or None: the exact UCI move, castling written as
    O-O, or the only legal promotion joining the same two squares when the engine spells the
    piece its own way (fairymax writes q for the met)."""
    try:
        return board.parse_uci(text)
    except IllegalMoveError:
        pass
    if text in ("O-O", "O-O-O", "0-0", "0-0-0"):
        try:
            return board.parse_san(text.replace("0", "O"))
        except IllegalMoveError:
            return None
    squares = _SQUARES.match(text)
    if squares is None:
        return None
    stem = squares.group(0)
    same = [move for move in board.legal_moves if _stem(move.uci()) == stem]
    if len(same) == 1 and same[0].uci() != stem:
        return same[0]
    return None


def _stem(uci: str) -> str:
    """The two squares of a UCI move ('' for a drop)."""
    squares = _SQUARES.match(uci)
    return squares.group(0) if squares else ""


class _Failure(Exception):
    """An engine broke a rule: the key of the engine, the kind and the message."""

    def __init__(self, key: str, kind: str, message: str) -> None:
        super().__init__(message)
        self.key, self.kind = key, kind


def play_game(
    index: int,
    opening: Opening,
    a_white: bool,
    engines: dict[str, Driver],
    budget: MatchLimits,
    adjudication: Adjudication,
    variant: str,
    grace: float = 5.0,
    random_moves: float = 0.0,
    seed: str = "",
) -> GameRecord:
    """Play one game of engines {"A": ..., "B": ...} from an opening; never raises for an
    engine's failure (the record says who failed and how). With `random_moves` that share of
    the engines' moves is replaced by random legal ones (seeded by `seed`)."""
    record = GameRecord(
        index,
        variant,
        opening,
        a_white,
        date=datetime.date.today().strftime("%Y.%m.%d"),
    )
    keys = ("A", "B") if a_white else ("B", "A")  # White's key, Black's key
    record.white, record.black = engines[keys[0]].name, engines[keys[1]].name
    started = time.monotonic()
    try:
        rng = random.Random(seed) if random_moves else None
        _play(record, keys, engines, budget, adjudication, grace, random_moves, rng)
    except _Failure as failure:
        record.failed, record.failure = failure.key, failure.kind
        record.result = "0-1" if failure.key == keys[0] else "1-0"
        record.termination = TERMINATIONS[failure.kind]
        name = engines[failure.key].name
        record.reason = f"{name} ({failure.key}): {failure.kind}: {failure}"
    for key, engine in engines.items():
        if key != record.failed:
            engine.game_over(record.result, record.reason)
    record.seconds = time.monotonic() - started
    return record


def _play(
    record: GameRecord,
    keys: tuple[str, str],
    engines: dict[str, Driver],
    budget: MatchLimits,
    adjudication: Adjudication,
    grace: float,
    random_moves: float = 0.0,
    rng: random.Random | None = None,
) -> None:
    """The game loop; engine failures leave as _Failure."""
    opening = record.opening
    board = Board(opening.fen, variant=record.variant)
    standard = board.fen() == Board(variant=record.variant).fen()
    for move in opening.moves:
        board.push_uci(move)
    for key in keys:
        try:
            engines[key].new_game(opening.fen, standard, list(opening.moves), board.ranks)
        except EngineError as error:
            raise _Failure(key, error.kind, str(error)) from None
    clocks = Clocks(budget)
    scores: dict[str, list[int | None]] = {keys[0]: [], keys[1]: []}  # White's view
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            record.result, record.reason = outcome.result(), outcome.reason()
            return
        played = len(record.plies)
        decided = adjudication.decide(scores[keys[0]], scores[keys[1]], played)
        if decided is None and board.position.ply >= MAX_GAME_PLY:
            # a game the rules never end (a makruk count that cannot start) stops where the
            # referee's board is full, rather than blaming the engine to move
            decided = "1/2-1/2", f"draw: {MAX_GAME_PLY} plies, the longest game the referee keeps"
        if decided is not None:
            record.result, record.reason = decided
            record.termination = "adjudication"
            return
        white = board.turn
        key, other = (keys[0], keys[1]) if white else (keys[1], keys[0])
        engine = engines[key]
        try:
            reply = engine.play(clocks.limits(white), grace, white)
        except EngineError as error:
            raise _Failure(key, error.kind, str(error)) from None
        late = clocks.spend(white, reply.elapsed)
        if late is not None:
            raise _Failure(key, "time", late)
        if reply.resigned:
            record.result = "0-1" if white else "1-0"
            record.reason = f"{engine.name} resigns"
            return
        if reply.claim:
            raise _Failure(key, "illegal", f"claimed {reply.claim} in {board.fen()}")
        move = find_move(board, reply.move)
        if move is None:
            raise _Failure(key, "illegal", f"illegal move {reply.move!r} in {board.fen()}")
        uci, best = move.uci(), ""
        # (an xboard engine has made its own move already: only UCI moves can be replaced)
        if rng is not None and isinstance(engine, UciDriver) and rng.random() < random_moves:
            move = rng.choice(board.legal_moves)
            uci, best = move.uci(), uci
        board.push(move)
        engine.played(uci)
        try:
            engines[other].tell(uci)
        except EngineError as error:
            raise _Failure(other, error.kind, str(error)) from None
        ms = round(reply.elapsed * 1000)
        record.plies.append(Ply(uci, reply.score, reply.depth, reply.nodes, ms, best))
        white_view = None if reply.score is None else (reply.score if white else -reply.score)
        scores[key].append(white_view)


def format_score(score: int | None) -> str:
    """A score for a PGN comment: +0.35, or +M5 / -M3 for mates."""
    if score is None:
        return ""
    mate = Score.from_cp(score).mate
    if mate is not None:
        return f"{'+' if score > 0 else '-'}M{abs(mate)}"
    return f"{score / 100:+.2f}"
