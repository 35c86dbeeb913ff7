"""ferz.pgn's streaming reader in python-chess's shape: read_game from a handle (and from a
text), read_headers and skip_game, errors recorded on their game with the line, the Variant
tag, python-chess's trees on generated lichess-style files, memory bounded by one game, and
the fast move reader (straight on the core's position) against the Board's SAN."""

from __future__ import annotations

import gc
import io
import itertools
import random
import sys
import tracemalloc
import weakref

import chess
import chess.pgn
import pytest

from ferz import pgn, variants
from ferz.board import Board
from tests.conftest import ROOT
from tests.library.test_pgn import same_tree

sys.path.insert(0, str(ROOT / "tools"))
import pgn_games  # noqa: E402

GOOD = """[Event "good {n}"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0
"""


def good(n: int) -> str:
    """A good game named `good n`."""
    return GOOD.replace("{n}", str(n))


def events(games: list[pgn.Game]) -> list[str]:
    """The Event tags."""
    return [game.headers["Event"] for game in games]


def test_read_game_from_a_handle_one_game_a_call() -> None:
    handle = io.StringIO(good(1) + "\n" + good(2) + "\n\n\n" + good(3))
    first = pgn.read_game(handle)
    assert first is not None and first.headers["Event"] == "good 1" and not first.errors
    assert first.end_board().is_checkmate()
    assert [n.san for n in first.mainline()][-1] == "Qxf7#"
    assert pgn.read_game(handle).headers["Event"] == "good 2"
    assert pgn.read_game(handle).headers["Event"] == "good 3"
    assert pgn.read_game(handle) is None
    assert pgn.read_game(handle) is None


def test_a_text_reads_as_before() -> None:
    """A str: its first game, PgnError at an error (the callers of ferz's old read_game)."""
    game = pgn.read_game("1. e4 e5 2. Nf3 *")
    assert game is not None and game.mainline_moves() == ["e2e4", "e7e5", "g1f3"]
    assert pgn.read_game("") is None
    with pytest.raises(pgn.PgnError, match=r"line 1: illegal move 'Ke3'"):
        pgn.read_game("1. e4 e5 2. Ke3 *")
    from_handle = pgn.read_game(io.StringIO("1. e4 e5 2. Ke3 *"))
    assert from_handle.mainline_moves() == ["e2e4", "e7e5"] and from_handle.errors


def test_games_without_blank_lines_between_them() -> None:
    """The next game's tags or a result followed by more moves end a game."""
    text = '[Event "a"]\n1. e4 e5 1-0\n[Event "b"]\n1. d4 d5 0-1 1. c4 *\n'
    games = list(pgn.stream_games(io.StringIO(text)))
    assert [(g.headers["Event"], g.mainline_moves(), g.headers["Result"]) for g in games] == [
        ("a", ["e2e4", "e7e5"], "1-0"),
        ("b", ["d2d4", "d7d5"], "0-1"),
        ("?", ["c2c4"], "*"),
    ]
    assert not any(g.errors for g in games)


def test_read_headers_and_skip_game_go_past_games() -> None:
    text = "".join(good(n) + "\n" for n in range(5))
    handle = io.StringIO(text)
    assert pgn.read_headers(handle)["Event"] == "good 0"
    assert pgn.skip_game(handle)
    headers = pgn.read_headers(handle)
    assert headers["Event"] == "good 2" and headers["Result"] == "1-0"
    assert list(headers)[:7] == list(pgn.SEVEN_TAGS)
    assert pgn.read_game(handle).headers["Event"] == "good 3"
    assert pgn.skip_game(handle)
    assert not pgn.skip_game(handle)
    assert pgn.read_headers(handle) is None


def test_headers_then_seek_then_read() -> None:
    """python-chess's recipe: remember where the games start, come back to one."""
    text = "".join(good(n) + "\n" for n in range(4))
    handle = io.StringIO(text)
    offsets = []
    while True:
        offset = handle.tell()
        if pgn.read_headers(handle) is None:
            break
        offsets.append(offset)
    assert len(offsets) == 4
    handle.seek(offsets[2])
    assert pgn.read_game(handle).headers["Event"] == "good 2"


