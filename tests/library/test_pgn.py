"""ferz.pgn: the reader against python-chess (same tree from the same text), every spelling,
variants, errors with their place, and the writer's round trip."""

from __future__ import annotations

import io
import random

import chess
import chess.pgn
import pytest

from ferz import pgn
from ferz.board import Board

SPELLINGS = ("san", "lan", "uci", "figurine-free-lan")


def spell(board: chess.Board, move: chess.Move, how: str) -> str:
    """A move in one of the spellings python-chess reads."""
    if how == "san":
        text = board.san(move)
        return text.replace("O", "0") if text.startswith("O-O") and move.to_square % 2 else text
    if how == "lan":
        return board.lan(move)  # Ng1-f3, e7xd8=Q, O-O
    if how == "uci":
        return move.uci()  # e2e4, e1g1 (castling), e7e8q
    # long algebraic without the dash and with a lower-case promotion: Ng1f3, e7d8q
    if board.is_castling(move):
        return board.san(move)
    text = board.lan(move).replace("-", "").replace("x", "")
    return (
        text.lower()
        if move.promotion and not board.piece_at(move.from_square).piece_type > 1
        else text
    )


def random_tree(rng: random.Random) -> chess.pgn.Game:
    """A random game with variations, comments and NAGs (python-chess's tree)."""
    game = chess.pgn.Game()
    game.headers["Event"] = f"random {rng.randrange(10**6)}"
    game.headers["White"] = 'Quote "q" and \\ back'
    if rng.random() < 0.3:
        game.comment = "a game comment"
    node = game
    board = game.board()
    for _ in range(rng.randint(1, 60)):
        moves = list(board.legal_moves)
        if not moves or board.is_game_over():
            break
        move = rng.choice(moves)
        child = node.add_variation(move)
        if rng.random() < 0.15:
            child.comment = f"note {rng.randrange(1000)}"
        if rng.random() < 0.1:
            child.nags.add(rng.choice([1, 2, 3, 4, 5, 6, 10, 14, 18]))
        if rng.random() < 0.15 and len(moves) > 1:
            alternative = rng.choice([m for m in moves if m != move])
            side = node.add_variation(alternative)
            if rng.random() < 0.4:
                side.starting_comment = "instead"
            if rng.random() < 0.4:
                side.comment = "side note"
            side_board = board.copy()
            side_board.push(alternative)
            for _ in range(rng.randint(0, 4)):
                replies = list(side_board.legal_moves)
                if not replies:
                    break
                reply = rng.choice(replies)
                side = side.add_variation(reply)
                side_board.push(reply)
        board.push(move)
        node = child
    game.headers["Result"] = board.result(claim_draw=True) if board.is_game_over() else "*"
    return game


def write_spelled(game: chess.pgn.Game, rng: random.Random) -> str:
    """python-chess's export of the game, with each move in a random spelling."""

    class Spelled(chess.pgn.StringExporter):
        """A StringExporter that spells moves at random."""

        def visit_move(self, board: chess.Board, move: chess.Move) -> None:
            """Write the move number (as python-chess does) and the move in some spelling."""
            if self.variations or not self.variation_depth:
                if board.turn == chess.WHITE:
                    self.write_token(f"{board.fullmove_number}. ")
                elif self.force_movenumber:
                    self.write_token(f"{board.fullmove_number}... ")
                self.write_token(spell(board, move, rng.choice(SPELLINGS)) + " ")
                self.force_movenumber = False

    return game.accept(Spelled(headers=True, variations=True, comments=True))


def same_tree(ours: pgn.Node, theirs: chess.pgn.GameNode, path: str = "") -> None:
    """Assert that two trees hold the same moves, comments, NAGs and variations."""
    assert ours.comment == theirs.comment, path
    assert sorted(ours.nags) == sorted(theirs.nags), path
    if theirs.parent is not None and theirs.starts_variation():
        assert ours.starting_comment == theirs.starting_comment, path
    assert [n.move for n in ours.variations] == [v.move.uci() for v in theirs.variations], path
    for mine, other in zip(ours.variations, theirs.variations, strict=True):
        same_tree(mine, other, path + " " + (mine.move or ""))


