#!/usr/bin/env python3
"""Load test for `ferz web` on loopback: N simultaneous games, each a bounded number of moves.

Starts its own server on a free 127.0.0.1 port with a throwaway database (or uses --url, which
must be a loopback address), creates N games, connects one WebSocket per game and plays
seeded-random legal moves until each game has its moves or ends. Every game must finish with
no error message and with the server's stored move list equal to what its socket saw.

    python tools/web_load.py --games 20 --moves 8 --movetime 100 --timeout 180
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import random
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

from websockets.asyncio.client import connect

MAX_GAMES, MAX_MOVES, MAX_TIMEOUT = 100, 60, 900


@dataclass
class Report:
    """What one game saw."""

    id: str = ""
    moves: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    replies_ms: list[float] = field(default_factory=list)
    result: str | None = None


def http_json(url: str, body: dict | None = None) -> dict:
    """GET (or POST `body`) and decode JSON."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


async def play(base: str, index: int, args: argparse.Namespace) -> Report:
    """Play one game to its move budget through its WebSocket."""
    report = Report()
    rng = random.Random(args.seed * 1000 + index)
    game = await asyncio.to_thread(
        http_json, base + "api/games", {"color": "white", "movetime_ms": args.movetime}
    )
    report.id = game["id"]
    ws_url = base.replace("http", "ws", 1) + f"ws/games/{game['id']}"
    sent_at = 0.0
    async with connect(ws_url, max_size=2**22) as ws:
        async for raw in ws:
            message = json.loads(raw)
            if message["type"] == "error":
                report.errors.append(message["message"])
                break
            if message["type"] != "state":
                continue
            g = message["game"]
            report.moves = [m["uci"] for m in g["moves"]]
            report.result = g["result"]
            if g["thinking"]:
                continue
            if sent_at and len(report.moves) % 2 == 0:
                report.replies_ms.append((time.monotonic() - sent_at) * 1000)
                sent_at = 0.0
            if g["result"] or len(report.moves) >= 2 * args.moves:
                break
            if g["turn"] == g["human"] and g["legal"] and not sent_at:
                move = rng.choice(sorted(g["legal"]))
                sent_at = time.monotonic()
                await ws.send(json.dumps({"type": "move", "uci": move, "ply": len(report.moves)}))
    stored = await asyncio.to_thread(http_json, base + f"api/games/{game['id']}")
    if [m["uci"] for m in stored["moves"]] != report.moves:
        report.errors.append("stored moves differ from the socket's view (lost move)")
    return report


def free_port() -> int:
    """A free loopback port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def loopback_only(url: str) -> str:
    """Refuse anything but a loopback http URL; return it with a trailing slash."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    try:
        loop = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loop = False
    if parts.scheme != "http" or not loop:
        raise SystemExit(f"web_load: {url} is not a loopback http URL")
    return url if url.endswith("/") else url + "/"


async def run(base: str, args: argparse.Namespace) -> int:
    """Play every game at once; print the summary; 0 if all finished cleanly."""
    start = time.monotonic()
    tasks = [asyncio.create_task(play(base, i, args)) for i in range(args.games)]
    done, pending = await asyncio.wait(tasks, timeout=args.timeout)
    for task in pending:
        task.cancel()
    reports = []
    failures = len(pending)
    for task in done:
        if task.exception() is not None:
            failures += 1
            print(f"game failed: {task.exception()!r}", file=sys.stderr)
        else:
            reports.append(task.result())
    wall = time.monotonic() - start
    replies = [ms for r in reports for ms in r.replies_ms]
    errors = [(r.id, e) for r in reports for e in r.errors]
    short = [r.id for r in reports if not r.result and len(r.moves) < 2 * args.moves]
    print(f"games: {len(reports)}/{args.games} finished, {len(pending)} timed out")
    print(f"moves played: {sum(len(r.moves) for r in reports)} in {wall:.1f} s")
    if replies:
        q = statistics.quantiles(replies, n=20) if len(replies) > 1 else replies * 19
        print(
            f"engine replies: {len(replies)}, median {statistics.median(replies):.0f} ms, "
            f"p95 {q[18]:.0f} ms, max {max(replies):.0f} ms (movetime {args.movetime} ms)"
        )
    for gid, message in errors:
        print(f"error in game {gid}: {message}", file=sys.stderr)
    for gid in short:
        print(f"game {gid} stopped early", file=sys.stderr)
    bad = failures + len(errors) + len(short)
    print("OK" if bad == 0 else f"FAILED: {bad} problems")
    return 0 if bad == 0 else 1


def main() -> int:
    """Parse the bounds, start a server unless --url is given, run the load."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help=f"at most {MAX_GAMES}")
    parser.add_argument("--moves", type=int, default=8, help=f"own moves per game, <= {MAX_MOVES}")
    parser.add_argument("--movetime", type=int, default=100, help="engine ms per move")
    parser.add_argument("--timeout", type=float, default=180, help=f"seconds, <= {MAX_TIMEOUT}")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--url", help="an already running loopback server")
    args = parser.parse_args()
    if not (1 <= args.games <= MAX_GAMES and 1 <= args.moves <= MAX_MOVES):
        parser.error("games or moves out of bounds")
    if not 0 < args.timeout <= MAX_TIMEOUT:
        parser.error("timeout out of bounds")
    if args.url:
        return asyncio.run(run(loopback_only(args.url), args))
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "games.sqlite3"
        cmd = [sys.executable, "-m", "ferz", "web", "--no-browser", "--port", str(port)]
        server = subprocess.Popen([*cmd, "--db", str(db)], stdout=subprocess.PIPE, text=True)
        try:
            seen = []
            for line in server.stdout or ():  # warnings may come first; EOF: it died
                if "serving on" in line:
                    break
                seen.append(line)
            else:
                raise SystemExit("web_load: the server did not start:\n" + "".join(seen))
            return asyncio.run(run(f"http://127.0.0.1:{port}/", args))
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()


if __name__ == "__main__":
    sys.exit(main())
