"""`ferz analyse`'s output is standard PGN for SCID: SCID 4.7 imports it without an error or a
warning, and writes back the same games (tags, moves, NAGs, comments, variations)."""

from __future__ import annotations

import subprocess

import pytest

from ferz import commands, pgn
from tests.programs import need

# A queen blunder (3. Qxe5+?? Nxe5) and a game from a set-up position (a FEN tag)
GAMES = """[Event "blunder"]
[White "w"]
[Black "b"]
[Result "0-1"]

1. e4 e5 2. Qh5 Nc6 3. Qxe5+ Nxe5 4. d4 Ng6 0-1

[Event "set up"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/3q4/R3K3 w Q - 0 1"]
[Result "*"]

1. Kxd2 Kd7 2. Ra7+ Kc6 *
"""

# tkscid, SCID's Tcl interpreter: import the PGN into a new database, say how many games came in
# and what SCID complained about, then write every game back as PGN.
SCRIPT = """\
set db [sc_base create [lindex $argv 0]]
set result [sc_base import $db [lindex $argv 1]]
puts "imported [lindex $result 0]"
puts "warnings <[lindex $result 1]>"
for {set i 1} {$i <= [sc_base numGames $db]} {incr i} {
    sc_game load $i
    puts [sc_game pgn -tags 1 -comments 1 -var 1 -width 1000]
}
sc_base close $db
"""


def _words(text: str) -> str:
    """A comment with its spaces normalised (SCID wraps long comments)."""
    return " ".join(text.split())


def line(node: pgn.Node) -> list[tuple]:
    """The moves after `node` along its main line: (move, NAGs, comment, the variations)."""
    out = []
    while node.variations:
        main, *others = node.variations
        branches = [(v.move, sorted(v.nags), _words(v.comment), line(v)) for v in others]
        out.append((main.move, sorted(main.nags), _words(main.comment), branches))
        node = main
    return out


@pytest.mark.programs("tkscid")
def test_scid_imports_the_annotated_games(tmp_path) -> None:
    tkscid = need("tkscid")
    source = tmp_path / "games.pgn"
    source.write_text(GAMES)
    out = tmp_path / "out.pgn"
    assert commands.main(["analyse", str(source), "--depth", "5", "-o", str(out), "--quiet"]) == 0
    ours = pgn.read_file(str(out))
    assert pgn.NAG_BLUNDER in list(ours[0].mainline())[4].nags  # 3. Qxe5+?? with its variation
    script = tmp_path / "import.tcl"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [tkscid, str(script), str(tmp_path / "base"), str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == ["imported 2", "warnings <>"], done.stdout
    theirs = list(pgn.read_games(done.stdout[done.stdout.index("[Event") :]))
    assert len(theirs) == len(ours) == 2
    for mine, scid in zip(ours, theirs, strict=True):
        for tag in ("Event", "Result", "FEN", "WhiteACPL", "WhiteAccuracy", "BlackACPL"):
            assert scid.headers.get(tag) == mine.headers.get(tag), tag
        assert _words(scid.comment) == _words(mine.comment)  # the summary
        assert line(scid.root) == line(mine.root)
    moves = line(theirs[0].root)
    assert len(moves) == 8 and all("[%eval" in comment for _, _, comment, _ in moves)
    assert moves[4][1] == [pgn.NAG_BLUNDER] and moves[4][3]  # 3. Qxe5+?? and the better line
