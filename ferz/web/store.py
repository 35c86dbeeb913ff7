"""SQLite storage of games: every change is written at once, so a restart loses nothing."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .seats import legacy_seats

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    variant TEXT NOT NULL,
    start_fen TEXT NOT NULL,
    settings TEXT NOT NULL,
    moves TEXT NOT NULL DEFAULT '',
    clock_white INTEGER,
    clock_black INTEGER,
    result TEXT,
    termination TEXT,
    evals TEXT NOT NULL DEFAULT '{}',
    turn_started_at REAL,
    tags TEXT NOT NULL DEFAULT '{}',
    seats TEXT NOT NULL DEFAULT '{}',
    tree TEXT NOT NULL DEFAULT '',
    owner TEXT
);
CREATE INDEX IF NOT EXISTS games_updated ON games(updated);
-- people: a player id (players.player_id) with the name chosen at the first visit, unique
-- whatever the case (name_key: the name in lower case); password: an account's scrypt hash
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    created REAL NOT NULL,
    password TEXT
);
-- a browser logged in to an account: its own token's id -> the account's player id
CREATE TABLE IF NOT EXISTS logins (
    token TEXT PRIMARY KEY,
    player TEXT NOT NULL,
    created REAL NOT NULL
);
-- Glicko-2 ratings per player (a person's id, or a bot's key ferz:LEVEL), variant and speed
CREATE TABLE IF NOT EXISTS ratings (
    player TEXT NOT NULL,
    variant TEXT NOT NULL,
    speed TEXT NOT NULL,
    rating REAL NOT NULL,
    rd REAL NOT NULL,
    vol REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    updated REAL NOT NULL,
    PRIMARY KEY (player, variant, speed)
);
-- each rated game's rating changes, written with them: a game is rated once, whatever happens
CREATE TABLE IF NOT EXISTS rated_games (
    game TEXT PRIMARY KEY,
    changes TEXT NOT NULL,
    applied REAL NOT NULL
);
"""
COLUMNS = (
    "id, created, updated, variant, start_fen, settings, moves,"
    " clock_white, clock_black, result, termination, evals, turn_started_at, tags, seats, owner"
)
# PRAGMA user_version: 0/1 before seats (a game was "the person vs ferz"), 2 with seats, 3 with
# names, accounts and ratings (their tables) and the games' owner (who created or imported it).
VERSION = 3
# The analysis tree (ferz.web.tree's JSON) is written on its own (save_tree): a game's other
# columns are written after every move, and must not wipe the tree.
TREE = "tree"
# Columns added since the first version, with their definitions (old files are upgraded).
ADDED = {
    "evals": "TEXT NOT NULL DEFAULT '{}'",
    "turn_started_at": "REAL",
    "tags": "TEXT NOT NULL DEFAULT '{}'",
    "seats": "TEXT NOT NULL DEFAULT '{}'",
    "tree": "TEXT NOT NULL DEFAULT ''",
    "owner": "TEXT",
}
STATUSES = ("all", "playing", "finished", "imported")


@dataclass
class StoredGame:
    """One stored game: what is needed to rebuild it exactly."""

    id: str
    created: float
    updated: float
    variant: str
    start_fen: str
    settings: dict[str, Any]
    moves: list[str] = field(default_factory=list)
    clock_white: int | None = None
    clock_black: int | None = None
    result: str | None = None
    termination: str | None = None
    evals: dict[int, str] = field(default_factory=dict)  # ply -> engine's eval, White's side
    turn_started_at: float | None = None  # wall-clock time the running clock started
    tags: dict[str, str] = field(default_factory=dict)  # PGN tags kept from an import
    seats: dict[str, Any] = field(default_factory=dict)  # colour -> seats.Seat's stored form
    tree: str = ""  # the analysis tree (ferz.web.tree JSON; "" none), read-only here: save_tree
    owner: str | None = None  # the player id of who created or imported it (None: unknown)


