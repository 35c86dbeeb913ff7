"""Polyglot books: keys equal python-chess's, lookups and choices agree, bad files refused."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from ferz import book
from ferz.board import Board
from tests.programs import find

pytest.importorskip("chess.polyglot", reason="python-chess is the oracle")
import chess  # noqa: E402
import chess.polyglot  # noqa: E402

POLYGLOT = find("polyglot")


def test_keys_match_python_chess_on_random_play() -> None:
    rng = random.Random(5)
    checked = 0
    for _ in range(30):
        theirs = chess.Board()
        ours = Board()
        for _ in range(rng.randrange(10, 80)):
            assert book.key(ours) == chess.polyglot.zobrist_hash(theirs), theirs.fen()
            checked += 1
            moves = list(theirs.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            theirs.push(move)
            ours.push_uci(move.uci())
    assert checked > 500
    # the published reference keys of the format
    assert book.key(Board()) == 0x463B96181691FC9C
    fen = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
    assert book.key(Board(fen)) == 0x22A48B5A8E47FF78


def test_written_book_reads_back_in_both_readers(tmp_path) -> None:
    path = tmp_path / "small.bin"
    start = Board().fen()
    castle = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    book.write(path, {start: [("e2e4", 10), ("d2d4", 5), ("g1f3", 1)], castle: [("e1g1", 3)]})
    ours = book.Book(path)
    assert len(ours) == 4
    found = {e.move.uci(): e.weight for e in ours.entries(Board())}
    assert found == {"e2e4": 10, "d2d4": 5, "g1f3": 1}
    with chess.polyglot.open_reader(path) as reader:
        theirs = {e.move.uci(): e.weight for e in reader.find_all(chess.Board())}
        assert theirs == found
        assert [e.move.uci() for e in reader.find_all(chess.Board(castle))] == ["e1g1"]
    assert [e.move.uci() for e in ours.entries(Board(castle))] == ["e1g1"]
    picks = {ours.choose(Board(), random.Random(seed)).uci() for seed in range(200)}
    assert picks == {"e2e4", "d2d4", "g1f3"}
    assert ours.choose(Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")) is None


def test_bad_books_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="cannot open"):
        book.Book(tmp_path / "missing.bin")
    odd = tmp_path / "odd.bin"
    odd.write_bytes(b"x" * 17)
    with pytest.raises(ValueError, match="not a Polyglot book"):
        book.Book(odd)
    with pytest.raises(ValueError, match="standard chess"):
        book.key(Board(variant="gardner"))


def test_illegal_entries_are_skipped(tmp_path) -> None:
    path = tmp_path / "bad.bin"
    h = book.key(Board())
    raw_illegal = (4 << 6) | (0 << 9) | 4 | (4 << 3)  # e1e5: not a legal move
    path.write_bytes(book.ENTRY.pack(h, raw_illegal, 7, 0))
    assert book.Book(path).entries(Board()) == []


@pytest.mark.programs("polyglot")
def test_book_made_by_polyglot(tmp_path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(
        '[Event "t"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n\n'
        '[Event "t"]\n[Result "0-1"]\n\n1. d4 d5 2. c4 e6 0-1\n\n'
        '[Event "t"]\n[Result "1-0"]\n\n1. e4 c5 2. Nf3 d6 1-0\n'
    )
    out = tmp_path / "made.bin"
    subprocess.run(
        [POLYGLOT, "make-book", "-pgn", str(pgn), "-bin", str(out), "-min-game", "1"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    ours = {e.move.uci() for e in book.Book(out).entries(Board())}
    with chess.polyglot.open_reader(out) as reader:
        theirs = {e.move.uci() for e in reader.find_all(chess.Board())}
    assert ours == theirs and "e2e4" in ours


def _random_games(count: int, seed: int) -> list[tuple[Board, str]]:
    """Random games (castling, promotions, en passant come up) with a mix of results."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        board = Board()
        for _ in range(rng.randrange(4, 60)):
            moves = board.legal_moves
            if not moves or board.outcome() is not None:
                break
            board.push(rng.choice(moves))
        games.append((board, rng.choice(["1-0", "0-1", "1/2-1/2", "*"])))
    return games


def _pgn(games: list[tuple[Board, str]]) -> str:
    """The games as PGN movetext that polyglot reads."""
    out, texts = [], {}
    for board, result in games:
        if id(board) not in texts:  # the same game object repeated: write its moves once
            replay, sans = Board(), []
            for move in board.move_stack:
                sans.append(replay.san(move))
                replay.push(move)
            texts[id(board)] = " ".join(
                (f"{i // 2 + 1}. " if i % 2 == 0 else "") + san for i, san in enumerate(sans)
            )
        out.append(f'[Event "t"]\n[Result "{result}"]\n\n{texts[id(board)]} {result}\n')
    return "\n".join(out)


def _polyglot_rows(tmp_path, games, *options: str) -> set[tuple[int, int, int]]:
    """(key, move, weight) of the book `polyglot make-book` makes from the games."""
    pgn, out = tmp_path / "games.pgn", tmp_path / "polyglot.bin"
    pgn.write_text(_pgn(games))
    subprocess.run(
        [POLYGLOT, "make-book", "-pgn", str(pgn), "-bin", str(out), *options],
        check=True,
        capture_output=True,
        timeout=300,
    )
    data = out.read_bytes()
    return {book.ENTRY.unpack_from(data, i)[:3] for i in range(0, len(data), book.ENTRY.size)}


