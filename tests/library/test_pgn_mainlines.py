"""pgn.stream_mainlines: the main lines of a stream's games as core move codes, walked in
compiled code (core/movetext.py) where a game is spelt the common way: the same tags, moves
and errors as stream_games(mainline_only=True) gives, for every --max-ply, with the reader's
slow way taking the games the walk gives up on (other spellings, errors, variants, text
outside ASCII)."""

from __future__ import annotations

import io
import random

import pytest

from ferz import pgn
from ferz.board import Board
from tests.pure_core import run_pure

EDGE = """
[Event "comments nags variations"]
[Result "1-0"]

1. e4 {open} e5 $1 2. Nf3!? (2. f4 exf4 (2... d5) 3. Nf3) 2... Nc6 ; a line comment ( with paren
3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6 6. d4 exd4 7. Nxd4 c5 8. Nb3 Qxd1 9. Rxd1 Bg4 10. f3 Be6 1-0

[Event "star in tag, result in text"]
[Result "*"]

1. d4 d5 2. c4 dxc4 3. e3 b5 4. a4 c6 5. axb5 cxb5 6. Qf3 1/2-1/2

[Event "no result"]

1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. d4 Nf6

[Event "promotion"]
[FEN "8/P7/8/8/8/8/k6p/4K3 w - - 0 1"]
[SetUp "1"]
[Result "0-1"]

1. a8=Q+ Kb2 2. Qb7+ Kc3 3. Kf2 h1=Q 4. Qc7+ Kd3 0-1

[Event "lowercase promotion and e8Q"]
[FEN "8/P7/8/8/8/8/k6p/4K3 w - - 0 1"]
[Result "0-1"]

1. a8Q Kb1 2. Qb7+ Kc1 3. Qc6+ Kb1 4. Qb5+ Kc2 5. Qc4+ Kd2 6. Qd3+ Kxd3 7. Kd1 h1=q# 0-1

[Event "long algebraic"]
[Result "1-0"]

1. e2-e4 e7-e5 2. Ng1-f3 Nb8-c6 3. Bf1xc6?? dxc6 1-0

[Event "illegal"]
[Result "1-0"]

1. e4 e5 2. Ke3 Nc6 1-0

[Event "ambiguous"]
[FEN "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1"]
[Result "*"]

1. Nd2 Kd7 *

[Event "disambiguated"]
[FEN "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1"]
[Result "*"]

1. Nfd2 Kd7 2. Nc4 Ke7 3. Nbd2?! Kf7 *

[Event "unicode comment"]
[Result "1-0"]

1. e4 {Für den König – gut} e5 2. Nf3 1-0

[Event "text after result"]
[Result "*"]

1. e4 e5 * 1. d4

[Event "unclosed variation"]
[Result "*"]

1. e4 e5 (1... c5 2. Nf3 *

[Event "stray close"]
[Result "*"]

1. e4 ) e5 *

[Event "stray bracket"]
[Result "*"]

1. e4 ] e5 *

[Event "Chess960"]
[Variant "Chess960"]
[FEN "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1"]
[Result "1-0"]

1. O-O O-O-O 2. d4 d5 1-0

[Event "crazyhouse"]
[Variant "Crazyhouse"]
[Result "*"]

1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@d5 *

[Event "broken tag"]
[Result "*"
[White "x"]

1. e4 e5 *

[Event "unknown variant"]
[Variant "nosuch"]
[Result "*"]

1. e4 *

[Event "move number styles"]
[Result "0-1"]

1.e4 e5 2 . Nf3 2... Nc6 3.Bc4 Bc5 4. c3 Nf6 5. d4 exd4 6. cxd4 Bb4+ 7. Bd2 Bxd2+
8. Nbxd2 d5! 9. exd5 Nxd5 0-1

[Event "castle zero"]
[FEN "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"]
[Result "*"]

1. 0-0 0-0-0 *

[Event "castle with check marks"]
[FEN "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"]
[Result "*"]

1. O-O+ O-O-O *

[Event "gardner"]
[Variant "gardner"]
[Result "*"]

1. d3 b4 *

[Event "result glued"]
[Result "*"]

1. e4 e5 1-0}

[Event "variation with result inside"]
[Result "*"]

1. e4 (1. d4 d5 1-0) e5 2. Nf3 (2. f4 {comment ) with paren} exf4) Nc6 0-1

[Event "ep"]
[FEN "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1"]
[Result "*"]

1. e4 dxe3 2. Kd1 e2+ 3. Kxe2 *

[Event "empty"]
[Result "*"]

*

[Event "nag alone"]
[Result "*"]

1. e4 $ e5 $14 2. Nf3 !! ?? Nc6 *
"""


CHESS960 = (
    "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1",
    "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1",
)


