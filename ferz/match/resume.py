"""The state of a `ferz match` that writes a PGN, kept beside it so that a stopped match resumes.

`FILE.state.json` holds the settings that decide the games (engines, variant, limits, openings,
seed, adjudication, SPRT, Event tag) and, for each finished game, its index, result, the facts
the summary needs, and short digests of its opening and of its PGN text. It is rewritten
atomically (a temporary file, then a rename) after every game, after the game was appended to
the PGN: a crash between the two leaves a game in the PGN that the state does not know, and
resuming drops it and plays that game again. The PGN alone is not enough: it does not record
the seed, the openings' source, the engines' options and parameters, adjudication or the SPRT
bounds, and a game that was half written when the match was killed cannot be told from one
that finished except by the state.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..files import write_atomically
from .openings import Opening
from .referee import GameRecord
from .runner import MatchConfig

STATE_VERSION = 1
KIND = "ferz match state"
#: the facts of a finished game that the summary needs (the rest is in the PGN)
FACTS = ("result", "a_white", "white", "black", "termination", "reason", "failed", "failure")
_GAME_START = re.compile(r"^\[Event ", re.MULTILINE)


def state_path(pgn_path: str) -> Path:
    """Where the state of the match writing `pgn_path` is kept."""
    return Path(f"{pgn_path}.state.json")


def digest(text: str) -> str:
    """A short digest of a text (16 hex digits of SHA-256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def opening_digest(opening: Opening, a_white: bool) -> str:
    """The digest of a game's opening and colours."""
    return digest(json.dumps([opening.fen, list(opening.moves), a_white]))


def settings(args: argparse.Namespace, config: MatchConfig) -> dict[str, object]:
    """The settings that decide the games, by the option that sets them (as JSON values)."""
    budget, rules = config.budget, config.adjudication
    engines = {}
    for key, spec in zip("AB", config.engines, strict=True):
        fields = asdict(spec)
        fields.pop("stderr")  # where its stderr goes does not change a game
        engines[f"engine {key}"] = fields
    out: dict[str, object] = {
        **engines,
        "--variant": config.variant,
        "--tc": str(budget.tc) if budget.tc is not None else None,
        "--movetime": budget.movetime_ms,
        "--nodes": budget.nodes,
        "--depth": budget.depth,
        "--timemargin": budget.margin_ms,
        "--grace": config.grace,
        # the file as an absolute path: the same words in another directory are another file
        "--openings": os.path.abspath(args.openings) if args.openings else None,
        "--plies": args.plies,
        "--shuffle": bool(args.shuffle),
        "--seed": args.seed,
        "--resign-score": rules.resign_score,
        "--resign-moves": rules.resign_moves,
        "--draw-movenumber": rules.draw_movenumber,
        "--draw-moves": rules.draw_moves,
        "--draw-score": rules.draw_score,
        "--max-moves": rules.max_moves,
        "--sprt": list(args.sprt) if args.sprt else None,
        "--alpha": args.alpha,
        "--beta": args.beta,
        "--sprt-model": args.sprt_model,
        "--event": args.event,
    }
    return json.loads(json.dumps(out))  # tuples as lists, as they read back


def differences(stored: dict[str, object], now: dict[str, object]) -> list[str]:
    """What differs between the stored settings and these, one phrase per setting."""
    out = []
    for key in sorted(set(stored) | set(now)):
        old, new = stored.get(key), now.get(key)
        if old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict):
            for part in sorted(set(old) | set(new)):
                if old.get(part) != new.get(part):
                    out.append(f"{key}'s {part}: stored {old.get(part)!r}, now {new.get(part)!r}")
        else:
            out.append(f"{key}: stored {old!r}, now {new!r}")
    return out


