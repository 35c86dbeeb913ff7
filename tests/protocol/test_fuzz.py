"""Thousands of random and malformed lines: the engine must survive and still play legally.

The vocabulary leaves out only what legitimately runs for a long time without being
interruptible (`bench`, `perft`, `quit`); searches it starts are ended by the final `stop`.
"""

from __future__ import annotations

import random
import time

import chess
import pytest

from tests.protocol.proc import EngineProcess

UCI_WORDS = [
    "uci",
    "isready",
    "setoption",
    "name",
    "value",
    "ucinewgame",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "stop",
    "ponderhit",
    "debug",
    "on",
    "off",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "ponder",
    "searchmoves",
    "Hash",
    "MultiPV",
    "Move",
    "Overhead",
    "Clear",
    "UCI_Elo",
    "UCI_LimitStrength",
    "UCI_ShowWDL",
    "Skill",
    "Level",
    "d",
    "eval",
    "help",
    "register",
]
XBOARD_WORDS = [
    "new",
    "force",
    "go",
    "playother",
    "usermove",
    "?",
    "ping",
    "level",
    "st",
    "sd",
    "nps",
    "time",
    "otim",
    "setboard",
    "undo",
    "remove",
    "result",
    "post",
    "nopost",
    "hard",
    "easy",
    "analyze",
    "exit",
    ".",
    "memory",
    "cores",
    "option",
    "draw",
    "hint",
    "bk",
    "variant",
    "normal",
    "exclude",
    "include",
    "all",
    "computer",
]
FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "x/y/z w - - 0 1",
    "8/8/8/8 w",
]
MOVES = ["e2e4", "e7e5", "g1f3", "e1g1", "a7a8q", "0000", "e2e5", "zz", "h7h8=Q", "O-O", "@@"]
NUMBERS = ["-1", "0", "1", "3", "7", "16", "100", "1e3", "1.5", "99999999999999999999", "nan"]


def random_line(rng: random.Random, words: list[str]) -> bytes:
    """One fuzz line: command-shaped token soup, raw bytes, or an oversized line."""
    roll = rng.random()
    if roll < 0.02:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    if roll < 0.025:
        return b"go depth 1 " * rng.randrange(2000, 5000)  # beyond the reader's line limit
    pool = words + MOVES + NUMBERS + [rng.choice(FENS)]
    tokens = [rng.choice(words)] + [rng.choice(pool) for _ in range(rng.randrange(0, 8))]
    if tokens[0] in ("go", "st", "sd") and rng.random() < 0.7:
        tokens = [tokens[0], rng.choice(["depth", "movetime", "nodes"]), rng.choice(["1", "5"])]
    if tokens[0] in ("memory", "cores"):  # valid huge values would really allocate or spawn
        tokens = tokens[:1] + [rng.choice(["-1", "0", "1", "2", "16", "x", "1.5"])]
    text = " ".join(tokens)
    if rng.random() < 0.1:
        text = text.replace(" ", rng.choice(["\t", "   ", " \r"]))
    return text.encode()


def fuzz(engine: EngineProcess, words: list[str], count: int, seed: int) -> None:
    """Throw `count` lines at the engine in batches."""
    rng = random.Random(seed)
    lines = [random_line(rng, words) for _ in range(count)]
    lines = [x for x in lines if not x.split()[:1] or x.split()[0] not in (b"quit", b"bench")]
    for start in range(0, len(lines), 100):
        engine.send_bytes(b"\n".join(lines[start : start + 100]) + b"\n")
        assert engine.proc.poll() is None, engine.stderr()[-2000:]


@pytest.mark.parametrize("seed", [1, 2])
def test_uci_survives_fuzz(seed: int) -> None:
    engine = EngineProcess("uci")
    start = time.monotonic()
    fuzz(engine, UCI_WORDS, 1500, seed)
    engine.send("stop", "isready")
    engine.expect("readyok", timeout=10)
    # Searches the fuzz started may still be queued behind each other: keep stopping them
    # until the search of a position with a single legal move (Kxg2) reports.
    engine.send("position fen 7k/8/8/8/8/8/6q1/7K w - - 0 1", "go movetime 200")
    deadline = time.monotonic() + 60
    # (the bestmove may carry a ponder move, depending on how deep the search got)
    while not any(line.startswith("bestmove h1g2") for line in engine.output):
        assert time.monotonic() < deadline, engine.output[-10:]
        engine.send("stop")
        engine.quiet(0.2)
    assert engine.close() == 0
    assert time.monotonic() - start < 90


def test_xboard_survives_fuzz() -> None:
    engine = EngineProcess("xboard")
    engine.send("xboard", "protover 2")
    engine.expect("feature done=1")
    fuzz(engine, XBOARD_WORDS, 1500, 3)
    engine.send("exit", "force", "ping 77")
    engine.expect("pong 77", timeout=60)
    engine.send(
        "new",
        "variant normal",
        "force",
        "setboard 4k3/8/8/8/8/8/8/4K2R w K - 0 1",
        "st 0.2",
        "sd 64",
        "go",
    )
    best = engine.expect("move ", timeout=60)[-1].split()[1]
    board = chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    assert chess.Move.from_uci(best) in board.legal_moves
    assert engine.close() == 0
