"""PGN: read and write games as a tree (many games per file, tags, comments, NAGs, variations).

The one PGN module of ferz: `ferz play`, `ferz match`, `ferz analyse` and `ferz book` read and
write games through it. Moves are checked with ferz's own rules, so every built-in variant
works: the
`Variant` tag names the variant and `FEN` the start position (Fairy-Stockfish's dialect, with
pockets). The reader takes every move spelling python-chess takes: SAN (`Nf3`, `exd5`, `e8=Q`,
`e8Q`), long algebraic (`e2-e4`, `Ng1-f3`, `Nb1xc3`), coordinates (`e2e4`, `e1g1`), castling as
`O-O` or `0-0`, suffixes `+ # ! ? !! ?? !? ?!` (the last six become NAGs). Tag values are read
and written as python-chess does, without backslash escapes (a tag is one line). The writer
emits SAN with move numbers, `{ comments }`, `$n` NAGs and `( variations )` in lines of at
most 80 characters; what it writes it reads back into the same tree.

Streams are read as python-chess reads them (`read_game(handle)`, `read_headers`,
`skip_game`): one game at a time, in the memory of one game, errors recorded on their game
(`game.errors`, with the line) and never raised out of the middle of a file::

    games = pgn.read_file("games.pgn")              # a list; PgnError at a bad game
    print(games[0].headers["White"], games[0].mainline_moves())
    text = pgn.write(games[0])
    with open("big.pgn") as handle:
        game = pgn.read_game(handle)                # the next game, None at the end
        for game in pgn.stream_games(handle):       # any size, one game at a time
            print(game.headers["Event"], game.errors)   # a bad game: its errors, then the next

The hot path (docs/match.md, "Speed"): one regular expression cuts a game's movetext into
tokens, and a move is matched against the compiled position's pseudo-legal moves to its target
square (_FastLine), the Board's parser serving the variants and spellings it does not know.
Tools that need the main line's moves only (`ferz book build`) read `stream_mainlines`: no
tree and no move text, the whole movetext walked in compiled code (core/movetext.py).
"""

from __future__ import annotations

import contextlib
import io
import re
import threading
import weakref
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TextIO

from . import notation
from .board import Board, IllegalMoveError, Move
from .core import movetext, san
from .core.defs import CASTLE, MAX_GAME_PLY, PROMO
from .core.rules import Rules

SEVEN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
#: Notation tag values (lower case) whose movetext is in the variant's own notation
NATIVE_TAGS = {name.lower() for name in notation.TAG_NAMES.values()}
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
LINE_WIDTH = 80

#: suffix annotations and the NAG each stands for (PGN standard, 8.2.4)
SUFFIX_NAGS = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}
NAG_GOOD, NAG_MISTAKE, NAG_BRILLIANT, NAG_BLUNDER, NAG_SPECULATIVE, NAG_DUBIOUS = 1, 2, 3, 4, 5, 6

#: what the Variant tag may say for each ferz variant (lower case, spaces and dashes removed);
#: the names python-chess, lichess and Fairy-Stockfish write
VARIANT_ALIASES = {
    "standard": "chess",
    "normal": "chess",
    "fromposition": "chess",
    "chess": "chess",
    "fischerandom": "chess960",
    "fischerrandom": "chess960",
    "chess960": "chess960",
    "960": "chess960",
    "threecheck": "3check",
    "3check": "3check",
    "koth": "kingofthehill",
    "kingofthehill": "kingofthehill",
    "zh": "crazyhouse",
    "giveaway": "antichess",
    "suicide": "antichess",
}

_TOKEN = re.compile(
    r"""
    (?P<tag>\[\s*(?P<name>[A-Za-z0-9][A-Za-z0-9_+\#=:-]*)\s+"(?P<value>[^\n]*?)"\s*\]
        (?=[ \t]*(?:\[|\r?\n|$)))                            # a tag ends its line (or meets a tag)
    | \{(?P<comment>[^}]*)\}?
    | (?P<line>;[^\n]*)
    | (?P<escape>(?:^|(?<=\n))%[^\n]*)
    | (?P<nag>\$\d+)
    | (?P<open>\() | (?P<close>\))
    | (?P<result>(?:1-0|0-1|1/2-1/2|\*)(?=[\s(){};\[]|$))
    | (?P<number>\d+\s*\.+)
    | (?P<suffix>[!?]{1,2})
    | (?P<word>[^\s{}()\[\];$!?]+)
    | (?P<space>\s+)
    | (?P<other>.)
    """,
    re.VERBOSE,
)
#: a tag line (a game's headers start with one)
_TAG_LINE = re.compile(r"\s*\[\s*[A-Za-z0-9][A-Za-z0-9_+#=:-]*\s+\"")
# a square pair written as long algebraic or coordinates: the piece, the two squares, promotion
_LONG = re.compile(r"^([A-Z]?)([a-p]\d{1,2})[-x:]?([a-p]\d{1,2})(?:=?([A-Za-z+]))?$")


class PgnError(ValueError):
    """A PGN text that cannot be read; the message names the game and the move."""