def test_a_seek_drops_the_line_the_reader_gave_back() -> None:
    """Games without blank lines between them: the reader keeps the next game's first tag
    line; a seek elsewhere drops it."""
    text = '[Event "a"]\n1. e4 *\n[Event "b"]\n1. d4 *\n[Event "c"]\n1. c4 *\n'
    handle = io.StringIO(text)
    assert pgn.read_headers(handle)["Event"] == "a"
    handle.seek(0)
    assert pgn.read_game(handle).headers["Event"] == "a"
    assert pgn.read_game(handle).headers["Event"] == "b"
    games = pgn.stream_games(handle)
    assert next(games).headers["Event"] == "c"
    handle.seek(0)
    assert [g.headers["Event"] for g in games] == ["a", "b", "c"]


BROKEN = [
    ("illegal", '[Event "illegal"]\n\n1. e4 e5 2. Ke3 Nc6 *\n', "illegal move 'Ke3'"),
    ("broken tag", '[Event "broken tag"]\n[White "no end\n\n1. e4 *\n', "broken tag"),
    ("bad fen", '[Event "bad fen"]\n[FEN "not a position"]\n\n1. e4 *\n', "invalid FEN"),
    ("variant", '[Event "variant"]\n[Variant "nosuch"]\n\n1. e4 *\n', "unknown variant"),
    ("garbage", "]]] garbage } here\n", "unexpected"),
    ("paren", '[Event "paren"]\n\n1. e4 ) e5 *\n', "')' without '('"),
    (
        "ambiguous",
        '[Event "ambiguous"]\n[FEN "k7/8/8/8/8/8/8/KN3N2 w - - 0 1"]\n\n1. Nd2 *\n',
        "Nd2",
    ),
]


def test_broken_games_in_between_are_reported_with_their_line() -> None:
    """Every good game is read; each bad one has its error with the line it is on."""
    text = good(0) + "\n"
    for n, (_, bad, _) in enumerate(BROKEN, 1):
        text += bad + "\n" + good(n) + "\n"
    games = list(pgn.stream_games(io.StringIO(text)))
    good_ones = [g for g in games if g.headers["Event"].startswith("good")]
    assert events(good_ones) == [f"good {n}" for n in range(len(BROKEN) + 1)]
    assert not any(g.errors for g in good_ones)
    assert all(g.end_board().is_checkmate() for g in good_ones)
    lines = text.splitlines()
    bad_ones = [g for g in games if not g.headers["Event"].startswith("good")]
    assert len(bad_ones) == len(BROKEN)
    for game, (name, bad, words) in zip(bad_ones, BROKEN, strict=True):
        assert game.errors and words in game.errors[0], (name, game.errors)
        number = int(game.errors[0].split(":")[1].split()[-1])  # "game N: line L: ..."
        assert lines[number - 1] in bad, (name, game.errors[0])
    illegal = bad_ones[0]
    assert illegal.mainline_moves() == ["e2e4", "e7e5"]  # what came before the error


def test_an_error_in_a_variation_drops_that_variation_only() -> None:
    """As python-chess means to (1.11 goes on in the variation's position after its ')')."""
    text = "1. e4 e5 (1... c5 2. Ke3 Nc6) 2. Nf3 Nc6 *\n"
    ours = pgn.read_game(io.StringIO(text))
    assert ours.mainline_moves() == ["e2e4", "e7e5", "g1f3", "b8c6"]
    assert len(ours.errors) == 1 and "line 1" in ours.errors[0] and "'Ke3'" in ours.errors[0]
    assert [n.move for n in ours.root.next().variations] == ["e7e5", "c7c5"]
    assert not ours.root.next().variations[1].variations  # what came after the error: dropped


def test_the_variant_tag_names_the_variant() -> None:
    text = (
        '[Variant "Atomic"]\n\n1. e4 d5 2. exd5 *\n\n'
        '[Variant "Crazyhouse"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@b4 *\n\n'
        '[Variant "xiangqi"]\n[Notation "WXF"]\n\n1. C2=5 H8+7 *\n\n'
        '[Variant "Chess960"]\n[FEN "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1"]\n\n'
        "1. O-O O-O-O *\n\n"
        '[Variant "Three-check"]\n\n1. e4 e5 2. Bc4 Nc6 3. Bxf7+ Kxf7 *\n'
    )
    games = list(pgn.stream_games(io.StringIO(text)))
    assert [g.variant for g in games] == ["atomic", "crazyhouse", "xiangqi", "chess960", "3check"]
    assert not any(g.errors for g in games)
    assert "d5" not in games[0].end_board().pieces()  # the capture exploded
    assert games[1].mainline_moves()[-1] == "P@b4"
    assert games[3].mainline_moves() == ["b1h1", "b8a8"]  # king takes rook in Chess960
    assert [n.san for n in games[3].mainline()] == ["O-O", "O-O-O"]
    assert games[4].end_board().fen().split()[-3] == "2+3"


