"""Variant definitions: Betza, the variants.ini subset, strict refusal with line numbers."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ferz import commands, variants
from ferz.core.rules import Atom
from ferz.variants import betza
from ferz.variants.ini import DefinitionError
from tests.variants.placement import placement

pytestmark = pytest.mark.variant


def steps(text: str) -> set[tuple[int, int, int]]:
    """(dx, dy, range) of every atom of a Betza string."""
    return {(a.dx, a.dy, a.range) for a in betza.parse(text)}


# ---------------------------------------------------------------------------- Betza


def test_betza_leapers_and_riders() -> None:
    assert steps("W") == {(1, 0, 1), (-1, 0, 1), (0, 1, 1), (0, -1, 1)}
    assert steps("N") == {
        (x, y, 1) for x in (1, -1, 2, -2) for y in (1, -1, 2, -2) if abs(x) != abs(y)
    }
    assert steps("B") == {(1, 1, 0), (1, -1, 0), (-1, 1, 0), (-1, -1, 0)}
    assert steps("Q") == steps("RB") == steps("WWFF")
    assert steps("R4") == {(1, 0, 4), (-1, 0, 4), (0, 1, 4), (0, -1, 4)}
    assert steps("NN") == {(x, y, 0) for x, y, _ in steps("N")}
    assert steps("K") == steps("WF")
    assert len(steps("HCZG")) == 4 + 8 + 8 + 4


def test_betza_directions_follow_fairy_stockfish() -> None:
    assert steps("fW") == {(0, 1, 1)}
    assert steps("fsW") == {(0, 1, 1), (1, 0, 1), (-1, 0, 1)}  # xiangqi soldier
    assert steps("fN") == {(1, 2, 1), (-1, 2, 1)}  # shogi knight: the two forward-most
    assert steps("FfW") == steps("F") | {(0, 1, 1)}  # silver
    assert steps("WfF") == steps("W") | {(1, 1, 1), (-1, 1, 1)}  # gold
    assert steps("flF") == {(-1, 1, 1)}
    assert steps("lN") == {(-2, 1, 1), (-2, -1, 1)}
    assert steps("fR") == {(0, 1, 0)}  # lance
    assert steps("vR") == {(0, 1, 0), (0, -1, 0)}


def test_betza_modalities_hoppers_lame_initial() -> None:
    pawn = betza.parse("fmWfceFifmnD")
    assert Atom(0, 1, 1, True, False) in pawn
    assert Atom(1, 1, 1, False, True) in pawn and Atom(-1, 1, 1, False, True) in pawn
    assert Atom(0, 2, 1, True, False, False, (0, 1), True) in pawn
    cannon = betza.parse("mRcpR")
    assert Atom(0, 1, 0, True, False) in cannon and Atom(0, 1, 0, False, True, True) in cannon
    horse = betza.parse("nN")
    assert Atom(1, 2, 1, leg=(0, 1)) in horse and Atom(2, -1, 1, leg=(1, 0)) in horse
    assert Atom(2, 2, 1, leg=(1, 1)) in betza.parse("nA")
    # a move-only and a capture-only twin merge into one atom
    assert betza.parse("mWcW") == betza.parse("W")


@pytest.mark.parametrize(
    "text",
    ["gR", "X", "Wx", "fm", "pN", "pR4", "nH", "nR", "R10", "R0", "aW", "jN", "O", "W*", "é"]
    + ["C3", "DD", "QF", "R2W", "WR2", "fRfR2", "plfR", "mpbB", "NNN"],
)
def test_betza_refuses_unsupported(text: str) -> None:
    """Outside the subset, or read differently by Fairy-Stockfish (riders other than W F N K,
    one move given twice, directional hoppers): refused rather than guessed."""
    with pytest.raises(betza.BetzaError):
        betza.parse(text)


@given(st.text(alphabet="WFDNAHCZGKRBQLJmcepnigfbvlrshaxyo0123456789+-", max_size=14))
def test_betza_never_crashes(text: str) -> None:
    try:
        atoms = betza.parse(text)
    except betza.BetzaError:
        return
    assert all(isinstance(a, Atom) and a.range >= 0 for a in atoms)


# ---------------------------------------------------------------------------- built-ins


def test_builtin_names_in_order() -> None:
    names = variants.builtins()
    assert names[:3] == ["chess", "chess960", "gardner"]
    for name in ("losalamos", "shatranj", "hoppelpoppel", "makruk", "capablanca", "grand"):
        assert name in names
    for name in ("xiangqi", "minishogi", "shogi", "crazyhouse"):
        assert name in names


def test_builtin_chess_matches_the_hand_written_rules() -> None:
    from ferz.core.rules import chess

    mine, theirs = variants.get("chess"), chess()
    assert [(p.letter, set(p.atoms), p.royal, p.pawn) for p in mine.pieces] == [
        (p.letter, set(p.atoms), p.royal, p.pawn) for p in theirs.pieces
    ]
    for field in (
        "files",
        "ranks",
        "start_fen",
        "castling",
        "promotion_ranks",
        "double_step_ranks",
    ):
        assert getattr(mine, field) == getattr(theirs, field)
    assert set(mine.promotion_letters) == set(theirs.promotion_letters)


def test_builtin_rules_details() -> None:
    xiangqi = variants.get("xiangqi")
    general = next(p for p in xiangqi.pieces if p.royal)
    assert general.letter == "K" and steps("W") == {(a.dx, a.dy, a.range) for a in general.atoms}
    assert (
        len(general.region[0]) == 9 and (4, 0) in general.region[0] and (4, 9) in general.region[1]
    )
    assert xiangqi.flying_general and xiangqi.stalemate_value == "loss"
    soldier = next(p for p in xiangqi.pieces if p.name == "soldier")
    assert {a.min_rank for a in soldier.atoms if a.dx} == {5}
    shogi = variants.get("shogi")
    promoted = {p.letter: p for p in shogi.pieces if p.demoted}
    assert set(promoted) == {"+P", "+S", "+B", "+R", "+L", "+N"}
    gold = next(p for p in shogi.pieces if p.letter == "G")
    assert promoted["+P"].atoms == gold.atoms and promoted["+P"].demoted == "P"
    assert shogi.drops and shogi.captures_to_hand and shogi.drop_no_doubled == "P"
    grand = variants.get("grand")
    assert grand.promotion_ranks == frozenset({7, 8, 9}) and not grand.mandatory_promotion
    assert grand.promotion_limit == {"A": 1, "C": 1, "Q": 1, "R": 2, "B": 2, "N": 2}
    assert variants.get("makruk").promotion_letters == "M"
    assert variants.get("shatranj").extinction_value == "loss"


def test_pawns_may_wait_in_an_optional_promotion_zone() -> None:
    """Grand chess: a pawn may stay on ranks 8 and 9 (promotion is optional there), not on 10;
    where promotion is mandatory (makruk) a pawn never stands in the zone."""
    from ferz.board import Board

    fen = "1b2k1ra2/7b2/pcpP1npp1p/3p4A1/1p3p2p1/4PP3N/1P1Q5q/P1P1K1PPP1/1NB4BC1/4R2R2 b - - 4 26"
    assert Board(fen, variant="grand").fen() == fen  # a white pawn on d8, as play reached it
    with pytest.raises(ValueError, match="pawn on d10"):
        Board("r2P5r/1nbqkcabn1/10/10/10/10/10/10/1NBQKCABN1/R8R w - - 0 1", variant="grand")
    with pytest.raises(ValueError, match="pawn on a6"):
        Board("rnsmksnr/8/P7/8/8/8/8/RNSKMSNR w - - 0 1", variant="makruk")


def test_unknown_variant_lists_known_names() -> None:
    with pytest.raises(ValueError, match="unknown variant 'nosuch'.*chess"):
        variants.get("nosuch")


# ---------------------------------------------------------------------------- user files


GOOD = """
# a comment
[tinyhoppel:chess]
maxRank = 6
maxFile = 6
knight = -
bishop = -
knibis = n   ; inline comment
biskni = b
startFen = rnbqkr/pppppp/6/6/PPPPPP/RNBQKR w - - 0 1
promotionRegionWhite = *6
promotionRegionBlack = *1
promotionPieceTypes = nbrq
doubleStep = false
castling = false