def random_pgn(count: int, seed: int) -> str:
    """Random legal games written by ferz.pgn (SAN, checks, castling, promotions, e.p.), some
    with a comment, NAGs and a variation, in chess, Chess960, crazyhouse, capablanca (ten
    files) and grand (ten ranks)."""
    rng = random.Random(seed)
    texts = []
    for number in range(count):
        variant = ("chess", "chess", "chess960", "crazyhouse", "capablanca", "grand")[number % 6]
        if variant == "chess960":
            board = Board(rng.choice(CHESS960), variant="chess960")
        else:
            board = Board(variant=variant)
        for _ in range(rng.randrange(1, 160)):
            moves = board.legal_moves
            if not moves or board.outcome() is not None:
                break
            board.push(rng.choice(moves))
        game = pgn.Game.from_board(board, {"Result": rng.choice(pgn.RESULTS)})
        nodes = list(game.mainline())
        if nodes and rng.random() < 0.5:
            node = rng.choice(nodes)
            node.comment, node.nags = "a (comment) ; here", [rng.randrange(1, 20)]
        text = pgn.write(game)
        if rng.random() < 0.3:  # a variation (not read: any text) after a move
            head, _, moves = text.partition("\n\n")
            words = moves.split(" ")
            at = rng.randrange(1, max(2, len(words) - 1))
            words.insert(at, "( 5... Zz9 {a ) in it} $3 (1. e4) )")
            text = head + "\n\n" + " ".join(words)
        texts.append(text)
    return "\n\n".join(texts) + "\n"


def codes_as_uci(game: pgn.Game, codes: list[int]) -> list[str]:
    """The UCI texts of core codes played from a game's start."""
    board = game.board()
    out = []
    for code in codes:
        move = next(m for m in board.legal_moves if m.code == code)
        out.append(move.uci())
        board.push(move)
    return out


def compare(text: str, max_plies: int | None) -> int:
    """stream_mainlines against stream_games(mainline_only=True) on a text; the games read."""
    fast = list(pgn.stream_mainlines(io.StringIO(text), max_plies=max_plies))
    slow = list(pgn.stream_games(io.StringIO(text), mainline_only=True, max_plies=max_plies))
    assert len(fast) == len(slow)
    for mine, theirs in zip(fast, slow, strict=True):
        assert mine.headers == theirs.headers
        assert mine.errors == theirs.errors
        if not theirs.errors:
            assert mine.variant == theirs.variant
            assert codes_as_uci(theirs, list(mine.codes)) == theirs.mainline_moves()
    return len(fast)


@pytest.mark.parametrize("max_plies", [None, 1, 2, 3, 5, 12])
def test_edge_cases_read_as_the_tree_reader_reads_them(max_plies) -> None:
    # 29 games: the moves after a result, and the tags after a broken one, are games too
    assert compare(EDGE, max_plies) == 29


@pytest.mark.parametrize("max_plies", [None, 7])
def test_random_games_read_as_the_tree_reader_reads_them(max_plies) -> None:
    assert compare(random_pgn(36, 4), max_plies) == 36


def test_plain_games_are_walked_in_the_core_and_the_others_read_the_slow_way(
    monkeypatch,
) -> None:
    """The common spelling never goes to the tree reader; every edge case the walk gives up
    on does (and still reads right, above)."""
    slow: list[str] = []
    real = pgn._game

    def counted(stream, tags, *args):
        slow.append(tags.get("Event", ""))
        return real(stream, tags, *args)

    monkeypatch.setattr(pgn, "_game", counted)
    plain = "".join(
        pgn.write(pgn.Game.from_board(board)) + "\n\n"
        for board in (Board(), Board("4k3/P7/8/8/8/8/8/4K3 w - - 0 1"))
    )
    assert len(list(pgn.stream_mainlines(io.StringIO(plain)))) == 2 and not slow
    list(pgn.stream_mainlines(io.StringIO(EDGE)))
    assert set(slow) == {
        "lowercase promotion and e8Q",
        "long algebraic",
        "illegal",
        "ambiguous",
        "unicode comment",
        "text after result",
        "unclosed variation",
        "stray close",
        "stray bracket",
        "crazyhouse",
        "broken tag",
        "unknown variant",
        "castle zero",
        "gardner",
        "result glued",
        "",  # the '}' after that result: the next game
    }


SCRIPT = """
import io, json, sys
from ferz import pgn
from ferz.core import compiled, movetext
text, max_plies = json.loads(sys.stdin.read())
lines = pgn.stream_mainlines(io.StringIO(text), max_plies=max_plies)
out = [[line.headers, line.errors, list(line.codes)] for line in lines]
print(json.dumps({"compiled": compiled() or not movetext.__file__.endswith(".py"),
                  "results": out}))
"""


def test_the_uncompiled_walk_reads_the_same() -> None:
    text = EDGE + "\n" + random_pgn(20, 9)
    for max_plies in (None, 4):
        lines = pgn.stream_mainlines(io.StringIO(text), max_plies=max_plies)
        expected = [[line.headers, line.errors, list(line.codes)] for line in lines]
        assert run_pure(SCRIPT, [text, max_plies]) == expected