@pytest.mark.programs("polyglot")
@pytest.mark.parametrize(
    ("max_ply", "min_games", "uniform"), [(1024, 1, False), (12, 3, False), (8, 2, True)]
)
def test_built_book_equals_polyglot_make_book(tmp_path, max_ply, min_games, uniform) -> None:
    """Same keys, moves and weights as `polyglot make-book` on the same games, for its max-ply,
    min-game and uniform options (many games share their first moves: 4 first moves only)."""
    games = _random_games(300, 7 + max_ply)
    options = ["-max-ply", str(max_ply), "-min-game", str(min_games)]
    theirs = _polyglot_rows(tmp_path, games, *options, *(["-uniform"] if uniform else []))
    rows = book.build(games, max_ply=max_ply, min_games=min_games, uniform=uniform)
    assert {row[:3] for row in rows} == theirs and len(theirs) > 20
    path = tmp_path / "ours.bin"
    book.save(path, rows)
    first = book.Book(path).entries(Board())
    assert {e.move.uci() for e in first} == {
        e.move.uci() for e in book.Book(tmp_path / "polyglot.bin").entries(Board())
    }


@pytest.mark.programs("polyglot")
def test_built_book_halves_counts_as_polyglot_does(tmp_path) -> None:
    """Past 16 383 games through one move, every move of the position has its counts halved."""
    e4, d4 = Board(), Board()
    e4.push_san("e4")
    d4.push_san("d4")
    games = [(d4, "1/2-1/2")] * 11 + [(e4, "1-0")] * 16390 + [(d4, "1/2-1/2")] * 3
    rows = book.build(games, min_games=1)
    assert {row[:3] for row in rows} == _polyglot_rows(tmp_path, games, "-min-game", "1")


def _ferz(*args: str) -> subprocess.CompletedProcess:
    """`python -m ferz ARGS`."""
    return subprocess.run(
        [sys.executable, "-m", "ferz", *args], capture_output=True, text=True, timeout=120
    )


def test_book_command_builds_and_probes(tmp_path) -> None:
    """`ferz book build` writes the book of the PGN's games; `probe` lists a position's moves
    with their weights; bad input is an error message, not a traceback."""
    games = _random_games(60, 3)
    pgn_path, out = tmp_path / "g.pgn", tmp_path / "b.bin"
    pgn_path.write_text(_pgn(games))
    run = _ferz("book", "build", str(pgn_path), "-o", str(out), "--min-games", "1")
    assert run.returncode == 0 and "moves in" in run.stdout, run.stderr
    rows = book.build(games, min_games=1)
    assert len(book.Book(out)) == len(rows)
    probe = _ferz("book", "probe", str(out))
    assert probe.returncode == 0
    first = {e.move.uci() for e in book.Book(out).entries(Board())}
    assert {line.split()[1] for line in probe.stdout.splitlines()} == first
    for bad in (
        ["book", "build", str(tmp_path / "none.pgn"), "-o", str(out)],
        ["book", "probe", str(tmp_path / "none.bin")],
        ["book", "build", str(pgn_path), "-o", str(out), "--max-ply", "0"],
    ):
        run = _ferz(*bad)
        assert (
            run.returncode == 2 and "ferz: error:" in run.stderr and "Traceback" not in run.stderr
        )


def test_the_bundled_book_makes_games_differ() -> None:
    """With OwnBook on and no BookFile, ferz opens from the book that ships with it, picked at
    random from game to game: the first 8 plies of 30 self-play games are not all the same,
    and every book move is legal."""
    from ferz.engine import Engine, Limits

    assert book.bundled_book() is not None, "ferz/data/book.bin is missing"
    engine = Engine()
    engine.set_option("OwnBook", True)
    openings = set()
    for _ in range(30):
        engine.new_game()
        board = Board()
        for _ in range(8):
            move = engine.play(board, Limits(nodes=300)).move
            assert move is not None
            board.push_uci(move)
        openings.add(tuple(m.uci() for m in board.move_stack))
    assert len(openings) >= 5
    engine.set_option("OwnBook", False)
    engine.new_game()
    assert engine.play(Board(), Limits(depth=1)).info.depth == 1  # a search, not the book


def test_book_build_skips_a_bad_game_and_says_where(tmp_path) -> None:
    """A PGN with a broken game between good ones: the book is made of the good games, the
    bad one is named on standard error with its line, exit 0 (a file of bad games alone is
    the one-line error of the contract)."""
    games = _random_games(20, 7)
    text = _pgn(games)
    bad = '[Event "broken"]\n[Result "*"]\n\n1. e4 e5 2. Ke3 *\n\n'
    cut = text.index("[Event", 1)  # after the first game
    pgn_path, out = tmp_path / "g.pgn", tmp_path / "b.bin"
    pgn_path.write_text(text[:cut] + bad + text[cut:])
    run = _ferz("book", "build", str(pgn_path), "-o", str(out), "--min-games", "1")
    assert run.returncode == 0, run.stderr
    assert f"from {len(games)} games" in run.stdout
    line = (text[:cut] + bad).splitlines().index("1. e4 e5 2. Ke3 *") + 1
    assert "skipped a bad game" in run.stderr and f"line {line}:" in run.stderr
    assert len(book.Book(out)) == len(book.build(games, min_games=1))
    (tmp_path / "bad.pgn").write_text(bad)
    run = _ferz("book", "build", str(tmp_path / "bad.pgn"), "-o", str(out))
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "line 4" in run.stderr