def test_the_variant_argument_is_the_default() -> None:
    games = list(pgn.stream_games(io.StringIO("1. e4 d5 2. exd5 *\n"), "atomic"))
    assert games[0].variant == "atomic" and games[0].headers["Variant"] == "atomic"


def test_mainline_only_skips_variations_comments_and_nags() -> None:
    text = "{ start } 1. e4 $1 { best } (1. d4 d5 (1... Nf6)) 1... e5 2. Nf3!? *\n"
    full = pgn.read_game(io.StringIO(text))
    lean = pgn.read_game(io.StringIO(text), mainline_only=True)
    assert lean.mainline_moves() == full.mainline_moves() == ["e2e4", "e7e5", "g1f3"]
    assert full.root.comment == "start" and full.root.next().nags == [1]
    assert len(full.root.variations) == 2 and len(lean.root.variations) == 1
    assert not lean.root.comment and not any(n.comment or n.nags for n in lean.mainline())


def test_max_plies_reads_the_first_moves_only() -> None:
    """The rest of the game is passed by unread (an illegal move there is not seen)."""
    text = "1. e4 e5 2. Nf3 (2. f4) Nc6 3. Ke8 Qxx9 1-0\n\n" + good(2)
    games = list(pgn.stream_games(io.StringIO(text), max_plies=3))
    assert games[0].mainline_moves() == ["e2e4", "e7e5", "g1f3"] and not games[0].errors
    assert games[0].headers["Result"] == "1-0"
    assert games[1].headers["Event"] == "good 2" and len(games[1].mainline_moves()) == 3
    assert pgn.read_game(io.StringIO(text), max_plies=0).mainline_moves() == []


def test_every_move_spelling_on_the_fast_path() -> None:
    """SAN, long algebraic, coordinates, lenient SAN: the same moves."""
    spellings = [
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. O-O Nf6 5. Re1 *",
        "1. e2-e4 e7-e5 2. Ng1-f3 Nb8-c6 3. Bf1-b5 a7-a6 4. 0-0 Ng8-f6 5. Rf1-e1 *",
        "1. e2e4 e7e5 2. g1f3 b8c6 3. f1b5 a7a6 4. e1g1 g8f6 5. f1e1 *",
        "1. e4 e5 2. Ngf3 N8c6 3. Bfb5 a6 4. O-O+ Nf6 5. Rfe1 *",
    ]
    games = [pgn.read_game(text) for text in spellings]
    assert all(g.mainline_moves() == games[0].mainline_moves() for g in games)
    assert all([n.san for n in g.mainline()] == [n.san for n in games[0].mainline()] for g in games)
    assert [n.san for n in games[0].mainline()][-3:] == ["O-O", "Nf6", "Re1"]


def test_promotions_checks_and_disambiguation() -> None:
    fen = "r3k2r/1P4P1/8/8/8/8/8/R3K2R w KQkq - 0 1"
    text = f'[FEN "{fen}"]\n\n1. bxa8=Q+ Ke7 2. g8=N+ Kf7 3. Ra1b1 *\n'
    game = pgn.read_game(text)
    assert [n.san for n in game.mainline()] == ["bxa8=Q+", "Ke7", "g8=N+", "Kf7", "Rb1"]
    assert game.mainline_moves() == ["b7a8q", "e8e7", "g7g8n", "e7f7", "a1b1"]
    for fen, moves, sans in [
        ("k7/8/2N5/8/8/8/2N5/K7 w - - 0 1", "1. Nc2d4 Kb7", ["N2d4", "Kb7"]),
        ("7k/8/8/8/8/8/8/N1N4K w - - 0 1", "1. Nab3 Kg8", ["Nab3", "Kg8"]),
        ("7k/8/8/8/8/2N5/8/2N3NK w - - 0 1", "1. Nc1-e2", ["Nc1e2"]),
    ]:
        game = pgn.read_game(f'[FEN "{fen}"]\n\n{moves} *\n')
        assert [n.san for n in game.mainline()][: len(sans)] == sans, fen


def lichess_games(count: int, seed: int) -> str:
    """Generated lichess-style games: clocks, evals, NAGs, comments and variations."""
    return "".join(pgn_games.games_text(count, seed, "rich"))