@dataclass(eq=False, slots=True)
class Node:
    """A position in a game tree: the move that led here, its comments, NAGs and children.

    `variations[0]` continues the main line of this node; the others are alternatives to it.
    """

    move: str | None = None  # UCI text of the move into this node (None at the root)
    san: str = ""
    comment: str = ""  # after the move (at the root: before the first move)
    starting_comment: str = ""  # before the move, where a variation begins
    nags: list[int] = field(default_factory=list)
    variations: list[Node] = field(default_factory=list)
    parent: Node | None = field(default=None, repr=False)

    def add_variation(
        self, board: Board, move: Move | str, comment: str = "", nags: Iterable[int] = ()
    ) -> Node:
        """A child for a legal move of `board` (this node's position); the board is unchanged."""
        if isinstance(move, str):
            move = board.parse_uci(move)
        child = Node(move.uci(), board.san(move), comment, "", list(nags), [], self)
        self.variations.append(child)
        return child

    def next(self) -> Node | None:
        """The main-line child, or None at the end of a line."""
        return self.variations[0] if self.variations else None

    def ply(self) -> int:
        """Moves from the root to this node."""
        count, node = 0, self
        while node.parent is not None:
            count, node = count + 1, node.parent
        return count

    def moves_from_root(self) -> list[str]:
        """UCI moves from the game's start to this node."""
        moves: list[str] = []
        node = self
        while node.parent is not None:
            moves.append(node.move or "")
            node = node.parent
        return moves[::-1]

    def mainline(self) -> Iterator[Node]:
        """The nodes of the main line after this one."""
        node = self.next()
        while node is not None:
            yield node
            node = node.next()

    def child(self, move: str) -> Node | None:
        """The child reached by a UCI move, or None."""
        return next((node for node in self.variations if node.move == move), None)

    def find(self, moves: Iterable[str]) -> Node:
        """The node reached from here by UCI moves (each a child); KeyError names the first
        move that is not in the tree."""
        node = self
        for move in moves:
            found = node.child(move)
            if found is None:
                raise KeyError(f"no move {move!r} in the tree at ply {node.ply()}")
            node = found
        return node

    def is_mainline(self) -> bool:
        """Whether every move from the root to here is its parent's first child."""
        node = self
        while node.parent is not None:
            if node.parent.variations[0] is not node:
                return False
            node = node.parent
        return True

    def promote(self) -> None:
        """Make the line through this node the main line (first child at every level)."""
        node = self
        while node.parent is not None:
            siblings = node.parent.variations
            siblings.remove(node)
            siblings.insert(0, node)
            node = node.parent

    def remove(self) -> Node:
        """Cut this node and everything after it from the tree; returns its parent."""
        if self.parent is None:
            raise ValueError("the root of a game cannot be removed")
        parent = self.parent
        parent.variations.remove(self)
        self.parent = None
        return parent

    def count(self) -> int:
        """Nodes below this one (this one not counted)."""
        total, stack = 0, list(self.variations)
        while stack:
            node = stack.pop()
            total += 1
            stack.extend(node.variations)
        return total


#: the seven tags and PGN's unknown values for them
_SEVEN = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?"}
_SEVEN |= {"White": "?", "Black": "?", "Result": "*"}


@dataclass(eq=False)
class Game:
    """A game: its tags and its tree of moves from a start position."""

    headers: dict[str, str] = field(default_factory=dict)
    root: Node = field(default_factory=Node)
    #: what the reader found wrong in this game, each with its line (the moves of the line
    #: with the error stop there)
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        """The seven tags come first, with PGN's unknown values, unless given."""
        self.headers = {**{k: self.headers.get(k, v) for k, v in _SEVEN.items()}, **self.headers}

    @property
    def variant(self) -> str:
        """The ferz variant of the game (from the Variant tag; chess without one)."""
        return variant_name(self.headers.get("Variant", "chess"))

    @property
    def comment(self) -> str:
        """The comment before the first move."""
        return self.root.comment

    def board(self) -> Board:
        """A Board at the game's start position."""
        fen = self.headers.get("FEN")
        variant = self.variant
        try:
            if fen:
                return Board(fen, variant=variant)
            return Board(variant=variant)
        except ValueError as error:
            raise PgnError(str(error)) from None

    def end(self) -> Node:
        """The last node of the main line."""
        node = self.root
        while node.variations:
            node = node.variations[0]
        return node

    def mainline(self) -> Iterator[Node]:
        """The nodes of the main line."""
        return self.root.mainline()

    def mainline_moves(self) -> list[str]:
        """The main line's moves in UCI notation."""
        return [node.move or "" for node in self.mainline()]

    def end_board(self) -> Board:
        """A Board after the main line."""
        board = self.board()
        for move in self.mainline_moves():
            board.push_uci(move)
        return board

    def add_line(
        self, moves: Iterable[str], comments: Iterable[str] | None = None, node: Node | None = None
    ) -> Node:
        """Append UCI moves (and a comment for each) as the main line below `node` (the end);
        returns the last node. IllegalMoveError for a move that is not legal."""
        node = node if node is not None else self.end()
        board = self.board()
        for move in node.moves_from_root():
            board.push_uci(move)
        notes = list(comments) if comments is not None else []
        for index, text in enumerate(moves):
            move = board.parse_uci(text)
            node = node.add_variation(board, move, notes[index] if index < len(notes) else "")
            board.push(move)
        return node

    @classmethod
    def from_board(cls, board: Board, headers: dict[str, str] | None = None) -> Game:
        """The game a Board has played, with Variant and FEN tags where needed, and the
        result of a finished game (mate, stalemate, a variant's rule: python-chess's
        `board.result()`) in the Result tag; an unfinished one keeps the given Result (a
        resignation, say) or `*`."""
        game = cls(dict(headers or {}))
        game.set_start(board.variant, board.starting_fen)
        game.add_line([move.uci() for move in board.move_stack])
        result = board.result()
        if result != "*":
            game.headers["Result"] = result
        return game

    def set_start(self, variant: str, fen: str) -> None:
        """Record the variant and start position in the tags (none for standard chess)."""
        if variant != "chess":
            self.headers["Variant"] = variant
        else:
            self.headers.pop("Variant", None)
        start = Board(variant=variant).fen()
        if fen != start:
            self.headers["FEN"] = fen
            self.headers["SetUp"] = "1"
        else:
            self.headers.pop("FEN", None)
            self.headers.pop("SetUp", None)

    def __str__(self) -> str:
        return write(self)


def variant_name(tag: str) -> str:
    """The ferz variant a Variant tag names; PgnError if ferz has no such variant."""
    from . import variants

    if tag in variants.names():  # a user variant's own name may hold '-' or '_'
        return tag
    key = re.sub(r"[\s_-]", "", tag.lower())
    name = VARIANT_ALIASES.get(key, key)
    try:
        return variants.get(name).name
    except (KeyError, ValueError):
        raise PgnError(f"unknown variant {tag!r} in the Variant tag") from None


# ------------------------------------------------------------------------------ reading


def parse_move(board: Board, text: str, native: bool = False) -> Move:
    """The legal move a PGN token spells (any spelling python-chess reads, or the variant's
    own notation: WXF for xiangqi, Hodges for shogi; `native`: try that one first);
    IllegalMoveError."""
    style = notation.board_style(board)
    if native and style != "san":
        with contextlib.suppress(IllegalMoveError):
            return notation.parse(board, text, style)
    try:
        return _parse_standard(board, text)
    except IllegalMoveError:
        if style == "san" or native:
            raise
        try:
            return notation.parse(board, text, style)
        except IllegalMoveError:
            pass
        raise