def default_path() -> Path:
    """The default database: $XDG_DATA_HOME/ferz/games.sqlite3 (~/.local/share/...)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "ferz" / "games.sqlite3"


class Store:
    """Games in one SQLite file; safe to call from the event loop and from threads."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        path = Path(path)
        if str(path) != ":memory:":
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                reason = error.strerror or error
                raise ValueError(f"cannot open the games database {path}: {reason}") from None
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(games)")}
            for name, definition in ADDED.items():
                if name not in columns:  # a database from an older version
                    self._db.execute(f"ALTER TABLE games ADD COLUMN {name} {definition}")
            self._migrate()
        except sqlite3.DatabaseError as error:
            raise ValueError(f"cannot open the games database {path}: {error}") from None

    def _migrate(self) -> None:
        """Bring an older database to VERSION in one transaction: version 2 gives every game
        stored before seats its seats (ferz's side and an open person's side); version 3
        gives each played game its owner (the person on the creator's side, when known)."""
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version >= VERSION:
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            rows = self._db.execute("SELECT id, settings FROM games WHERE seats = '{}'").fetchall()
            for gid, settings in rows:
                try:
                    stored = json.loads(settings)
                except ValueError:
                    stored = {}
                seats = legacy_seats(stored if isinstance(stored, dict) else {})
                self._db.execute(
                    "UPDATE games SET seats = ? WHERE id = ?", (json.dumps(seats), gid)
                )
            self._db.execute(
                "UPDATE games SET owner = json_extract(seats, '$.' ||"
                " coalesce(json_extract(settings, '$.human'), 'white') || '.player')"
                " WHERE owner IS NULL"
            )
            self._db.execute(f"PRAGMA user_version = {VERSION}")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """The connection inside one write transaction, the store's lock held: all that is
        written in it is kept, or none of it if an exception leaves it."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """The rows a read-only statement gives."""
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()

    def save(self, rec: StoredGame) -> None:
        """Insert or replace a game."""
        row = (
            rec.id,
            rec.created,
            rec.updated,
            rec.variant,
            rec.start_fen,
            json.dumps(rec.settings, sort_keys=True),
            " ".join(rec.moves),
            rec.clock_white,
            rec.clock_black,
            rec.result,
            rec.termination,
            json.dumps({str(ply): text for ply, text in rec.evals.items()}),
            rec.turn_started_at,
            json.dumps(rec.tags, sort_keys=True),
            json.dumps(rec.seats, sort_keys=True),
            rec.owner,
        )
        names = [name.strip() for name in COLUMNS.split(",")]
        update = ", ".join(f"{name} = excluded.{name}" for name in names[1:])
        with self._lock:
            self._db.execute(
                f"INSERT INTO games ({COLUMNS}) VALUES ({', '.join('?' * len(names))})"
                f" ON CONFLICT(id) DO UPDATE SET {update}",
                row,
            )

    def save_tree(self, game_id: str, tree: str) -> bool:
        """Keep a game's analysis tree; False if there is no such game."""
        with self._lock:
            cursor = self._db.execute(f"UPDATE games SET {TREE} = ? WHERE id = ?", (tree, game_id))
        return cursor.rowcount > 0

    def delete(self, game_id: str) -> bool:
        """Remove a game; False if there was none."""
        with self._lock:
            cursor = self._db.execute("DELETE FROM games WHERE id = ?", (game_id,))
        return cursor.rowcount > 0

    def load(self, game_id: str) -> StoredGame | None:
        """The game with this id, or None."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {COLUMNS}, {TREE} FROM games WHERE id = ?", (game_id,)
            ).fetchone()
        return None if row is None else _record(row)

    def list(
        self,
        limit: int = 50,
        offset: int = 0,
        status: str = "all",
        variant: str | None = None,
        player: str | None = None,
        owned: bool = False,
    ) -> tuple[list[StoredGame], int]:
        """One page of games, most recently changed first, and how many match in all.

        `status`: all, playing (unfinished, not imported), finished, imported; `player`: only
        the games where that player id holds a seat (and, with `owned`, those it created or
        imported).
        """
        where, args = self._filter(status, variant, player, owned)
        with self._lock:
            total = self._db.execute(f"SELECT COUNT(*) FROM games{where}", args).fetchone()[0]
            rows = self._db.execute(
                f"SELECT {COLUMNS} FROM games{where} ORDER BY updated DESC, id LIMIT ? OFFSET ?",
                (*args, limit, offset),
            ).fetchall()
        return [_record(row) for row in rows], total

    @staticmethod
    def _filter(
        status: str, variant: str | None, player: str | None = None, owned: bool = False
    ) -> tuple[str, tuple[Any, ...]]:
        """The WHERE clause (with its parameters) of a games-list filter."""
        if status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}")
        clauses: list[str] = []
        args: list[Any] = []
        imported = "json_extract(settings, '$.imported') = 1"
        if status == "playing":
            clauses.append(f"result IS NULL AND NOT coalesce({imported}, 0)")
        elif status == "finished":
            clauses.append(f"result IS NOT NULL AND NOT coalesce({imported}, 0)")
        elif status == "imported":
            clauses.append(imported)
        if variant is not None:
            clauses.append("variant = ?")
            args.append(variant)
        if player is not None:
            seated = (
                "json_extract(seats, '$.white.player') = ?"
                " OR json_extract(seats, '$.black.player') = ?"
            )
            if owned:
                clauses.append(f"({seated} OR owner = ?)")
                args += [player, player, player]
            else:
                clauses.append(f"({seated})")
                args += [player, player]
        return (" WHERE " + " AND ".join(clauses) if clauses else ""), tuple(args)

    def unfinished(self, limit: int) -> list[StoredGame]:
        """Games still being played (not imported), most recently changed first."""
        records, _ = self.list(limit=limit, status="playing")
        return records


def _record(row: tuple[Any, ...]) -> StoredGame:
    """A database row as a StoredGame."""
    (gid, created, updated, variant, fen, settings, moves, white, black, result, end) = row[:11]
    evals, started_at, tags, seats, owner = row[11:16]
    rec = StoredGame(gid, created, updated, variant, fen, json.loads(settings), moves.split())
    rec.clock_white, rec.clock_black, rec.result, rec.termination = white, black, result, end
    rec.evals = {int(ply): text for ply, text in json.loads(evals).items()}
    rec.turn_started_at = started_at
    rec.tags = json.loads(tags or "{}")
    rec.seats = json.loads(seats or "{}")
    rec.owner = owner
    rec.tree = row[16] if len(row) > 16 else ""
    return rec
