"""The opening explorer: an index in the server's SQLite of the moves played from each position
in the games ferz knows (the games finished on this server, and PGN databases imported through
the page), answered in the shape of lichess's explorer.

A row per (variant, position key, move): the games through the move, White's wins, draws,
Black's wins, and the sum and number of the games' ratings (where the tags give an Elo). The
position key is the one `ferz book` uses in chess and Chess960, the Polyglot hash
(`ferz.book.polyglot_key`), and in every other variant ferz's own Zobrist key of the position
(`Position.key`: pieces, side, castling, e.p., hands, checks given), stored as a signed 64-bit
integer; the variant is part of the key. Only the first MAX_PLY plies of each game's main line
are indexed (as lichess bounds its index), read by ferz.pgn's streaming reader as `ferz book
build --max-ply 30` reads them (`pgn.stream_mainlines`: core move codes, the chess keys in
compiled code as book.BookBuilder makes them), so the two count the same games the same way.
"""

from __future__ import annotations

import io
import threading
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from .. import book, pgn
from ..board import Board, IllegalMoveError
from ..core import polyglot as _polyglot
from .boards import known_variant, move_text, new_board
from .game import GameSettings
from .seats import legacy_seats, load_seats
from .store import Store, StoredGame

MAX_PLY = 30  # plies of each game indexed
# The largest PGN a browser may upload: a month of a club's games, 30 000 lichess games with
# clocks; bigger databases are for `ferz book build`, which streams a file of any size.
MAX_DATABASE_BYTES = 32 * 1024 * 1024
BATCH_GAMES = 500  # games counted in memory between two writes (each a short transaction)
MAX_REPORTED = 50  # bad games listed in an import's answer (all are counted)
POLYGLOT = ("chess", "chess960")  # keyed as ferz book keys them
RESULTS = {"1-0": (1, 0, 0), "1/2-1/2": (0, 1, 0), "0-1": (0, 0, 1)}  # white, draws, black

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS explorer (
        variant TEXT NOT NULL,
        key INTEGER NOT NULL,
        move TEXT NOT NULL,
        games INTEGER NOT NULL,
        white INTEGER NOT NULL,
        draws INTEGER NOT NULL,
        black INTEGER NOT NULL,
        rating_sum INTEGER NOT NULL,
        rating_n INTEGER NOT NULL,
        PRIMARY KEY (variant, key, move)
    ) WITHOUT ROWID""",
    # the server's finished games already counted: each is counted once, whatever happens
    "CREATE TABLE IF NOT EXISTS explorer_games (game TEXT PRIMARY KEY, added REAL NOT NULL)",
)
UPSERT = (
    "INSERT INTO explorer VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT(variant, key, move) DO UPDATE SET games = games + excluded.games,"
    " white = white + excluded.white, draws = draws + excluded.draws,"
    " black = black + excluded.black, rating_sum = rating_sum + excluded.rating_sum,"
    " rating_n = rating_n + excluded.rating_n"
)
# Tally: (variant, key, move) -> [games, white, draws, black, rating sum, ratings]
Tally = dict[tuple[str, int, str], list[int]]


def _signed(key: int) -> int:
    """A 64-bit key as SQLite's signed INTEGER."""
    return key - (1 << 64) if key >= 1 << 63 else key


def position_key(board: Board) -> int:
    """The explorer's key of a board's position (signed 64 bits): Polyglot's in chess and
    Chess960, ferz's Zobrist key in other variants."""
    pos = board.position
    if board.rules.name in POLYGLOT:
        return _signed(book.polyglot_key(pos, board.rules))
    return _signed(pos.key)


def game_rating(headers: dict[str, str]) -> int | None:
    """The mean of a game's WhiteElo and BlackElo tags that hold a rating, or None."""
    found = []
    for tag in ("WhiteElo", "BlackElo"):
        value = headers.get(tag, "").strip()
        if value.isdigit() and 0 < int(value) < 5000:
            found.append(int(value))
    return round(sum(found) / len(found)) if found else None