def _parse_standard(board: Board, text: str) -> Move:
    """The legal move a SAN, long algebraic or coordinate token spells; IllegalMoveError."""
    san = text.rstrip("+#")
    if san in ("0-0", "0-0-0"):
        san = san.replace("0", "O")
    try:
        # the text with its marks: in shogi a `+` may be a promotion (parse_san tells)
        return board.parse_san(san if san.startswith("O-O") else text)
    except IllegalMoveError as error:
        long = _LONG.match(san)
        if long is None:
            raise
        piece, origin, target, promo = long.groups()
        # long algebraic and coordinates name both squares: the piece letter, when given,
        # must be the piece on the first one (king moves written e1g1 are castling)
        uci = origin + target + (promo.lower() if promo and promo != "+" else (promo or ""))
        try:
            move = board.parse_uci(uci)
        except IllegalMoveError:
            raise error from None
        if piece and (board.piece_at(origin) or "").upper() != piece:
            raise error from None
        return move


def read_game(
    source: TextIO | str,
    variant: str = "chess",
    *,
    mainline_only: bool = False,
    max_plies: int | None = None,
) -> Game | None:
    """The next game of an open PGN text stream, or None at its end (python-chess's
    `chess.pgn.read_game`). What is wrong in a game (an illegal move, a broken tag, stray
    text) is recorded in `game.errors` with its line in the stream, and the moves of that line
    stop there (an illegal move in a variation drops the rest of the variation, as python-chess
    does); the next call reads the next game. A game ends at a blank line outside comments
    (PGN's rule), at its result, or where the next game's tags begin.

    `source` may also be a text (`str`): its first game, and a PgnError at an error, as
    ferz has always read texts. `variant` is the variant of games without a Variant tag (one
    is added to them). `mainline_only`: skip variations, comments and NAGs (faster; tools that
    need the moves only). `max_plies`: read the main line's first moves only, and go past the
    rest of the game unread (an opening book's first plies)."""
    if isinstance(source, str):
        game = _read(_Stream(io.StringIO(source)), variant, mainline_only, max_plies)
        if game is not None and game.errors:
            raise PgnError(game.errors[0])
        return game
    stream = _stream(source)
    game = _read(stream, variant, mainline_only, max_plies)
    stream.stop()
    return game


def read_headers(handle: TextIO, variant: str = "chess") -> dict[str, str] | None:
    """The tags of the next game of a stream (the seven first, with PGN's unknown values where
    missing), skipping its moves without reading them; None at the end. Faster than
    read_game, to find games by their tags (python-chess's `read_headers`)."""
    stream = _stream(handle)
    found = _headers(stream, variant)
    if found is not None:
        _skip_movetext(stream)
    stream.stop()
    return None if found is None else Game(found[0]).headers


def skip_game(handle: TextIO) -> bool:
    """Go past the next game of a stream without reading it; False at the end."""
    stream = _stream(handle)
    found = _headers(stream, "chess")
    if found is not None:
        _skip_movetext(stream)
    stream.stop()
    return found is not None


def stream_games(
    handle: TextIO,
    variant: str = "chess",
    *,
    mainline_only: bool = False,
    max_plies: int | None = None,
) -> Iterator[Game]:
    """Every game of an open PGN text stream, read one game at a time (read_game), so that a
    file of any size takes the memory of its largest game; a bad game comes with its errors and
    the next ones are still read."""
    stream = _stream(handle)
    while True:
        box = [_read(stream, variant, mainline_only, max_plies)]
        stream.stop()
        if box[0] is None:
            return
        yield box.pop()  # the generator keeps no reference to the game it gave
        stream.moved()


@dataclass(eq=False)
class MainLine:
    """A game as stream_mainlines reads it: its tags (the seven first, as Game's), what is
    wrong in it (as Game.errors), and the core codes of its main line's first moves, played
    from its start position (`FEN` tag, or the variant's)."""

    headers: dict[str, str]
    errors: list[str]
    codes: array
    #: the variant's rules (from the Variant tag; chess without one), None where the game's
    #: errors leave them unknown
    rules: Rules | None = None

    @property
    def variant(self) -> str:
        """The ferz variant of the game (from the Variant tag; chess without one)."""
        if self.rules is not None:
            return self.rules.name
        return variant_name(self.headers.get("Variant", "chess"))


def stream_mainlines(
    handle: TextIO, variant: str = "chess", *, max_plies: int | None = None
) -> Iterator[MainLine]:
    """The main lines of every game of an open PGN text stream, one game at a time, as core
    move codes: no tree, no SAN or UCI text (what `ferz book build` needs). The same games,
    tags, moves and errors as `stream_games(handle, variant, mainline_only=True, max_plies=)`
    gives; a game's movetext is read in compiled code (core/movetext.py) where its variant's
    moves are plain SAN and it is spelt the common way, else as stream_games reads it."""
    stream = _stream(handle)
    codes = array("i", [0]) * MAX_GAME_PLY
    limit = MAX_GAME_PLY + 1 if max_plies is None else max_plies
    known: dict[str, Rules | None] = {}  # the rules of the Variant tags met (None: unknown)
    while True:
        found = _headers(stream, variant)
        if found is None:
            stream.stop()
            return
        tags, errors, line = found
        text, first = _movetext(stream, line)
        stream.games += 1
        box = [_mainline(stream, tags, errors, text, first, max_plies, limit, codes, known)]
        stream.stop()
        yield box.pop()
        stream.moved()


def _mainline(
    stream: _Stream,
    tags: dict[str, str],
    errors: list[str],
    text: str,
    first: int,
    max_plies: int | None,
    limit: int,
    codes: array,
    known: dict[str, Rules | None],
) -> MainLine:
    """A game's MainLine from its tags and movetext: walked in the core where it can be (see
    core/movetext.py), else read by _game and its codes taken from the line reader. `known`
    keeps the rules of the Variant tags met (a tag's name is looked up once a stream)."""
    headers = {**{k: tags.get(k, v) for k, v in _SEVEN.items()}, **tags}
    if not errors and text.isascii():
        tag = headers.get("Variant", "chess")
        rules = known.get(tag)
        if rules is None and tag not in known:
            from . import variants

            with contextlib.suppress(PgnError):
                rules = variants.get(variant_name(tag))
            known[tag] = rules
        reader = None
        if rules is not None:
            with contextlib.suppress(PgnError):
                reader = _line_reader(headers, rules)
        if isinstance(reader, _FastLine):
            got = movetext.walk(reader.matcher, reader.pos, text, limit, reader.square_at, codes)
            if got >= 0:
                result = got >> 16
                if result and headers["Result"] == "*":
                    headers["Result"] = movetext.RESULT_TOKENS[result]
                return MainLine(headers, [], codes[: got & 0xFFFF], rules)
    game, reader = _game(stream, tags, errors, text, first, True, max_plies)
    if isinstance(reader, _FastLine):
        played = array("i", reader.played)
    elif isinstance(reader, _BoardLine):
        played = array("i", [move.code for move in reader.board.move_stack])
    else:
        played = array("i")
    return MainLine(game.headers, game.errors, played, None if reader is None else reader.rules)


