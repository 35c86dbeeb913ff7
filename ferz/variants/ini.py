"""The syntax of variant files: `[name]` / `[name:parent]` sections of `key = value` lines.

This layer only reads text; what the keys mean is `ferz.variants.build`'s business. Every entry
remembers its file and line so that later errors can point at it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+-]*\Z")
KEY = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")
MAX_LINE = 1000  # longer lines are refused rather than parsed (no definition needs them)
MAX_LINES = 100_000


class DefinitionError(ValueError):
    """A variant definition that ferz refuses; the message starts with `file:line:` (`file:`
    alone for a file that cannot be read at all, line 0)."""

    def __init__(self, source: str, line: int, message: str) -> None:
        super().__init__(f"{source}:{line}: {message}" if line > 0 else f"{source}: {message}")
        self.source = source
        self.line = line
        self.reason = message


@dataclass(frozen=True)
class IniEntry:
    """One `key = value` line."""

    key: str
    value: str
    source: str
    line: int

    def error(self, message: str) -> DefinitionError:
        """An error pointing at this line."""
        return DefinitionError(self.source, self.line, f"{self.key}: {message}")


@dataclass
class Section:
    """One variant's lines as written: its name, optional parent, and entries in order."""

    name: str
    parent: str | None
    source: str
    line: int
    entries: list[IniEntry] = field(default_factory=list)


def _strip_comment(text: str) -> str:
    """Remove a `#` or `;` comment that starts a line or follows whitespace."""
    match = re.search(r"(^|\s)[#;]", text)
    return text[: match.start()] if match else text


def parse(text: str, source: str = "<string>") -> list[Section]:
    """Split a definition file into sections; DefinitionError on any malformed line."""
    if not isinstance(text, str):
        raise DefinitionError(source, 0, "definitions must be text")
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise DefinitionError(source, MAX_LINES + 1, f"more than {MAX_LINES} lines")
    sections: list[Section] = []
    seen: dict[str, int] = {}
    current: Section | None = None
    keys: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if len(raw) > MAX_LINE:
            raise DefinitionError(source, number, f"line longer than {MAX_LINE} characters")
        if "\x00" in raw:
            raise DefinitionError(source, number, "NUL character")
        line = _strip_comment(raw).strip()
        if not line:
            continue
        if line.startswith("["):
            if not line.endswith("]"):
                raise DefinitionError(source, number, f"section header {line!r} lacks ']'")
            name, _, parent = line[1:-1].partition(":")
            name, parent = name.strip(), parent.strip()
            if not NAME.match(name):
                raise DefinitionError(source, number, f"bad variant name {name!r}")
            if _ and not NAME.match(parent):
                raise DefinitionError(source, number, f"bad parent variant name {parent!r}")
            if name in seen:
                raise DefinitionError(
                    source, number, f"variant {name!r} defined twice (first on line {seen[name]})"
                )
            if parent == name:
                raise DefinitionError(source, number, f"variant {name!r} inherits from itself")
            seen[name] = number
            current = Section(name, parent or None, source, number)
            sections.append(current)
            keys = {}
            continue
        key, eq, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not eq:
            raise DefinitionError(
                source, number, f"expected 'key = value' or '[name]', got {line!r}"
            )
        if current is None:
            raise DefinitionError(source, number, f"{key!r} before the first [variant] header")
        if not KEY.match(key):
            raise DefinitionError(source, number, f"bad key {key!r}")
        if not value:
            raise DefinitionError(source, number, f"{key}: empty value")
        if key in keys:
            raise DefinitionError(
                source, number, f"{key}: set twice in [{current.name}] (first on line {keys[key]})"
            )
        keys[key] = number
        current.entries.append(IniEntry(key, value, source, number))
    return sections