@dataclass
class MatchState:
    """A match's settings and finished games (by index), and the seconds it has run."""

    pgn: str  # the PGN's file name (a state copied beside another PGN is refused)
    settings: dict[str, object]
    games: dict[int, dict[str, object]] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, record: GameRecord, text: str) -> None:
        """Take a finished game and the PGN text it was written as."""
        entry = {name: getattr(record, name) for name in FACTS}
        entry["opening"] = opening_digest(record.opening, record.a_white)
        entry["pgn"] = digest(text)
        self.games[record.index] = entry

    def record(self, index: int, config: MatchConfig) -> GameRecord:
        """Game `index` as a record for the statistics and summary (without its moves)."""
        entry = self.games[index]
        opening, _ = config.game(index)
        facts = {name: entry[name] for name in FACTS}
        return GameRecord(index, config.variant, opening, **facts)

    def to_json(self) -> str:
        """The state as JSON, with its kind and format version."""
        data = {
            "kind": KIND,
            "version": STATE_VERSION,
            "pgn": self.pgn,
            "seconds": round(self.seconds, 3),
            "settings": self.settings,
            "games": {str(index): entry for index, entry in sorted(self.games.items())},
        }
        return json.dumps(data, indent=1)

    @classmethod
    def from_json(cls, text: str) -> MatchState:
        """A state read back; ValueError for a text that is not a whole state file."""
        try:
            data = json.loads(text)
            if data.get("kind") != KIND:
                raise ValueError("no ferz match state")
            if data.get("version") != STATE_VERSION:
                raise ValueError(f"format version {data.get('version')}, not {STATE_VERSION}")
            games = {}
            for key, entry in data["games"].items():
                index = int(key)
                missing = [n for n in (*FACTS, "opening", "pgn") if n not in entry]
                if index < 0 or missing:
                    raise ValueError(f"game {key} is incomplete")
                games[index] = entry
            state = cls(str(data["pgn"]), dict(data["settings"]), games, float(data["seconds"]))
        except (KeyError, TypeError, AttributeError, json.JSONDecodeError) as error:
            raise ValueError(f"{type(error).__name__}: {error}") from None
        return state

    def save(self, path: Path) -> None:
        """Write the state atomically: a match killed while writing keeps the previous one."""
        write_atomically(path, self.to_json())


def split_games(text: str) -> list[str]:
    """The games of a PGN that `ferz match` wrote, each as the exact text written (every game
    starts with its Event tag at the start of a line)."""
    starts = [match.start() for match in _GAME_START.finditer(text)]
    return [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)], strict=True)]


def load(
    pgn_path: str, now: dict[str, object], config: MatchConfig
) -> tuple[MatchState, dict[int, str]]:
    """The stored state of the match writing `pgn_path` and its games' PGN texts by index;
    ValueError for a state that is not whole, belongs to another PGN or to other settings."""
    path = state_path(pgn_path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read {path}: {error}") from None
    try:
        state = MatchState.from_json(text)
    except ValueError as error:
        raise ValueError(f"{path} is not a whole ferz match state ({error})") from None
    if state.pgn != os.path.basename(pgn_path):
        raise ValueError(f"{path} is the state of {state.pgn}, not of {pgn_path}")
    changed = differences(state.settings, now)
    if changed:
        raise ValueError(
            f"cannot resume {pgn_path} with other settings than it was played with: "
            + "; ".join(changed)
        )
    played = max(state.games, default=-1) + 1
    if config.games < played:
        raise ValueError(f"--games {config.games} is fewer than the {played} already scheduled")
    for index, entry in sorted(state.games.items()):
        opening, a_white = config.game(index)
        if entry["opening"] != opening_digest(opening, a_white):
            raise ValueError(
                f"game {index + 1} of {pgn_path} was played from another opening than "
                "these settings give it (the openings file changed, or --shuffle of random "
                "openings, whose order depends on --games)"
            )
    try:
        written = Path(pgn_path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read {pgn_path}: {error}") from None
    by_digest = {digest(game): game for game in split_games(written)}
    texts = {}
    for index, entry in sorted(state.games.items()):
        game = by_digest.get(str(entry["pgn"]))
        if game is None:
            raise ValueError(
                f"{pgn_path} does not hold game {index + 1} as {path} recorded it "
                "(the state belongs to another PGN, or the PGN was edited)"
            )
        texts[index] = game
    return state, texts
