"""`ferz analyse` on a stream: games read one at a time, each annotated game written as it
finishes (in the input's order), bad games reported with their line and skipped."""

from __future__ import annotations

import io

import pytest

from ferz import commands, pgn
from ferz.commands import analyse

GOOD = '[Event "{name}"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 *\n\n'
BAD = '[Event "bad"]\n[Result "*"]\n\n1. e4 e5 2. Ke3 *\n\n'


def test_bad_games_are_reported_and_the_others_annotated(tmp_path, capsys) -> None:
    source = tmp_path / "games.pgn"
    source.write_text(GOOD.format(name="one") + BAD + GOOD.format(name="two"))
    out = tmp_path / "out.pgn"
    argv = ["analyse", str(source), "--depth", "2", "-o", str(out), "--quiet", "--jobs", "2"]
    assert commands.main(argv) == 0
    err = capsys.readouterr().err
    assert "skipped a bad game: game 2: line 9: illegal move 'Ke3'" in err
    games = list(pgn.read_games(out.read_text()))
    assert [g.headers["Event"] for g in games] == ["one", "two"]  # the input's order
    assert all("[%eval" in node.comment for g in games for node in g.mainline())


def test_a_failed_run_keeps_the_games_it_finished(tmp_path, monkeypatch) -> None:
    source = tmp_path / "games.pgn"
    source.write_text("".join(GOOD.format(name=f"g{n}") for n in range(4)))
    out = tmp_path / "out.pgn"
    done = []

    def annotate_text(settings, text, on_move=None) -> str:
        """The first two games pass through; the third fails as an engine would."""
        if len(done) == 2:
            raise ValueError("the engine failed: gone")
        done.append(text)
        return text

    monkeypatch.setattr(analyse, "annotate_text", annotate_text)
    assert commands.main(["analyse", str(source), "-o", str(out), "--quiet"]) == 2
    assert [g.headers["Event"] for g in pgn.read_games(out.read_text())] == ["g0", "g1"]


def test_games_finishing_out_of_order_are_written_in_order() -> None:
    out = io.StringIO()
    writer = analyse._InOrder(out)
    writer.put(1, "b")
    writer.put(2, "c")
    assert out.getvalue() == ""
    writer.put(0, "a")
    assert out.getvalue() == "abc"


def test_a_file_of_bad_games_only_is_an_error(tmp_path, capsys) -> None:
    source = tmp_path / "games.pgn"
    source.write_text(BAD)
    assert commands.main(["analyse", str(source)]) == 2
    assert "no game of" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["", "\n\n"])
def test_an_empty_file_is_an_error(tmp_path, capsys, text: str) -> None:
    source = tmp_path / "games.pgn"
    source.write_text(text)
    assert commands.main(["analyse", str(source)]) == 2
    assert "no games" in capsys.readouterr().err