class _Walker:
    """Plays lines of moves to list their positions' keys, a Board kept per start."""

    def __init__(self) -> None:
        """No board yet: one is made per (variant, start) met."""
        self.boards: dict[tuple[str, str | None], tuple[Board, dict]] = {}
        self.polyglot: dict[int, int] = {}  # core key -> Polyglot key, of chess positions met
        self.tables: dict[int, tuple] = {}  # id(rules) -> core/polyglot.py's tables
        # core/polyglot.py writes a line's keys here (unsigned); `signed` reads them as SQLite
        # stores them
        self.keys, self.vals = array("Q", bytes(8 * MAX_PLY)), array("I", bytes(4 * MAX_PLY))
        self.signed = memoryview(self.keys).cast("B").cast("q")

    def _board(self, variant: str, fen: str | None) -> tuple[Board, dict]:
        """The walker's board at a start (None: the variant's), and its cache of move texts;
        ValueError for a bad FEN."""
        found = self.boards.get((variant, fen))
        if found is None:
            if len(self.boards) > 64:
                self.boards.clear()
            found = self.boards[(variant, fen)] = (new_board(fen, variant), {})
        return found

    def code_pairs(
        self, variant: str, fen: str | None, codes: Sequence[int]
    ) -> list[tuple[int, str]]:
        """pairs() of a legal line given as core codes (what pgn.stream_mainlines reads):
        in chess and Chess960 the keys are written in compiled code (core/polyglot.py, the
        BookBuilder's walk), in other variants read from the core's key move by move; the
        moves as UCI texts. ValueError for a bad FEN or an illegal move."""
        board, texts = self._board(variant, fen)
        n = min(len(codes), MAX_PLY)
        line = codes[:n]
        pos = board.position
        out = []
        if board.rules.name in POLYGLOT:
            tables = self.tables.get(id(board.rules))
            if tables is None:
                tables = self.tables[id(board.rules)] = book.record_tables(board.rules)
            if not isinstance(line, array) or line.typecode != "i":
                line = array("i", line)
            if _polyglot.records(pos, line, n, -1, tables, self.keys, self.vals, 0) < 0:
                raise ValueError(f"an illegal move in a game from {board.fen()}")
            signed = self.signed
            for i, code in enumerate(line):
                # a pawn's promotion is the only move whose text reads the board: the same
                # text for a code in every chess position
                text = texts.get(code)
                if text is None:
                    text = texts[code] = board._uci_text(code)
                out.append((signed[i], text))
            return out
        played = 0
        try:
            for code in line:
                key, text = _signed(pos.key), board._uci_text(code)
                if not pos.make(code):
                    raise ValueError(f"illegal move {text!r} in {pos.fen()}")
                played += 1
                out.append((key, text))
        finally:
            for _ in range(played):
                pos.unmake()
        return out

    def pairs(self, variant: str, fen: str | None, moves: list[str]) -> list[tuple[int, str]]:
        """(key, move) of the first MAX_PLY moves of a legal line from `fen` (None: the
        variant's start); ValueError for a bad FEN or an illegal move."""
        board, cache = self._board(variant, fen)
        moves = moves[:MAX_PLY]
        out = []
        if board.rules.name in POLYGLOT:  # the book's own walk: the same keys, the same moves
            pos, played, keys = board.position, 0, self.polyglot
            if len(keys) > 500_000:
                keys.clear()
            try:
                for text in moves:
                    code = book.move_code(board, text, cache)
                    # the Polyglot key is summed over the pieces; the core's own key is kept
                    # up to date as moves are made: positions met before (a database's
                    # openings) are looked up by it
                    key = keys.get(pos.key)
                    if key is None:
                        key = keys[pos.key] = _signed(book.polyglot_key(pos, board.rules))
                    if not pos.make(code):
                        raise ValueError(f"illegal move {text!r} in {pos.fen()}")
                    played += 1
                    out.append((key, text))
            finally:
                for _ in range(played):
                    pos.unmake()
            return out
        played = 0
        try:
            for text in moves:
                key = position_key(board)
                try:
                    board.push_uci(text)
                except IllegalMoveError as error:
                    raise ValueError(str(error)) from None
                played += 1
                out.append((key, text))
        finally:
            for _ in range(played):
                board.pop()
        return out