def read_games(text: str, variant: str = "chess") -> Iterator[Game]:
    """Every game of a PGN text, in order; PgnError names the game and line of a problem.
    `variant` is the variant of games without a Variant tag (one is added to them)."""
    for game in stream_games(io.StringIO(text), variant):
        if game.errors:
            raise PgnError(game.errors[0])
        yield game


def read_file(path: str) -> list[Game]:
    """Every game of a PGN file; PgnError with the path at the first bad game (or for an
    unreadable file). Read a game at a time (stream_games): the memory of the games kept."""
    games = []
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            for game in stream_games(handle):
                if game.errors:
                    raise PgnError(f"{path}: {game.errors[0]}")
                games.append(game)
    except OSError as error:
        raise PgnError(f"cannot read {path}: {error.strerror or error}") from None
    return games


# ------------------------------------------------------------------------------ the stream

#: a tag line as python-chess reads one (the value runs to the last quote)
_TAG = re.compile(r'\[\s*([A-Za-z0-9][A-Za-z0-9_+#=:-]*)\s+"([^\r\n]*)"\s*\]\s*$')
#: several tags on one line
_TAGS = re.compile(r'\[\s*([A-Za-z0-9][A-Za-z0-9_+#=:-]*)\s+"([^\r\n]*?)"\s*\](?=\s*(?:\[|$))')
#: a line that starts the next game's tags
_TAG_START = re.compile(r'\s*\[\s*[A-Za-z0-9][A-Za-z0-9_+#=:-]*\s+"')
#: the tokens of movetext, in one pass over a game's text (spaces and move numbers before a
#: token skipped with it): moves, comments, results, parentheses, NAGs, line comments, a move
#: number alone, suffix annotations, other words, anything else
_MOVETEXT = re.compile(
    r"""\s*(?:\d+\s*\.+\s*)?([A-Za-z][^\s{}()\[\]$;!?]*|\{[^}]*\}?"""
    r"""|(?:1-0|0-1|1/2-1/2|\*)(?=[\s(){};\[]|$)|[()]|\$\d+|;[^\n]*|\d+\s*\.+|[!?]{1,2}"""
    r"""|[^\s{}()\[\]$;!?]+|\S)"""
)
_RESULT_SET = frozenset(RESULTS)
# what the first character of a token says it is
_WORD, _COMMENT, _DIGIT, _NAG, _OPEN, _CLOSE, _STAR, _SUFFIX, _SEMI, _OTHER = range(10)
_KIND = {"{": _COMMENT, "$": _NAG, "(": _OPEN, ")": _CLOSE, "*": _STAR, ";": _SEMI}
_KIND |= {c: _DIGIT for c in "0123456789"} | {"!": _SUFFIX, "?": _SUFFIX}
_KIND |= {c: _OTHER for c in "[]}%"}


class _Stream:
    """A text stream read a line at a time, with lines given back (the next game's first
    tags, text after a result) and the number of the last line read."""

    __slots__ = ("handle", "pending", "line", "games", "where", "__weakref__")

    def __init__(self, handle: TextIO) -> None:
        self.handle = handle
        self.pending: list[str] = []  # lines given back, the next one last
        self.line = 0
        self.games = 0
        self.where: int | None = None  # the handle's position when the last call ended

    def moved(self) -> bool:
        """Whether the handle was moved (seek) since the last call ended with lines given back:
        then they are dropped (the lines are counted on)."""
        if not self.pending or self.where is None:
            return False
        try:
            where = self.handle.tell()
        except (AttributeError, OSError, ValueError):
            return False
        if where == self.where:
            return False
        self.pending.clear()
        return True

    def stop(self) -> None:
        """A call ends here: its position, where it gives lines back (for moved(); a tell()
        costs as much as reading a few tags)."""
        self.where = None
        if self.pending:
            with contextlib.suppress(AttributeError, OSError, ValueError):
                self.where = self.handle.tell()

    def readline(self) -> str:
        """The next line ('' at the end)."""
        line = self.pending.pop() if self.pending else self.handle.readline()
        if line:
            self.line += 1
        return line

    def unread(self, text: str, first_line: int) -> None:
        """Give back text that starts on line `first_line`, to be read next."""
        lines = text.splitlines(keepends=True)
        self.pending.extend(reversed(lines))
        self.line = first_line - 1


_STREAMS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _stream(handle: TextIO) -> _Stream:
    """The reading state of a handle (kept between calls, as long as the handle lives)."""
    try:
        stream = _STREAMS.get(handle)
        if stream is None:
            stream = _STREAMS[handle] = _Stream(handle)
        else:
            stream.moved()
        return stream
    except TypeError:  # a handle that takes no weak reference: the state of this call only
        return _Stream(handle)


def _headers(stream: _Stream, variant: str) -> tuple[dict[str, str], list[str], str] | None:
    """The next game's tags (the seven first), the errors in them, and the line after them
    (its movetext's first line); None at the end of the stream."""
    line = stream.readline()
    if line[:1] == "\ufeff":  # a byte order mark read as text
        line = line[1:] or "\n"
    while line and (line.isspace() or line[0] in "%;"):
        line = stream.readline()
    if not line:
        return None
    tags: dict[str, str] = {}
    errors: list[str] = []
    blank = False
    while line:
        first = line[0]
        if first == "[":
            match = _TAG.match(line)
            if match is not None:
                tags[match.group(1)] = match.group(2)
            else:
                found = _TAGS.findall(line)
                if found:
                    tags.update(found)
                else:
                    errors.append(f"line {stream.line}: broken tag {line.strip()!r}")
            blank = False
        elif first in "%;":
            pass
        elif line.isspace() and not blank:
            blank = True  # one blank line may part tags (as python-chess reads them)
        elif first.isspace() and _TAG_START.match(line):
            tags.update(_TAGS.findall(line))
        else:
            break
        line = stream.readline()
    if "Variant" not in tags and variant != "chess":
        tags["Variant"] = variant
    return tags, errors, line


