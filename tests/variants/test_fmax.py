# SPDX-License-Identifier: GPL-3.0-or-later
"""Fairy-Max's fmax.ini: the reader, the translation into ferz's definitions, `ferz check`,
and the games played the same way as fairymax plays them (move lists compared position by
position, from the start and after random play; fairymax has no perft)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from ferz import commands, pgn, variants
from ferz.board import Board
from ferz.variants import DefinitionError, fmax
from tests.programs import need
from tests.variants.fmax_peer import FairyMax, differences, random_line

pytestmark = pytest.mark.variant

DEBIAN_INI = Path("/usr/share/games/fairymax/fmax.ini")

SMALL = """version 4.8(w)
Some comment that Fairy-Max ignores.

// Tiny chess with a wazir-rider limited to 3 steps
Game: tiny
6x6
4 3 5 6 3 4
4 3 5 6 3 4
p:100 -16,24 -16,6 -15,5 -17,5
p:100  16,24 16,6 15,5 17,5
n:300 14,7 31,7 33,7 18,7 -14,7 -31,7 -33,7 -18,7
w:350 1,443 16,443 -1,443 -16,443
e:200 15,70 17,70 -15,70 -17,70
k:-1  1,7 16,7 15,7 17,7 -1,7 -16,7 -15,7 -17,7

// Wrap-around board
Game: tube
8x8
6 4 5 7 3 5 4 6
6 4 5 7 3 5 4 6
p:100 -16,6 -15,105 -17,105
p:100 16,6 15,105 17,105
k:-1 1,107 16,7 15,107 17,107 -1,107 -16,7 -15,107 -17,107
n:350 14,107 31,107 33,107 18,107 -14,107 -31,107 -33,107 -18,107
b:450 15,103 17,103 -15,103 -17,103
R:525 1,103 16,3 -1,103 -16,3
Q:1150 1,103 16,3 15,103 17,103 -1,103 -16,3 -15,103 -17,103
"""


def test_detects_the_format_by_content() -> None:
    assert fmax.detect(SMALL)
    assert fmax.detect("Game: x\n8x8\n")
    assert not fmax.detect("[tiny:chess]\nmaxFile = 6\n")
    assert not fmax.detect("")


def test_translates_pieces_board_and_start() -> None:
    found, skipped = fmax.sections(SMALL, "small.ini", set())
    (section,) = found
    values = {e.key: e.value for e in section.entries}
    assert values["maxFile"] == "6" and values["maxRank"] == "6"
    assert values["king"] == "k:FW"
    pieces = {v.split(":")[0]: v.split(":")[1] for k, v in values.items() if "customPiece" in k}
    assert pieces == {"e": "nA", "n": "N", "p": "inmffDcflfrFmffW", "w": "W3"}
    assert values["startFen"] == "wneknw/pppppp/6/6/PPPPPP/WNEKNW w - - 0 1"
    assert values["castling"] == "false"
    assert values["promotionPieceTypesWhite"] == "enw"  # not the royal k, not the pawn
    assert skipped == [("tube", 17, "piece p (line 21): wrap-around board (cylinder move -15,105)")]


def test_loaded_game_moves_as_written() -> None:
    rules = variants.parse_text(SMALL, "small.ini")["tiny"]
    board = Board(rules=rules)
    moves = {board.uci(m) for m in board.legal_moves}
    assert {"b1a3", "b1c3", "a2a3", "a2a4"} <= moves
    assert not any(m.startswith("a1") or m.startswith("c1") for m in moves)  # W3, nA blocked
    board = Board("k5/6/6/6/6/K1W1e1 w - - 0 1", rules=rules)
    moves = {board.uci(m) for m in board.legal_moves if board.uci(m).startswith("c1")}
    assert moves == {"c1b1", "c1d1", "c1e1", "c1c2", "c1c3", "c1c4"}  # range 3


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("version 4.8(w)\nGame: a\n8by8\n", 3, "expected the board size"),
        ("Game: a\n4x4\n1 2 3\n", 3, "the setup rows end early"),
        ("Game: a\n2x2\n1 x\n1 1\n", 3, "bad piece number"),
        ("Game: a\n2x2\n3 3\n3 3\np:1 -16,6\np:1 16,6\nk:-1 1,7 16,zz\n", 7, "bad ray"),
        ("Game: a\n2x2\n4 3\n3 3\np:1 -16,6\np:1 16,6\nk:-1 1,7\n", 3, "piece number 4"),
        ("Game:\n", 1, "without a name"),
    ],
)
def test_malformed_files_fail_with_their_line(text: str, line: int, message: str) -> None:
    with pytest.raises(DefinitionError) as info:
        variants.parse_text(text, "bad.ini")
    assert info.value.line == line and message in info.value.reason


def test_check_lists_loaded_and_skipped(tmp_path: Path, capsys) -> None:
    path = tmp_path / "fmax.ini"
    path.write_text(SMALL)
    assert commands.main(["check", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("tiny: ok (6x6, pieces ")
    assert out[1] == f"tube: skipped ({path}:17: piece p (line 21): wrap-around board " + (
        "(cylinder move -15,105))"
    )
    path.write_text("Game: a\n8by8\n")
    assert commands.main(["check", str(path)]) == 2
    assert capsys.readouterr().err.startswith(f"ferz: error: {path}:2:")


def _debian() -> str:
    """The text of Debian's fmax.ini (skips without fairymax's data)."""
    need("fairymax")
    return DEBIAN_INI.read_text()


def test_debian_file_loads_with_builtin_names_kept_apart() -> None:
    found, skipped = fmax.sections(_debian(), str(DEBIAN_INI), {"makruk", "shatranj"})
    names = [s.name for s in found]
    assert "makruk-fmax" in names and "shatranj-fmax" in names and "great" in names
    reasons = {name: reason for name, _line, reason in skipped}
    assert "wrap-around board" in reasons["cylinder"]
    assert reasons["ciccolini"] == "defined before on line 1073" or "rider" in reasons["ciccolini"]
    assert len(found) >= 15


def _games() -> dict[str, str]:
    """ferz name -> Fairy-Max name of every game of Debian's file that ferz loads."""
    found, _ = fmax.sections(_debian(), str(DEBIAN_INI), {n.lower() for n in variants.builtins()})
    variants.load_file(DEBIAN_INI)
    return {
        s.name: next(e.value for e in s.entries if e.key == "description").split()[2] for s in found
    }


