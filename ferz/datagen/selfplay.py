"""`ferz datagen --driver selfplay`: the games of a chunk played in-process against one
long-lived UCI engine, interleaved.

The match driver (generate.py through ferz.match's runner) starts two engine processes per
worker and chunk, sends each search the whole game as `position ... moves ...` (the engine
parses a line that grows every ply) and referees every ply through the line-reading drivers.
Here one engine process per lane lives for the whole run; a chunk begins with `ucinewgame`
(so a chunk's games depend on nothing played before it, whichever lane plays it), all its
games are in play at once, and each game's next command is written as soon as its last
result is read, so the engine always has searches queued and never waits for ferz. A search
is sent as `position fen F` alone (Stockfish counts the moves of a `moves` list written while
it searches as nodes of the running search, which made the games depend on timing) and its
score is read from the bytes of its last info line. Searches that could only feed positions
the filters drop are cheaper: a position with the side to move in check (without
--keep-checks) gets a search of an eighth of the node budget, enough to choose its move; and a
game whose first score shows the opening lost (beyond --max-opening-score, a game the filters
drop whole) stops there.

Determinism: the engine sees the same commands in the same order for a chunk whatever the
lane and concurrency (fixed nodes, one thread, its state reset by `ucinewgame`), and the
random moves and openings depend only on the seed and the game number, so the same command
writes the same bytes.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..board import Board, Move, rules_for
from ..core import attacks, endrules
from ..core.defs import CASTLE, NO_END, PROMO, move_kind
from ..core.rules import Rules
from ..match.adjudication import Adjudication
from ..match.openings import Opening
from ..match.referee import find_move
from ..score import Score
from .fileformat import (
    FLAG_ADJUDICATED,
    FLAG_CAPTURE,
    FLAG_CHECK,
    FLAG_GIVES_CHECK,
    FLAG_PROMOTION,
    FLAG_RANDOM,
    FLAG_TAIL,
    TrainingRecord,
)
from .filters import keep, promotes

if TYPE_CHECKING:
    from .generate import Recipe

MAX_GAME_PLY = 1000  # the referee's longest game (ferz.match.referee), kept the same here
STALL_SECONDS = 120.0  # no byte from the engine for this long: it hangs
# with this many searches in flight, wait this long before reading an empty pipe
BATCH, BATCH_SECONDS = 12, 0.002


class EngineFailure(ValueError):
    """The engine died, hung, or played something that is no legal move (the message says)."""


class UciProcess:
    """One UCI engine process spoken to in raw bytes: commands written ahead, results read
    as (move text, score) pairs in the order of the searches."""

    def __init__(self, command: list[str], options: dict[str, str], variant: str) -> None:
        """Start the engine and run the handshake (uci, options, the variant, isready);
        EngineFailure if it does not start or cannot play the variant."""
        self.name = command[0]
        try:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                bufsize=0,
            )
        except OSError as error:
            raise EngineFailure(f"engine {self.name!r} does not start: {error}") from None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in, self._out = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        self._buffer = b""
        self._pending: list[bytes] = []  # commands not written yet (post)
        self.boards: list[Board] = []  # the lane's boards, reused chunk after chunk (set_fen)
        try:
            self._handshake(options, variant)
        except EngineFailure:
            self.close()
            raise

    def _handshake(self, options: dict[str, str], variant: str) -> None:
        """uci / uciok, the options, UCI_Variant or UCI_Chess960, isready / readyok."""
        self.send(b"uci\n")
        names = set()
        for line in self._lines_until(b"uciok", 30.0):
            if line.startswith(b"option name "):
                names.add(line[12:].split(b" type ")[0].decode(errors="replace").lower())
        lines = [f"setoption name {key} value {value}" for key, value in options.items()]
        if variant == "chess960":
            if "uci_chess960" not in names:
                raise EngineFailure(f"engine {self.name!r} cannot play chess960")
            lines.append("setoption name UCI_Chess960 value true")
        elif variant != "chess":
            if "uci_variant" not in names:
                raise EngineFailure(
                    f"engine {self.name!r} cannot play {variant} (no UCI_Variant option)"
                )
            lines.append(f"setoption name UCI_Variant value {variant}")
        self.send(("\n".join(lines) + "\nisready\n").encode())
        self._lines_until(b"readyok", 60.0)

    def send(self, data: bytes) -> None:
        """Write bytes to the engine; EngineFailure if it is gone."""
        try:
            while data:
                data = data[os.write(self._in, data) :]
        except OSError:
            raise EngineFailure(f"engine {self.name!r} exited (its input is closed)") from None

    def post(self, data: bytes) -> None:
        """Send a command soon: a few go out in one write, and all before a read waits."""
        self._pending.append(data)
        if len(self._pending) >= 4:
            self.flush()

    def flush(self) -> None:
        """Write the posted commands."""
        if self._pending:
            data, self._pending = b"".join(self._pending), []
            self.send(data)

    def _fill(self, seconds: float) -> None:
        """Read what the engine has written (waiting up to `seconds` for the first byte)."""
        self.flush()
        ready, _, _ = select.select([self._out], [], [], seconds)
        if not ready:
            raise EngineFailure(f"engine {self.name!r} wrote nothing for {seconds:g} s")
        data = os.read(self._out, 1 << 16)
        if not data:  # (its output closed: the exit code follows in a moment)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(1.0)
            raise EngineFailure(f"engine {self.name!r} exited (code {self.proc.poll()})")
        self._buffer += data

    def _lines_until(self, word: bytes, seconds: float) -> list[bytes]:
        """The lines up to and including the one that is `word`."""
        deadline = time.monotonic() + seconds
        while True:
            end = self._buffer.find(word + b"\n")
            if end >= 0 and (end == 0 or self._buffer[end - 1] == 10):
                lines = self._buffer[:end].splitlines()
                self._buffer = self._buffer[end + len(word) + 1 :]
                return lines
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineFailure(f"engine {self.name!r}: no {word.decode()} in {seconds:g} s")
            self._fill(left)

    def new_game(self) -> None:
        """ucinewgame, isready / readyok (no search may be pending)."""
        self.send(b"ucinewgame\nisready\n")
        self._lines_until(b"readyok", 60.0)

    def result(self, queued: int = 0) -> tuple[str, str, int | None]:
        """The next search's best move, its expected reply ("" if none) and its last exact
        score (ferz's centipawns, mates as Score.to_cp gives them; None if it gave none).
        With `queued` searches or more in flight, an empty buffer is read a moment later, a
        few results at once (fewer reads and wake-ups on both sides; the engine has work)."""
        while True:
            # (at the start of a line: an info string may say the word too)
            if self._buffer.startswith(b"bestmove "):
                end = 0
            else:
                end = self._buffer.find(b"\nbestmove ")
                end += 1 if end >= 0 else 0
            if end >= 0:
                stop = self._buffer.find(b"\n", end)
                if stop >= 0:
                    break
            if queued >= BATCH:
                self.flush()
                time.sleep(BATCH_SECONDS)
                queued = 0
            self._fill(STALL_SECONDS)
        head, line = self._buffer[:end], self._buffer[end + 9 : stop]
        self._buffer = self._buffer[stop + 1 :]
        words = line.split()
        if not words or words[0] in (b"(none)", b"0000"):
            raise EngineFailure(f"engine {self.name!r}: bestmove without a move")
        ponder = words[2].decode() if len(words) > 2 and words[1] == b"ponder" else ""
        return words[0].decode(), ponder, last_score(head)

    def kill(self) -> None:
        """End the process now (its reader then meets the end of its output)."""
        with contextlib.suppress(OSError):
            self.proc.kill()

    def close(self) -> None:
        """quit, then end the process if it lingers."""
        with contextlib.suppress(OSError):
            os.write(self._in, b"quit\n")
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()


def last_score(text: bytes) -> int | None:
    """The last exact score of some info lines (bound scores are skipped, as the match
    driver skips them), in centipawns with mates as Score.to_cp gives them."""
    at = len(text)
    while True:
        at = text.rfind(b" score ", 0, at)
        if at < 0:
            return None
        words = text[at + 7 : text.find(b"\n", at) if b"\n" in text[at:] else len(text)].split()
        if len(words) >= 2 and words[0] in (b"cp", b"mate"):
            if len(words) > 2 and words[2] in (b"lowerbound", b"upperbound"):
                continue
            try:
                value = int(words[1])
            except ValueError:
                continue
            return value if words[0] == b"cp" else Score(mate=value).to_cp()


# ------------------------------------------------------------------------------ fast paths


class FastFen:
    """The FEN of a board's position as Board.fen writes it, some ten times sooner, for the
    variants whose FEN is placement, side, castling, e.p. and clocks with one-letter pieces
    on at most 9 files (chess, Chess960, xiangqi, atomic...); `supported` is False for the
    others (hands, gates, check counts, counting rules), which use Board.fen."""

    def __init__(self, rules: Rules) -> None:
        """Tables of one variant's rules."""
        letters = [piece.letter for piece in rules.pieces]
        self.supported = (
            not (rules.drops or rules.seirawan_gating or rules.check_counting)
            and not rules.cambodian_moves
            and rules.counting_rule == "none"
            and rules.files <= 9
            and all(len(letter) == 1 for letter in letters)
        )
        self.rules = rules
        # each square's code (a byte of the int mailbox) to its letter; empty squares to "1"
        table = bytearray(b"1" * 256)
        for index, letter in enumerate(letters if self.supported else []):
            table[2 * (index + 1)] = ord(letter.upper())
            table[2 * (index + 1) + 1] = ord(letter.lower())
        self.table = bytes(table)
        # the castling rooks' codes kept, every other code 0 (the castling field's cache key)
        rooks = bytearray(256)
        if rules.castling_rook in letters:
            rook = 2 * (letters.index(rules.castling_rook) + 1)
            rooks[rook], rooks[rook + 1] = rook, rook + 1
        elif rules.castling:
            self.supported = False  # (castling with a piece of another name: Board.fen)
        self.rooks = bytes(rooks)
        self.rows = [
            (rules.square(0, rank), rules.square(0, rank) + rules.files)
            for rank in range(rules.ranks - 1, -1, -1)
        ]
        # runs of empty squares, the longest first (one digit each: at most 9 files)
        self.runs = [("1" * n, str(n)) for n in range(rules.files, 1, -1)]
        self.castling: dict[tuple[int, int, int, bytes], str] = {}
        self.known: dict[bytes, str] = {}  # the FEN text of a rank's codes
        # (the castling field's cache needs the kings: giveaway's castling king is no royal)
        self.supported = self.supported and any(piece.royal for piece in rules.pieces)

    def __call__(self, board: Board) -> str:
        """The position's FEN."""
        if not self.supported:
            return board.fen()
        pos = board.position
        codes = memoryview(pos.board).tobytes()[::4]  # the low byte of each int (codes < 256)
        rows = []
        known = self.known
        for start, stop in self.rows:
            cells = codes[start:stop]
            row = known.get(cells)
            if row is None:  # (rows recur: most of them are found here)
                row = cells.translate(self.table).decode()
                for run, digit in self.runs:
                    row = row.replace(run, digit)
                if len(known) > 1_000_000:
                    known.clear()
                known[cells] = row
            rows.append(row)
        castling = "-"
        if pos.castling:
            # the field depends on the rights, the kings and the rooks on the two castling
            # ranks (Board.fen's X-FEN test of the outermost rook)
            bottom, top = self.rows[-1], self.rows[0]
            ranks = codes[bottom[0] : bottom[1]] + codes[top[0] : top[1]]
            key = (pos.castling, pos.royal[0], pos.royal[1], ranks.translate(self.rooks))
            castling = self.castling.get(key, "")
            if not castling:
                if len(self.castling) > 100_000:
                    self.castling.clear()
                castling = self.castling[key] = board.fen().split()[2]
        ep = self.rules.square_name(pos.ep) if pos.ep else "-"
        side = "b" if pos.side else "w"
        return f"{'/'.join(rows)} {side} {castling} {ep} {pos.halfmove} {pos.game_ply // 2 + 1}"


def engine_move(board: Board, text: str, legal: list[int] | None = None) -> Move | None:
    """The legal move an engine's text means (referee.find_move's answer), found without
    spelling out every legal move for a plain move such as e2e4 (`legal`: the position's
    legal move codes where the caller has them)."""
    if len(text) == 4 and text[0].isalpha() and text[2].isalpha():
        rules = board.rules
        try:
            fr = rules.square(ord(text[0]) - 97, int(text[1]) - 1)
            to = rules.square(ord(text[2]) - 97, int(text[3]) - 1)
        except ValueError:
            return find_move(board, text)
        squares = fr | to << 9  # the origin and target fields of a move code (core.defs)
        if legal is None:
            legal = board.position.legal_moves()
        same = [code for code in legal if code & 0x3FFFF == squares]
        if len(same) == 1 and move_kind(same[0]) not in (CASTLE, PROMO):
            return Move(same[0], text)
    return find_move(board, text)


# ------------------------------------------------------------------------------ games


@dataclass
class _Game:
    """One game in play: its board, the searches it has had, the positions it may keep."""

    number: int
    board: Board
    first: int  # plies of the opening
    rng: random.Random | None
    fen: str = ""  # of the position searched now
    # the last search's expected reply to its best move, if that move was played, and its
    # score for the side to move then
    ponder: str = ""
    ponder_score: int | None = None
    plies: int = 0  # engine plies played
    scores: tuple[list[int | None], list[int | None]] = ([], [])  # White's view, per side
    # (ply, FEN, score, flags) of the positions that pass the filters known before the end
    candidates: list[tuple[int, str, int, int]] = field(default_factory=list)
    legal: list[int] = field(default_factory=list)  # the legal move codes of the position now
    material: tuple[int, int] = (-1, -1)  # the piece counts when the material was last weighed
    counts: dict[int, int] = field(default_factory=dict)  # occurrences of each position key
    keys: list[int] = field(default_factory=list)  # the keys of the game's positions, in order
    repeated: bool = False  # some position of the game has occurred twice
    result: str = ""
    reason: str = ""
    adjudicated: bool = False
    full: bool = True  # the search in flight is a label search


@dataclass
class Stats:
    """What a chunk's play cost: searches at the full budget, cheap ones, games dropped."""

    searches: int = 0
    cheap: int = 0
    predicted: int = 0  # moves played from the previous search's expected reply
    lost_openings: int = 0


def play_chunk(
    engine: UciProcess,
    recipe: Recipe,
    openings: list[Opening],
    first_game: int,
    stats: Stats | None = None,
) -> list[list[TrainingRecord]]:
    """Play a chunk's games, interleaved on one engine; each game's kept positions (before
    deduplication), in game order."""
    stats = stats if stats is not None else Stats()
    fen = FastFen(rules_for(recipe.variant))
    engine.new_game()
    adjudication = Adjudication(
        recipe.resign_score, recipe.resign_moves, max_moves=recipe.max_moves
    )
    cheap = max(1, recipe.nodes // 8)
    full_go, cheap_go = f"go nodes {recipe.nodes}\n", f"go nodes {cheap}\n"
    games = []
    while len(engine.boards) < len(openings):  # a new Board costs about a millisecond
        engine.boards.append(Board(variant=recipe.variant))
    for offset, start in enumerate(openings):
        board = engine.boards[offset]
        board.set_fen(start.fen)
        keys = [board.position.key]  # the opening's positions count for repetitions too
        for move in start.moves:
            board.push_uci(move)
            keys.append(board.position.key)
        number = first_game + offset
        rng = random.Random(f"{recipe.seed}:{recipe.variant}:selfplay {number}")
        game = _Game(number, board, len(start.moves), rng if recipe.random_moves else None)
        game.scores = ([], [])
        game.keys = keys
        for key in keys:
            game.counts[key] = game.counts.get(key, 0) + 1
        game.repeated = len(game.counts) != len(keys)
        games.append(game)
    queue: list[_Game] = []  # games whose search is in flight, in the engine's order

    def ask(game: _Game) -> bool:
        """Play the game on to its next search and write it (a full one unless the position
        cannot be kept); False if the game ended first."""
        board = game.board
        while game.ponder:
            reply = _predicted(game, recipe)
            if not reply:
                break
            stats.predicted += 1
            if not _ply(game, reply, "", game.ponder_score, recipe, stats, searched=False):
                return False
            if _over(game, adjudication):
                return False
        game.full = game.plies == 0 or recipe.keep_checks or not board.is_check()
        game.fen = fen(board)
        go = full_go if game.full else cheap_go
        engine.post(f"position fen {game.fen}\n{go}".encode())
        queue.append(game)
        if game.full:
            stats.searches += 1
        else:
            stats.cheap += 1
        return True

    for game in games:
        if _over(game, adjudication):
            continue
        ask(game)
    head = 0
    while head < len(queue):
        game = queue[head]
        head += 1
        try:
            text, ponder, score = engine.result(len(queue) - head)
        except EngineFailure as failure:  # (say where: a position may crash an engine)
            raise EngineFailure(f"{failure}, searching game {game.number}: {game.fen}") from None
        if _ply(game, text, ponder, score, recipe, stats) and not _over(game, adjudication):
            ask(game)
        if head > 4096:  # drop the consumed front now and then (the queue is a list)
            del queue[:head]
            head = 0
    return [_kept(game, recipe) for game in games]


def _predicted(game: _Game, recipe: Recipe) -> str:
    """The expected reply of the game's last search when its position would be dropped
    whatever a search said (the side to move in check, or a reply that captures, promotes
    or checks: the best move there is most likely tactical), else "" (search it)."""
    board, ponder = game.board, game.ponder
    game.ponder = ""
    reply = engine_move(board, ponder, game.legal)
    if reply is None:
        return ""
    if board.is_check() and not recipe.keep_checks:
        return ponder
    if recipe.keep_tactical:
        return ""
    if (
        board.is_capture(reply)
        or promotes(reply.uci())
        or attacks.gives_check(board.position, reply.code)
    ):
        return ponder
    return ""


def _ply(
    game: _Game,
    text: str,
    ponder: str,
    score: int | None,
    recipe: Recipe,
    stats: Stats,
    searched: bool = True,
) -> bool:
    """Play the engine's answer (or, not `searched`, the reply its last search expected);
    False when the game ends here (its opening was lost)."""
    board = game.board
    best = engine_move(board, text, game.legal)
    if best is None:
        raise EngineFailure(f"the engine played {text!r}, no legal move in {board.fen()}")
    if game.plies == 0 and (score is None or abs(score) > recipe.max_opening_score):
        game.result, game.reason = "*", "opening lost"  # the filters drop the whole game
        stats.lost_openings += 1
        return False
    white = board.turn
    candidate = searched and game.full and score is not None and abs(score) <= recipe.score_cap
    flags = FLAG_CHECK if board.is_check() else 0
    if candidate:
        flags |= FLAG_CAPTURE if board.is_capture(best) else 0
        flags |= FLAG_PROMOTION if promotes(best.uci()) else 0
    move = best
    if game.rng is not None and game.rng.random() < recipe.random_moves:
        code = game.rng.choice(game.legal)  # (Board.legal_moves' order: the same choice)
        move = Move(code, board.uci(Move(code, "")))
        flags |= FLAG_RANDOM
    if candidate and move is not best:
        flags |= FLAG_GIVES_CHECK if attacks.gives_check(board.position, best.code) else 0
    board.push(move)
    if candidate and move is best:
        flags |= FLAG_GIVES_CHECK if board.is_check() else 0
    # (the tail flag waits for the game's end: keep() passes it for now)
    if candidate and keep(flags, recipe):
        game.candidates.append((game.plies, game.fen, score, flags))
    game.plies += 1
    game.scores[0 if white else 1].append(None if score is None else score if white else -score)
    if searched and move is best and ponder:
        game.ponder, game.ponder_score = ponder, None if score is None else -score
    key = board.position.key
    count = game.counts[key] = game.counts.get(key, 0) + 1
    game.keys.append(key)
    game.repeated = game.repeated or count > 1
    return True


def _over(game: _Game, adjudication: Adjudication) -> bool:
    """Whether the game has ended (the referee's order: the rules, then adjudication, then
    the longest game), its result and reason set if so."""
    board = game.board
    outcome = board.outcome(claim_draw=_may_claim(game)) if _may_end(game) else None
    if outcome is not None:
        game.result, game.reason = outcome.result(), outcome.reason()
        return True
    # (adjudication needs the move limit, or the last score past the resign score: the
    # draw rule is off; its lists are not sliced every ply for nothing)
    last = game.scores[0 if board.turn else 1]
    decided = None
    if game.plies >= 2 * adjudication.max_moves or (
        last and last[-1] is not None and abs(last[-1]) >= adjudication.resign_score
    ):
        decided = adjudication.decide(game.scores[0], game.scores[1], game.plies)
    if decided is None and board.position.ply >= MAX_GAME_PLY:
        decided = "1/2-1/2", f"draw: {MAX_GAME_PLY} plies, the longest game the referee keeps"
    if decided is not None:
        (game.result, game.reason), game.adjudicated = decided, True
        return True
    return False


def _may_end(game: _Game) -> bool:
    """Whether Board.outcome could find the game over (else it is not asked: it counts every
    repetition and weighs the material each time): a variant rule's end, no legal move, a
    count, material that changed (a capture or a promotion; any move in a variant with
    drops), the 75-move rule, a fivefold repetition or a claim; keeps the legal moves."""
    board = game.board
    pos, rules = board.position, board.rules
    game.legal = pos.legal_moves()
    if endrules.end_value(pos) != NO_END or not game.legal:
        return True
    if endrules.counting_over(pos) or endrules.promotions_only(pos):
        return True
    # (bishops keep their square colour: only captures and promotions change the verdict)
    material = (pos.pcount[0], pos.pcount[1])
    promoted = bool(board.move_stack) and move_kind(board.move_stack[-1].code) == PROMO
    if material != game.material or promoted or rules.drops:
        game.material = material
        if board.is_insufficient_material():
            return True
    if board.is_seventyfive_moves() or game.counts.get(pos.key, 0) >= 5:
        return True
    return _may_claim(game)


def _may_claim(game: _Game) -> bool:
    """Whether a draw claim could hold here: the n-move rule is one ply away or reached, or
    some position of the game has occurred twice (a claimed n-fold repetition needs one);
    otherwise the claim tests, a make/unmake of every legal move, are skipped."""
    rules, board = game.board.rules, game.board
    if rules.n_move_rule > 0 and board.halfmove_clock >= 2 * rules.n_move_rule - 1:
        return True
    if rules.n_fold_rule <= 2 or not game.repeated:
        return rules.n_fold_rule <= 2
    if rules.drops or rules.n_move_rule <= 0:
        return True
    # only the positions since the last capture or pawn move can occur again
    window = game.keys[-1 - board.halfmove_clock :]
    return len(window) != len(set(window))


def _kept(game: _Game, recipe: Recipe) -> list[TrainingRecord]:
    """The finished game's positions that pass every filter, with results and flags."""
    white = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}.get(game.result)
    if white is None:
        return []
    by_score = game.adjudicated and not game.reason.startswith("move limit")
    tail = game.plies - 2 * recipe.resign_moves if by_score else game.plies
    kept = []
    for ply, fen, score, flags in game.candidates:
        flags |= FLAG_ADJUDICATED if game.adjudicated else 0
        flags |= FLAG_TAIL if ply >= tail else 0
        if flags & FLAG_TAIL and not recipe.keep_tails:
            continue
        result = white if fen.split(" ", 2)[1] == "w" else -white
        kept.append(TrainingRecord(fen, score, result, game.first + ply, game.number, flags))
    return kept


# ------------------------------------------------------------------------------ lanes


def play_chunks(
    make_engine: Callable[[], UciProcess],
    chunks: list[int],
    play: Callable[[UciProcess, int], object],
    lanes: int,
    done: Callable[[int, object], None],
) -> None:
    """Play `chunks` on `lanes` engines at once (threads, each with its own long-lived
    engine), handing each chunk's output to `done` in chunk order; the first failure stops
    the others and is raised."""
    results: dict[int, object] = {}
    failure: list[BaseException] = []
    engines: list[UciProcess] = []
    lock = threading.Condition()
    todo = list(chunks)

    def lane() -> None:
        """Take the next chunk, play it, until none is left or something failed."""
        engine = None
        try:
            engine = make_engine()
            with lock:
                engines.append(engine)
            while True:
                with lock:
                    if not todo or failure:
                        return
                    chunk = todo.pop(0)
                out = play(engine, chunk)
                with lock:
                    results[chunk] = out
                    lock.notify_all()
        except BaseException as error:  # handed to the main thread, which raises it
            with lock:
                failure.append(error)
                lock.notify_all()
        finally:
            if engine is not None:
                engine.close()

    threads = [threading.Thread(target=lane, daemon=True) for _ in range(max(1, lanes))]
    for thread in threads:
        thread.start()
    try:
        for chunk in chunks:
            with lock:
                while chunk not in results and not failure:
                    lock.wait(0.5)
                if chunk not in results:
                    raise failure[0]
                out = results.pop(chunk)
            done(chunk, out)
    except BaseException:
        # (a Ctrl-C or a failure: the chunks in play are lost anyway, and a lane waiting on
        # its engine ends at once when the engine does)
        with lock:
            todo.clear()
            for engine in engines:
                engine.kill()
        raise
    finally:
        with lock:
            todo.clear()  # the lanes stop after their chunk in play
        for thread in threads:
            thread.join()
