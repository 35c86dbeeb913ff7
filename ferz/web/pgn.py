"""PGN: read the first game of a PGN text and write games with standard tags and eval comments."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from . import boards

MAX_PLIES = 1000
SEVEN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")

_TOKEN = re.compile(
    r"""
    \[\s*(?P<tag>[A-Za-z0-9_]+)\s+"(?P<value>(?:[^"\\]|\\.)*)"\s*\]   # tag pair
    | \{(?P<comment>[^}]*)\}                                            # brace comment
    | ;[^\n]*                                                           # rest-of-line comment
    | (?P<open>\() | (?P<close>\))                                      # variations (skipped)
    | \$\d+                                                             # NAG
    | (?P<result>1-0|0-1|1/2-1/2|\*)
    | \d+\.(?:\.\.)?                                                    # move number
    | (?P<san>[^\s{}()\[\];$]+)
    | (?P<space>\s+)
    """,
    re.VERBOSE,
)


@dataclass
class Game:
    """A parsed game: its tags, start position, moves (UCI and SAN) and result."""

    tags: dict[str, str] = field(default_factory=dict)
    variant: str = "chess"
    start_fen: str = ""
    uci: list[str] = field(default_factory=list)
    san: list[str] = field(default_factory=list)
    result: str = "*"


def read(text: str, variant: str = "chess") -> Game:
    """Parse the first game of `text`; ValueError names the first problem (tag, move, ply).

    The Variant tag, when present, names the variant; otherwise it is `variant`.
    """
    game = Game()
    tokens = _tokens(text)
    moves: list[str] = []
    depth = 0
    seen_move = False
    for kind, value in tokens:
        if kind == "tag":
            if seen_move:
                break  # the next game's tags: only the first game is read
            name, tag_value = value
            game.tags[name] = tag_value
        elif kind == "open":
            depth += 1
        elif kind == "close":
            if depth == 0:
                raise ValueError("PGN: ')' without a matching '('")
            depth -= 1
        elif depth:
            continue
        elif kind == "result":
            game.result = value
            if seen_move or game.tags:
                break
        elif kind == "san":
            seen_move = True
            moves.append(value)
            if len(moves) > MAX_PLIES:
                raise ValueError(f"PGN: more than {MAX_PLIES} plies")
    if depth:
        raise ValueError("PGN: unclosed variation '('")
    if not game.tags and not moves:
        raise ValueError("PGN: no tags and no moves found")
    tag = game.tags.get("Variant")
    game.variant = variant if tag is None else boards.variant_from_tag(tag)
    fen = game.tags.get("FEN")
    board = boards.new_board(fen, game.variant)
    game.start_fen = board.fen()
    for ply, token in enumerate(moves, 1):
        san = token.rstrip("!?")
        try:
            move = board.parse_san(san)
        except ValueError:
            number = (ply + 1) // 2
            raise ValueError(
                f"PGN: illegal or unknown move {token!r} at ply {ply} (move {number})"
            ) from None
        game.san.append(board.san(move))
        game.uci.append(board.uci(move))
        board.push(move)
    return game


def _tokens(text: str) -> list[tuple[str, object]]:
    """Split PGN text into (kind, value) tokens; ValueError on characters that fit nothing."""
    out: list[tuple[str, object]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            line = text.count("\n", 0, pos) + 1
            raise ValueError(f"PGN: cannot read {text[pos : pos + 20]!r} on line {line}")
        pos = m.end()
        if m.group("tag"):
            out.append(("tag", (m.group("tag"), m.group("value").replace('\\"', '"'))))
        elif m.group("open"):
            out.append(("open", None))
        elif m.group("close"):
            out.append(("close", None))
        elif m.group("result"):
            out.append(("result", m.group("result")))
        elif m.group("san"):
            out.append(("san", m.group("san")))
    return out


def write(
    tags: dict[str, str],
    start_fen: str,
    san: Sequence[str],
    *,
    default_fen: str,
    evals: Sequence[str | None] = (),
) -> str:
    """A PGN text: the seven tag roster first, SetUp/FEN when not the default start, SAN movetext.

    `evals[i]`, when given, is the evaluation after ply i+1 written as a `[%eval ...]` comment.
    """
    all_tags = {name: tags.get(name, "?") for name in SEVEN_TAGS}
    all_tags["Result"] = tags.get("Result", "*")
    for name, value in tags.items():
        if name not in all_tags:
            all_tags[name] = value
    if start_fen != default_fen:
        all_tags["SetUp"] = "1"
        all_tags["FEN"] = start_fen
    head = "".join(f'[{name} "{_escape(str(value))}"]\n' for name, value in all_tags.items())
    fields = start_fen.split()
    black_first = len(fields) > 1 and fields[1] == "b"
    number = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
    words: list[str] = []
    for i, move in enumerate(san):
        white = (i % 2 == 0) != black_first
        if white:
            words.append(f"{number}.")
        elif i == 0:
            words.append(f"{number}...")
        words.append(move)
        if i < len(evals) and evals[i] is not None:
            words.append(f"{{[%eval {evals[i]}]}}")
        if not white:
            number += 1
    words.append(all_tags["Result"])
    return head + "\n" + _wrap(words) + "\n"


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


def _escape(value: str) -> str:
    """Escape a tag value (backslash and quote), dropping line breaks."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _wrap(words: list[str], width: int = 79) -> str:
    """Join words into lines of at most `width` characters (PGN export format)."""
    lines: list[str] = []
    line = ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(lines)
