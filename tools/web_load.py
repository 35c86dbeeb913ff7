#!/usr/bin/env python3
"""Load test of `ferz web`: engine games, games between people and open analysis boards at
once, on loopback.

Starts `python -m ferz web` on a free 127.0.0.1 port with a fresh database (or uses --url,
a running loopback server), then plays GAMES games against the engine (a fixed think time per move,
mixed variants; the "player" answers with a random legal move after a short pause), PEOPLE
games between two scripted players (each with its own player cookie: one creates a friend's
game, the other opens its link and is seated; they answer each other with random legal moves
after a pause) while BOARDS analysis boards think about positions that change every few
seconds. Bounded in count (--games, --people, --boards, --moves, --people-moves) and time
(--timeout). Reports every engine reply's wait, how long a person's move takes to reach the
other player (median, p99), errors, lost moves, engine workers that failed, the machine's
load average, and the resident memory of the server and of its engine worker processes
before, during (peak) and after the load, and again once idle workers have quit.

    python tools/web_load.py                  # 20 games at 100 ms + 10 boards
    python tools/web_load.py --people 200 --boards 0   # + 200 games between people (issue #23)
    python tools/web_load.py --games 5 --boards 2 --moves 5 --after 0   # a quick look

Exit status 0 when every reply came within --max-reply, nothing failed or went missing and
the peak RSS of the server and its workers together stayed below --ceiling-mb; 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import json
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

VARIANTS = ["chess", "chess", "chess", "crazyhouse", "capablanca", "xiangqi", "shogi"]
ANALYSIS_VARIANTS = ["chess", "chess", "xiangqi", "capablanca", "crazyhouse"]
DEFAULT_CEILING_MB = 600  # docs/web.md: server + workers, with the default 2 slots
MAX_GAMES, MAX_BOARDS, MAX_MOVES, MAX_TIMEOUT = 100, 50, 60, 900  # bounds of one load
MAX_PEOPLE = 500  # games between people in one load
PEOPLE_VARIANTS = ["chess", "chess", "chess", "crazyhouse", "xiangqi", "shogi", "capablanca"]


@dataclass
class Report:
    """What the load saw."""

    replies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    games_done: int = 0
    moves_sent: int = 0
    infos: int = 0
    rss: list[tuple[float, float, float, int]] = field(default_factory=list)
    # (time, server MB, workers' MB, workers)
    stats_ms: list[float] = field(default_factory=list)  # GET /api/stats answer times
    relay_ms: list[float] = field(default_factory=list)  # a person's move to the other side
    people_done: int = 0
    people_moves: int = 0


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    """Resident memory of process `pid` in MB (Linux /proc)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def stat_fields(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (state first)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return stat.read().rpartition(")")[2].split()


def cpu_s(pid: int, children: bool = False) -> float:
    """CPU time (user + system, every thread) of process `pid` in seconds, or of its ended
    and reaped children (Linux /proc)."""
    fields = stat_fields(pid)
    first = 13 if children else 11
    return (int(fields[first]) + int(fields[first + 1])) / os.sysconf("SC_CLK_TCK")


def workers_of(pid: int) -> list[int]:
    """The running child processes of `pid` (the server's engine workers)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = stat_fields(int(entry))
            except OSError:
                continue  # ended meanwhile
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


def workers_rss_mb(pid: int) -> tuple[float, int]:
    """The summed RSS (MB) of the server's workers, and how many there are."""
    total, count = 0.0, 0
    for child in workers_of(pid):
        with contextlib.suppress(OSError):
            total += rss_mb(child)
            count += 1
    return total, count


def workers_cpu_s(pid: int) -> float:
    """CPU seconds of the server's workers: the running ones and those that have quit."""
    total = cpu_s(pid, children=True)
    for child in workers_of(pid):
        with contextlib.suppress(OSError):
            total += cpu_s(child)
    return total


def loopback_port(url: str) -> int:
    """The port of a loopback http URL; anything else is refused (the load stays local)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    try:
        loop = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loop = False
    if parts.scheme != "http" or not loop or parts.port is None:
        raise SystemExit(f"web_load: {url} is not a loopback http URL with a port")
    return parts.port


def cookie(token: str) -> str:
    """The Cookie header of a scripted player (its own random player token)."""
    return f"ferz_player={token}"


def new_player() -> str:
    """A fresh player token, as the server would set it on a first visit."""
    return secrets.token_urlsafe(24)


def http(port: int, path: str, body: dict[str, Any] | None = None, token: str = "") -> Any:
    """A JSON request to the server (as the player `token`, if given)."""
    headers = {"content-type": "application/json"}
    if token:
        headers["cookie"] = cookie(token)
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers=headers,
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


async def play_game(
    port: int, n: int, args: argparse.Namespace, report: Report, stop_at: float
) -> None:
    """One game: the engine thinks args.movetime ms a move; we answer with random moves."""
    from websockets.asyncio.client import connect

    rng = random.Random(args.seed * 1000 + n)
    variant = VARIANTS[n % len(VARIANTS)]
    token = new_player()
    game = await asyncio.to_thread(
        http, port, "/api/games", {"variant": variant, "movetime_ms": args.movetime}, token
    )
    ours: list[str] = []
    url = f"ws://127.0.0.1:{port}/ws/games/{game['id']}"
    async with connect(url, additional_headers={"cookie": cookie(token)}) as ws:
        state = json.loads(await ws.recv())["game"]
        while len(ours) < args.moves and not state["result"] and time.monotonic() < stop_at:
            if not state["legal"]:
                break
            await asyncio.sleep(rng.uniform(0.05, args.pause))
            uci = rng.choice(state["legal"])
            plies = len(state["moves"])
            await ws.send(json.dumps({"type": "move", "uci": uci, "ply": plies}))
            ours.append(uci)
            report.moves_sent += 1
            sent = time.monotonic()
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 60))
                if message["type"] == "error":
                    report.errors.append(f"game {n} ({variant}): {message['message']}")
                    return
                if message["type"] != "state":
                    continue
                state = message["game"]
                if state["result"] or (len(state["moves"]) >= plies + 2 and not state["thinking"]):
                    break
            if len(state["moves"]) >= plies + 2:
                report.replies_ms.append((time.monotonic() - sent) * 1000)
    final = await asyncio.to_thread(http, port, f"/api/games/{game['id']}")
    played = [m["uci"] for m in final["moves"]]
    mine = played[0::2] if final["human"] == "white" else played[1::2]
    if mine[: len(ours)] != ours:
        report.lost.append(f"game {n} ({variant}): sent {ours}, stored {mine}")
    report.games_done += 1


async def people_game(
    port: int, n: int, args: argparse.Namespace, report: Report, stop_at: float
) -> None:
    """One game between two scripted people: White creates a friend's game, Black opens it
    and is seated; each answers the other's move with a random legal move after a pause.
    Every move's trip to the other player is timed; the stored moves must be those sent."""
    from websockets.asyncio.client import connect

    rng = random.Random(args.seed * 5000 + n)
    variant = PEOPLE_VARIANTS[n % len(PEOPLE_VARIANTS)]
    await asyncio.sleep(rng.uniform(0, args.ramp))  # the players arrive over --ramp seconds
    tokens = {"white": new_player(), "black": new_player()}
    body = {
        "opponent": "friend",
        "color": "white",
        "variant": variant,
        "clock": {"initial_ms": 3_600_000, "increment_ms": 0},
    }
    game = await asyncio.to_thread(http, port, "/api/games", body, tokens["white"])
    url = f"ws://127.0.0.1:{port}/ws/games/{game['id']}"
    sent_at: dict[int, float] = {}  # ply -> when its move left the mover
    sent: list[str] = []

    async def player(color: str) -> None:
        """One side: move when it is our turn, time the opponent's moves reaching us."""
        async with connect(url, additional_headers={"cookie": cookie(tokens[color])}) as ws:
            while time.monotonic() < stop_at:
                message = json.loads(await asyncio.wait_for(ws.recv(), 60))
                if message["type"] == "error":
                    report.errors.append(f"people {n} ({variant}): {message['message']}")
                    return
                if message["type"] != "state":
                    continue
                state = message["game"]
                plies = len(state["moves"])
                if plies and state["turn"] == color and plies - 1 in sent_at:
                    report.relay_ms.append((time.monotonic() - sent_at.pop(plies - 1)) * 1000)
                if state["result"] or plies >= args.people_moves:
                    return
                if state["turn"] != color or color not in state["you"] or plies in sent_at:
                    continue
                if any(seat["open"] for seat in state["seats"].values()):
                    continue  # the game begins when the friend has opened the link
                if plies != len(sent):
                    continue  # an older state: the move for this ply is on its way
                await asyncio.sleep(rng.uniform(args.people_pause / 4, args.people_pause))
                uci = rng.choice(state["legal"])
                sent.append(uci)
                sent_at[plies] = time.monotonic()
                await ws.send(json.dumps({"type": "move", "uci": uci, "ply": plies}))
                report.people_moves += 1

    white = asyncio.create_task(player("white"))
    await asyncio.sleep(rng.uniform(0.05, 0.3))  # the friend opens the link a moment later
    await asyncio.gather(white, player("black"))
    final = await asyncio.to_thread(http, port, f"/api/games/{game['id']}", None, tokens["white"])
    stored = [m["uci"] for m in final["moves"]]
    if stored != sent:
        report.lost.append(f"people {n} ({variant}): sent {sent}, stored {stored}")
    report.people_done += 1


async def analyse_board(
    port: int, n: int, args: argparse.Namespace, report: Report, stop_at: float
) -> None:
    """One analysis board: think about a position, move on every few seconds."""
    from websockets.asyncio.client import connect

    rng = random.Random(args.seed * 7000 + n)
    variant = ANALYSIS_VARIANTS[n % len(ANALYSIS_VARIANTS)]
    moves: list[str] = []
    seq = 0
    async with connect(f"ws://127.0.0.1:{port}/ws/analysis") as ws:
        while time.monotonic() < stop_at and not report_done(report, args):
            seq += 1
            message = {"type": "analyse", "seq": seq, "variant": variant, "moves": moves}
            await ws.send(json.dumps({**message, "multipv": 2}))
            until = time.monotonic() + rng.uniform(2, 5)
            legal: list[str] = []
            while time.monotonic() < until:
                try:
                    got = json.loads(await asyncio.wait_for(ws.recv(), until - time.monotonic()))
                except TimeoutError:
                    break
                if got["type"] == "error":
                    report.errors.append(f"board {n} ({variant}): {got['message']}")
                elif got["type"] == "position" and got["seq"] == seq:
                    legal = got["legal"]
                elif got["type"] == "info":
                    report.infos += 1
            if not legal or len(moves) > 40:
                moves = []
            else:
                moves = [*moves, rng.choice(legal)]


def report_done(report: Report, args: argparse.Namespace) -> bool:
    """Whether every game has finished (the boards stop then)."""
    return report.games_done >= args.games and report.people_done >= args.people


async def sample_rss(port: int, pid: int, report: Report, stop: asyncio.Event) -> None:
    """Record the server's RSS, and how fast it answers a small request (a stalled event
    loop shows there), twice a second until told to stop."""
    while not stop.is_set():
        if pid != os.getpid():
            workers, count = workers_rss_mb(pid)
            report.rss.append((time.monotonic(), rss_mb(pid), workers, count))
        asked = time.monotonic()
        await asyncio.to_thread(http, port, "/api/stats")
        report.stats_ms.append((time.monotonic() - asked) * 1000)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


async def load(port: int, pid: int, args: argparse.Namespace, report: Report) -> None:
    """Run every game and board at once, sampling memory."""
    stop_at = time.monotonic() + args.timeout
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_rss(port, pid, report, stop))
    boards = [
        asyncio.create_task(analyse_board(port, n, args, report, stop_at))
        for n in range(args.boards)
    ]
    await asyncio.sleep(1)  # the boards hold the engines when the games start
    games = [play_game(port, n, args, report, stop_at) for n in range(args.games)]
    people = [people_game(port, n, args, report, stop_at) for n in range(args.people)]
    results = await asyncio.gather(*games, *people, return_exceptions=True)
    for n, result in enumerate(results):
        if isinstance(result, BaseException):
            what = f"game {n}" if n < args.games else f"people {n - args.games}"
            report.errors.append(f"{what}: {type(result).__name__}: {result}")
    board_results = await asyncio.gather(*boards, return_exceptions=True)
    for n, result in enumerate(board_results):
        if isinstance(result, BaseException):
            report.errors.append(f"board {n}: {type(result).__name__}: {result}")
    stop.set()
    await sampler