def _movetext(stream: _Stream, line: str) -> tuple[str, int]:
    """A game's movetext from `line` on: up to a blank line outside comments, the next tags
    or the end; (the text, the number of its first line). Escape lines (`%`) read as blank."""
    first = stream.line
    parts: list[str] = []
    depth = False  # inside a {comment} that spans lines
    while line:
        if not depth:
            if line.isspace():
                break
            start = line[0]
            if start == "%":
                line = "\n"
            elif start == "[" and _TAG_START.match(line):
                stream.unread(line, stream.line)
                break
        parts.append(line)
        if depth or "{" in line or "}" in line:
            depth = _still_open(line, depth)
        line = stream.readline()
    if not line and not parts:
        first = stream.line + 1
    return "".join(parts), first


def _still_open(line: str, depth: bool) -> bool:
    """Whether a {comment} is open at the end of a line (open at its start: `depth`)."""
    if ";" not in line:
        # after the last '}' no comment is open (a '{' inside a comment is text): one is open
        # at the end if a '{' follows it
        close = line.rfind("}")
        if close < 0:
            return depth or "{" in line
        return line.find("{", close + 1) >= 0
    index = 0
    while True:
        if depth:
            close = line.find("}", index)
            if close < 0:
                return True
            depth, index = False, close + 1
        else:
            brace, semi = line.find("{", index), line.find(";", index)
            if brace < 0 or 0 <= semi < brace:
                return False
            depth, index = True, brace + 1


def _skip_movetext(stream: _Stream) -> None:
    """Go past a game's movetext, as _read would (a result followed by more text ends it)."""
    line = stream.readline()
    text, first = _movetext(stream, line)
    body = text.rstrip()
    for result in RESULTS:  # the result ends the text (almost always): nothing after it
        if body.endswith(result):
            body = body[: -len(result)]
            break
    if not any(result in body for result in RESULTS):
        return
    depth = 0
    for match in _MOVETEXT.finditer(text):
        token = match.group(1)
        if token == "(":
            depth += 1
        elif token == ")":
            depth = max(0, depth - 1)
        elif token in _RESULT_SET and depth == 0:
            _give_back(stream, text, match.end(), first)
            return


def _give_back(stream: _Stream, text: str, end: int, first: int) -> None:
    """Give back the text after `end` (the next game) unless it is blank."""
    rest = text[end:]
    if rest.strip():
        stream.unread(rest, first + text.count("\n", 0, end))


# ------------------------------------------------------------------------------ the games


def _read(
    stream: _Stream, variant: str, mainline_only: bool, max_plies: int | None = None
) -> Game | None:
    """The next game of a stream (python-chess's shape: errors recorded, never raised)."""
    found = _headers(stream, variant)
    if found is None:
        return None
    tags, errors, line = found
    text, first = _movetext(stream, line)
    stream.games += 1
    return _game(stream, tags, errors, text, first, mainline_only, max_plies)[0]


def _game(
    stream: _Stream,
    tags: dict[str, str],
    errors: list[str],
    text: str,
    first: int,
    mainline_only: bool,
    max_plies: int | None,
) -> tuple[Game, _Line | None]:
    """A game read from its tags and movetext (the stream's last), and the line reader that
    played it (None where the start position could not be set)."""
    number = stream.games
    game = Game(tags)
    game.errors.extend(f"game {number}: {error}" for error in errors)
    try:
        reader = _line_reader(game.headers)
    except PgnError as error:
        game.errors.append(f"game {number}: line {first}: {error}")
        _skip_game_text(stream, text, first)
        return game, None
    _play(game, reader, text, first, stream, number, mainline_only, max_plies)
    return game, reader


def _skip_game_text(stream: _Stream, text: str, first: int) -> None:
    """After a game whose moves cannot be read: give back what follows its result."""
    depth = 0
    for match in _MOVETEXT.finditer(text):
        token = match.group(1)
        if token == "(":
            depth += 1
        elif token == ")":
            depth = max(0, depth - 1)
        elif token in _RESULT_SET and depth == 0:
            _give_back(stream, text, match.end(), first)
            return


_LOCAL = threading.local()


def _line_reader(headers: dict[str, str], rules: Rules | None = None) -> _Line:
    """A line reader at the game's start position (kept per variant and thread; `rules`: the
    Variant tag's, where the caller knows them); PgnError."""
    from . import variants

    if rules is None:
        rules = variants.get(variant_name(headers.get("Variant", "chess")))
    lines = getattr(_LOCAL, "lines", None)
    if lines is None:
        lines = _LOCAL.lines = {}
    native = headers.get("Notation", "").lower() in NATIVE_TAGS
    key = (id(rules), native)
    reader = lines.get(key)
    if reader is None or reader.rules is not rules:
        board = Board(rules=rules)
        reader = _FastLine(board) if not native and _plain_san(board.rules) else None
        reader = reader or _BoardLine(board, native)
        lines[key] = reader
    fen = headers.get("FEN")
    try:
        reader.start(fen or reader.rules.start_fen)
    except ValueError as error:
        raise PgnError(str(error)) from None
    return reader