def compare_with_python_chess(text: str) -> int:
    """Read a text with both readers: the same tags, trees, comments, NAGs and SAN."""
    ours, theirs = io.StringIO(text), io.StringIO(text)
    count = 0
    while True:
        mine, other = pgn.read_game(ours), chess.pgn.read_game(theirs)
        if other is None:
            assert mine is None
            return count
        assert mine is not None and not mine.errors and not other.errors
        assert mine.headers == dict(other.headers)
        same_tree(mine.root, other)
        assert [n.san for n in mine.mainline()] == [n.san() for n in other.mainline()]
        lean = pgn.read_game(io.StringIO(str(other)), mainline_only=True)
        assert lean.mainline_moves() == [m.uci() for m in other.mainline_moves()]
        count += 1


def test_same_trees_as_python_chess_on_lichess_style_games() -> None:
    assert compare_with_python_chess(lichess_games(40, seed=5)) == 40


@pytest.mark.slow
def test_same_trees_as_python_chess_on_a_thousand_lichess_style_games() -> None:
    assert compare_with_python_chess(lichess_games(1000, seed=6)) == 1000


class LazyText(io.TextIOBase):
    """A text stream made as it is read: `count` copies of a game, never all in memory."""

    def __init__(self, game: str, count: int) -> None:
        self.lines = game.splitlines(keepends=True)
        self.count = count
        self.served = 0  # lines given out

    def readable(self) -> bool:
        return True

    def readline(self, size: int = -1) -> str:
        index = self.served
        if index >= len(self.lines) * self.count:
            return ""
        self.served += 1
        return self.lines[index % len(self.lines)]


def test_a_stream_holds_no_game_it_gave() -> None:
    """The reader reads a game at a time and keeps none: the games it gave are freed."""
    game = lichess_games(1, seed=7) + "\n"
    handle = LazyText(game, 100)
    games = pgn.stream_games(handle)
    first = next(games)
    assert handle.served <= len(handle.lines) + 1  # one game read, not the stream
    refs = [weakref.ref(first)] + [weakref.ref(g) for g in itertools.islice(games, 40)]
    del first
    gc.collect()
    assert not any(ref() for ref in refs)
    assert handle.served <= 42 * len(handle.lines)
    assert sum(1 for _ in games) == 59


@pytest.mark.slow
def test_a_big_stream_is_read_in_bounded_memory() -> None:
    """6 MB of games read in well under that (the trees' cycles wait for the collector)."""
    game = lichess_games(1, seed=7) + "\n"
    count = 6_000_000 // len(game)
    games = pgn.stream_games(LazyText(game, count))
    next(games)
    tracemalloc.start()
    try:
        read = 1 + sum(1 for _ in games)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert read == count
    assert peak < 3_000_000, f"{peak} bytes at the peak"


def fast_variants() -> list[str]:
    """The variants whose moves the fast reader reads."""
    return [name for name in variants.names() if pgn._plain_san(variants.get(name))]


QUICK = ["chess", "chess960", "capablanca", "grand", "atomic", "antichess", "horde", "janggi"]


def agree_with_board(variant: str, plies: int) -> None:
    """Every legal move along a random game, in SAN, long algebraic and UCI: the fast reader
    plays the move the Board reads, and writes the SAN the Board writes."""
    rng = random.Random(variant)
    board = Board(variant=variant)
    line = pgn._FastLine(Board(variant=variant))
    line.start(board.fen())
    for _ in range(plies):
        legal = board.legal_moves
        if not legal or board.outcome() is not None:
            break
        for move in legal:
            san = board.san(move)
            assert line.play(san) == (move.uci(), san), (board.fen(), san)
            line.undo()
            uci, again = line.play(move.uci())
            assert (uci, again) == (move.uci(), san), (board.fen(), move.uci())
            line.undo()
        move = rng.choice(legal)
        line.play(board.san(move))
        board.push(move)
        assert line.fen() == board.fen()


@pytest.mark.parametrize("variant", QUICK)
def test_the_fast_reader_agrees_with_the_board(variant: str) -> None:
    agree_with_board(variant, 40)


@pytest.mark.slow
@pytest.mark.parametrize("variant", fast_variants())
def test_the_fast_reader_agrees_with_the_board_in_every_variant(variant: str) -> None:
    agree_with_board(variant, 120)
