"""`ferz play`: a game against the engine in the terminal (Unicode board; moves in SAN or UCI,
xiangqi in WXF and shogi in Western/Hodges notation too)."""

from __future__ import annotations

import argparse
import datetime
import random
import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

from .. import notation
from ..analyse import tablebase_note
from ..board import describe
from ..engine import TB_WIN_CP, Info
from ..textboard import render, white_to_move

HELP = """\
Enter a move in SAN (Nf3, exd5, O-O, e8=Q) or UCI (g1f3, e7e8q); xiangqi also in WXF
(C2=5, H8+7, R1+1) and shogi in Western notation (P-7f, Bx2b+, S*4e), in which their moves
are shown. Commands:
  undo      take back your last move (and the engine's reply)
  moves     list the legal moves          hint   let the engine suggest a move
  fen       print the position as FEN     pgn    print the game as PGN
  flip      turn the board around         go     let the engine play this side
  depth N   engine searches N plies       time MS  engine thinks MS per move
  new       start again                   resign / quit"""


def pgn(
    start: Any,
    moves: list[str],
    result: str = "*",
    white: str = "?",
    black: str = "?",
    variant: str = "chess",
    start_fen: str | None = None,
) -> str:
    """The game as PGN (through ferz.pgn): the seven tag roster, Variant/FEN/SetUp where
    needed, SAN movetext."""
    from ..pgn import Game, write

    game = Game(
        {
            "Event": "ferz play",
            "Site": "terminal",
            "Date": datetime.date.today().strftime("%Y.%m.%d"),
            "Round": "-",
            "White": white,
            "Black": black,
            "Result": result,
        }
    )
    game.set_start(variant, start_fen or start.fen())
    game.add_line(moves)
    return write(game)


def result_text(board: Any) -> tuple[str, str] | None:
    """(result, reason) when the game is over by the variant's rules (claimable draws end it
    at once), else None. The board is the engine's (ferz's Board or a python-chess one)."""
    done = board.outcome(claim_draw=True)
    return None if done is None else describe(done)