def _play(
    game: Game,
    line: _Line,
    text: str,
    first: int,
    stream: _Stream,
    number: int,
    mainline_only: bool,
    max_plies: int | None = None,
) -> None:
    """Read a game's movetext into its tree: moves, comments, NAGs and variations."""
    root = parent = game.root
    last: Node | None = None  # the node comments and NAGs belong to (None after '(')
    pending = ""  # a comment before a variation's first move: that move's starting comment
    stack: list[tuple[Node, Node, object, int]] = []  # outside each open variation
    skip = 0  # parentheses open in a variation being skipped (mainline_only, or an error)
    dead = 0  # after an error in the main line: 1 + parentheses open (the result is sought)
    left = -1 if max_plies is None else max_plies  # main-line plies still to read (-1: all)
    if left == 0:
        dead = 1
    play, errors = line.play, game.errors
    kinds = _KIND
    tokens = _MOVETEXT.findall(text)
    index = -1
    for token in tokens:
        index += 1
        kind = kinds.get(token[0], _WORD)
        if skip or dead:
            if dead:
                if kind == _OPEN:
                    dead += 1
                elif kind == _CLOSE:
                    dead = max(1, dead - 1)
                elif dead == 1 and token in _RESULT_SET:
                    _result(game, token, stream, text, tokens, index, first)
                    return
            elif kind == _OPEN:
                skip += 1
            elif kind == _CLOSE:
                skip -= 1
                if not skip:
                    parent, last, saved, ply = stack.pop()
                    line.back(ply, saved)
                    pending = ""
            continue
        if kind == _DIGIT:  # a result, a move number alone, 0-0
            if token[-1] == ".":
                continue  # a move number
            if token in _RESULT_SET:
                if not stack:
                    _result(game, token, stream, text, tokens, index, first)
                    return
                continue  # a result inside a variation: python-chess passes it by
            kind = _WORD
        if kind == _WORD:
            try:
                uci, san = play(token)
            except IllegalMoveError:
                where = _line_of(text, index, first)
                errors.append(
                    f"game {number}: line {where}: illegal move {token!r} "
                    f"(move {line.fullmove_number()}) in {line.fen()}"
                )
                if stack:
                    skip = 1  # the rest of this variation
                else:
                    dead = 1
                continue
            child = Node(uci, san, "", pending, [], [], parent)
            parent.variations.append(child)
            pending = ""
            parent = last = child
            if left > 0 and not stack:
                left -= 1
                if not left:
                    dead = 1  # enough: the rest is passed by, up to the result
        elif kind == _COMMENT:
            if mainline_only:
                continue
            comment = token[1:-1] if token[-1] == "}" else token[1:]
            comment = comment.strip()
            if last is not None:
                last.comment = f"{last.comment} {comment}" if last.comment else comment
            elif parent is root and not stack and not root.variations:
                root.comment = f"{root.comment} {comment}" if root.comment else comment
            else:
                pending = f"{pending} {comment}" if pending else comment
        elif kind == _OPEN:
            if mainline_only:
                stack.append((parent, last, None, -1))
                skip = 1
                continue
            if last is None or last.parent is None:
                where = _line_of(text, index, first)
                errors.append(f"game {number}: line {where}: a variation where no move was played")
                stack.append((parent, last, None, -1))
                skip = 1
                continue
            saved = line.undo()
            stack.append((parent, last, saved, line.ply()))
            parent, last, pending = last.parent, None, ""
        elif kind == _CLOSE:
            if not stack:
                where = _line_of(text, index, first)
                errors.append(f"game {number}: line {where}: ')' without '('")
                continue
            parent, last, saved, ply = stack.pop()
            line.back(ply, saved)
            pending = ""
        elif kind in (_NAG, _SUFFIX):
            if mainline_only:
                continue
            nag = int(token[1:]) if kind == _NAG else SUFFIX_NAGS.get(token)
            if nag is None:
                where = _line_of(text, index, first)
                errors.append(f"game {number}: line {where}: unknown annotation {token!r}")
            elif last is not None:
                last.nags.append(nag)
        elif kind == _STAR:
            if token == "*" and not stack:
                _result(game, token, stream, text, tokens, index, first)
                return
            if token != "*":
                where = _line_of(text, index, first)
                errors.append(f"game {number}: line {where}: unexpected {token!r}")
        elif kind == _OTHER:
            where = _line_of(text, index, first)
            errors.append(f"game {number}: line {where}: unexpected {token!r}")
        # _SEMI: a comment to the end of the line
    if stack and not dead:
        errors.append(f"game {number}: a variation '(' is not closed")


def _result(
    game: Game, token: str, stream: _Stream, text: str, tokens: list[str], index: int, first: int
) -> None:
    """The game's result token: the Result tag where it says `*`; the text after it is the
    next game's."""
    if game.headers.get("Result", "*") == "*":
        game.headers["Result"] = token
    if index + 1 < len(tokens):
        end = _token_span(text, index)[1]
        _give_back(stream, text, end, first)


def _token_span(text: str, index: int) -> tuple[int, int]:
    """Where the index-th token of a movetext is."""
    for count, match in enumerate(_MOVETEXT.finditer(text)):
        if count == index:
            return match.span(1)
    return len(text), len(text)


def _line_of(text: str, index: int, first: int) -> int:
    """The line of the index-th token of a movetext that starts on line `first`."""
    return first + text.count("\n", 0, _token_span(text, index)[0])


# ------------------------------------------------------------------------------ moves


def _plain_san(rules: Rules) -> bool:
    """Whether a variant's moves are read by _FastLine: SAN only (no drops, gating, shogi
    promotions or sittuyin's), one capital letter a piece."""
    return (
        notation.style(rules) == "san"
        and not rules.drops
        and not rules.sittuyin_promotion
        and not rules.seirawan_gating
        and all(
            len(p.letter) == 1 and "A" <= p.letter <= "Z" and not p.promoted and not p.demoted
            for p in rules.pieces
        )
    )


class _BoardLine:
    """The moves of a line read with a ferz Board (every variant and notation)."""

    def __init__(self, board: Board, native: bool) -> None:
        self.board = board
        self.rules = board.rules
        self.native = native

    def start(self, fen: str) -> None:
        """Back to a start position (ValueError for a bad FEN)."""
        self.board.set_fen(fen)

    def play(self, token: str) -> tuple[str, str]:
        """Play a move token; its (UCI, SAN). IllegalMoveError."""
        board = self.board
        move = parse_move(board, token, self.native)
        san = board.san(move)
        board.push(move)
        return move.text, san

    def undo(self) -> Move:
        """Take back the last move (a variation begins); it is given to back()."""
        return self.board.pop()

    def ply(self) -> int:
        """Moves played since the start."""
        return len(self.board.move_stack)

    def back(self, ply: int, saved: object) -> None:
        """After a variation: back to `ply` moves, then the move undo() took back."""
        board = self.board
        if saved is None:
            return
        while len(board.move_stack) > ply:
            board.pop()
        board.push(saved)

    def fullmove_number(self) -> int:
        """The move number of the position."""
        return self.board.fullmove_number

    def fen(self) -> str:
        """The position's FEN."""
        return self.board.fen()


#: the first plies of each game, whose moves _FastLine keeps by position, and how many it keeps
OPENING_PLIES = 12
OPENING_MOVES = 20_000
#: a move spelt as SAN, long algebraic or coordinates: piece, origin file and rank (either may
#: be missing), target, promotion; check marks
_FAST_MOVE = re.compile(r"([A-Z]?)([a-p]?)(\d{0,2})[-x:]?([a-p]\d{1,2})(?:=?([A-Za-z]))?[+#]*$")
_CASTLES = {"O-O": -1, "0-0": -1, "O-O-O": -2, "0-0-0": -2}


