"""`ferz --help` and the docs agree: what the parser has is documented, what the docs write exists.

The options are read from ferz's own argument parser (`ferz.commands.build_parser`, in-process)
and the docs are README.md and docs/*.md. The rules:

* Every subcommand is written `ferz NAME` somewhere.
* Every long option of `ferz NAME` (`--help` aside; those of `ferz book build` and `ferz book
  probe` count as `ferz book`'s) is written `--option` at a place of NAME: a unit of text that
  writes `ferz NAME` (a paragraph, a list item, a table row, or a command of a code block with
  its continuation lines), or anywhere in a section whose heading writes `ferz NAME` (down to
  the next heading of the same or a higher level: the option tables). ferz's own options are
  written `ferz --option`.
* Every `ferz NAME ...` command that the docs write (in a code block, or a backticked span of
  the text; a synopsis's continuation lines included) uses only options that NAME's parser
  has (ferz's own before NAME); a lower-case NAME must be a subcommand (an upper-case word is
  a placeholder: `ferz COMMAND --help`).
* In a table whose first column is headed `option`, under a heading that writes `ferz NAME`
  (the nearest such heading), every option of that column is one of NAME's.
* The examples at the end of `ferz NAME --help` use only options NAME has.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from functools import cache

import pytest

from ferz.commands import COMMANDS, build_parser
from tests.docs.examples import DOCS

#: where a ferz command starts: not inside a word, path, quote or KEY=VALUE (cmd=ferz)
COMMAND_START = r"(?<![\w./\"'=-])ferz(?= |$)"

#: an option word: -o, --max-moves
OPTION = r"(?<![\w-])(--?[A-Za-z][\w-]*)"


@cache
def parsers() -> dict[str, argparse.ArgumentParser]:
    """ferz's own parser (key "") and every subcommand's, `book build` and `book probe` too."""
    parser = build_parser(list(COMMANDS))
    out = {"": parser}
    for name, sub in _choices(parser).items():
        out[name] = sub
        for action, actions_parser in _choices(sub).items():
            out[f"{name} {action}"] = actions_parser
    return out


def _choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """A parser's subcommands (none: {})."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def options(key: str) -> set[str]:
    """The option strings of a parser (by its key in parsers())."""
    return {option for action in parsers()[key]._actions for option in action.option_strings}


def long_options(name: str) -> set[str]:
    """The long options to document for `ferz NAME`: its own and its actions'."""
    keys = [key for key in parsers() if key == name or key.startswith(name + " ")]
    return {option for key in keys for option in options(key) if option.startswith("--")} - {
        "--help"
    }


@dataclass
class Doc:
    """A document cut into units of text and heading sections."""

    name: str
    units: list[str]
    sections: list[tuple[str, str]]  # (heading, its text)
    tables: list[tuple[list[str], list[str]]]  # (the headings above it, its rows)
    code: list[str]  # the commands of its code blocks (continuations joined)
    spans: list[str]  # backticked spans of its text


@cache
def docs() -> tuple[Doc, ...]:
    """README.md and docs/*.md, cut into units."""
    return tuple(read_doc(path.name, path.read_text(encoding="utf-8")) for path in DOCS)