def _board_uci(board: Board, san: str) -> str:
    """The UCI of a move read by ferz's PGN move parser."""
    return pgn.parse_move(board, san).uci()


def check_games(seed: int, count: int) -> None:
    """Random games written in every spelling read into python-chess's tree."""
    rng = random.Random(seed)
    for _ in range(count):
        game = random_tree(rng)
        text = write_spelled(game, rng)
        theirs = chess.pgn.read_game(io.StringIO(text))
        assert theirs is not None and not theirs.errors, text
        ours = pgn.read_game(text)
        assert ours is not None, text
        assert ours.headers == dict(theirs.headers), text
        same_tree(ours.root, theirs)
        # and the writer: what we write, python-chess and we read back the same
        again = pgn.write(ours)
        assert str(chess.pgn.read_game(io.StringIO(again))) == str(theirs), again
        assert pgn.write(pgn.read_game(again)) == again


def test_reader_builds_python_chess_tree_for_random_games() -> None:
    """80 random games with variations, comments and NAGs in mixed spellings (1,000 with
    -m slow)."""
    check_games(seed=1, count=80)


@pytest.mark.slow
def test_reader_builds_python_chess_tree_for_a_thousand_games() -> None:
    """The issue's 1,000 games."""
    check_games(seed=2, count=1000)


def test_every_spelling_python_chess_reads() -> None:
    board = Board()
    for text, uci in [
        ("e4", "e2e4"),
        ("e2-e4", "e2e4"),
        ("e2e4", "e2e4"),
        ("Ng1-f3", "g1f3"),
        ("Ng1f3", "g1f3"),
        ("Nf3!?", "g1f3"),
        ("Nf3+", "g1f3"),
    ]:
        assert _board_uci(board, text.rstrip("!?")) == uci, text
    castle = Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
    for text in ("O-O", "0-0", "e1g1", "Ke1-g1", "O-O+"):
        assert _board_uci(castle, text) == "e1g1", text
    for text in ("O-O-O", "0-0-0", "e1c1"):
        assert _board_uci(castle, text) == "e1c1", text
    promote = Board("3r3k/4P3/8/8/8/8/8/K7 w - - 0 1")
    for text in ("exd8=Q", "exd8Q", "exd8q", "e7xd8=Q", "e7d8q", "ed8=N"):
        assert _board_uci(promote, text)[-1] == text.rstrip("+#")[-1].lower(), text


def test_many_games_tags_comments_nags_and_suffixes() -> None:
    text = (
        '[Event "one"]\n[White "A "the" player"]\n\n'
        "{before} 1. e4 e5! 2. Nf3 $14 (2. f4 {gambit} exf4 (2... d5 $1) 3. Nf3) 2... Nc6?? "
        "; rest of line\n3. Bb5 a6 *\n\n"
        '[Event "two"]\n\n1.d4 d5 2.c4 1/2-1/2\n\n% an escaped line\n'
        "1. Nf3 Nf6 0-1\n"
    )
    games = list(pgn.read_games(text))
    assert [g.headers["Event"] for g in games] == ["one", "two", "?"]
    first = games[0]
    assert first.headers["White"] == 'A "the" player'
    assert first.comment == "before"
    assert first.mainline_moves() == ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]
    e5 = first.root.next().next()
    assert e5.nags == [pgn.NAG_GOOD]
    knight = e5.next()
    assert knight.nags == [14]
    gambit = e5.variations[1]
    assert gambit.san == "f4" and gambit.comment == "gambit"
    assert [n.san for n in gambit.variations] == ["exf4", "d5"]
    assert gambit.variations[1].nags == [1]
    assert knight.next().nags == [pgn.NAG_BLUNDER]
    assert games[1].headers["Result"] == "1/2-1/2" and games[2].headers["Result"] == "0-1"
    assert pgn.write(pgn.read_game(pgn.write(first))) == pgn.write(first)


