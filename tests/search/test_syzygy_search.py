"""Syzygy tablebases in the search: the options, the root choice that converts a win and holds
a draw, probes in the tree (tbhits), the reported scores, and bad paths."""

from __future__ import annotations

import pytest

from ferz.board import Board
from ferz.engine import TB_WIN_CP, Engine, Limits
from ferz.protocol.uci import format_info
from ferz.syzygy import best_root_moves, open_tablebase
from tests.conftest import DATA
from tests.programs import need_library
from tests.search.helpers import scored, think

TABLES = str(DATA / "syzygy")


@pytest.fixture
def tb_engine() -> Engine:
    """An engine with the test tables (through libfathom)."""
    need_library("fathom", "libfathom1")
    engine = Engine()
    engine.set_option("SyzygyPath", TABLES)
    return engine


def test_options_as_stockfish_names_them() -> None:
    """SyzygyPath, SyzygyProbeDepth, Syzygy50MoveRule and SyzygyProbeLimit, with Stockfish's
    defaults."""
    options = Engine().options
    assert options.get("SyzygyPath") == "<empty>"
    assert options.get("SyzygyProbeDepth") == 1
    assert options.get("Syzygy50MoveRule") is True
    assert options.get("SyzygyProbeLimit") == 7


def test_root_in_tables_plays_the_dtz_move(tb_engine: Engine) -> None:
    """KQvK: the move is the fastest conversion, the score a tablebase win or a mate."""
    fen = "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1"
    best, infos = think(tb_engine, fen, depth=6)
    with open_tablebase(TABLES) as tables:
        assert best in best_root_moves(tables.probe_root(Board(fen)))
    last = scored(infos)[-1]
    assert last.score_mate is not None and last.score_mate > 0 or last.score_cp == TB_WIN_CP - 11
    assert last.tbhits is not None and last.tbhits >= 1
    assert " tbhits " in format_info(last)


def test_drawn_root_holds_the_draw(tb_engine: Engine) -> None:
    """KPvK with the defender to move: every move it may choose keeps the draw, scored 0."""
    fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1"
    best, infos = think(tb_engine, fen, depth=8)
    with open_tablebase(TABLES) as tables:
        drawing = {m.move for m in tables.probe_root(Board(fen)) if m.wdl == 0}
    assert best in drawing
    assert scored(infos)[-1].score_cp == 0


def test_an_error_in_the_search_still_keeps_the_draw(tb_engine: Engine, monkeypatch) -> None:
    """KRvKR, the rook checking: only Rxb7 holds and the first legal move (Kc3) loses. An
    error after the root is ranked plays a root move the tables allow, not the first legal
    one (a drawn KRNvKR game was lost so, #48)."""

    def broken(self, pv):
        """A failing principal variation."""
        raise RuntimeError("broken")

    monkeypatch.setattr(Engine, "_pv_texts", broken)
    fen = "2k5/Rr6/8/8/8/1K6/8/8 w - - 0 1"
    assert Board(fen).uci(Board(fen).legal_moves[0]) == "b3c3"
    best, infos = think(tb_engine, fen, depth=4)
    assert best == "a7b7"
    assert any("search error" in (i.string or "") for i in infos)


def test_lost_root_reports_a_tablebase_loss(tb_engine: Engine) -> None:
    """The losing side sees a tablebase loss (-20000 + DTZ), not a small evaluation."""
    _, infos = think(tb_engine, "8/8/4k3/8/8/8/3PK3/7R b - - 0 1", depth=6)
    last = scored(infos)[-1]
    assert last.score_cp is not None and last.score_cp <= -TB_WIN_CP + 100


def test_probes_in_the_tree(tb_engine: Engine) -> None:
    """KRPvKR (five men) has no table: the search probes the four-man positions below it."""
    _, infos = think(tb_engine, "8/2k5/8/8/3K4/8/3P4/1r5R w - - 0 1", nodes=20000)
    assert scored(infos)[-1].tbhits > 0
    plain = Engine()
    _, infos = think(plain, "8/2k5/8/8/3K4/8/3P4/1r5R w - - 0 1", nodes=20000)
    assert scored(infos)[-1].tbhits is None  # no tables: no tbhits field


def test_probe_limit_and_other_variants(tb_engine: Engine) -> None:
    """SyzygyProbeLimit 0 switches the probes off; a variant other than chess never probes."""
    tb_engine.set_option("SyzygyProbeLimit", 0)
    _, infos = think(tb_engine, "8/2k5/8/8/3K4/8/3P4/1r5R w - - 0 1", nodes=5000)
    assert scored(infos)[-1].tbhits == 0
    tb_engine.set_option("SyzygyProbeLimit", 7)
    tb_engine.set_option("UCI_Variant", "atomic")
    _, infos = think(tb_engine, "8/2k5/8/8/3K4/8/3P4/1r5R w - - 0 1", nodes=5000)
    assert scored(infos)[-1].tbhits == 0


def test_converts_krk_against_itself(tb_engine: Engine) -> None:
    """KRvK from a far corner: with the tables ferz mates within the fifty-move rule at a
    small node budget, the defender (without tables) resisting as well as it can."""
    board = Board("7k/8/8/8/8/8/8/R6K w - - 0 1")
    defender = Engine()
    for _ in range(100):
        if board.is_game_over():
            break
        mover = tb_engine if board.turn else defender
        result = mover.play(board, Limits(nodes=2000))
        board.push_uci(result.move)
    assert board.is_checkmate() and not board.turn


def test_bad_paths_keep_the_old_tables(tb_engine: Engine, tmp_path) -> None:
    """A folder that does not exist is refused; the tables set before stay; <empty> clears."""
    with pytest.raises(ValueError, match="no Syzygy folder"):
        tb_engine.set_option("SyzygyPath", str(tmp_path / "nowhere"))
    assert tb_engine.tablebase is not None and tb_engine.tablebase.largest == 4
    (tmp_path / "KQvK.rtbw").write_bytes(b"garbage" * 20)
    tb_engine.set_option("SyzygyPath", str(tmp_path))
    assert tb_engine.tablebase.largest == 0 and tb_engine.tablebase.skipped
    _, infos = think(tb_engine, "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1", nodes=3000)
    assert scored(infos)[-1].tbhits == 0
    tb_engine.set_option("SyzygyPath", "<empty>")
    assert tb_engine.tablebase is None


def test_limited_strength_plays_without_tables(tb_engine: Engine) -> None:
    """A strength level below full does not use the tables."""
    tb_engine.set_option("UCI_LimitStrength", True)
    tb_engine.set_option("UCI_Elo", 1500)
    _, infos = think(tb_engine, "8/2k5/8/8/3K4/8/3P4/1r5R w - - 0 1", nodes=3000)
    assert all(not i.tbhits for i in scored(infos))