def main(argv: list[str] | None = None) -> int:
    """Run the load and print the figures; the exit status says whether the targets held."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="engine games at once (20)")
    parser.add_argument("--boards", type=int, default=10, help="analysis boards open (10)")
    parser.add_argument("--movetime", type=int, default=100, help="engine ms per move (100)")
    parser.add_argument("--moves", type=int, default=20, help="moves we play per game (20)")
    parser.add_argument(
        "--people", type=int, default=0, help="games between two scripted people (0)"
    )
    parser.add_argument(
        "--people-moves", type=int, default=20, help="plies of each people's game (20)"
    )
    parser.add_argument(
        "--people-pause", type=float, default=2.0, help="longest pause before a person's move"
    )
    parser.add_argument(
        "--ramp", type=float, default=5.0, help="the people's games start within this (s)"
    )
    parser.add_argument("--max-relay", type=float, default=100, help="p99 target of a relay, ms")
    parser.add_argument("--pause", type=float, default=0.5, help="longest pause before a move")
    parser.add_argument("--timeout", type=float, default=240, help="time bound, seconds")
    parser.add_argument("--max-reply", type=float, default=2000, help="reply target, ms")
    parser.add_argument("--ceiling-mb", type=float, default=DEFAULT_CEILING_MB)
    parser.add_argument(
        "--after", type=float, default=70, help="seconds to wait idle, then measure RSS again"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--url", help="a running loopback server (no RSS figures)")
    args = parser.parse_args(argv)
    if not (0 < args.games <= MAX_GAMES and 0 <= args.boards <= MAX_BOARDS):
        parser.error(f"at most {MAX_GAMES} games and {MAX_BOARDS} boards")
    if not (0 < args.moves <= MAX_MOVES and 0 < args.timeout <= MAX_TIMEOUT):
        parser.error(f"at most {MAX_MOVES} moves a game and {MAX_TIMEOUT} s")
    if not (0 <= args.people <= MAX_PEOPLE and 0 < args.people_moves <= 2 * MAX_MOVES):
        parser.error(f"at most {MAX_PEOPLE} people's games of {2 * MAX_MOVES} plies")

    report = Report()
    proc = None
    port = loopback_port(args.url) if args.url else None
    tmp = tempfile.TemporaryDirectory()
    if port is None:
        port = free_port()
        cmd = [sys.executable, "-m", "ferz", "web", "--no-browser", "--port", str(port)]
        cmd += ["--db", str(Path(tmp.name) / "games.sqlite3")]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert proc.stdout is not None
        for line in proc.stdout:
            if "serving on" in line:
                break
        else:
            print("ferz web did not start", file=sys.stderr)
            return 1
    pid = proc.pid if proc else os.getpid()
    load_before = os.getloadavg()
    try:
        time.sleep(1)
        before = rss_mb(pid) if proc else 0.0
        workers_before = workers_rss_mb(pid) if proc else (0.0, 0)
        cpu_before = cpu_s(pid) if proc else 0.0
        workers_cpu_before = workers_cpu_s(pid) if proc else 0.0
        started = time.monotonic()
        asyncio.run(load(port, pid, args, report))
        elapsed = time.monotonic() - started
        cpu = cpu_s(pid) - cpu_before if proc else 0.0
        workers_cpu = workers_cpu_s(pid) - workers_cpu_before if proc else 0.0
        load_after = os.getloadavg()
        after_load = rss_mb(pid) if proc else 0.0
        workers_after = workers_rss_mb(pid) if proc else (0.0, 0)
        stats = http(port, "/api/stats")
        time.sleep(args.after)
        after_idle = rss_mb(pid) if proc else 0.0
        workers_idle = workers_rss_mb(pid) if proc else (0.0, 0)
        idle_stats = http(port, "/api/stats")
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(30)
        tmp.cleanup()

    replies = sorted(report.replies_ms)
    peak = max((mb + workers for _, mb, workers, _ in report.rss), default=0.0)
    server_peak = max((mb for _, mb, _, _ in report.rss), default=0.0)
    workers_peak = max((workers for _, _, workers, _ in report.rss), default=0.0)
    count_peak = max((count for _, _, _, count in report.rss), default=0)
    during = [mb + workers for _, mb, workers, _ in report.rss]
    print(
        f"load: {args.games} games ({args.movetime} ms a move) + {args.people} games between "
        f"people + {args.boards} analysis boards"
    )
    print(f"  time {elapsed:.1f} s; games finished {report.games_done}/{args.games}")
    print(
        "  machine load average (1/5/15 min): before "
        + "/".join(f"{x:.2f}" for x in load_before)
        + ", after "
        + "/".join(f"{x:.2f}" for x in load_after)
    )
    relay = sorted(report.relay_ms)
    relay_p99 = relay[min(len(relay) - 1, int(0.99 * len(relay)))] if relay else 0.0
    if args.people:
        print(
            f"  people's games finished {report.people_done}/{args.people}; "
            f"their moves {report.people_moves}"
        )
    if relay:
        print(
            f"  a person's move reaching the other player, ms: median "
            f"{statistics.median(relay):.1f}, p99 {relay_p99:.1f}, max {relay[-1]:.1f} "
            f"(target p99 {args.max_relay:.0f})"
        )
    print(f"  moves sent {report.moves_sent}; engine replies {len(replies)}")
    if replies:
        p95 = replies[min(len(replies) - 1, int(0.95 * len(replies)))]
        print(
            f"  reply ms: median {statistics.median(replies):.0f}, p95 {p95:.0f}, "
            f"max {replies[-1]:.0f} (target {args.max_reply:.0f})"
        )
    print(f"  analysis infos received {report.infos}")
    if report.stats_ms:
        print(
            f"  GET /api/stats during the load: median {statistics.median(report.stats_ms):.0f}"
            f" ms, max {max(report.stats_ms):.0f} ms"
        )
    print(f"  server waits of engine moves (ms): {stats['play_wait_ms']}")
    if "play_search_ms" in stats:
        print(f"  engine moves' time in a slot (ms): {stats['play_search_ms']}")
    print(
        f"  preemptions of analyses {stats['preemptions']}; engines {stats['engines']}; "
        f"engine workers failed {stats.get('engine_failures', 0)}"
    )
    if proc:
        mean = statistics.mean(during) if during else 0.0
        print(
            f"  RSS MB, server + workers: before {before + workers_before[0]:.0f} "
            f"({workers_before[1]} workers), during mean {mean:.0f} / peak {peak:.0f}, "
            f"after the load {after_load + workers_after[0]:.0f}, after {args.after:.0f} s "
            f"idle {after_idle + workers_idle[0]:.0f} (engines then {idle_stats['engines']}); "
            f"ceiling {args.ceiling_mb:.0f}"
        )
        print(
            f"  RSS MB, server alone: before {before:.0f}, peak {server_peak:.0f}, after "
            f"{after_load:.0f}, idle {after_idle:.0f}; workers: peak {workers_peak:.0f} MB "
            f"({count_peak} at most)"
        )
    if proc:
        moves = report.people_moves + 2 * len(replies)
        print(
            f"  CPU in {elapsed:.1f} s: server {cpu:.1f} s, engine workers {workers_cpu:.1f} s; "
            f"{moves} moves played"
        )
    print(f"  errors {len(report.errors)}; lost moves {len(report.lost)}")
    for line in (report.errors + report.lost)[:20]:
        print("   ", line)
    ok = (
        not report.errors
        and not report.lost
        and report.games_done == args.games
        and report.people_done == args.people
        and bool(replies)
        and replies[-1] <= args.max_reply
        and (not args.people or (bool(relay) and relay_p99 <= args.max_relay))
        and (not proc or peak < args.ceiling_mb)
    )
    print("  targets met" if ok else "  TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