def test_variants_through_the_variant_tag_and_fen_with_pockets() -> None:
    house = Board(
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Pp] w KQkq - 2 3", variant="crazyhouse"
    )
    for text in ("P@d5", "Nd4", "Nxe5"):
        house.push_san(text)
    game = pgn.Game.from_board(house, {"Event": "zh"})
    text = pgn.write(game)
    assert '[Variant "crazyhouse"]' in text and "[Pp]" in text and "P@d5" in text
    back = pgn.read_game(text)
    assert back.variant == "crazyhouse"
    assert back.mainline_moves() == [m.uci() for m in house.move_stack]
    xiangqi = Board(variant="xiangqi")
    xiangqi.push_uci("h3e3")
    xiangqi.push_uci("h10g8")
    game = pgn.Game.from_board(xiangqi)
    back = pgn.read_game(pgn.write(game))
    assert back.variant == "xiangqi" and back.mainline_moves() == ["h3e3", "h10g8"]
    assert pgn.read_game('[Variant "Three-check"]\n\n1. e4 *').variant == "3check"
    fen = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1"
    chess960 = f'[Variant "Chess960"]\n[FEN "{fen}"]\n\n1. g3 *'
    assert pgn.read_game(chess960).variant == "chess960"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1. e4 e5 2. Ke3 *", "line 5: illegal move 'Ke3' (move 2)"),
        ("1. e4 (1. d4 d5 *", "not closed"),
        ("1. e4 ) *", "')' without '('"),
        ('[Variant "nosuchgame"]\n\n1. e4 *', "unknown variant 'nosuchgame'"),
        ('[FEN "8/8/8 w - - 0 1"]\n\n*', "invalid FEN"),
        ("( e4 ) *", "a variation where no move was played"),
    ],
)
def test_bad_pgn_names_the_game_and_the_place(text: str, message: str) -> None:
    with pytest.raises(pgn.PgnError) as error:
        list(pgn.read_games('[Event "ok"]\n\n1. e4 *\n\n' + text))
    assert (
        "game 2" in str(error.value) or "variant" in str(error.value) or "FEN" in str(error.value)
    )
    assert message in str(error.value)


def test_unreadable_file_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(pgn.PgnError, match="cannot read"):
        pgn.read_file(str(tmp_path / "missing.pgn"))


def test_writer_lines_fit_eighty_columns_and_numbers_stay_with_moves() -> None:
    game = pgn.read_game(write_spelled(random_tree(random.Random(5)), random.Random(6)))
    text = pgn.write(game)
    movetext = text.split("\n\n")[1]
    assert all(len(line) <= 80 or line.startswith("{") for line in movetext.splitlines())
    assert not any(line.rstrip().endswith(".") for line in movetext.splitlines())


@pytest.mark.parametrize(
    ("moves", "fen", "variant", "result"),
    [
        (["f3", "e5", "g4", "Qh4#"], None, "chess", "0-1"),  # mate
        (["Qg6"], "7k/8/5K2/8/8/8/8/6Q1 w - - 0 1", "chess", "1/2-1/2"),  # stalemate
        (["Kd2"], "8/8/8/8/8/8/8/K1k2q2 b - - 0 1", "chess", "*"),  # not over
        (["Kd4"], "8/8/8/8/8/4K3/8/k7 w - - 0 1", "kingofthehill", "1-0"),  # a variant's rule
    ],
)
def test_from_board_writes_the_result_of_a_finished_game(moves, fen, variant, result) -> None:
    """Game.from_board puts a finished game's result in the Result tag, as python-chess's
    does (it wrote `*` for a mated board); an unfinished game keeps `*`, or the Result the
    caller gave (a resignation)."""
    board = Board(fen, variant=variant) if fen else Board(variant=variant)
    for text in moves:
        board.push_san(text)
    game = pgn.Game.from_board(board)
    assert game.headers["Result"] == result
    if variant == "chess":
        reference = chess.Board(fen) if fen else chess.Board()
        for text in moves:
            reference.push_san(text)
        assert result == chess.pgn.Game.from_board(reference).headers["Result"]
    assert f'[Result "{result}"]' in pgn.write(game)
    assert pgn.Game.from_board(Board(), {"Result": "1-0"}).headers["Result"] == "1-0"
