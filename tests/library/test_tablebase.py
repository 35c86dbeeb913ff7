"""ferz.tablebase: ferz's own tables. Chess tables agree with Syzygy on every position and with
python-chess's distance-to-mate suite; variant tables with the search's proofs; the engine
plays from them; bad input leaves everything as it was."""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
from pathlib import Path

import pytest

from ferz.board import Board, rules_for
from ferz.engine import Engine, Limits
from ferz.tablebase import (
    INVALID,
    MAGIC,
    MINWIN,
    RULE,
    TablebaseError,
    build,
    by_rule,
    note,
    open_tablebase,
    parse_material,
    plan,
    plies,
    read_header,
    refusal,
    table_of_header,
)
from tests.conftest import DATA, ROOT
from tests.programs import need_library

SYZYGY = DATA / "syzygy"


@pytest.fixture(scope="module")
def chess_tables(tmp_path_factory) -> Path:
    """Every chess table of at most three pieces, built once."""
    folder = tmp_path_factory.mktemp("chess")
    for material in ("KPvK", "KvKP"):
        build("chess", material, folder)
    return folder


def test_plan_lists_the_tables_a_material_leads_to() -> None:
    """Captures and promotions, smallest first, each once."""
    rules = rules_for("chess")
    assert plan(rules, "KPvK") == ["KvK", "KBvK", "KNvK", "KQvK", "KRvK", "KPvK"]
    assert plan(rules, "KvKR") == ["KvK", "KvKR"]
    assert plan(rules, "kRvK")[-1] == "KRvK"  # letters in either case, named as Syzygy


def test_chess_tables_agree_with_syzygy_everywhere(chess_tables: Path) -> None:
    """Every position of every 3-piece table: ferz's win, draw or loss is Syzygy's."""
    need_library("fathom", "libfathom1")
    from ferz.syzygy import open_tablebase as open_syzygy
    from ferz.tablebase import Spec
    from tools.tb_check import check  # the same code as the closing note's full run

    spec = Spec(rules_for("chess"))
    total = 0
    with open_syzygy(SYZYGY) as syzygy:
        for path in sorted(chess_tables.glob("*.fzt")):
            compared, mismatches = check(path, syzygy, spec, 0, 3)
            assert mismatches == 0, path.name
            total += compared
    assert total > 1_500_000


def test_distances_to_mate_match_python_chess_suite(chess_tables: Path) -> None:
    """endgame-dm-4.epd (python-chess's Gaviota suite): the 3-piece positions' distances."""
    checked = 0
    with open_tablebase(chess_tables) as tables:
        for line in (DATA / "tablebase" / "endgame-dm-4.epd").read_text().splitlines():
            found = re.match(r"(\S+ [wb] \S+ \S+) dm (-?\d+);", line)
            if not found:
                continue
            board = Board(found.group(1) + " 0 1")
            if len(board.pieces()) > 3:
                continue
            dtm = tables.probe_dtm(board)
            moves = (dtm + 1) // 2 if dtm > 0 else -((-dtm) // 2)
            assert moves == int(found.group(2)), line
            checked += 1
    assert checked == 4  # the suite's 3-piece positions (tools/tb_check.py --dm: all 48)


def test_probe_api(chess_tables: Path) -> None:
    """probe_wdl/probe_dtm for the side to move; get_* give the default off the tables;
    root_moves are ordered fastest mate first."""
    with open_tablebase(chess_tables) as tables:
        board = Board("8/8/8/8/8/3k4/8/K1Q5 w - - 0 1")
        assert tables.probe_wdl(board) == 1
        dtm = tables.probe_dtm(board)
        assert dtm > 0 and dtm % 2 == 1
        moves = tables.root_moves(board)
        assert moves[0][1] == dtm
        assert [d for _, d in moves] == sorted(
            (d for _, d in moves), key=lambda d: (0, d) if d > 0 else (1, 0) if d == 0 else (2, d)
        )
        board.push(moves[0][0])
        assert tables.probe_dtm(board) == -(dtm - 1)
        assert tables.probe_wdl(Board("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1")) == 0
        full = Board()
        assert tables.get_wdl(full) is None and tables.get_dtm(full, 7) == 7
        with pytest.raises(KeyError):
            tables.probe_wdl(full)
        assert tables.get_wdl(Board(variant="xiangqi")) is None  # another variant