def read_doc(name: str, text: str) -> Doc:
    """A document's units, sections, option tables, code commands and backticked spans."""
    lines = text.split("\n")
    doc = Doc(name, [], [], [], [], [])
    headings: list[tuple[int, str, int]] = []  # (level, heading, line index)
    unit: list[str] = []
    fence: str | None = None
    table: list[str] = []
    tables: list[tuple[int, list[str]]] = []  # (the line of its first row, its rows)

    def close() -> None:
        """End the unit being read (a code block's is also a command)."""
        if unit:
            doc.units.append("\n".join(unit))
            if fence is not None:
                doc.code.append(doc.units[-1])
            unit.clear()

    for index, line in enumerate(lines):
        stripped = line.strip()
        if fence is not None:
            if stripped == fence:
                close()
                fence = None
            elif unit and (unit[-1].endswith("\\") or line[:1].isspace()):
                unit.append(line)  # a continuation line
            else:
                close()
                unit.append(line)
            continue
        if stripped.startswith("```"):
            close()
            fence = "```"
            continue
        heading = re.match(r"(#+)\s", line)
        if heading:
            headings.append((len(heading.group(1)), line, index))
        if stripped.startswith("|"):
            close()
            doc.units.append(line)
            if not table:
                tables.append((index, table))
            table.append(line)
            continue
        table = []
        if not stripped or heading or re.match(r"\s*([-*]|\d+\.)\s", line):
            close()
        if stripped:
            unit.append(line)
        if heading:
            close()
    close()
    spans = []  # (heading, its first line, the line after its section)
    for k, (level, heading, start) in enumerate(headings):
        end = next((i for lv, _, i in headings[k + 1 :] if lv <= level), len(lines))
        doc.sections.append((heading, "\n".join(lines[start:end])))
        spans.append((heading, start, end))
    for at, rows in tables:
        doc.tables.append(([heading for heading, start, end in spans if start < at < end], rows))
    doc.spans = re.findall(r"`([^`\n]+)`", _prose(text))
    return doc


def _prose(text: str) -> str:
    """A document without its code blocks."""
    return re.sub(r"^\s*```.*?^\s*```", "", text, flags=re.M | re.S)


def _names(name: str) -> str:
    """A pattern of text that writes `ferz NAME` (`ferz --variants FILE NAME` too)."""
    return rf"{COMMAND_START} (?:--variants \S+ )?{re.escape(name)}\b"


def places(name: str) -> list[str]:
    """The places of `ferz NAME` in the docs: units that write it, sections headed by it."""
    pattern = re.compile(_names(name))
    out = []
    for doc in docs():
        out += [unit for unit in doc.units if pattern.search(unit)]
        out += [body for heading, body in doc.sections if pattern.search(heading)]
    return out


def commands(texts: list[str]) -> list[str]:
    """Each `ferz ...` command written in these texts, up to a comment, `|`, `&&` or `;`
    (a quoted word is one word, QUOTED: `"cmd=python3 -m ferz uci"` has no option)."""
    out = []
    for text in texts:
        text = text.replace("\\\n", " ").replace("\\|", "|")
        text = " ".join(re.sub(r"\"[^\"\n]*\"|'[^'\n]*'", "QUOTED", text).split())
        for start in re.finditer(COMMAND_START, text):
            if _starts_command(text[: start.start()]):
                out.append(_cut(text[start.start() :]))
    return out


def _cut(text: str) -> str:
    """A command up to its end: a comment, or a `|`, `&&` or `;` outside brackets (in
    `[--movetime MS | --depth N]` the bar is a synopsis's "or")."""
    depth = 0
    for at, char in enumerate(text):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth <= 0 and re.match(r" #| \| | && |;", text[at:]):
            return text[:at]
    return text


def _starts_command(before: str) -> bool:
    """Whether `ferz` after this text starts a command: at the start, after `$`, `|`, `&&`,
    `;`, `python -m` or an environment variable's `NAME=value` (not an option's value, as in
    `xboard -fcp ferz` or `--engine ferz`)."""
    words = before.split()
    if not words or words[-1] in ("$", "|", "&&", ";", "-m"):
        return True
    return re.fullmatch(r"[A-Z_]+=\S*", words[-1]) is not None


def written_commands() -> list[tuple[str, str]]:
    """(document, command) of every ferz command in the docs' code blocks and spans."""
    return [(doc.name, command) for doc in docs() for command in commands(doc.code + doc.spans)]