[tinyhoppel-wide:tinyhoppel]
maxFile = 7
customPiece1 = w:mRcpR
startFen = rnbqkrw/ppppppp/7/7/PPPPPPP/RNBQKRW w - - 0 1
"""


def test_parse_text_inheritance() -> None:
    compiled = variants.parse_text(GOOD)
    assert list(compiled) == ["tinyhoppel", "tinyhoppel-wide"]
    small, wide = compiled["tinyhoppel"], compiled["tinyhoppel-wide"]
    assert (small.files, small.ranks, wide.files, wide.ranks) == (6, 6, 7, 6)
    assert [p.letter for p in small.pieces] == ["P", "R", "Q", "K", "N", "B"]
    assert [p.letter for p in wide.pieces] == ["P", "R", "Q", "K", "N", "B", "W"]
    assert wide.promotion_ranks == frozenset({5})
    assert "tinyhoppel" not in variants.names()  # parse_text does not register


def test_load_file_registers_and_ferz_check(tmp_path, capsys) -> None:
    path = tmp_path / "mine.ini"
    path.write_text(GOOD.replace("tinyhoppel", "loadtest"))
    assert commands.main(["check", str(path)]) == 0
    assert "loadtest: ok (6x6" in capsys.readouterr().out
    assert variants.load_file(path) == ["loadtest", "loadtest-wide"]
    assert variants.get("loadtest-wide").files == 7
    assert commands.main(["variants"]) == 0
    out = capsys.readouterr().out
    assert "loadtest-wide" in out and "(user)" in out and out.startswith("chess ")
    assert variants.load_file(path) == ["loadtest", "loadtest-wide"]  # reloading replaces
    other = tmp_path / "other.ini"
    other.write_text(GOOD.replace("tinyhoppel", "loadtest"))
    with pytest.raises(DefinitionError, match="already exists"):
        variants.load_file(other)  # the names belong to mine.ini


def bad(text: str, line: int, match: str) -> None:
    """The definition is refused with an error naming `line`."""
    with pytest.raises(DefinitionError, match=match) as info:
        variants.parse_text(textwrap.dedent(text), "bad.ini")
    assert info.value.line == line, str(info.value)
    assert str(info.value).startswith(f"bad.ini:{line}: ")


def test_refuses_duplicate_letters() -> None:
    bad(
        """\
        [dup:chess]
        knibis = n
        """,
        2,
        "letter 'n' is already used by knight",
    )


def test_refuses_unknown_key() -> None:
    bad("[x:chess]\ncastling = false\nmaxFiles = 9\n", 3, "maxFiles: unknown key")


def test_refuses_unsupported_betza() -> None:
    bad("[x:chess]\n\ncustomPiece1 = a:gR\n", 3, "grasshoppers")
    bad("[x:chess]\ncustomPiece1 = a:Wq\n", 2, "unsupported Betza letter 'q'")


def test_refuses_oversize_board() -> None:
    bad("[x:chess]\nmaxFile = 17\n", 2, "larger than 16x16")
    bad("[x:chess]\nmaxRank = 20\n", 2, "larger than 16x16")


def test_refuses_inconsistent_start_fen() -> None:
    bad("[x:chess]\nmaxFile = 9\n", 1, "start position does not fit")  # inherited 8-file FEN
    bad("[x:chess]\nstartFen = rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNZ w - - 0 1\n", 2, "'Z'")
    bad("[x:chess]\nstartFen = 8/8/8/8/8/8/8/8 w - - 0 1\n", 2, "kings")
    bad("[x:chess]\npieceDrops = true\n", 1, "pocket")


def test_refuses_unsupported_rules_but_accepts_defaults() -> None:
    variants.parse_text("[ok:chess]\nmustCapture = false\ncountingRule = none\n")
    assert variants.parse_text("[x:chess]\nmustCapture = true\n")["x"].must_capture  # losers
    bad("[x:chess]\ngating = true\n", 2, "only for cambodianMoves")
    bad("[x:chess]\ndupleCheck = true\n", 2, "not supported by ferz")
    bad("[x:chess]\nmustDrop = true\n", 2, "needs pieceDrops")
    bad("[x:chess]\nblastOnCapture = true\n", 2, "only with extinctionPseudoRoyal")


def test_cambodian_moves_need_their_setting() -> None:
    """cambodianMoves come with gating (the gates of the castling field), a king, and
    neither castling nor drops; refusals name the line."""
    bad("[x:makruk]\ncambodianMoves = true\n", 2, "needs gating = true")
    bad("[x:chess]\ngating = true\ncambodianMoves = true\n", 3, "castling = false")
    bad("[x:cambodian]\npieceDrops = true\nstartFen = 8/8/8/8/8/8/8/4K2k[] w - - 0 1\n", 1, "drops")
    bad("[x:cambodian]\ncountingRule = thai\n", 2, "not supported by ferz")
    bad("[x:cambodian]\nstartFen = 4k3/8/8/8/8/8/8/4K3 w KQ - 0 1\n", 2, "not a gate file")
    rules = variants.parse_text(
        "[ouk:makruk]\ngating = true\ncambodianMoves = true\ncountingRule = cambodian\n"
        "startFen = rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1\n"
    )["ouk"]
    assert rules.cambodian_moves and rules.counting_rule == "cambodian"


@pytest.mark.parametrize(
    ("text", "line", "match"),
    [
        ("maxFile = 5\n", 1, "before the first"),
        ("[x:chess\n", 1, "lacks"),
        ("[x y]\n", 1, "bad variant name"),
        ("[x:nosuch]\n", 1, "unknown parent"),
        ("[x:x]\n", 1, "inherits from itself"),
        ("[x:chess]\n[x:chess]\n", 2, "defined twice"),
        ("[chess]\npawn = p\n", 1, "already exists"),
        ("[x:chess]\ncastling = maybe\n", 2, "true or false"),
        ("[x:chess]\ncastling = false\ncastling = false\n", 3, "set twice"),
        ("[x:chess]\njust words\n", 2, "expected 'key = value'"),
        ("[x:chess]\nknight =\n", 2, "empty value"),
        ("[x:chess]\nknight = nn\n", 2, "piece letter"),
        ("[x:chess]\nknight = n:K\n", 2, "only custom pieces"),
        ("[x:chess]\ncustomPiece1 = a\n", 2, "letter:Betza"),
        ("[x:chess]\ncustomPiece26 = a:K\n", 2, "unknown key"),
        ("[x:chess]\npromotionPieceTypes = qz\n", 2, "'z' is not a piece letter"),
        ("[x:chess]\npromotionPieceTypes = qk\n", 2, "royal"),
        ("[x:chess]\npromotionRegionWhite = *9\n", 2, "off the"),
        ("[x:chess]\npromotionRegionWhite = d8 e8\n", 2, "whole ranks"),
        ("[x:chess]\npromotionRegionWhite = *7 *8\n", 2, "mirror"),
        ("[x:chess]\nstalemateValue = maybe\n", 2, "win, loss or draw"),
        ("[x:chess]\nmaxFile = z\n", 2, "file number or letter"),
        ("[x:chess]\nmobilityRegionWhiteDragon = d1\n", 2, "not a piece of this variant"),
        ("[x:chess]\ncapturesToHand = true\n", 2, "pieceDrops"),
        ("[x]\nmaxFile = 5\n", 1, "no pieces"),
        ("[x:chess]\ncastlingRookPieces = -\n", 2, "castling needs"),
        ("[x:chess]\ncastlingKingPiece = q\n", 2, "royal piece only"),
        ("[x:chess]\nenPassantTypes = pn\n", 2, "enPassantTypes to equal pawnTypes"),
        ("[x:chess]\npieceValueMg = q:lots\n", 2, "letter:value"),
        ("[x:chess]\npromotedPieceType = p:z\n", 2, "pairs of piece letters"),
    ],
)
def test_refuses_bad_lines(text: str, line: int, match: str) -> None:
    bad(text, line, match)


def test_ferz_check_reports_line(tmp_path, capsys) -> None:
    path = tmp_path / "bad.ini"
    path.write_text("[x:chess]\n\nqueen = -\nkniroo = n\n")
    assert commands.main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"ferz: error: {path}:4: kniroo: letter 'n' is already used by knight" in err
    assert commands.main(["check", str(tmp_path / "missing.ini")]) == 2
    err = capsys.readouterr().err
    assert err == f"ferz: error: {tmp_path / 'missing.ini'}: No such file or directory\n"
    (tmp_path / "bin.ini").write_bytes(b"\xff\xfe[x]")
    assert commands.main(["check", str(tmp_path / "bin.ini")]) == 2
    assert f"{tmp_path / 'bin.ini'}:1: not UTF-8 text" in capsys.readouterr().err
    (tmp_path / "latin.ini").write_bytes(b"[x:chess]\n# caf\xe9\n")
    assert commands.main(["check", str(tmp_path / "latin.ini")]) == 2
    assert f"{tmp_path / 'latin.ini'}:2: not UTF-8 text" in capsys.readouterr().err


INI_TOKENS = st.sampled_from(
    [
        "[a]",
        "[b:chess]",
        "[c:a]",
        "[d:shogi]",
        "pawn = p",
        "king = k",
        "king = k:W",
        "knight = -",
        "queen = q",
        "customPiece1 = q:QN",
        "customPiece2 = x:mNcpR",
        "maxFile = 12",
        "maxRank = 3",
        "maxFile = 17",
        "startFen = 8/8/8/8/8/8/8/8[] w - - 0 1",
        "startFen = k7/8/8/8/8/8/8/K7 w - - 0 1",
        "startFen = kq/2/KQ w",
        "pieceDrops = true",
        "capturesToHand = true",
        "promotionPieceTypes = qx",
        "promotionRegionWhite = *3",
        "promotedPieceType = p:q",
        "doubleStepRegionWhite = *1",
        "castling = false",
        "castlingKingsideFile = p",
        "mobilityRegionWhiteKing = a1 b2",
        "extinctionPieceTypes = *",
        "flagRegion = d4",
        "dropNoDoubled = p",
        "= x",
        "#",
        "",
        "x",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(INI_TOKENS, max_size=12), st.text(max_size=40))
def test_definitions_never_crash(lines: list[str], noise: str) -> None:
    for text in ("\n".join(lines), "\n".join(lines) + "\n" + noise):
        try:
            compiled = variants.parse_text(text, "fuzz.ini")
        except DefinitionError as error:
            assert error.line >= 0 and str(error).startswith("fuzz.ini:")
            continue
        for rules in compiled.values():
            from ferz.core.position import Position

            Position(rules).set_fen(rules.start_fen)  # a definition that loads also plays


BIG = """
[big:chess]
maxFile = 16
maxRank = 16
customPiece1 = a:QNCZ
startFen = 7ak7/16/16/16/16/16/16/16/16/16/16/16/16/16/16/7AK7 w - - 0 1
castling = false
"""


def test_refuses_armies_with_too_many_moves() -> None:
    fen = "7ak7/16/16/16/16/16/16/16/16/16/16/16/16/AAAAAAAAAAAAAAAA/16/7AK7 b - - 0 1"
    text = BIG.replace("[big:chess]", "[x:chess]").replace(BIG.split("\n")[5], f"startFen = {fen}")
    bad(text, 6, "could have about")


def test_positions_beyond_the_move_table_raise_instead_of_crashing() -> None:
    from ferz.board import Board
    from ferz.core.perft import perft

    rules = variants.parse_text(BIG)["big"]
    ranks = "kr14/pp14/8A7/16/16/8A6A/5AA9/3A5A1A4/3A12/9A3A2/9A6/12A2A/A10A2A1/4A7A3/A6A8/15K"
    fen = ranks + " w - - 0 1"
    board = Board(fen, rules=rules)  # a legal position with more moves than the core stores
    with pytest.raises(ValueError, match="more than 1024 moves"):
        board.legal_moves  # noqa: B018
    assert perft(board.position, 1) <= 1024  # the core stops at its table size, no overrun


@pytest.mark.parametrize(("files", "ranks"), [(2, 3), (2, 11), (9, 10), (16, 16)])
def test_every_leap_from_the_board_stays_in_the_mailbox(files: int, ranks: int) -> None:
    """A leap of up to 3 files and 3 ranks (camel, zebra, (3,3)) from any square lands inside
    the array, on a wall when off the board. (A camel on a1 used to index before the array:
    the core then read, and could write, memory that was not its own.)"""
    from ferz.core.rules import Rules

    rules = Rules(name="box", files=files, ranks=ranks, pieces=[], start_fen="")
    for sq in rules.squares():
        for dx in range(-3, 4):
            for dy in range(-3, 4):
                target = sq + dy * rules.stride + dx
                assert 0 <= target < rules.nsq
                inside = 0 <= rules.file_of(sq) + dx < files and 0 <= rules.rank_of(sq) + dy < ranks
                assert rules.on_board(target) == inside


def test_a_camel_in_the_corner_of_a_narrow_board() -> None:
    """The definition the fuzz test crashed on: from a1 the (0,3)/(1,3) leaps reach a4 and b4,
    and every other leap falls off the 2-file board."""
    from ferz.board import Board

    text = (
        "[narrow]\nmaxFile = 2\nmaxRank = 11\nking = k\npawn = p\ncustomPiece1 = a:HCZG\n"
        "customPiece2 = b:HCZG\npromotionPieceTypes = ab\ncastling = false\n"
        "pieceDrops = true\nstartFen = 2/2/2/1K/2/2/2/2/1B/2/1k[Pp] w - - 0 1\n"
    )
    board = Board(
        "2/2/2/1K/2/2/2/2/2/2/Ak[Pp] w - - 0 1", rules=variants.parse_text(text)["narrow"]
    )
    moves = {m.uci() for m in board.legal_moves if "@" not in m.uci()}
    assert moves == {"a1a4", "a1b4", "b8a7", "b8b7", "b8a8", "b8a9", "b8b9"}


BETZA_POOL = ["K", "N", "R2", "fsW", "mRcpR", "nN", "nA", "FfW", "ifmnD", "NN", "pB", "HCZG", "fN"]


@st.composite
def random_variant(draw) -> str:
    """A random but well-formed definition: board size, custom pieces, a start position."""
    files = draw(st.integers(2, 16))
    ranks = draw(st.integers(3, 16))
    count = draw(st.integers(1, 4))
    letters = "abcdeg"[:count]
    lines = [
        "[fuzzy]",
        f"maxFile = {files}",
        f"maxRank = {ranks}",
        "king = k",
        "pawn = p",
        *(
            f"customPiece{i + 1} = {x}:{draw(st.sampled_from(BETZA_POOL))}"
            for i, x in enumerate(letters)
        ),
        f"promotionPieceTypes = {letters}",
        "castling = false",
        f"pieceDrops = {draw(st.sampled_from(['true', 'false']))}",
    ]
    cells = [["" for _ in range(files)] for _ in range(ranks)]
    squares = [(f, r) for f in range(files) for r in range(ranks)]
    chosen = draw(st.lists(st.sampled_from(squares), min_size=2, max_size=12, unique=True))
    for i, (f, r) in enumerate(chosen):
        if i < 2:
            cells[r][f] = "Kk"[i]
        elif 0 < r < ranks - 1 or i % 2:
            piece = draw(st.sampled_from("p" + letters))
            cells[r][f] = piece if i % 2 else piece.upper()
    pocket = "[" + draw(st.sampled_from(["", "Pp", "Aa"])) + "]" if "true" in lines[-1] else ""
    lines.append(f"startFen = {placement(cells)}{pocket} w - - 0 1")
    return "\n".join(lines)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_variant(), st.randoms(use_true_random=False))
def test_random_definitions_play_without_crashing(text: str, rng) -> None:
    from ferz.board import Board
    from ferz.core.perft import perft

    try:
        rules = variants.parse_text(text, "fuzz.ini")["fuzzy"]
    except DefinitionError:
        return  # refused with a line number: fine
    board = Board(rules=rules)
    for _ in range(40):
        moves = board.legal_moves
        if not moves:
            break
        board.push(rng.choice(moves))
        assert Board(board.fen(), rules=rules).fen() == board.fen()  # FEN round trip
    perft(board.position, 2)
    while board.move_stack:
        board.pop()
    assert board.fen() == Board(rules=rules).fen()
