"""PGN: read and write games as a tree (many games per file, tags, comments, NAGs, variations).

The one PGN module of ferz: `ferz play`, `ferz match` and `ferz analyse` read and write games
through it. Moves are checked with ferz's own Board, so every built-in variant works: the
`Variant` tag names the variant and `FEN` the start position (Fairy-Stockfish's dialect, with
pockets). The reader takes every move spelling python-chess takes: SAN (`Nf3`, `exd5`, `e8=Q`,
`e8Q`), long algebraic (`e2-e4`, `Ng1-f3`, `Nb1xc3`), coordinates (`e2e4`, `e1g1`), castling as
`O-O` or `0-0`, suffixes `+ # ! ? !! ?? !? ?!` (the last six become NAGs). Tag values are read
and written as python-chess does, without backslash escapes (a tag is one line). The writer
emits SAN with move numbers, `{ comments }`, `$n` NAGs and `( variations )` in lines of at
most 80 characters; what it writes it reads back into the same tree::

    games = pgn.read_file("games.pgn")              # a list; PgnError at a bad game
    print(games[0].headers["White"], games[0].mainline_moves())
    text = pgn.write(games[0])
    for game in pgn.stream_games(open("big.pgn")):  # any size, one game at a time
        print(game.headers["Event"], game.errors)   # a bad game: its errors, then the next
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TextIO

from . import notation
from .board import Board, IllegalMoveError, Move

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


@dataclass(eq=False)
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


@dataclass(eq=False)
class Game:
    """A game: its tags and its tree of moves from a start position."""

    headers: dict[str, str] = field(default_factory=dict)
    root: Node = field(default_factory=Node)
    #: what stream_games found wrong in this game (its moves stop there), with the line
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        """The seven tags come first, with PGN's unknown values, unless given."""
        defaults = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?"}
        defaults |= {"White": "?", "Black": "?", "Result": "*"}
        self.headers = {**{k: self.headers.get(k, v) for k, v in defaults.items()}, **self.headers}

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


def read_games(text: str, variant: str = "chess") -> Iterator[Game]:
    """Every game of a PGN text, in order; PgnError names the game and move of a problem.
    `variant` is the variant of games without a Variant tag (one is added to them)."""
    reader = _PgnReader(text, variant)
    while True:
        game = reader.game()
        if game is None:
            return
        yield game


def read_game(text: str, variant: str = "chess") -> Game | None:
    """The first game of a PGN text, or None if there is none (`variant` as in read_games)."""
    return next(read_games(text, variant), None)


def stream_games(handle: TextIO, variant: str = "chess") -> Iterator[Game]:
    """Every game of an open PGN text stream, read one game at a time, so that a file of any
    size takes the memory of its largest game. A game with an error (an illegal move, a broken
    tag, stray text) is still yielded, with what was read before the error and the message in
    `game.errors` (its line counted in the stream), and the reader goes on with the next game,
    as python-chess does. `variant` as in read_games."""
    line_number = games = 0
    for first, text in _game_texts(handle):
        reader = _PgnReader(text, variant, first_line=line_number + first)
        reader.count = games  # numbered in the stream, not in the piece of text
        line_number += first + text.count("\n")
        while True:
            game: Game | None = None
            try:
                game = reader.game()
            except ValueError as error:  # PgnError, or a bad FEN tag
                game = reader.current
                game.errors.append(str(error))
                reader.skip_game()
            if game is None:
                break
            games = reader.count
            yield game


def _game_texts(handle: TextIO) -> Iterator[tuple[int, str]]:
    """The stream cut before each game's first tag line: (blank lines skipped before it, the
    game's text). A line that only looks like a tag inside an open {comment} does not cut."""
    lines: list[str] = []
    skipped = 0
    moves_seen = False
    depth = 0  # open braces: a comment that spans lines
    for line in handle:
        if depth == 0 and moves_seen and _TAG_LINE.match(line):
            yield skipped, "".join(lines)
            lines, skipped, moves_seen = [], 0, False
        if not lines and not line.strip():
            skipped += 1
            continue
        lines.append(line)
        code = line.split(";", 1)[0] if depth == 0 else line
        depth = max(0, depth + code.count("{") - code.count("}"))
        if depth or not _TAG_LINE.match(line) and line.strip():
            moves_seen = True
    if lines:
        yield skipped, "".join(lines)


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