@pytest.mark.parametrize("variant", ["xiangqi", "shatranj", "makruk"])
def test_variant_tables_agree_with_the_search(variant: str, tmp_path: Path) -> None:
    """KRvK of three variants: on 40 random positions each whose mate is within the search's
    reach (at most 7 plies) or drawn, every mate the search proves (depth 7, no tables) has
    the tables' winner and no shorter distance; drawn positions have no proved mate."""
    build(variant, "KRvK", tmp_path)
    tables = open_tablebase(tmp_path, variant)
    table = tables._table("KRvK")
    assert table is not None
    engine = Engine()
    engine.options.set("UCI_Variant", variant)
    rng = random.Random(7)
    from tools.tb_search_check import fen_of

    searched = proved = 0
    while searched < 40:
        idx = rng.randrange(table.size)
        if table.val[idx] == INVALID:
            continue
        fen = fen_of(Board(variant=variant), table, table.squares_of(idx), idx & 1)
        board = Board(fen, variant=variant)
        if board.outcome() is not None:
            continue
        dtm = plies(table.probe(board.position))  # the table's own value (makruk: no count)
        if abs(dtm) > 7:
            continue
        searched += 1
        mate = engine.analyse(board, Limits(depth=7))[-1].score_mate
        if mate is None:
            continue
        proved += 1
        assert dtm != 0, board.fen()
        assert (mate > 0) == (dtm > 0), board.fen()
        assert (abs(dtm) + (dtm > 0)) // 2 <= abs(mate), board.fen()
    assert proved >= 10


def test_variant_rules_shape_the_tables(tmp_path: Path) -> None:
    """Shatranj's bare king: K+R against a lone king is won at once unless the rook hangs;
    xiangqi: kings stay in their palaces (the index holds 9 squares per king)."""
    build("shatranj", "KRvK", tmp_path / "s")
    with open_tablebase(tmp_path / "s", "shatranj") as tables:
        assert tables.probe_wdl(Board("8/8/8/8/8/2k5/8/R3K3 b - - 0 1", variant="shatranj")) == -1
        assert tables.probe_wdl(Board("8/8/8/8/8/8/1k6/R3K3 b - - 0 1", variant="shatranj")) == 0
    build("xiangqi", "KvK", tmp_path / "x")
    with open_tablebase(tmp_path / "x", "xiangqi") as tables:
        table = tables._table("KvK")
        assert table is not None and table.nsqs[1] == 9 and table.nsqs[0] == 6  # mirrored half


def test_engine_plays_from_its_own_tables(tmp_path: Path) -> None:
    """FerzTbPath: the root keeps to the fastest mates; the score is the tables' and counts a
    tbhit."""
    build("xiangqi", "KRvK", tmp_path)
    engine = Engine()
    engine.options.set("UCI_Variant", "xiangqi")
    engine.options.set("FerzTbPath", str(tmp_path))
    board = Board("4k4/9/9/9/9/9/9/9/9/3K4R b - - 0 1", variant="xiangqi")
    tables = open_tablebase(tmp_path, "xiangqi")
    ranked = tables.root_moves(board)
    best = {move.code for move, d in ranked if d == ranked[0][1]}
    info = engine.analyse(board, Limits(depth=3))[-1]
    move = board.parse_uci(info.pv[0])
    assert move.code in best
    assert info.tbhits and info.tbhits >= 1


