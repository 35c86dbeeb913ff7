"""Polyglot books: keys equal python-chess's, lookups and choices agree, bad files refused."""

from __future__ import annotations

import random
import subprocess

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
