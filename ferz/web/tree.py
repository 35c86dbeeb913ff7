"""The analysis board's move tree: a ferz.pgn game tree as flat JSON, and the edits the page
makes to it (add a move, promote or delete a variation, comment, NAGs).

On the wire and in the store a tree is `{"comment": str, "nodes": [...]}`: every node
`{"parent", "uci", "san", "text", "comment", "nags", "start"}` in preorder, `parent` the index
of its parent node (-1 for the root), children in their order (the first continues the main
line). `text` is the move in the variant's own notation (WXF, Hodges, else SAN: as
boards.move_text writes it); `san` and `text` are filled in by the server and ignored when
read. Flat, so a line of 1000 plies is not 1000 levels of JSON.
"""

from __future__ import annotations

import json
from typing import Any

from .. import pgn
from ..board import IllegalMoveError
from . import boards

MAX_NODES = 3000  # moves in one tree (main line and variations)
MAX_COMMENT = 2000  # characters of one comment
MAX_DEPTH = 1000  # plies of one line (what the analysis socket takes)
OPS = ("add", "promote", "delete", "comment", "nags")


class TreeError(ValueError):
    """A tree or an edit that cannot be taken; nothing was changed."""


def new(variant: str, fen: str | None, moves: list[str] | None = None) -> pgn.Game:
    """A tree holding one line of UCI moves from a start position; TreeError for a bad one."""
    game = _game(variant, fen)
    try:
        game.add_line(moves or [])
    except IllegalMoveError as error:
        raise TreeError(str(error)) from None
    return game


def _game(variant: str, fen: str | None) -> pgn.Game:
    """An empty game of a variant from a start FEN (None: the variant's start)."""
    try:
        board = boards.new_board(fen, variant)
    except ValueError as error:
        raise TreeError(f"bad FEN: {error}") from None
    game = pgn.Game()
    game.set_start(board.variant, board.fen())
    return game


def to_json(game: pgn.Game, texts: bool = True) -> dict[str, Any]:
    """A tree as flat JSON (preorder), with each move's SAN and native notation (`texts`)."""
    board = game.board() if texts else None
    nodes: list[dict[str, Any]] = []
    stack: list[tuple[pgn.Node | None, int]] = [(c, -1) for c in reversed(game.root.variations)]
    while stack:
        node, parent = stack.pop()
        if node is None:  # leaving a node: back to its parent's position
            if board is not None:
                board.pop()
            continue
        index = len(nodes)
        entry: dict[str, Any] = {"parent": parent, "uci": node.move}
        if board is not None:
            move = board.parse_uci(node.move or "")
            entry["san"] = node.san or board.san(move)
            entry["text"] = boards.move_text(board, move)
            board.push(move)
        entry |= {"comment": node.comment, "nags": list(node.nags), "start": node.starting_comment}
        nodes.append(entry)
        stack.append((None, -1))
        stack.extend((child, index) for child in reversed(node.variations))
    return {"comment": game.root.comment, "nodes": nodes}


def from_json(data: Any, variant: str, fen: str | None) -> pgn.Game:
    """A tree read back from flat JSON, every move checked; TreeError names the first problem."""
    if not isinstance(data, dict) or not isinstance(data.get("nodes", []), list):
        raise TreeError("a tree is {comment, nodes: [...]}")
    game = _game(variant, fen)
    game.root.comment = _text(data.get("comment") or "", "the first comment")
    raw = data.get("nodes") or []
    if len(raw) > MAX_NODES:
        raise TreeError(f"a tree holds at most {MAX_NODES} moves")
    nodes: list[pgn.Node] = []
    board = game.board()
    line: list[int] = []  # the nodes whose moves are on `board`, from the root
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise TreeError(f"node {index} is not an object")
        parent_index = item.get("parent", -1)
        if not isinstance(parent_index, int) or not -1 <= parent_index < index:
            raise TreeError(f"node {index}: parent must be an earlier node or -1")
        # one board for the whole walk: back up to the parent (in preorder it is on the line)
        while line and line[-1] != parent_index:
            board.pop()
            line.pop()
        parent = game.root if parent_index < 0 else nodes[parent_index]
        if parent_index >= 0 and not line:  # not preorder: replay the parent's moves
            for move in parent.moves_from_root():
                board.push_uci(move)
            line = [-2] * (parent.ply() - 1) + [parent_index]
        uci = item.get("uci")
        try:
            if not isinstance(uci, str):
                raise IllegalMoveError("no move")
            move = board.parse_uci(uci)
        except IllegalMoveError:
            raise TreeError(f"node {index}: illegal move {str(uci)[:10]!r}") from None
        if parent.child(move.uci()) is not None:
            raise TreeError(f"node {index}: the move {uci} is already there")
        node = parent.add_variation(board, move, nags=_nags(item.get("nags") or [], index))
        node.comment = _text(item.get("comment") or "", f"node {index}'s comment")
        node.starting_comment = _text(item.get("start") or "", f"node {index}'s comment")
        board.push(move)
        line.append(index)
        nodes.append(node)
    return game