def test_bad_input_is_refused_cleanly(tmp_path: Path, chess_tables: Path) -> None:
    """Bad materials, refused variants, missing folders, truncated and foreign files, a table
    of another variant, too many pieces: a clear error or no probe, never a wrong answer."""
    rules = rules_for("chess")
    for bad in ("KRK", "KRvKv", "KXvK", "KKvK", "RvK", "KQQQQvK", "K1vK"):
        with pytest.raises(TablebaseError):
            parse_material(rules, bad)
    assert "pieces in hand" in (refusal(rules_for("crazyhouse")) or "")
    with pytest.raises(TablebaseError, match="pieces in hand"):
        build("crazyhouse", "KQvK", tmp_path / "zh")
    with pytest.raises(TablebaseError, match="no such folder"):
        open_tablebase(tmp_path / "missing")
    folder = tmp_path / "broken"
    folder.mkdir()
    good = chess_tables / "KQvK.fzt"
    (folder / "KQvK.fzt").write_bytes(good.read_bytes()[:-500])  # truncated values
    (folder / "KRvK.fzt").write_bytes(b"not a table at all")
    shutil.copy(chess_tables / "KvK.fzt", folder / "KvK.fzt")
    with open_tablebase(folder) as tables:
        assert tables.get_wdl(Board("8/8/8/8/8/3k4/8/K1Q5 w - - 0 1")) is None
        assert tables.get_wdl(Board("8/8/8/8/8/3k4/8/K1R5 w - - 0 1")) is None
        assert tables.get_wdl(Board("8/8/8/8/8/3k4/8/K7 w - - 0 1")) == 0
        assert any("damaged" in s or "values" in s for s in tables.skipped)
        assert any("not a ferz table" in s for s in tables.skipped)
        five = Board("k7/8/8/8/8/8/8/KQQQ4 w - - 0 1")
        assert tables.get_wdl(five) is None
    head, body = read_header(good)
    for change in ({"positions": 10**12}, {"squares": [["a1"] * 64] * 3}, {"codes": [1, 99, 3]}):
        hostile = folder / f"{len(str(change))}.fzt"
        text = json.dumps({**head, **change, "material": "KQvK"}).encode()
        hostile.write_bytes(MAGIC + text + b"\n" + body)
        assert table_of_header_refuses(text)
    with open_tablebase(chess_tables, "shatranj") as other:
        assert other.paths == {}  # chess tables are not shatranj's
        assert any("built for chess" in s for s in other.skipped)


def table_of_header_refuses(text: bytes) -> bool:
    """Whether a header is refused with TablebaseError (never a huge allocation)."""
    try:
        table_of_header(rules_for("chess"), json.loads(text))
    except TablebaseError:
        return True
    return False


def test_a_rebuild_reads_what_is_there(tmp_path: Path) -> None:
    """build() reads tables already in the folder (same rules) instead of building them."""
    assert [p.name for p in build("chess", "KRvK", tmp_path)] == ["KvK.fzt", "KRvK.fzt"]
    assert build("chess", "KRvK", tmp_path) == []


