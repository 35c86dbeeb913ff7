"""Strict checking of every request body and socket message: JSON with bounded nesting, then
a schema per kind (types without coercion, ranges, lengths, no unknown fields)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class ClientError(Exception):
    """A request the server refuses: a message for the client and an HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


MAX_DEPTH = 8  # deepest nesting of arrays and objects any request or message needs (4)


def nesting_depth(text: str) -> int:
    """How deeply arrays and objects nest in a JSON text (strings skipped), without parsing.

    Checked before json.loads, whose recursion fails on deep nesting (RecursionError: a 500
    or a dropped socket on `[` x 100 000).
    """
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest  # enough to refuse; no need to scan the rest
        elif char in "]}":
            depth -= 1
    return deepest


def parse_json(raw: str | bytes) -> Any:
    """Parse a request body or message; ClientError (400) for bad UTF-8, JSON or nesting."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ClientError("the body must be UTF-8 JSON") from None
    if nesting_depth(raw) > MAX_DEPTH:
        raise ClientError(f"JSON nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise ClientError("the body is not valid JSON") from None


def _no_constant(name: str) -> Any:
    """NaN and Infinity are not JSON: refuse them."""
    raise ValueError(f"{name} is not JSON")


@dataclass(frozen=True)
class Field:
    """One field: its JSON type ('str', 'int', 'bool', 'list', 'object', 'any'), whether it
    may be missing or null, its range (ints) or length (strings, lists), allowed values, and
    the schema of list items or object fields."""

    kind: str
    required: bool = False
    nullable: bool = False
    low: int | None = None
    high: int | None = None
    choices: tuple[Any, ...] | None = None
    items: Field | None = None
    fields: Mapping[str, Field] | None = None
    open: bool = False  # an object whose keys are free (tags): items checks every value


def _type_ok(kind: str, value: Any) -> bool:
    """Whether `value` has JSON type `kind` (a bool is not an int, an int is not a bool)."""
    if kind == "str":
        return isinstance(value, str)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "list":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "score":  # an int or null inside review entries
        return value is None or (isinstance(value, int) and not isinstance(value, bool))
    return kind == "any"


KIND_NAMES = {
    "str": "a string",
    "int": "an integer",
    "bool": "true or false",
    "list": "a list",
    "object": "an object",
    "score": "an integer or null",
}


def check_value(field: Field, value: Any, where: str) -> Any:
    """`value` checked against `field`; ClientError names `where` and what was expected."""
    if value is None:
        if field.nullable or field.kind == "score":
            return None
        raise ClientError(f"{where} must not be null")
    if not _type_ok(field.kind, value):
        raise ClientError(f"{where} must be {KIND_NAMES.get(field.kind, field.kind)}")
    if field.choices is not None and value not in field.choices:
        shown = ", ".join(str(c) for c in field.choices[:12])
        raise ClientError(f"{where} must be one of: {shown}")
    if field.kind in ("int", "score"):
        size = value
    elif field.kind in ("str", "list", "object"):
        size = len(value)
    else:
        size = None
    if size is not None and field.low is not None and size < field.low:
        raise ClientError(f"{where} is below {field.low}" + _unit(field))
    if size is not None and field.high is not None and size > field.high:
        raise ClientError(f"{where} is above {field.high}" + _unit(field))
    if field.kind == "list" and field.items is not None:
        return [check_value(field.items, item, f"{where}[{n}]") for n, item in enumerate(value)]
    if field.kind == "object":
        if field.open:
            items = field.items or Field("any")
            out = {}
            for key, item in value.items():
                if not key or len(key) > 40 or not key.replace("_", "").isalnum():
                    raise ClientError(f"{where} has a bad key {key[:40]!r}")
                out[key] = check_value(items, item, f"{where}.{key}")
            return out
        if field.fields is not None:
            return check(value, field.fields, where)
    return value


def _unit(field: Field) -> str:
    """' items' or ' characters' after a length bound; nothing after a number bound."""
    return {"str": " characters", "list": " items", "object": " keys"}.get(field.kind, "")


def check(data: Any, schema: Mapping[str, Field], where: str = "request") -> dict[str, Any]:
    """A JSON object checked against `schema`: every key known, every value of its type;
    missing optional fields come back as None."""
    if not isinstance(data, dict):
        raise ClientError(f"{where} must be a JSON object")
    unknown = [key for key in data if key not in schema]
    if unknown:
        raise ClientError(f"{where}: unknown field {str(unknown[0])[:40]!r}")
    out: dict[str, Any] = {}
    for name, field in schema.items():
        if name not in data:
            if field.required:
                raise ClientError(f"{where}: missing field {name!r}")
            out[name] = None
            continue
        path = name if where in ("request", "query") else f"{where}.{name}"
        out[name] = check_value(field, data[name], path)
    return out


def check_message(data: Any, schemas: Mapping[str, Mapping[str, Field]]) -> dict[str, Any]:
    """A socket message: its `type` picks the schema among `schemas`."""
    if not isinstance(data, dict):
        raise ClientError("messages must be JSON objects")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in schemas:
        raise ClientError(f"unknown message type {str(kind)[:40]!r}")
    return check(data, {"type": Field("str"), **schemas[kind]}, kind)


# --- the schemas of the HTTP API and the two sockets -----------------------------------

UCI = Field("str", low=2, high=8)
FEN = Field("str", nullable=True, high=300)
VARIANT = Field("str", low=1, high=40)
MOVES = Field("list", high=1000, items=UCI)
TAGS = Field("object", nullable=True, high=40, open=True, items=Field("str", high=300))
RESULT = Field("str", nullable=True, choices=("1-0", "0-1", "1/2-1/2", "*"))
EVAL = Field(
    "object",
    nullable=True,
    fields={
        "score_cp": Field("score", low=-1_000_000, high=1_000_000),
        "score_mate": Field("score", low=-1000, high=1000),
        "ply": Field("int", low=0, high=1000),
        "best": Field("str", nullable=True, high=8),
        "outcome": RESULT,
        "type": Field("str", nullable=True, high=20),
        "nag": Field("score", low=0, high=255),  # the move's mark (ferz.analyse.judge)
        "loss": Field("score", low=0, high=2000),  # its centipawn loss (ferz.analyse.clamp)
    },
)

NEW_GAME = {
    "color": Field("str", choices=("white", "black", "random")),
    "elo": Field("int", nullable=True, low=0, high=10_000),  # the engine's range: GameSettings
    "clock": Field(
        "object",
        nullable=True,
        fields={
            "initial_ms": Field("int", required=True, low=0, high=10**9),
            "increment_ms": Field("int", low=0, high=10**9),
        },
    ),
    "movetime_ms": Field("int", nullable=True, low=0, high=10**9),
    "depth": Field("int", nullable=True, low=0, high=1000),
    "variant": VARIANT,
    "fen": FEN,
    "show_pv": Field("bool"),
    "opponent": Field("str", choices=("engine", "hotseat", "friend", "seek")),
    "flip": Field("bool"),
    "book": Field("bool"),
    "rated": Field("bool"),
}
TREE_NODE = Field(
    "object",
    fields={
        "parent": Field("int", required=True, low=-1, high=10_000),
        "uci": Field("str", required=True, low=2, high=8),
        "san": Field("str", high=40),  # sent by the server, ignored when read back
        "text": Field("str", high=40),
        "comment": Field("str", high=2000),
        "start": Field("str", high=2000),
        "nags": Field("list", high=8, items=Field("int", low=1, high=255)),
    },
)
TREE = Field(
    "object",
    nullable=True,
    fields={"comment": Field("str", high=2000), "nodes": Field("list", high=3000, items=TREE_NODE)},
)
TREE_OP = {
    "op": Field("str", required=True, choices=("add", "promote", "delete", "comment", "nags")),
    "path": Field("list", high=1000, items=UCI),
    "uci": UCI,
    "comment": Field("str", high=2000),
    "nags": Field("list", high=8, items=Field("int", low=1, high=255)),
}
# an edit of a tree the page holds (an analysis board not stored): the tree comes along
TREE_EDIT = {**TREE_OP, "variant": VARIANT, "fen": FEN, "tree": TREE}
IMPORT = {"text": Field("str", required=True, low=1, high=200_000), "variant": VARIANT}
EXPORT = {
    "variant": VARIANT,
    "fen": FEN,
    "moves": MOVES,
    "evals": Field("list", nullable=True, high=1001, items=EVAL),
    "tags": TAGS,
    "result": RESULT,
    "tree": TREE,  # the whole tree (variations, comments, NAGs); `moves` is then its main line
}
GAME_MESSAGES: dict[str, dict[str, Field]] = {
    "move": {"uci": Field("str", required=True, high=8), "ply": Field("int", low=0, high=10_000)},
    "takeback": {},
    "resign": {},
    "draw": {},
    "sync": {},
    "abort": {},
    "rematch": {},
    "claim": {"result": Field("str", required=True, choices=("win", "draw"))},
    "accept": {"offer": Field("str", required=True, choices=("draw", "takeback", "rematch"))},
    "decline": {"offer": Field("str", required=True, choices=("draw", "takeback", "rematch"))},
}
LOBBY_MESSAGES: dict[str, dict[str, Field]] = {"sync": {}}
ANALYSIS_MESSAGES: dict[str, dict[str, Field]] = {
    "analyse": {
        "seq": Field("int", nullable=True, low=-(2**53), high=2**53),
        "variant": VARIANT,
        "fen": FEN,
        "moves": MOVES,
        "ply": Field("int", nullable=True, low=0, high=1000),
        "multipv": Field("int", low=1, high=5),
        "think": Field("bool"),
    },
    "stop": {},
    "review": {"variant": VARIANT, "fen": FEN, "moves": MOVES},
}
