"""ferz.syzygy: Syzygy probes against python-chess's reader on the same files, root ranking,
and bad input (missing folders, foreign and truncated files, other variants)."""

from __future__ import annotations

import random
import shutil

import pytest

from ferz.board import Board
from ferz.syzygy import (
    MissingTableError,
    RootMove,
    best_root_moves,
    men_of,
    open_tablebase,
    parse_path,
    table_name,
)
from tests.conftest import DATA
from tests.programs import need_library, need_module

TABLES = DATA / "syzygy"
BACKENDS = ["fathom", "python-chess"]
# (FEN, WDL, DTZ) checked against python-chess 1.11 on the same files
KNOWN = [
    ("8/8/8/8/8/3k4/8/K1Q5 w - - 0 1", 2, 11),
    ("8/8/8/8/8/2k5/8/K1Q5 b - - 0 1", -2, -16),
    ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", 2, 9),
    ("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1", 0, 0),
    ("8/8/8/8/8/k7/8/K1r5 w - - 0 1", -2, -1),  # checkmated
    ("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1", 0, 0),  # stalemate
    ("8/8/8/8/8/8/8/K1k5 w - - 0 1", 0, 0),  # two kings
]


@pytest.fixture(params=BACKENDS)
def tables(request):
    """The test tables through each prober."""
    if request.param == "fathom":
        need_library("fathom", "libfathom1")
    else:
        need_module("chess.syzygy", "chess")
    with open_tablebase(TABLES, backend=request.param) as opened:
        yield opened