class TerminalGame:
    """The state of one terminal game and its commands."""

    def __init__(
        self,
        engine: Any,
        make_limits: Callable[..., Any],
        human_white: bool,
        out: TextIO,
        fen: str | None = None,
        movetime: int = 1000,
        depth: int | None = None,
        variant: str = "chess",
        ascii: bool = False,
    ) -> None:
        self.engine = engine
        self.make_limits = make_limits
        self.human_white = human_white
        self.out = out
        self.fen = fen
        self.movetime = movetime
        self.depth = depth
        self.variant = variant
        self.ascii = ascii
        self.flip = not human_white
        self.moves: list[str] = []
        self.result: str | None = None
        engine.set_position(fen=fen, moves=[])
        self.start = engine.board.copy()

    @property
    def board(self) -> Any:
        """The current position."""
        return self.engine.board

    def say(self, text: str = "") -> None:
        """Print a line."""
        self.out.write(text + "\n")
        self.out.flush()

    def show(self) -> None:
        """Print the board and whose move it is."""
        last = self.moves[-1] if self.moves else None
        self.say(render(self.board, last, self.flip, self.ascii))
        side = "White" if white_to_move(self.board) else "Black"
        if last:
            before = self.start.copy()
            for text in self.moves[:-1]:
                before.push(before.parse_uci(text))
            said = notation.move_text(before, before.parse_uci(last))
            self.say(f"Last move: {said}   {side} to move")
        else:
            self.say(f"{side} to move")

    def human_to_move(self) -> bool:
        """Whether it is the human's turn."""
        return white_to_move(self.board) == self.human_white

    def play(self, text: str) -> bool:
        """Play the human's move in any spelling a PGN reader takes (SAN, UCI, long algebraic
        `e2-e4` / `Ng1-f3`, `0-0`, WXF or Hodges for xiangqi and shogi); returns False with a
        message if it is illegal."""
        from ..pgn import parse_move

        board = self.board
        move = None
        for parse in (board.parse_uci, lambda t: parse_move(board, t, native=True)):
            try:
                move = parse(text)
                break
            except ValueError:
                continue
        if move is None:
            self.say(f"Illegal move: {text} (type 'moves' for the legal ones)")
            return False
        self._push(board.uci(move))
        return True

    def _push(self, uci: str) -> None:
        """Append a move to the game and update the engine's position."""
        self.engine.set_position(fen=self.fen, moves=[*self.moves, uci])
        self.moves.append(uci)

    def think(self) -> tuple[str | None, Info | None]:
        """Let the engine search the current position; returns (best move, last info)."""
        done = threading.Event()
        found: list[str | None] = [None]
        last: list[Info | None] = [None]

        def on_info(info: Info) -> None:
            if info.pv and (info.multipv or 1) == 1:
                last[0] = info

        def on_bestmove(best: str | None, ponder: str | None) -> None:
            found[0] = best
            done.set()

        fields = {"depth": self.depth} if self.depth else {"movetime": self.movetime}
        self.engine.go(self.make_limits(**fields), on_info=on_info, on_bestmove=on_bestmove)
        done.wait()
        self.engine.wait()
        return found[0], last[0]

    def engine_move(self) -> None:
        """The engine plays its move and says what it thinks."""
        self.say("ferz is thinking...")
        best, info = self.think()
        if not best:
            # Only in a finished game; stop asking the engine rather than loop.
            self.result = self.result or "*"
            self.say("ferz has no move to play.")
            return
        said = notation.move_text(self.board, self.board.parse_uci(best))
        self._push(best)
        self.say(f"ferz plays {said}{_describe(info)}")

    def undo(self) -> None:
        """Take back to the human's previous turn."""
        if not self.moves:
            self.say("Nothing to take back.")
            return
        count = 1 if self.human_to_move() is False else 2
        count = min(count, len(self.moves))
        del self.moves[len(self.moves) - count :]
        self.engine.set_position(fen=self.fen, moves=self.moves)
        self.result = None
        if not self.human_to_move() and self.moves:
            # Only the engine's first move could not be paired with one of ours: take it too.
            self.moves.pop()
            self.engine.set_position(fen=self.fen, moves=self.moves)

    def finished(self) -> bool:
        """Announce the end of the game if it is over by rule."""
        if self.result is not None:
            return True
        over = result_text(self.board)
        if over is None:
            return False
        self.result = over[0]
        self.say(f"Game over: {over[0]} ({over[1]})")
        return True

    def pgn(self) -> str:
        """The game so far as PGN."""
        human, computer = "You", "ferz"
        white, black = (human, computer) if self.human_white else (computer, human)
        return pgn(self.start, self.moves, self.result or "*", white, black, self.variant, self.fen)


def _describe(info: Info | None) -> str:
    """A short note on the engine's evaluation, from its point of view."""
    if info is None:
        return ""
    score = info.score
    if score is None:
        return ""
    if score.mate is not None:
        text = f"mate in {score.mate}" if score.mate > 0 else f"mated in {-score.mate}"
    elif abs(score.cp or 0) > TB_WIN_CP - 1000:
        text = "tablebase win" if (score.cp or 0) > 0 else "tablebase loss"
    else:
        text = str(score)
    return f"  (eval {text}, depth {info.depth})"


