"""Books from PGN readers' output: book.build_lines (UCI moves, what `ferz book build` gets
from ferz.pgn) gives build()'s rows (Boards), e.p., promotions and castling included."""

from __future__ import annotations

import random

from ferz import book
from ferz.board import Board


def random_games(count: int, seed: int, fen: str | None = None) -> list[tuple[Board, str]]:
    """Random legal games (up to 150 plies) and random results."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        board = Board(fen, variant="chess960" if fen else "chess")
        for _ in range(rng.randrange(1, 150)):
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))
        games.append((board, rng.choice(["1-0", "0-1", "1/2-1/2", "*"])))
    return games


def lines(games: list[tuple[Board, str]]) -> list[tuple]:
    """The games as (start FEN, Rules, Chess960, UCI moves, result)."""
    return [
        (end.starting_fen, end.rules, end.chess960, [m.uci() for m in end.move_stack], result)
        for end, result in games
    ]


def test_uci_lines_give_the_rows_boards_give() -> None:
    games = random_games(150, 3)
    moves = {m.uci() for end, _ in games for m in end.move_stack}
    assert any(len(m) == 5 for m in moves)  # promotions among them
    for max_ply, min_games in ((1024, 1), (6, 2)):
        expected = book.build(games, max_ply=max_ply, min_games=min_games)
        assert book.build_lines(lines(games), max_ply, min_games) == expected


def test_chess960_castling_reads_back() -> None:
    fen = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1"
    games = random_games(60, 5, fen)
    castled = [(end, r) for end, r in games if any(end.is_castling(m) for m in end.move_stack)]
    assert castled
    assert book.build_lines(lines(games), min_games=1) == book.build(games, min_games=1)
