"""People by name: the name a visitor chooses at the first visit, kept against their player id
(players.py), and the optional account (a password) that lets another browser log in as the
same player, with its name, games and ratings."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
import time
from collections import OrderedDict, deque

from .store import Store

NAME_RE = re.compile(r"[A-Za-z0-9_-]{2,20}")
NAME_RULE = "a name is 2 to 20 letters, digits, _ or -"
# Names a person may not take: ferz's bots are "ferz" and "ferz level N"; the rest would read
# as no one in particular.
RESERVED = re.compile(r"ferz.*|anonymous|white|black|you|opponent|admin|\?", re.IGNORECASE)
PASSWORD_MIN, PASSWORD_MAX = 8, 200
# scrypt (RFC 7914) from the standard library: 16 MiB of memory and ~50 ms a hash here.
SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_LEN = 2**14, 8, 1, 32
SCRYPT_MAXMEM = 64 * 1024 * 1024
# Failed logins in LOGIN_WINDOW_S: at most LOGIN_TRIES for one account name from one client
# address, and LOGIN_ADDRESS_TRIES for any names from one address. A name is never locked for
# everyone: someone failing on another's name only stops themselves (their address), and the
# name's owner still logs in from their own address; the wider per-address limit stops one
# address from trying many names (or one name under many spellings of its case).
LOGIN_TRIES, LOGIN_ADDRESS_TRIES, LOGIN_WINDOW_S = 10, 30, 300.0
CACHE = 4096  # names and logins kept in memory


class PeopleError(ValueError):
    """A refused name, registration or login: the message and an HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def check_name(name: str) -> str:
    """`name` if a person may take it; PeopleError (400) says why not."""
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise PeopleError(f"{NAME_RULE}")
    if RESERVED.fullmatch(name):
        raise PeopleError(f"{name!r} is reserved: choose another name")
    return name


def hash_password(password: str) -> str:
    """A password's stored form: scrypt with a fresh 16-byte salt and its parameters."""
    salt = secrets.token_bytes(16)
    digest = _scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_LEN)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    """Whether `password` is the one `stored` was made from (compared in constant time)."""
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        expected = bytes.fromhex(digest)
        got = _scrypt(password, bytes.fromhex(salt), int(n), int(r), int(p), len(expected))
    except ValueError:
        return False
    return hmac.compare_digest(got, expected)


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    """hashlib.scrypt of the password's UTF-8."""
    secret = password.encode("utf-8", "surrogatepass")
    return hashlib.scrypt(secret, salt=salt, n=n, r=r, p=p, maxmem=SCRYPT_MAXMEM, dklen=length)