class _PgnReader:
    """Tokens of a PGN text, taken game by game."""

    def __init__(self, text: str, variant: str = "chess", first_line: int = 0) -> None:
        self.variant = variant
        self.first_line = first_line  # lines of the stream before this text
        self.current = Game()  # the game being read (stream_games keeps it on an error)
        self.tokens = [
            (m.lastgroup if m.lastgroup not in ("name", "value") else "tag", m)
            for m in _TOKEN.finditer(text)
        ]
        self.text = text
        self.index = 0
        self.count = 0

    def _where(self, match: re.Match) -> str:
        """Line number of a token."""
        return f"line {self.first_line + self.text.count(chr(10), 0, match.start()) + 1}"

    def game(self) -> Game | None:
        """The next game, or None at the end of the text."""
        tokens = self.tokens
        headers: dict[str, str] = {}
        while self.index < len(tokens):
            kind, match = tokens[self.index]
            if kind == "tag":
                headers[match.group("name")] = match.group("value")
            elif kind not in ("space", "line", "escape"):
                break
            self.index += 1
        else:
            if not headers:
                return None
        self.count += 1
        if "Variant" not in headers and self.variant != "chess":
            headers["Variant"] = self.variant
        game = self.current = Game(headers)
        try:
            self._movetext(game)
        except PgnError as error:
            raise PgnError(f"game {self.count}: {error}") from None
        return game

    def skip_game(self) -> None:
        """Go past the rest of the current game: up to its result or the next tags."""
        tokens = self.tokens
        while self.index < len(tokens):
            kind, _ = tokens[self.index]
            if kind == "tag":
                return
            self.index += 1
            if kind == "result":
                return

    def _movetext(self, game: Game) -> None:
        """Read moves, comments, NAGs and variations up to the result or the next tags."""
        board = game.board()
        native = game.headers.get("Notation", "").lower() in NATIVE_TAGS
        parent = game.root  # the node the next move is added to
        last: Node | None = None  # the node comments and NAGs belong to (None after '(')
        pending = ""  # a comment before a variation's first move: that move's starting comment
        stack: list[tuple[Node, Node | None, Board]] = []  # the lines outside open variations
        tokens = self.tokens
        while self.index < len(tokens):
            kind, match = tokens[self.index]
            if kind == "tag":
                break  # the next game's tags: this one has no result token
            self.index += 1
            if kind == "comment":
                text = match.group("comment").strip()
                if last is not None:
                    last.comment = _join(last.comment, text)
                elif parent is game.root and not stack and not parent.variations:
                    game.root.comment = _join(game.root.comment, text)
                else:
                    pending = _join(pending, text)
            elif kind in ("nag", "suffix"):
                value = match.group(0)
                nag = int(value[1:]) if kind == "nag" else SUFFIX_NAGS.get(value)
                if nag is None:
                    raise PgnError(f"{self._where(match)}: unknown annotation {value!r}")
                if last is not None:
                    last.nags.append(nag)
            elif kind == "open":
                if last is None or last.parent is None:
                    raise PgnError(f"{self._where(match)}: a variation where no move was played")
                stack.append((parent, last, board))
                # the variation is an alternative to the last move: back up one move
                parent, last, board = last.parent, None, board.copy()
                board.pop()
                pending = ""
            elif kind == "close":
                if not stack:
                    raise PgnError(f"{self._where(match)}: ')' without '('")
                parent, last, board = stack.pop()
                pending = ""
            elif kind == "result":
                if not stack:
                    if game.headers.get("Result", "*") == "*":
                        game.headers["Result"] = match.group(0)
                    break
            elif kind == "word":
                word = re.sub(r"^\d*\.+", "", match.group(0))
                if not word:
                    continue  # a move number or the dots after it
                try:
                    move = parse_move(board, word, native)
                except IllegalMoveError:
                    raise PgnError(
                        f"{self._where(match)}: illegal move {word!r} "
                        f"(move {board.fullmove_number}) in {board.fen()}"
                    ) from None
                child = parent.add_variation(board, move)
                child.starting_comment, pending = pending, ""
                board.push(move)
                parent = last = child
            elif kind == "other":
                raise PgnError(f"{self._where(match)}: unexpected {match.group(0)!r}")
        if stack:
            raise PgnError("a variation '(' is not closed")


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
    "stream_games",
    "variant_name",
    "write",
    "write_games",
]
