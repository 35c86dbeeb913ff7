"""The explorer's import reads main lines as core codes (pgn.stream_mainlines, the chess keys in
compiled code): the same index rows, counts and reported games as the tree reader's path it
replaced (kept here as the reference), on games with comments, NAGs, variations, promotions,
bad games, Chess960 and variants."""

from __future__ import annotations

import io
import random

from ferz import pgn
from ferz.board import Board
from ferz.web import explorer
from ferz.web.boards import known_variant
from ferz.web.store import Store

# Chess960 start 518 is chess; this is another (BBQNNRKR), castling both ways possible soon
CHESS960_FEN = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
PROMOTION_FEN = "8/1P4k1/8/8/8/8/5Kp1/8 w - - 0 1"

HAND_WRITTEN = (
    '[Event "annotated"]\n[Result "1-0"]\n[WhiteElo "2100"]\n[BlackElo "1900"]\n\n'
    "{ opening } 1. e4 $1 { [%clk 0:03:00] } e5 (1... c5 2. Nf3 (2. c3) d6) 2. Nf3!? "
    "{ [%eval 0.3] } Nc6 $6 3. Bb5 a6 (3... Nf6 4. O-O) 4. Ba4 Nf6 5. O-O 1-0\n\n"
    '[Event "illegal"]\n[Result "0-1"]\n\n1. e4 e5 2. Ke3 0-1\n\n'
    '[Event "broken\n\n1. d4 *\n\n'
    "garbage between games ))\n\n"
    f'[Event "promotions"]\n[FEN "{PROMOTION_FEN}"]\n[SetUp "1"]\n[Result "1/2-1/2"]\n\n'
    "1. b8=Q g1=N 2. Qb7+ Kg6 3. Kxg1 1/2-1/2\n\n"
    '[Event "bad fen"]\n[FEN "not a fen"]\n[Result "*"]\n\n1. e4 *\n\n'
    '[Event "castles"]\n[Result "0-1"]\n[WhiteElo "1500"]\n\n'
    "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 5. d3 O-O 0-1\n\n"
)


def random_game(rng: random.Random, variant: str, fen: str | None, number: int) -> str:
    """A seeded random legal game of `variant` (from `fen` or its start), 20-40 plies, as PGN."""
    board = Board(fen, variant=variant) if fen else Board(variant=variant)
    while len(board.move_stack) < rng.randrange(20, 41) and not board.is_game_over():
        board.push(rng.choice(list(board.legal_moves)))
    headers = {"Event": f"{variant} {number}", "Result": rng.choice(["1-0", "0-1", "1/2-1/2", "*"])}
    if rng.random() < 0.7:
        headers["WhiteElo"] = str(rng.randrange(1200, 2600))
        headers["BlackElo"] = str(rng.randrange(1200, 2600))
    return pgn.write(pgn.Game.from_board(board, headers))


def database() -> str:
    """The hand-written games, then random ones of chess, Chess960 and variants, interleaved."""
    rng = random.Random(7)
    starts = [("chess", None), ("chess960", CHESS960_FEN), ("crazyhouse", None)]
    starts += [("atomic", None), ("shogi", None), ("xiangqi", None), ("chess960", None)]
    games = [random_game(rng, *starts[i % len(starts)], i) for i in range(70)]
    return HAND_WRITTEN + "\n".join(games)


def reference(text: str, variant: str = "chess") -> tuple[explorer.Tally, list[tuple]]:
    """The import as it was before stream_mainlines: trees read by stream_games, each main
    line's UCI texts walked on a Board; its tallies and (games, indexed, bad, skipped, errors)."""
    walker, counts = explorer._Walker(), {}
    games = indexed = bad = skipped = 0
    errors = []
    handle = io.StringIO(text)
    for game in pgn.stream_games(handle, variant, mainline_only=True, max_plies=explorer.MAX_PLY):
        games += 1
        error = game.errors[0] if game.errors else None
        name = known_variant(game.variant) if error is None else None
        if error is None and name is None:
            skipped += 1
            continue
        pairs: list[tuple[int, str]] = []
        if error is None and name is not None:
            try:
                pairs = walker.pairs(name, game.headers.get("FEN"), game.mainline_moves())
            except ValueError as problem:
                error = str(problem)
        if error is not None:
            bad += 1
            errors.append({"game": games, "error": error})
            continue
        assert name is not None
        rating = explorer.game_rating(game.headers)
        explorer.tally(counts, name, pairs, game.headers.get("Result", "*"), rating)
        indexed += 1
    return counts, [(games, indexed, bad, skipped, errors)]


def rows_of(store: Store) -> list[tuple]:
    """Every row of the explorer's index, sorted."""
    return sorted(store.query("SELECT * FROM explorer"))


def test_the_import_gives_the_rows_of_the_tree_readers_path(tmp_path):
    """Every (variant, key, move) row and figure, and every reported game, as before."""
    text = database()
    counts, figures = reference(text)
    store = Store(str(tmp_path / "games.sqlite3"))
    index = explorer.Explorer(store)
    progress = index.import_text(text)
    expected = sorted((v, k, m, *f) for (v, k, m), f in counts.items())
    assert rows_of(store) == expected
    got = [(progress.games, progress.indexed, progress.bad, progress.skipped, progress.errors)]
    assert got == figures
    assert progress.bad == 4 and progress.indexed == 73  # the reference read them all too
    assert any("Ke3" in e["error"] and "line 11" in e["error"] for e in progress.errors)
    variants = {row[0] for row in expected}
    assert variants == {"chess", "chess960", "crazyhouse", "atomic", "shogi", "xiangqi"}
    # a promotion's move text as the board writes it, and the Chess960 castling moves
    assert any(row[2] in ("b7b8q", "g2g1n") for row in expected)


def test_a_database_of_another_default_variant(tmp_path):
    """Games without a Variant tag read as the import's variant: the same rows as before."""
    rng = random.Random(3)
    text = "\n".join(random_game(rng, "crazyhouse", None, i) for i in range(10))
    text = "\n".join(
        chunk.replace('[Variant "Crazyhouse"]\n', "") for chunk in text.split("\n\n\n")
    )
    counts, figures = reference(text, "crazyhouse")
    store = Store(str(tmp_path / "games.sqlite3"))
    progress = explorer.Explorer(store).import_pgn(io.StringIO(text), "crazyhouse")
    assert rows_of(store) == sorted((v, k, m, *f) for (v, k, m), f in counts.items())
    assert progress.indexed == 10 == figures[0][1]