class People:
    """Names and accounts over the store, with the names and logins in use kept in memory."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._names: OrderedDict[str, str | None] = OrderedDict()  # player id -> name
        self._logins: OrderedDict[str, str] = OrderedDict()  # token id -> player id
        self._failures: dict[str, deque[float]] = {}

    # ------------------------------------------------------------------ who is who

    def resolve(self, token_id: str) -> str:
        """The player a browser's token stands for: the account it logged in to, else its own."""
        with self._lock:
            found = self._logins.get(token_id)
            if found is not None:
                self._logins.move_to_end(token_id)
                return found
        rows = self.store.query("SELECT player FROM logins WHERE token = ?", (token_id,))
        player = rows[0][0] if rows else token_id
        self._remember(self._logins, token_id, player)
        return player

    def name(self, player: str | None) -> str | None:
        """The name a player chose (None: no name yet, or no player)."""
        if player is None:
            return None
        with self._lock:
            if player in self._names:
                self._names.move_to_end(player)
                return self._names[player]
        rows = self.store.query("SELECT name FROM players WHERE id = ?", (player,))
        name = rows[0][0] if rows else None
        self._remember(self._names, player, name)
        return name

    def names(self, players: set[str]) -> dict[str, str | None]:
        """The names of several players at once."""
        return {player: self.name(player) for player in players}

    def find(self, name: str) -> str | None:
        """The player id with this name (whatever the case), or None."""
        if not isinstance(name, str) or not NAME_RE.fullmatch(name):
            return None
        rows = self.store.query("SELECT id FROM players WHERE name_key = ?", (name.lower(),))
        return rows[0][0] if rows else None

    def has_account(self, player: str) -> bool:
        """Whether the player has a password (an account)."""
        rows = self.store.query("SELECT password FROM players WHERE id = ?", (player,))
        return bool(rows and rows[0][0])

    def _remember(self, cache: OrderedDict[str, str | None], key: str, value: str | None) -> None:
        """Keep a looked-up value, forgetting the oldest beyond CACHE."""
        with self._lock:
            cache[key] = value
            cache.move_to_end(key)
            while len(cache) > CACHE:
                cache.popitem(last=False)

    # ------------------------------------------------------------------ names

    def set_name(self, player: str, name: str) -> str:
        """Give `player` the name `name` (or change theirs); PeopleError: a bad name (400) or
        one another player holds, whatever its case (409)."""
        check_name(name)
        key = name.lower()
        with self.store.transaction() as db:
            holder = db.execute("SELECT id FROM players WHERE name_key = ?", (key,)).fetchone()
            if holder is not None and holder[0] != player:
                raise PeopleError(f"the name {name!r} is taken: choose another", 409)
            db.execute(
                "INSERT INTO players (id, name, name_key, created) VALUES (?, ?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET name = excluded.name, name_key = excluded.name_key",
                (player, name, key, time.time()),
            )
        self._remember(self._names, player, name)
        return name

    # ------------------------------------------------------------------ accounts

    def register(self, player: str, password: str) -> None:
        """Make `player` (who has a name) an account with this password; PeopleError: no
        name yet (400), a bad password (400), an account already (409)."""
        check_password(password)
        if self.name(player) is None:
            raise PeopleError("choose a name first")
        hashed = hash_password(password)
        with self.store.transaction() as db:
            row = db.execute("SELECT password FROM players WHERE id = ?", (player,)).fetchone()
            if row is None:
                raise PeopleError("choose a name first")
            if row[0]:
                raise PeopleError("you already have an account: log in elsewhere with it", 409)
            db.execute("UPDATE players SET password = ? WHERE id = ?", (hashed, player))

    def login(
        self,
        token_id: str,
        name: str,
        password: str,
        now: float | None = None,
        address: str = "",
    ) -> str:
        """Log the browser whose token has this id in to the account `name`: from now on it
        is that player; the player id. PeopleError 401 for a wrong name or password (the
        same answer for both), 429 after LOGIN_TRIES failures on this name from this client
        `address` or LOGIN_ADDRESS_TRIES on any names from it, in LOGIN_WINDOW_S."""
        now = time.monotonic() if now is None else now
        key = name.lower() if isinstance(name, str) else ""
        limits = (
            (f"name:{key}\0{address}", LOGIN_TRIES),
            (f"address:{address}", LOGIN_ADDRESS_TRIES),
        )
        self._throttle(limits, now)
        rows = self.store.query("SELECT id, password FROM players WHERE name_key = ?", (key,))
        stored = rows[0][1] if rows else None
        if not stored:
            hash_password(password)  # as long as a real check: no telling names by timing
            self._failed(limits, now)
            raise PeopleError("wrong name or password", 401)
        if not verify_password(password, stored):
            self._failed(limits, now)
            raise PeopleError("wrong name or password", 401)
        player = rows[0][0]
        with self.store.transaction() as db:
            if player == token_id:  # the account's own browser: nothing to bind
                db.execute("DELETE FROM logins WHERE token = ?", (token_id,))
            else:
                db.execute(
                    "INSERT INTO logins (token, player, created) VALUES (?, ?, ?)"
                    " ON CONFLICT(token) DO UPDATE SET player = excluded.player",
                    (token_id, player, time.time()),
                )
        self._remember(self._logins, token_id, player)
        return player

    def logout(self, token_id: str) -> None:
        """The browser is its own player again (the one it was before it logged in)."""
        with self.store.transaction() as db:
            db.execute("DELETE FROM logins WHERE token = ?", (token_id,))
        self._remember(self._logins, token_id, token_id)

    def _throttle(self, limits: tuple[tuple[str, int], ...], now: float) -> None:
        """PeopleError 429 if any of the keys has failed its number of times in the window."""
        with self._lock:
            for key, most in limits:
                tries = self._failures.get(key)
                while tries and tries[0] < now - LOGIN_WINDOW_S:
                    tries.popleft()
                if tries is not None and not tries:
                    del self._failures[key]
                elif tries is not None and len(tries) >= most:
                    wait = int(tries[0] + LOGIN_WINDOW_S - now) + 1
                    raise PeopleError(f"too many failed logins: try again in {wait} s", 429)

    def _failed(self, limits: tuple[tuple[str, int], ...], now: float) -> None:
        """Count a failed login against each of the keys."""
        with self._lock:
            if len(self._failures) > 100_000:  # a flood of names: start again
                self._failures.clear()
            for key, _ in limits:
                self._failures.setdefault(key, deque()).append(now)


def check_password(password: str) -> str:
    """`password` if long enough and not too long; PeopleError (400) otherwise."""
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise PeopleError(f"a password is {PASSWORD_MIN} to {PASSWORD_MAX} characters")
    return password