class _FastLine:
    """The moves of a line read straight on the core's position, for variants whose SAN
    names a piece by one letter (most chess variants): a move token is parsed once into
    ints and matched in compiled code (core/san.py: the pseudo-legal moves to its target
    square, only those tried for legality), its SAN made from what the match gives back;
    anything else (another spelling, an error) goes to the Board's parser."""

    def __init__(self, board: Board) -> None:
        rules = self.rules = board.rules
        self.board = board  # its position is played on (its move stack is not kept)
        self.pos = board.position
        self.scratch: Board | None = None
        self.chess960 = board.chess960
        size = self.pos.nsq
        self.names = [""] * size
        self.files = [""] * size
        self.ranks = [""] * size
        self.file_index = [0] * size
        file_of, rank_of = [-1] * size, [-1] * size
        self.squares: dict[str, int] = {}
        # the squares by the file letter and rank number of their names (core/movetext.py)
        self.square_at = array("i", [-1]) * (movetext.FILES * movetext.RANKS)
        for sq in rules.squares():
            name = rules.square_name(sq)
            self.names[sq], self.files[sq], self.ranks[sq] = name, name[0], name[1:]
            self.file_index[sq] = file_of[sq] = rules.file_of(sq)
            rank_of[sq] = rules.rank_of(sq)
            self.squares[name] = sq
            named = re.fullmatch(r"([a-p])([1-9]\d?)", name)
            if named is not None:
                file, rank = ord(named[1]) - 97, int(named[2]) - 1
                self.square_at[file * movetext.RANKS + rank] = sq
        pieces = rules.pieces
        # the SAN letter of a piece code >> 1 ('' for pawns), and of a promotion's type
        self.letters: list[str | None] = [None] + ["" if p.pawn else p.letter for p in pieces]
        self.promo_letters = [""] + [p.letter for p in pieces]
        self.matcher = san.Matcher(
            file_of,
            rank_of,
            [0] + [0 if p.pawn else ord(p.letter) for p in pieces],
            [0] + [ord(p.letter) for p in pieces],
        )
        self.tokens: dict[str, tuple | None] = {}
        # (UCI, SAN) by the matcher's packed result (the move and its SAN's facts)
        self.texts: dict[int, tuple[str, str]] = {}
        # the moves read in the openings' positions, by (position key, token): a database's
        # games share their first moves; not where a move's legality depends on the moves
        # before (janggi's bikjang, shatar, perpetual checks and chases)
        self.known: dict[tuple[int, str], tuple[int, tuple[str, str]]] = {}
        self.keyed = not (
            rules.bikjang
            or rules.shatar_mate
            or rules.perpetual_check_illegal
            or rules.chasing_rule
        )
        self.played: list[int] = []
        self.loaded: str | None = None  # the FEN the moves were played from
        self.play = self._player()

    def start(self, fen: str) -> None:
        """Back to a start position (ValueError for a bad FEN): the last game's moves taken
        back where it started there (quicker than reading the FEN again)."""
        pos, played = self.pos, self.played
        if fen == self.loaded and len(played) < 200:
            while played:
                played.pop()
                pos.unmake()
            return
        self.loaded = None
        self.board.set_fen(fen)
        played.clear()
        self.play = self._player()
        self.loaded = fen

    def _parse(self, token: str) -> tuple | None:
        """The matcher's arguments for a move token (after the position): piece letter's
        code (0 for a pawn), target (-1, -2: castling king- or queenside), origin file and
        rank (-1: not given), promotion letter's code (0: none), whether it says it captures;
        None for another spelling."""
        castle = _CASTLES.get(token.rstrip("+#"))
        if castle is not None:
            return (0, castle, -1, -1, 0, False)
        match = _FAST_MOVE.match(token)
        if match is None:
            return None
        letter, file, rank, target, promo = match.groups()
        to = self.squares.get(target)
        if to is None or rank[:1] == "0":
            return None
        return (
            ord(letter) if letter else 0,
            to,
            ord(file) - 97 if file else -1,
            int(rank) - 1 if rank else -1,
            ord(promo.upper()) if promo else 0,
            "x" in token,
        )

    def _text(self, packed: int) -> tuple[str, str]:
        """The (UCI, SAN) of a move the matcher played, from its packed result."""
        move = packed & 0x7FFFFFF
        fr, to, kind = move & 511, (move >> 9) & 511, (move >> 24) & 7
        if kind == CASTLE:
            kingside = self.file_index[to] > self.file_index[fr]
            text = "O-O" if kingside else "O-O-O"
        else:
            letter = self.letters[packed >> 32] or ""
            capture = "x" if packed >> 29 & 1 else ""
            if letter:
                origin = ("", self.files[fr], self.ranks[fr], self.names[fr])[packed >> 27 & 3]
                text = letter + origin + capture + self.names[to]
            else:
                text = (self.files[fr] + capture if capture else "") + self.names[to]
            if kind == PROMO:
                text += "=" + self.promo_letters[(move >> 18) & 63]
        return self._uci(move), text + ("", "+", "#", "")[packed >> 30 & 3]

    def _player(self) -> Callable[[str], tuple[str, str]]:
        """play(token): play a move token, give its (UCI, SAN); IllegalMoveError. A closure
        over the tables (the hot path of the reader)."""
        pos, played, tokens, texts = self.pos, self.played, self.tokens, self.texts
        match, parse, slow, text_of = self.matcher.play, self._parse, self._slow, self._text
        known, opening = self.known, OPENING_PLIES if self.keyed else 0
        make = pos.make

        def play(token: str) -> tuple[str, str]:
            key = None
            if len(played) < opening:  # a position of the openings: seen before?
                key = (pos.key, token)
                hit = known.get(key)
                if hit is not None and make(hit[0]):
                    played.append(hit[0])
                    return hit[1]
            try:
                parsed = tokens[token]
            except KeyError:
                if len(tokens) > 100_000:
                    tokens.clear()
                parsed = tokens[token] = parse(token)
            if parsed is None or len(played) >= MAX_GAME_PLY:
                return slow(token)
            packed = match(pos, *parsed)
            if packed < 0:  # none, several or too many moves: the slow way says which
                return slow(token)
            move = packed & 0x7FFFFFF
            played.append(move)
            texts_hit = texts.get(packed)
            if texts_hit is None:
                if len(texts) > 100_000:
                    texts.clear()
                texts_hit = texts[packed] = text_of(packed)
            if key is not None and len(known) < OPENING_MOVES:
                known[key] = (move, texts_hit)
            return texts_hit

        return play

    def _uci(self, move: int) -> str:
        """The UCI text of a move (as Board writes it)."""
        fr, to, kind = move & 511, (move >> 9) & 511, (move >> 24) & 7
        if kind == CASTLE and not self.chess960:
            to = self.board._castle_king_to(fr, to)
        text = self.names[fr] + self.names[to]
        if kind == PROMO:
            text += self.promo_letters[(move >> 18) & 63].lower()
        return text

    def _slow(self, token: str) -> tuple[str, str]:
        """A token read by parse_move on a Board set to the position (every spelling; its
        errors)."""
        if len(self.played) >= MAX_GAME_PLY:
            raise IllegalMoveError(f"the game is too long ({MAX_GAME_PLY} plies)")
        scratch = self.scratch
        if scratch is None:
            scratch = self.scratch = Board(rules=self.rules, chess960=self.chess960)
        scratch.set_fen(self.pos.fen())
        move = parse_move(scratch, token)
        san = scratch.san(move)
        if not self.pos.make(move.code):
            raise IllegalMoveError(f"illegal move {token!r} in {self.pos.fen()}")
        self.played.append(move.code)
        return move.text, san

    def undo(self) -> int:
        """Take back the last move (a variation begins); it is given to back()."""
        self.pos.unmake()
        return self.played.pop()

    def ply(self) -> int:
        """Moves played since the start."""
        return len(self.played)

    def back(self, ply: int, saved: object) -> None:
        """After a variation: back to `ply` moves, then the move undo() took back."""
        if saved is None:
            return
        played, pos = self.played, self.pos
        while len(played) > ply:
            played.pop()
            pos.unmake()
        pos.make(saved)
        played.append(saved)

    def fullmove_number(self) -> int:
        """The move number of the position."""
        return self.pos.fullmove_number()

    def fen(self) -> str:
        """The position's FEN."""
        return self.pos.fen()