def command_options(command: str) -> tuple[str | None, list[str], list[str]]:
    """(the parser key of a `ferz ...` command or None for ferz alone, ferz's own options
    before it, the options after it)."""
    words = command.split()[1:]
    own = []
    while words and words[0].startswith("-"):
        own.append(words.pop(0))
        if own[-1] == "--variants" and words:
            words.pop(0)
    if not words:
        return None, own, []
    key = words[0]
    if len(words) > 1 and f"{key} {words[1]}" in parsers():
        key = f"{key} {words[1]}"
    return key, own, re.findall(OPTION, " ".join(words[1:]))


def unknown_options(command: str) -> list[str]:
    """What a written command uses that ferz's parser does not have."""
    key, own, used = command_options(command)
    unknown = [option for option in own if option not in options("")]
    if key is None or not re.fullmatch(r"[a-z][\w-]*( \w+)?", key):
        return unknown  # ferz alone, or a placeholder (COMMAND, X)
    if key not in parsers():
        return [*unknown, f"no command {key!r}"]
    allowed = options(key) | options(key.split()[0])
    return unknown + [option for option in used if option not in allowed]


def test_every_command_is_documented() -> None:
    missing = [name for name in COMMANDS if not places(name)]
    assert missing == []


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_option_is_documented(name: str) -> None:
    """Each long option of `ferz NAME` at a place of NAME."""
    found = places(name)
    missing = [
        option
        for option in sorted(long_options(name))
        if not any(re.search(rf"{option}(?![\w-])", place) for place in found)
    ]
    assert missing == [], f"ferz {name}: options the docs do not give"


def test_ferz_options_are_documented() -> None:
    text = "\n".join(unit for doc in docs() for unit in doc.units)
    missing = [
        option
        for option in sorted(long_options(""))
        if not re.search(rf"{COMMAND_START} {option}\b", text)
    ]
    assert missing == []


def test_written_options_exist() -> None:
    """Every `ferz NAME ...` command of the docs uses options that NAME has."""
    wrong = [
        f"{doc}: {command}: {unknown}"
        for doc, command in written_commands()
        if (unknown := unknown_options(command))
    ]
    assert wrong == []


def test_option_tables_name_options() -> None:
    """Each option of an `option` table under a `ferz NAME` heading is NAME's."""
    wrong = []
    for doc in docs():
        for headings, rows in doc.tables:
            first = rows[0].strip("|").split("|")[0].strip(" `")
            owner = [h for h in headings if re.search(COMMAND_START, h)]
            if first != "option" or not owner:
                continue
            names = [
                name
                for name in parsers()
                if name and " " not in name and re.search(_names(name), owner[-1])
            ]
            allowed = set().union(*(options(name) for name in names))
            for row in rows[2:]:
                cell = row.strip("|").split("|")[0]
                wrong += [f"{doc.name}: {o}" for o in re.findall(OPTION, cell) if o not in allowed]
    assert wrong == []


def test_help_examples_use_options_that_exist() -> None:
    """The examples at the end of each `ferz NAME --help` use options NAME has."""
    wrong = []
    for key, parser in parsers().items():
        lines = (parser.epilog or "").replace("\\\n", " ").split("\n")
        found = commands([line.strip() for line in lines if line.strip().startswith("ferz ")])
        wrong += [f"ferz {key} --help: {c}: {u}" for c in found if (u := unknown_options(c))]
    assert wrong == []


def test_commands_are_found() -> None:
    """The rules see the commands they check (a docs layout change cannot empty them)."""
    written = [command for _, command in written_commands()]
    assert "ferz analyse games.pgn -o annotated.pgn" in written
    web = [c for c in written if c.startswith("ferz web [--host 127.0.0.1]")]
    assert web and "--abandon-after" in web[0]
    assert any(c.startswith("ferz play [") for c in written)
    assert len(places("spsa")) >= 2


@pytest.mark.parametrize(
    "command",
    ["ferz match --engine cmd=ferz --gamez 2", "ferz tune --iterations 2", "ferz --variantz x"],
)
def test_a_wrong_command_is_found(command: str) -> None:
    """A renamed option or command is told apart (the check can fail)."""
    assert unknown_options(command) != []
