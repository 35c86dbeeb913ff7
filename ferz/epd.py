"""EPD, the position-and-operations format of test suites: one line, one `Record`."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field


@dataclass
class Record:
    """One EPD line: the position and its operations."""

    fen: str
    ops: dict[str, list[str]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The `id` operation, or a short FEN."""
        ids = self.ops.get("id")
        return ids[0] if ids else self.fen.split()[0][:30]


def parse_line(line: str) -> Record | None:
    """Parse one EPD line (None for blank and comment lines); ValueError if malformed."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    fields = text.split(None, 4)
    if len(fields) < 4:
        raise ValueError("an EPD line needs 4 FEN fields")
    rest = fields[4] if len(fields) > 4 else ""
    ops: dict[str, list[str]] = {}
    for op in _split_ops(rest):
        try:
            words = shlex.split(op)
        except ValueError as error:
            raise ValueError(f"bad operation {op!r}: {error}") from None
        if words:
            ops[words[0]] = words[1:]
    halfmove = ops.get("hmvc", ["0"])[0]
    fullmove = ops.get("fmvn", ["1"])[0]
    if not (halfmove.isdigit() and fullmove.isdigit()):
        raise ValueError("hmvc and fmvn must be integers")
    # Some files carry FEN counters after the four EPD fields instead of operations.
    words = rest.split()
    if len(words) >= 2 and words[0].isdigit() and words[1].isdigit():
        halfmove, fullmove = words[0], words[1]
    return Record(" ".join(fields[:4]) + f" {halfmove} {fullmove}", ops)


def _split_ops(text: str) -> list[str]:
    """Split operations at semicolons outside quotes."""
    ops, current, quoted = [], [], False
    for char in text:
        if char == '"':
            quoted = not quoted
        if char == ";" and not quoted:
            ops.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    if "".join(current).strip():
        ops.append("".join(current).strip())
    return ops