def random_position(rng: random.Random, white: str, black: str) -> Board | None:
    """A random legal position with these men (pawns off the back ranks), or None."""
    squares = rng.sample(range(64), len(white) + len(black))
    rows = [["."] * 8 for _ in range(8)]
    for letter, sq in zip(white.upper() + black.lower(), squares, strict=True):
        if letter in "Pp" and sq // 8 in (0, 7):
            return None
        rows[7 - sq // 8][sq % 8] = letter
    placement = "/".join("".join(row) for row in rows)
    for dots in range(8, 0, -1):
        placement = placement.replace("." * dots, str(dots))
    try:
        return Board(f"{placement} {rng.choice('wb')} - - 0 1")
    except ValueError:
        return None


def test_known_values(tables) -> None:
    """WDL and DTZ of hand-checked positions (mate, stalemate, KvK included)."""
    for fen, wdl, dtz in KNOWN:
        board = Board(fen)
        assert (tables.probe_wdl(board), tables.probe_dtz(board)) == (wdl, dtz), fen


# python-chess's (WDL, DTZ) by FEN: both backends' runs meet the same random positions, and
# the oracle's pure-Python probes were half of each run's time
ORACLE: dict[str, tuple[int, int]] = {}


def test_every_table_agrees_with_python_chess(tables) -> None:
    """Random positions of each of the 35 tables: ferz's WDL and DTZ equal python-chess's."""
    syzygy = need_module("chess.syzygy", "chess")
    chess = need_module("chess")
    rng = random.Random(48)
    names = sorted(tables.wdl_tables)
    assert len(names) == 35 and tables.largest == 4
    with syzygy.open_tablebase(str(TABLES)) as oracle:
        for name in names:
            white, black = name.split("v")
            checked = 0
            while checked < 40:
                board = random_position(rng, white, black)
                if board is None:
                    continue
                fen = board.fen()
                if fen not in ORACLE:
                    expected = chess.Board(fen)
                    ORACLE[fen] = (oracle.probe_wdl(expected), oracle.probe_dtz(expected))
                wdl, dtz = ORACLE[fen]
                assert tables.probe_wdl(board) == wdl, fen
                assert tables.probe_dtz(board) == dtz, fen
                checked += 1


def test_root_moves_ranked(tables) -> None:
    """probe_root lists every legal move, best first, and the kept moves keep the result."""
    board = Board("8/8/8/8/8/3k4/8/K1Q5 w - - 0 1")
    moves = tables.probe_root(board)
    assert {m.move for m in moves} == {m.uci() for m in board.legal_moves}
    assert moves[0].wdl == 2 and moves[0].dtz == 11
    assert best_root_moves(moves) == ["c1f4"]
    drawn = tables.probe_root(Board("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1"))
    kept = best_root_moves(drawn)
    assert kept and all(m.wdl == 0 for m in drawn if m.move in kept)
    assert len(kept) == sum(1 for m in drawn if m.wdl == 0)


def test_fifty_move_counter_in_root_moves(tables) -> None:
    """With 90 plies on the counter a win that needs more than 10 plies is cursed."""
    board = Board("8/8/8/8/8/3k4/8/K1Q5 w - - 90 60")
    moves = tables.probe_root(board)
    assert moves[0].wdl == 1 and moves[0].dtz == 11
    assert best_root_moves(moves, rule50=True) == [m.move for m in moves if m.wdl >= 0]
    assert best_root_moves(moves, rule50=False) == ["c1f4"]


def test_best_root_moves_rules() -> None:
    """Wins by the fastest conversion, losses by the longest resistance, all drawing moves."""
    win = [RootMove("a", 2, 5), RootMove("b", 2, 3), RootMove("c", 0, 0)]
    assert best_root_moves(win) == ["b"]
    loss = [RootMove("a", -2, -5), RootMove("b", -2, -9)]
    assert best_root_moves(loss) == ["b"]
    draw = [RootMove("a", 0, 0), RootMove("b", 0, 0), RootMove("c", -2, -3)]
    assert best_root_moves(draw) == ["a", "b"]
    assert best_root_moves([]) == []


def test_table_names() -> None:
    """Material names follow Syzygy's order: more men first, then stronger pieces."""
    assert table_name(men_of(Board("8/8/8/8/8/3k4/8/K1Q5 w - - 0 1"))) == "KQvK"
    assert table_name(men_of(Board("8/8/8/8/8/2qk4/8/K7 w - - 0 1"))) == "KQvK"
    assert table_name(men_of(Board("8/8/8/8/8/2rk4/8/K1Q5 w - - 0 1"))) == "KQvKR"
    assert table_name(men_of(Board("8/8/8/8/8/2pk4/8/KN6 w - - 0 1"))) == "KNvKP"


def test_not_covered(tables) -> None:
    """Too many men, castling rights and other variants are not probed."""
    with pytest.raises(MissingTableError, match="KQRvKR"):
        tables.probe_wdl(Board("8/8/8/8/8/2rk4/8/KRQ5 w - - 0 1"))
    assert tables.get_wdl(Board("8/8/8/8/8/2rk4/8/KRQ5 w - - 0 1")) is None
    with pytest.raises(MissingTableError, match="castling"):
        tables.probe_wdl(Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1"))
    with pytest.raises(MissingTableError, match="chess"):
        tables.probe_wdl(Board("4k3/8/8/8/8/8/8/4K2R w - - 0 1", variant="atomic"))
    assert tables.get_dtz(Board(), default=-7) == -7


def test_bad_files(tmp_path) -> None:
    """A missing folder is an error; foreign and truncated files are left out and named."""
    with pytest.raises(FileNotFoundError, match="no Syzygy folder"):
        open_tablebase(tmp_path / "nowhere")
    shutil.copy(TABLES / "KQvK.rtbw", tmp_path / "KQvK.rtbw")
    (tmp_path / "KRvK.rtbw").write_bytes(b"not a table at all" * 10)
    truncated = (TABLES / "KBNvK.rtbz").read_bytes()[:1000]
    (tmp_path / "KBNvK.rtbz").write_bytes(truncated)
    (tmp_path / "KNvK.rtbw").write_bytes(b"")
    with open_tablebase(tmp_path) as tables:
        assert tables.wdl_tables == {"KQvK"}
        assert set(tables.skipped) == {
            str(tmp_path / name) for name in ("KRvK.rtbw", "KBNvK.rtbz", "KNvK.rtbw")
        }
        assert "wrong magic" in tables.skipped[str(tmp_path / "KRvK.rtbw")]
        assert "truncated" in tables.skipped[str(tmp_path / "KBNvK.rtbz")]
        assert tables.probe_wdl(Board("8/8/8/8/8/3k4/8/K1Q5 w - - 0 1")) == 2
        with pytest.raises(MissingTableError):
            tables.probe_wdl(Board("8/8/8/8/8/3k4/8/K1R5 w - - 0 1"))
        # the DTZ table is missing: root moves come from WDL alone
        moves = tables.probe_root(Board("8/8/8/8/8/3k4/8/K1Q5 w - - 0 1"))
        assert moves[0].wdl == 2 and all(m.dtz == 0 for m in moves)


def test_closed_tables_refuse() -> None:
    """A closed tablebase raises instead of probing."""
    tables = open_tablebase(TABLES)
    tables.close()
    with pytest.raises(ValueError, match="closed"):
        tables.probe_wdl(Board("8/8/8/8/8/3k4/8/K1Q5 w - - 0 1"))


def test_two_tablebases_take_turns() -> None:
    """Two open tablebases with different folders answer from their own tables."""
    need_library("fathom", "libfathom1")
    small = TABLES.parent / "syzygy"
    with open_tablebase(small) as first:
        board = Board("8/8/8/8/8/3k4/8/K1Q5 w - - 0 1")
        assert first.probe_wdl(board) == 2
        with open_tablebase([small, small]) as second:
            assert second.probe_wdl(Board("8/8/8/8/8/3k4/8/K1R5 w - - 0 1")) == 2
        assert first.probe_dtz(board) == 11


def test_parse_path() -> None:
    """SyzygyPath's folders: empty and <empty> mean none."""
    assert parse_path("") == [] and parse_path("<empty>") == []
    assert parse_path("/a:/b") == ["/a", "/b"]
