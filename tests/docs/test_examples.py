"""The machinery of examples.py: its tables are used, and its checks can fail."""

from __future__ import annotations

import re

import pytest
from sybil import Document

from tests.docs import examples


def _commands() -> list[examples.Command]:
    """Every command of the docs' `sh` blocks."""
    parser = examples.ShellParser()
    return [
        region.parsed
        for path in examples.DOCS
        for region in parser(Document(path.read_text(encoding="utf-8"), str(path)))
    ]


def test_every_skip_is_used() -> None:
    """Each SKIPS entry starts a command of the docs (none is left over from an old one)."""
    parts = [part for command in _commands() for part in command.parts]
    used = {examples.skip_entry(part) for part in parts}
    unused = [start for start, why in examples.SKIPS.items() if f"{start}: {why}" not in used]
    assert unused == []


def test_every_rewrite_is_used() -> None:
    """Each REWRITES pattern changes a command of the docs."""
    texts = [" ".join(part) for command in _commands() for part in command.parts]
    unused = []
    for pattern, replacement in examples.REWRITES:
        if not any(re.sub(pattern, replacement, text) != text for text in texts):
            unused.append(pattern)
        texts = [re.sub(pattern, replacement, text) for text in texts]
    assert unused == []


def test_commands_are_read_as_written() -> None:
    """Continuations are joined, comments dropped, `&&` parts split."""
    command = examples.Command.read("pip install . && ferz bench \\\n  3   # a comment\n")
    assert command.parts == [["pip", "install", "."], ["ferz", "bench", "3"]]
    assert examples.Command.read("ferz analyse g.pgn --ray auto").slow()


@pytest.mark.parametrize(
    ("comment", "claim"),
    [
        ("frozenset({'e2'}): the rook attacks the bishop", (True, frozenset({"e2"}))),
        ("True: the bishop shields its king", (True, True)),
        ("(True, True)", (True, (True, True))),
        ("in Jupyter: a picture of the board", (False, None)),
        ("not pinned: every square", (False, None)),
    ],
)
def test_claims(comment: str, claim: tuple[bool, object]) -> None:
    """A comment claims a value when it begins with a literal."""
    assert examples._claim(comment) == claim


def test_claims_with_an_ellipsis() -> None:
    """`...` in a claimed list stands for the items between its head and tail."""
    claim = ["e1", "e2", ..., "e8"]
    assert examples._matches(["e1", "e2", "e3", "e8"], claim)
    assert not examples._matches(["e1", "e2", "e7"], claim)
    assert not examples._matches(("e1", "e2", "e8"), claim)


def test_a_wrong_claim_fails(tmp_path) -> None:
    """A python block whose comment claims a wrong value fails."""
    source = "x = 2\nx + 1    # 4: the sum\n"
    document = Document(f"```python\n{source}```\n", str(tmp_path / "x.md"))
    for region in examples.PARSERS[0](document):
        document.add(region)
    (example,) = document.examples()
    with pytest.raises(AssertionError, match="is 3, not 4"):
        example.evaluate()


def test_a_renamed_option_fails_to_parse() -> None:
    with pytest.raises(pytest.fail.Exception, match="--gamez"):
        examples.parse_ferz(["match", "--engine", "cmd=ferz", "--gamez", "2"])


def test_a_wrong_synopsis_fails() -> None:
    with pytest.raises(AssertionError, match="--colour"):
        examples.check_synopsis("ferz play [--colour white|black]", {})


@pytest.mark.parametrize("text", ["ferz/nothing.py   a file", "engine.no_such_member()"])
def test_a_wrong_name_in_a_text_block_fails(text: str) -> None:
    with pytest.raises(AssertionError, match="not in the repository"):
        examples.check_names(text)


def test_untagged_blocks_fail(tmp_path) -> None:
    """A block without a language is a failing example, not a silent one."""
    document = Document("text\n```\nferz bench\n```\n", str(tmp_path / "x.md"))
    regions = [region for parser in examples.PARSERS for region in parser(document)]
    assert [region.evaluator for region in regions] == [examples.unknown_language]