def _compare(names: list[str], positions: int, seed: int) -> list[str]:
    """Positions where ferz's and fairymax's move lists differ, described."""
    games = _games()
    peer = FairyMax(need("fairymax"), str(DEBIAN_INI))
    rng = random.Random(seed)
    bad = []
    try:
        for name in names or list(games):
            rules = variants.get(name)
            for trial in range(positions):
                line = random_line(Board(rules=rules), rng.randint(1, 40), rng) if trial else []
                board = Board(rules=rules)
                for move in line:
                    board.push_uci(move)
                only_ferz, only_fmax = differences(peer, board, games[name], line)
                if only_ferz or only_fmax:
                    bad.append(f"{name} {board.fen()}: ferz {only_ferz}, fairymax {only_fmax}")
    finally:
        peer.close()
    return bad


@pytest.mark.programs("fairymax")
def test_move_lists_equal_fairymax_quick() -> None:
    """Five games, the start and one random position each (every game, twelve positions
    each: the slow test below)."""
    games = ["makruk-fmax", "capablanca-fmax", "super", "roman", "king-of-the-hill"]
    assert _compare(games, 2, 11) == []


@pytest.mark.slow
@pytest.mark.programs("fairymax")
def test_move_lists_equal_fairymax_every_game() -> None:
    assert _compare([], 12, 5) == []


@pytest.mark.programs("fairymax")
def test_the_oracle_sees_a_difference() -> None:
    """The comparison can fail: ferz's nocastle against Fairy-Max's normal (castling)."""
    _games()
    peer = FairyMax(need("fairymax"), str(DEBIAN_INI))
    try:
        line = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"]
        board = Board(variant="nocastle-fmax")
        for move in line:
            board.push_uci(move)
        assert differences(peer, board, "normal", line) == (set(), {"e1g1"})
    finally:
        peer.close()


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.programs("fairymax")
@pytest.mark.parametrize(("name", "fmax_name"), [("makruk-fmax", "makruk"), ("great", "great")])
def test_ferz_vs_fairymax_over_xboard(capsys, tmp_path: Path, name: str, fmax_name: str) -> None:
    """A short match in a game of fmax.ini: ferz (with the file) against fairymax, no failure."""
    fairymax = need("fairymax")
    out = tmp_path / "games.pgn"
    ferz_cmd = f"{sys.executable} -m ferz --variants {DEBIAN_INI} xboard"
    code = commands.main(
        [
            "--variants", str(DEBIAN_INI),
            "match", "--quiet", "--variant", name, "--games", "2", "--tc", "3+0.05",
            "--max-moves", "40", "--timemargin", "1000", "--concurrency", "1",
            "--engine", f"cmd={ferz_cmd}", "proto=xboard", "name=ferz",
            "--engine", f"cmd={fairymax}", "proto=xboard", f"variant={fmax_name}",
            "name=fairymax", "--pgn", str(out),
        ]
    )  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0, text
    assert "Games: 2 of 2" in text and "Failures: 0 " in text, text
    games = pgn.read_file(str(out))
    assert [g.variant for g in games] == [name, name]
    for game in games:
        board = game.board()
        for move in game.mainline_moves():
            board.push_uci(move)  # every move legal for ferz's rules of the game