def _text(value: Any, what: str) -> str:
    """A comment checked: a string of at most MAX_COMMENT characters."""
    if not isinstance(value, str) or len(value) > MAX_COMMENT:
        raise TreeError(f"{what} must be a string of at most {MAX_COMMENT} characters")
    return value.strip()


def _nags(value: Any, index: int) -> list[int]:
    """NAGs checked: at most 8 integers from 1 to 255."""
    if (
        not isinstance(value, list)
        or len(value) > 8
        or not all(isinstance(n, int) and not isinstance(n, bool) and 0 < n < 256 for n in value)
    ):
        raise TreeError(f"node {index}: nags must be at most 8 integers from 1 to 255")
    return list(value)


def apply(game: pgn.Game, op: dict[str, Any]) -> list[str]:
    """Apply one edit to a tree in place; the path (UCI moves) of the node to show after it.

    `op`: {"op": add|promote|delete|comment|nags, "path": [uci...], "uci", "comment", "nags"}.
    add plays `uci` at the node (an existing child is just entered; a new move after a node
    that already has a continuation starts a variation, never cuts the line); promote makes
    the node's line the main line; delete cuts the node and what follows; comment sets (""
    removes) the comment after the move; nags sets the node's NAGs. TreeError leaves the tree
    as it was.
    """
    kind, path = op.get("op"), list(op.get("path") or [])
    if kind not in OPS:
        raise TreeError(f"op must be one of {', '.join(OPS)}")
    try:
        node = game.root.find(path)
    except KeyError as error:
        raise TreeError(str(error.args[0])) from None
    if kind == "add":
        if len(path) >= MAX_DEPTH:
            raise TreeError(f"a line holds at most {MAX_DEPTH} plies")
        board = game.board()
        for move in path:
            board.push_uci(move)
        try:
            move = board.parse_uci(op.get("uci") or "")
        except IllegalMoveError as error:
            raise TreeError(str(error)) from None
        if node.child(move.uci()) is None:
            if game.root.count() >= MAX_NODES:
                raise TreeError(f"a tree holds at most {MAX_NODES} moves")
            node.add_variation(board, move)
        return [*path, move.uci()]
    if node.parent is None and kind != "comment":
        raise TreeError(f"{kind} needs a move, not the start position")
    if kind == "promote":
        node.promote()
        return path
    if kind == "delete":
        node.remove()
        return path[:-1]
    if kind == "comment":
        node.comment = _text(op.get("comment") or "", "the comment")
        return path
    node.nags = _nags(op.get("nags") or [], len(path))
    return path


def dumps(game: pgn.Game, plies: int) -> str:
    """A tree as the text the store keeps, with the number of moves its game had then."""
    data = to_json(game, texts=False)  # the notations are worked out again when it is read
    data["plies"] = plies
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def of_record(variant: str, fen: str, moves: list[str], stored: str) -> pgn.Game:
    """A stored game's tree: the one saved with it, else its moves as the main line. Moves
    the game went on with after its tree was saved (a game still being played) are added to
    the tree; moves deleted from the tree stay deleted."""
    game, seen = new(variant, fen), 0
    if stored:
        try:
            data = json.loads(stored)
            game = from_json(data, variant, fen)
            seen = data.get("plies", 0) if isinstance(data.get("plies"), int) else 0
        except (TreeError, ValueError):
            game, seen = new(variant, fen), 0  # a tree the rules no longer take: the moves
    if stored and seen >= len(moves):
        return game
    node, board = game.root, game.board()
    for move in moves:
        child = node.child(move)
        if child is None:
            child = node.add_variation(board, move)
        board.push_uci(move)
        node = child
    return game