_Line = _FastLine | _BoardLine


def _join(first: str, second: str) -> str:
    """Two comments as one (python-chess joins them with a space)."""
    return " ".join(part for part in (first, second) if part)


# ------------------------------------------------------------------------------ writing


def write(game: Game, comments: bool = True, variations: bool = True, native: bool = True) -> str:
    """The game as PGN text (tags, a blank line, movetext, a blank line).

    Xiangqi and shogi moves are written in their players' notation (WXF, Hodges), named by a
    `Notation` tag, unless `native` is False (SAN, as Fairy-Stockfish writes them).
    """
    headers = dict(game.headers)
    board = game.board()
    style = notation.board_style(board) if native else "san"
    if style != "san":
        headers["Notation"] = notation.TAG_NAMES[style]
    else:
        headers.pop("Notation", None)
    result = headers.get("Result", "*")
    lines = [f'[{name} "{value}"]' for name, value in headers.items()]
    tokens: list[str] = []
    if comments and game.root.comment:
        tokens.append(_comment(game.root.comment))
    _write_line(game.root, board, tokens, comments, variations, True, style)
    tokens.append(result)
    return "\n".join(lines) + "\n\n" + "\n".join(_wrap(tokens)) + "\n\n"


def write_games(games: Iterable[Game]) -> str:
    """Several games as one PGN text."""
    return "".join(write(game) for game in games)


def _comment(text: str) -> str:
    """A brace comment (a closing brace in the text would end it early)."""
    return "{ " + text.replace("}", ")").strip() + " }"


def _number(board: Board, force: bool) -> str | None:
    """The move number token before a move ("12." or "12..."), or None where none is due."""
    if board.turn:
        return f"{board.fullmove_number}."
    return f"{board.fullmove_number}..." if force else None


def _write_line(
    node: Node,
    board: Board,
    tokens: list[str],
    comments: bool,
    variations: bool,
    force: bool,
    style: str = "san",
) -> None:
    """The main line below `node` and, after each move, its alternatives in parentheses;
    `board` (at `node`) is left as it was."""
    played = 0
    while node.variations:
        main = node.variations[0]
        _write_move(main, board, tokens, comments, force, style)
        force = comments and bool(main.comment)
        for alternative in node.variations[1:] if variations else []:
            tokens.append("(")
            _write_move(alternative, board, tokens, comments, True, style)
            board.push(board.parse_uci(alternative.move or ""))
            again = comments and bool(alternative.comment)
            _write_line(alternative, board, tokens, comments, variations, again, style)
            board.pop()
            tokens.append(")")
            force = True
        board.push(board.parse_uci(main.move or ""))
        played += 1
        node = main
    for _ in range(played):
        board.pop()


def _write_move(
    node: Node, board: Board, tokens: list[str], comments: bool, force: bool, style: str = "san"
) -> None:
    """One move with its number, starting comment, NAGs and comment."""
    if comments and node.starting_comment:
        tokens.append(_comment(node.starting_comment))
        force = True
    number = _number(board, force)
    if style == "san":
        san = node.san or board.san(board.parse_uci(node.move or ""))
    else:
        san = notation.move_text(board, board.parse_uci(node.move or ""), style)
    tokens.append(f"{number} {san}" if number else san)  # a number stays with its move
    if comments:
        tokens.extend(f"${nag}" for nag in node.nags)
        if node.comment:
            tokens.append(_comment(node.comment))


def _wrap(tokens: list[str]) -> list[str]:
    """Tokens joined into lines of at most LINE_WIDTH characters (no space after '(' or
    before ')')."""
    lines: list[str] = []
    current = ""
    for token in tokens:
        glue = "" if (current.endswith("(") or token == ")") else " "
        if current and len(current) + len(glue) + len(token) > LINE_WIDTH:
            lines.append(current)
            current = token
        else:
            current = f"{current}{glue}{token}" if current else token
    if current:
        lines.append(current)
    return lines


__all__ = [
    "Game",
    "Node",
    "PgnError",
    "SEVEN_TAGS",
    "parse_move",
    "read_file",
    "read_game",
    "read_games",
    "read_headers",
    "skip_game",
    "stream_games",
    "variant_name",
    "write",
    "write_games",
]
