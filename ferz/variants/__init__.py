"""Variants as data: built-in and user definitions (a variants.ini subset) compiled to Rules.

`get(name)` returns the `core.rules.Rules` of a variant, `names()` lists them (`builtins()` the
built-in ones), `load_file(path)`
adds a user's definitions (`ferz --variants FILE`) and `check_file(path)` compiles a file without
adding it (`ferz check FILE`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ferz.core.rules import Rules

from . import ini
from .build import build
from .ini import DefinitionError, IniEntry

MAX_FILE_BYTES = 1_000_000

#: Other names Fairy-Stockfish accepts for built-in variants (its UCI_Variant list has them)
ALIASES = {"normal": "chess", "fischerandom": "chess960", "mini": "minishogi"}


@dataclass
class _Variant:
    """A defined variant: its merged entries (for children to inherit) and compiled Rules."""

    entries: dict[str, IniEntry]
    rules: Rules
    builtin: bool
    source: str = ""


_registry: dict[str, _Variant] = {}  # compiled variants
_builtin: dict[str, ini.Section] = {}  # builtin.ini's sections, parsed, in file order


def _load_builtins() -> None:
    """Parse builtin.ini once; each variant compiles when it is first used (fast start-up)."""
    if _builtin:
        return
    text = resources.files(__package__).joinpath("builtin.ini").read_text(encoding="utf-8")
    for section in ini.parse(text, "builtin.ini"):
        _builtin[section.name] = section


def _known(name: str) -> _Variant | None:
    """A compiled variant by name, compiling a built-in one (parents first) on first use."""
    _load_builtins()
    variant = _registry.get(name)
    if variant is None and name in _builtin:
        variant = _build_section(_builtin[name], "builtin.ini", True, {})
        _registry[name] = variant
    return variant


def _build_section(
    section: ini.Section, source: str, builtin: bool, out: dict[str, _Variant]
) -> _Variant:
    """Compile one section, inheriting from a parent in `out` (the same file) or known."""
    if section.parent is None:
        entries: dict[str, IniEntry] = {}
    else:
        parent = out.get(section.parent) or _known(section.parent)
        if parent is None:
            raise DefinitionError(
                source,
                section.line,
                f"unknown parent variant {section.parent!r} (define it earlier in the file)",
            )
        entries = {k: e for k, e in parent.entries.items() if k != "description"}
    entries.update((entry.key, entry) for entry in section.entries)
    own = {entry.key for entry in section.entries}
    rules = build(section.name, entries, source, section.line, own)
    return _Variant(entries, rules, builtin, source)


Skipped = list[tuple[str, int, str]]  # Fairy-Max games ferz cannot express: name, line, why


def _sections(text: str, source: str) -> tuple[list[ini.Section], Skipped, bool]:
    """A definition text's sections in either format (ferz's or Fairy-Max's, told by content)."""
    from . import fmax  # Fairy-Max's reader loads with the first user file: not at every start

    if not fmax.detect(text):
        return ini.parse(text, source), [], False
    taken = {name.lower() for name in _builtin}
    taken |= {n.lower() for n, v in _registry.items() if not v.builtin and v.source != source}
    found, skipped = fmax.sections(text, source, taken)
    return found, skipped, True


def _compile(text: str, source: str) -> tuple[dict[str, _Variant], Skipped]:
    """Compile every section of a user's definition text; nothing is stored.

    A Fairy-Max game that the builder refuses is skipped (with the reason), not fatal."""
    _load_builtins()
    out: dict[str, _Variant] = {}
    found, skipped, lenient = _sections(text, source)
    for section in found:
        old = _registry.get(section.name)
        if section.name in _builtin or (old is not None and old.source != source):
            raise DefinitionError(
                source, section.line, f"variant {section.name!r} already exists (pick a new name)"
            )
        try:
            out[section.name] = _build_section(section, source, False, out)
        except DefinitionError as error:
            if not lenient:
                raise
            skipped.append((section.name, section.line, error.reason))
    skipped.sort(key=lambda item: item[1])
    return out, skipped