def tally(
    counts: Tally, variant: str, pairs: list[tuple[int, str]], result: str, rating: int | None
) -> None:
    """Add one game's (key, move) pairs to counts in memory."""
    white, draws, black = RESULTS.get(result, (0, 0, 0))
    rated = 0 if rating is None else 1
    for key, move in pairs:
        row = counts.get((variant, key, move))
        if row is None:
            counts[(variant, key, move)] = [1, white, draws, black, rating or 0, rated]
        else:
            row[0] += 1
            row[1] += white
            row[2] += draws
            row[3] += black
            row[4] += rating or 0
            row[5] += rated


@dataclass
class ImportProgress:
    """What an import has done so far (read by the page's progress line while it runs)."""

    games: int = 0  # games read, good or bad
    indexed: int = 0  # games counted
    bad: int = 0
    skipped: int = 0  # good games of a variant the server cannot play
    errors: list[dict[str, Any]] = field(default_factory=list)  # the first MAX_REPORTED
    started: float = field(default_factory=time.monotonic)

    def json(self) -> dict[str, Any]:
        """The figures as the import's answer gives them."""
        return {
            "games": self.games,
            "indexed": self.indexed,
            "bad": self.bad,
            "skipped": self.skipped,
            "errors": self.errors,
            "seconds": round(time.monotonic() - self.started, 2),
        }


class Finished:
    """What add_played and the rating tags read of a stored finished game, without replaying
    it as a LiveGame (the SAN and positions of every move: slow for many games)."""

    def __init__(self, rec: StoredGame) -> None:
        self.id, self.variant, self.start_fen = rec.id, rec.variant, rec.start_fen
        self.moves, self.result, self.termination = rec.moves, rec.result, rec.termination
        self.settings = GameSettings.load(rec.settings)
        self.seats = load_seats(rec.seats or legacy_seats(rec.settings))