def run(game: TerminalGame, stdin: TextIO, pgn_path: str | None = None) -> int:
    """The command loop: read moves and commands until the game ends or input does."""
    game.say("ferz play: type 'help' for the commands.")
    game.show()
    while True:
        if not game.finished() and not game.human_to_move():
            game.engine_move()
            game.show()
            continue
        game.out.write("> " if game.result else "Your move: ")
        game.out.flush()
        line = stdin.readline()
        if not line:
            game.say()
            break
        words = line.split()
        if not words:
            continue
        command = words[0].lower()
        if command in ("quit", "exit", "q"):
            break
        if command in ("help", "?"):
            game.say(HELP)
        elif command == "fen":
            game.say(game.board.fen())
        elif command == "pgn":
            game.say(game.pgn())
        elif command == "flip":
            game.flip = not game.flip
            game.show()
        elif command == "moves":
            board = game.board
            said = sorted(notation.move_text(board, m) for m in board.legal_moves)
            game.say(" ".join(said) or "(none)")
        elif command in ("undo", "takeback", "back"):
            game.undo()
            game.show()
        elif command == "hint":
            best, info = game.think()
            if best:
                said = notation.move_text(game.board, game.board.parse_uci(best))
                note = tablebase_note(getattr(game.engine, "tablebase", None), game.board)
                game.say(f"Hint: {said}{_describe(info)}" + (f"  ({note})" if note else ""))
        elif command == "go":
            game.human_white = not game.human_white
        elif command == "new":
            game.engine.new_game()
            game.moves, game.result = [], None
            game.engine.set_position(fen=game.fen, moves=[])
            game.show()
        elif command == "resign":
            game.result = "0-1" if game.human_white else "1-0"
            game.say(f"You resign: {game.result}")
        elif command in ("depth", "time") and len(words) == 2 and words[1].isdigit():
            value = max(1, int(words[1]))
            if command == "depth":
                game.depth = value
            else:
                game.movetime, game.depth = value, None
            game.say(f"Engine {command} set to {value}.")
        elif game.result:
            game.say("The game is over: 'new', 'undo', 'pgn' or 'quit'.")
        elif game.play(words[0]):
            game.show()
    if pgn_path:
        with open(pgn_path, "a", encoding="utf-8") as handle:
            handle.write(game.pgn() + "\n")
        game.say(f"Game saved to {pgn_path}")
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `ferz play`."""
    parser.add_argument("--variant", default="chess", help="variant to play (default: chess)")
    parser.add_argument("--color", choices=["white", "black", "random"], default="white")
    parser.add_argument("--fen", help="start from this position")
    parser.add_argument("--movetime", type=int, default=1000, help="engine ms per move")
    parser.add_argument("--depth", type=int, help="engine search depth instead of time")
    parser.add_argument(
        "--elo", type=int, help="limit the engine's strength to this Elo (1340-2500)"
    )
    parser.add_argument("--ascii", action="store_true", help="letters instead of chess glyphs")
    parser.add_argument("--pgn", metavar="FILE", help="append the finished game to this PGN file")
    parser.add_argument(
        "--book",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the engine opens from ferz's opening book (standard chess; default: on)",
    )
    parser.add_argument(
        "--syzygy",
        metavar="FOLDERS",
        help="Syzygy tables for the engine (SyzygyPath; folders separated by ':'); the hint "
        "says what they know of the position",
    )


def _can_show(out: TextIO, text: str) -> bool:
    """Whether the output's encoding has these characters (legacy consoles lack the glyphs)."""
    encoding = getattr(out, "encoding", None)
    if not encoding:
        return True  # an in-memory stream takes anything
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def main(
    args: argparse.Namespace,
    engine: Any = None,
    make_limits: Callable[..., Any] | None = None,
    stdin: TextIO | None = None,
    out: TextIO | None = None,
) -> int:
    """Run `ferz play` with the parsed command-line arguments."""
    if engine is None:
        from ..engine import Engine, Limits

        engine, make_limits = Engine(variant=args.variant), Limits
    assert make_limits is not None
    if getattr(args, "elo", None):
        engine.set_option("UCI_LimitStrength", True)
        engine.set_option("UCI_Elo", args.elo)
    if getattr(args, "syzygy", None):
        engine.set_option("SyzygyPath", args.syzygy)  # a missing folder: the one-line error
    if getattr(args, "book", False) and "OwnBook" in engine.options:
        engine.set_option("OwnBook", True)  # ferz's own book: games vary from the first move
    color = args.color if args.color != "random" else random.choice(["white", "black"])
    out = out or sys.stdout
    ascii = getattr(args, "ascii", False) or not _can_show(out, "♔♟·")
    game = TerminalGame(
        engine,
        make_limits,
        human_white=color == "white",
        out=out,
        fen=args.fen,
        movetime=args.movetime,
        depth=args.depth,
        variant=args.variant,
        ascii=ascii,
    )
    return run(game, stdin or sys.stdin, getattr(args, "pgn", None))