def canonical(name: str) -> str:
    """A variant's own name: aliases (`normal`, `fischerandom`, `mini`) resolved."""
    return ALIASES.get(name, name)


def get(name: str) -> Rules:
    """The Rules of a variant by name or alias; ValueError listing the known names if unknown."""
    variant = _known(canonical(name)) if isinstance(name, str) else None
    if variant is None:
        raise ValueError(f"unknown variant {name!r}; known: {', '.join(names())}")
    return variant.rules


def names() -> list[str]:
    """Names of all known variants, built-in ones first in their file order."""
    _load_builtins()
    return list(_builtin) + [name for name, v in _registry.items() if not v.builtin]


def names_and_aliases() -> list[str]:
    """Every name a variant may be chosen by: names(), then the aliases."""
    return names() + list(ALIASES)


def builtins() -> list[str]:
    """Names of the built-in variants, in their file order."""
    _load_builtins()
    return list(_builtin)


def parse_text(text: str, source: str = "<string>") -> dict[str, Rules]:
    """Compile definitions without registering them (for tests and `ferz check`)."""
    return {name: v.rules for name, v in _compile(text, source)[0].items()}


def _read(path: str | Path) -> str:
    """Read a definition file, refusing huge or undecodable files with a clear message."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_FILE_BYTES:
            raise DefinitionError(str(p), 0, f"file larger than {MAX_FILE_BYTES} bytes")
        raw = p.read_bytes()
    except OSError as error:
        raise DefinitionError(str(p), 0, error.strerror or str(error)) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1  # the line that holds the first bad byte
        raise DefinitionError(str(p), line, f"not UTF-8 text ({error.reason})") from None


def load_file(path: str | Path) -> list[str]:
    """Add the variants of a user file; all or nothing. Returns their names.

    Loading the same file again (e.g. a GUI setting VariantPath twice) replaces its variants;
    a name taken by a built-in or by another file is refused."""
    compiled, skipped = _compile(_read(path), str(path))
    _registry.update(compiled)
    for name, line, reason in skipped:
        print(f"warning: {path}:{line}: game {name} skipped: {reason}", file=sys.stderr)
    return list(compiled)


def check_file(path: str | Path) -> tuple[dict[str, Rules], Skipped]:
    """Compile a user file without registering it: its variants' Rules, and the Fairy-Max games
    skipped (name, line, reason); DefinitionError for a file ferz refuses."""
    compiled, skipped = _compile(_read(path), str(path))
    return {name: variant.rules for name, variant in compiled.items()}, skipped


def summary(rules: Rules) -> str:
    """One-line description of a variant's board and pieces."""
    letters = "".join(p.letter for p in rules.pieces if not p.letter.startswith("+"))
    extras = " drops" if rules.drops else ""
    extras += " gating" if rules.seirawan_gating else ""
    extras += " two-board" if rules.two_boards else ""
    return f"{rules.files}x{rules.ranks}, pieces {letters}{extras}"


def is_builtin(name: str) -> bool:
    """Whether a known variant ships with ferz (rather than coming from a user's file)."""
    variant = _known(canonical(name))
    return variant is not None and variant.builtin


def betza_of(name: str) -> dict[str, str]:
    """Each piece letter (upper case) of a variant with its move in Betza notation, as defined.

    Predefined types give Fairy-Stockfish's Betza for them (the pawn's double step and en
    passant included, whatever the variant's rules say); promoted `+X` forms are not listed.
    """
    from .build import CUSTOM, PREDEFINED

    get(name)  # the ValueError naming the known variants
    name = canonical(name)
    out: dict[str, str] = {}
    for key, entry in _registry[name].entries.items():
        if (key not in PREDEFINED and not CUSTOM.match(key)) or entry.value == "-":
            continue
        letter, colon, text = entry.value.partition(":")
        out[letter.upper()] = text if colon else PREDEFINED[key]
    return out