class Explorer:
    """The index over the store: counts games in, answers a position's moves."""

    def __init__(self, store: Store) -> None:
        self.store = store
        with store.transaction() as db:
            for statement in SCHEMA:
                db.execute(statement)
        self._done: set[str] = set()  # games of this server known to be counted
        self._lock = threading.Lock()  # one import at a time
        self.importing = False  # an import runs (the route refuses a second one)
        self._stopping = threading.Event()

    def write(self, counts: Tally) -> None:
        """Add counts to the index in one transaction."""
        if not counts:
            return
        rows = [(v, k, m, *figures) for (v, k, m), figures in counts.items()]
        with self.store.transaction() as db:
            db.executemany(UPSERT, rows)

    def add_played(self, game: Any, tags_of: Callable[[Any], dict[str, str]]) -> bool:
        """Count a game finished on this server (once: a game counted is remembered in
        explorer_games, in the transaction that counts it); aborted and imported games are
        not counted. `tags_of` gives its rating tags (WhiteElo, BlackElo). True if counted."""
        if (
            game.id in self._done
            or not game.result
            or game.result not in RESULTS
            or game.termination == "aborted"
            or game.settings.imported
        ):
            return False
        try:
            pairs = _Walker().pairs(game.variant, game.start_fen, list(game.moves))
        except ValueError:
            self._done.add(game.id)  # a line this version cannot replay: nothing to count
            return False
        counts: Tally = {}
        tally(counts, game.variant, pairs, game.result, game_rating(tags_of(game)))
        rows = [(v, k, m, *figures) for (v, k, m), figures in counts.items()]
        with self.store.transaction() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO explorer_games VALUES (?, ?)", (game.id, time.time())
            )
            counted = cursor.rowcount == 1
            if counted:
                db.executemany(UPSERT, rows)
        self._done.add(game.id)
        if len(self._done) > 100_000:
            self._done.clear()
        return counted

    def uncounted(self, limit: int = 100_000) -> list[str]:
        """The ids of finished games of this server not yet counted (from before the
        explorer, or finished as the server stopped)."""
        rows = self.store.query(
            "SELECT id FROM games WHERE result IN ('1-0', '0-1', '1/2-1/2')"
            " AND coalesce(termination, '') != 'aborted'"
            " AND NOT coalesce(json_extract(settings, '$.imported'), 0)"
            " AND id NOT IN (SELECT game FROM explorer_games) LIMIT ?",
            (limit,),
        )
        return [row[0] for row in rows]

    def catch_up(self, tags_of: Callable[[Any], dict[str, str]]) -> int:
        """Count the finished games not yet counted (from before the explorer, or finished as
        the server stopped), read from their rows without replaying them as live games; how
        many were counted. Runs in a thread at the server's start; `stop()` ends it early
        (the rest is counted at the next start)."""
        counted = 0
        for game_id in self.uncounted():
            if self._stopping.is_set():
                break
            rec = self.store.load(game_id)
            if rec is None:
                continue
            try:
                game = Finished(rec)
            except (ValueError, TypeError, KeyError):
                continue  # a row this version cannot read: not counted
            counted += self.add_played(game, tags_of)
        return counted

    def stop(self) -> None:
        """Ask a running catch_up to stop (the server is stopping)."""
        self._stopping.set()

    def import_pgn(
        self, handle: IO[str], variant: str = "chess", progress: ImportProgress | None = None
    ) -> ImportProgress:
        """Count every game of a PGN stream (games without a Variant tag are of `variant`),
        read a game at a time by ferz.pgn's streaming reader of main lines (core codes, no
        tree) and their first MAX_PLY plies; a bad game (an illegal move, a broken tag, a bad
        FEN) is reported with its line and left out, and the others are counted."""
        progress = progress or ImportProgress()
        walker = _Walker()
        counts: Tally = {}
        batch = 0
        with self._lock:
            for game in pgn.stream_mainlines(handle, variant, max_plies=MAX_PLY):
                progress.games += 1
                error = game.errors[0] if game.errors else None
                name = known_variant(game.variant) if error is None else None
                pairs: list[tuple[int, str]] = []
                if error is None and name is None:
                    progress.skipped += 1
                    continue
                if error is None and name is not None:
                    try:
                        pairs = walker.code_pairs(name, game.headers.get("FEN"), game.codes)
                    except ValueError as problem:
                        error = str(problem)
                if error is not None:
                    progress.bad += 1
                    if len(progress.errors) < MAX_REPORTED:
                        progress.errors.append({"game": progress.games, "error": error})
                    continue
                assert name is not None
                result = game.headers.get("Result", "*")
                tally(counts, name, pairs, result, game_rating(game.headers))
                progress.indexed += 1
                batch += 1
                if batch >= BATCH_GAMES:
                    self.write(counts)
                    counts, batch = {}, 0
            self.write(counts)
        return progress

    def import_text(self, text: str, variant: str = "chess") -> ImportProgress:
        """import_pgn of a PGN text."""
        return self.import_pgn(io.StringIO(text), variant)

    def lookup(self, variant: str, fen: str | None) -> dict[str, Any]:
        """The moves played from a position, as lichess's explorer answers: the position's
        White wins, draws and Black wins, and each move's (with `uci`, `san`, `text` as the
        page writes it, `games` with unknown results too, `averageRating` or None), most
        played first. ValueError for an unknown variant or a bad FEN."""
        name = known_variant(variant)
        if name is None:
            raise ValueError(f"unknown variant {variant[:40]!r}")
        board = new_board(fen, name)
        key = position_key(board)
        rows = self.store.query(
            "SELECT move, games, white, draws, black, rating_sum, rating_n FROM explorer"
            " WHERE variant = ? AND key = ?",
            (name, key),
        )
        moves = []
        for uci, games, white, draws, black, rating_sum, rating_n in rows:
            try:
                move = board.parse_uci(uci)
            except IllegalMoveError:
                continue  # another position with the same key: not a move here
            moves.append(
                {
                    "uci": uci,
                    "san": board.san(move),
                    "text": move_text(board, move),
                    "games": games,
                    "white": white,
                    "draws": draws,
                    "black": black,
                    "averageRating": rating_sum // rating_n if rating_n else None,
                }
            )
        moves.sort(key=lambda m: (-m["games"], m["uci"]))
        return {
            "white": sum(m["white"] for m in moves),
            "draws": sum(m["draws"] for m in moves),
            "black": sum(m["black"] for m in moves),
            "games": sum(m["games"] for m in moves),
            "moves": moves,
            "topGames": [],
            "opening": None,
        }