def test_cli(tmp_path: Path, capsys) -> None:
    """ferz tb build / probe / list, and the error contract for a bad material."""
    from ferz.commands import main

    assert main(["tb", "build", "--variant", "xiangqi", "KRvK", "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    fen = "4k4/9/9/9/9/9/9/9/9/3K4R w - - 0 1"
    assert main(["tb", "probe", "--variant", "xiangqi", fen, "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("White wins, mate in")
    assert re.search(r"^  R1\+8 +wins, mate in 2$", out, re.M)  # WXF, xiangqi's own notation
    assert main(["tb", "list", str(tmp_path)]) == 0
    assert "KRvK  xiangqi" in capsys.readouterr().out
    assert main(["tb", "build", "KXvK", "--dir", str(tmp_path)]) == 2
    assert "unknown piece letter" in capsys.readouterr().err


def test_tables_are_documented() -> None:
    """docs/tablebases.md names the format and the commands."""
    text = (ROOT / "docs" / "tablebases.md").read_text()
    assert "FERZTB 1" in text and "ferz tb build" in text and "FerzTbPath" in text
    assert MINWIN == 2000


@pytest.mark.parametrize("variant", ["xiangqi", "makruk", "shatranj"])
def test_bundled_tables_are_read_for_their_rules(variant: str) -> None:
    """Every bundled table opens for its variant (a change to the variant's rules would make
    them unreadable: rebuild them with ferz tb build, see ferz/data/README.md)."""
    from ferz import data

    folder = data.tables(variant)
    assert folder is not None
    with open_tablebase(folder, variant) as tables:
        assert tables.skipped == []
        assert len(tables.paths) == len(list(folder.glob("*.fzt"))) >= 11
        for material in tables.paths:
            assert tables._table(material) is not None, material


def test_notes_for_analyse_and_hints() -> None:
    """ferz analyse's comment and ferz play's hint: without Syzygy, the bundled tables'
    verdict; a xiangqi draw only where no repetition rule can decide it."""
    from ferz.analyse import tablebase_note

    board = Board("4k4/9/9/9/9/9/9/9/9/3K4R w - - 0 1", variant="xiangqi")
    assert tablebase_note(None, board) == "tablebase: White wins, mate in 2"
    board = Board("4k4/9/9/9/9/9/9/9/9/3K4R b - - 0 1", variant="xiangqi")
    assert tablebase_note(None, board) == "tablebase: White wins, mate in 2"
    kings = Board("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1", variant="xiangqi")
    assert tablebase_note(None, kings) == "tablebase: draw"
    chased = Board("9/9/3k5/9/9/9/9/4K4/9/n3R4 b - - 0 1", variant="xiangqi")
    assert tablebase_note(None, chased) is None  # (held only by a chase: no exact value)
    shatranj = Board("8/8/8/8/8/8/1k6/R3K3 b - - 0 1", variant="shatranj")
    assert tablebase_note(None, shatranj) == "tablebase: draw"
    assert tablebase_note(None, Board()) is None


def test_antichess_family_tables(tmp_path: Path) -> None:
    """Suicide (losing every piece wins; a stalemate goes to the side with fewer pieces):
    tables with a side left without pieces work, and the best moves are python-chess's
    suicide-dtm.epd ones (`bm f8=B`, `bm Bd4`)."""
    build("suicide", "PvR", tmp_path)
    build("suicide", "KvB", tmp_path)
    with open_tablebase(tmp_path, "suicide") as tables:
        for fen, best in (
            ("8/5P2/8/2r5/8/8/8/8 w - - 0 1", "f8=B"),
            ("8/8/8/8/8/8/8/3K2b1 b - - 0 1", "Bd4"),
        ):
            board = Board(fen, variant="suicide")
            assert tables.probe_wdl(board) == 1
            first, _ = tables.root_moves(board)[0]
            assert board.san(first) == best


def test_the_uncompiled_core_builds_the_same_bytes() -> None:
    """FERZ_PURE=1 (no C compiler): ferz tb builds xiangqi's KRvK byte for byte as the
    compiled generator built the bundled file."""
    from tests.pure_core import run_pure

    script = (
        "import hashlib, json, sys, tempfile, cython\n"
        "from pathlib import Path\n"
        "from ferz.tablebase import build\n"
        "json.load(sys.stdin)\n"
        "folder = Path(tempfile.mkdtemp())\n"
        "build('xiangqi', 'KRvK', folder)\n"
        "digest = hashlib.sha256((folder / 'KRvK.fzt').read_bytes()).hexdigest()\n"
        "print(json.dumps({'compiled': cython.compiled, 'results': digest}))\n"
    )
    from ferz import data

    bundled = data.tables("xiangqi")
    assert bundled is not None
    expected = hashlib.sha256((bundled / "KRvK.fzt").read_bytes()).hexdigest()
    assert run_pure(script, []) == expected


@pytest.mark.variant
def test_a_perpetual_check_loses_in_xiangqis_tables(capsys) -> None:
    """The bundled KNvKR: positions that only a perpetual check would hold are lost by the
    rule (a distance from RULE on, not a mate, and said so). Played out, the loser choosing
    among its longest moves and the winner following the tables, each game is the winner's
    by ferz's Board and by Fairy-Stockfish's rules (pyffish)."""
    pyffish = pytest.importorskip("pyffish")
    from ferz import data
    from ferz.commands import main
    from tools.tb_search_check import fen_of

    tables = open_tablebase(data.tables("xiangqi"), "xiangqi")
    table = tables._table("KNvKR")
    assert table is not None
    lost = [i for i in range(table.size) if INVALID < table.val[i] <= -MINWIN]
    lost = [i for i in lost if by_rule(table.val[i])]
    assert len(lost) > 1000
    rng = random.Random(5)
    for idx in rng.sample(lost, 6):
        fen = fen_of(Board(variant="xiangqi"), table, table.squares_of(idx), idx & 1)
        board = Board(fen, variant="xiangqi")
        assert tables.probe_dtm(board) <= -RULE
        assert note(tables, board).endswith("wins (a perpetual check or chase loses)")
        loser, moves = board.turn, []
        while board.outcome(claim_draw=True) is None:
            ranked = tables.root_moves(board)
            if board.turn == loser:
                move = rng.choice([m for m, d in ranked if d == ranked[0][1]])
            else:
                move = ranked[0][0]
            moves.append(board.uci(move))
            board.push(move)
            assert len(moves) < 200, fen
        assert board.outcome(claim_draw=True).winner is not loser, (fen, moves)
        over, value = pyffish.is_optional_game_end("xiangqi", fen, moves)
        if not over:  # a mate: the side to move has no move
            assert not pyffish.legal_moves("xiangqi", fen, moves)
            value = pyffish.game_result("xiangqi", fen, moves)
        assert value != 0 and (value > 0) == (board.turn is not loser), (fen, moves)
    fen = "9/5k3/9/9/4N4/9/9/3r5/4K4/9 w - - 0 1"  # the horse must check forever
    folder = str(data.tables("xiangqi"))
    assert main(["tb", "probe", "--variant", "xiangqi", fen, "--dir", folder]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Black wins: a perpetual check or chase loses\n")
    assert re.search(r"^  H5\+3 +loses \(a perpetual check or chase\)$", out, re.M)


def test_a_xiangqi_table_built_without_the_rule_is_refused(tmp_path: Path) -> None:
    """A xiangqi table from before the perpetual-check rule (no "perpetual" in its header) is
    skipped with the reason; building it again replaces it."""
    from ferz import data

    head, body = read_header(data.tables("xiangqi") / "KRvK.fzt")
    assert head.pop("perpetual") == "check and chase lose"
    line = json.dumps(head, separators=(",", ":")).encode()
    (tmp_path / "KRvK.fzt").write_bytes(MAGIC + line + b"\n" + body)
    with open_tablebase(tmp_path, "xiangqi") as tables:
        assert tables.paths == {}
        assert "built without the perpetual-check rule" in tables.skipped[0]
    build("xiangqi", "KRvK", tmp_path)
    with open_tablebase(tmp_path, "xiangqi") as tables:
        assert tables.skipped == [] and "KRvK" in tables.paths


def test_a_xiangqi_table_built_without_the_chasing_rule_is_refused(tmp_path: Path) -> None:
    """A xiangqi table from before step 5 (its header: "perpetual": "check loses", the chasing
    rule not applied) is skipped with the reason; building it again replaces it."""
    from ferz import data

    head, body = read_header(data.tables("xiangqi") / "KRvK.fzt")
    head["perpetual"] = "check loses"
    line = json.dumps(head, separators=(",", ":")).encode()
    (tmp_path / "KRvK.fzt").write_bytes(MAGIC + line + b"\n" + body)
    with open_tablebase(tmp_path, "xiangqi") as tables:
        assert tables.paths == {}
        assert "built without the chasing rule" in tables.skipped[0]
    assert tmp_path / "KRvK.fzt" in build("xiangqi", "KRvK", tmp_path)
    head, _ = read_header(tmp_path / "KRvK.fzt")
    assert head["perpetual"] == "check and chase lose"
    with open_tablebase(tmp_path, "xiangqi") as tables:
        assert tables.skipped == [] and "KRvK" in tables.paths


@pytest.mark.variant
def test_xiangqi_draws_a_repetition_rule_may_decide_get_no_answer(capsys) -> None:
    """Step 6: in the bundled KRvKN, Black's horse keeps the draw only by attacking the rook
    (the judge, ferz.core.chase, calls that move a chase): the tables, which say "draw" only
    where neither side needs a check or a chase to hold it, give no answer there, and the
    search keeps searching. A draw that no repetition can decide is answered."""
    from ferz import data
    from ferz.commands import main
    from ferz.core.chase import Chases
    from ferz.tablebase import TB_FAIL, UNSURE

    tables = open_tablebase(data.tables("xiangqi"), "xiangqi")
    board = Board("9/9/3k5/9/9/9/9/4K4/9/n3R4 b - - 0 1", variant="xiangqi")
    assert tables.get_wdl(board) is None and tables.get_dtm(board, 5) == 5
    assert tables.probe_value(board, unsure=True) == UNSURE
    assert tables.search_probe(board.position) == TB_FAIL
    assert note(tables, board) is None
    chases, holding = Chases(board.rules), []
    for move in board.legal_moves:
        board.push(move)
        value = tables.probe_value(board, unsure=True)
        if value is not None and value < MINWIN:  # not a win for White
            holding.append((board.uci(move), chases.chased(board.position, move.code)))
        board.pop()
    assert holding == [("a1c2", {board.rules.parse_square("e1")})]  # the rook, chased
    folder = str(data.tables("xiangqi"))
    assert main(["tb", "probe", "--variant", "xiangqi", board.fen(), "--dir", folder]) == 0
    assert capsys.readouterr().out.startswith("no exact value: a draw unless a perpetual check")
    exact = Board("5k3/8R/9/2r6/9/9/9/9/9/4K4 w - - 0 1", variant="xiangqi")
    assert tables.probe_wdl(exact) == 0 and tables.search_probe(exact.position) == 0
    assert note(tables, exact) == "tablebase: draw"
