"""ferz web's engine workers (ferz/web/workers.py): ferz's UCI engine in child processes,
driven by the search pool. MultiPV lines streamed and an infinite analysis stopped; a worker
killed or hung mid-search replaced while the search still answers; a worker that cannot run
reported clearly; idle workers quit; a worker changes variant at the ceiling; the user's
variants file reaches the workers; a game goes on when its worker is killed; the server's
shutdown ends its workers. Also the `go` lines against ferz's own UCI code (the info lines:
tests/match/test_uci_info.py)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from ferz.board import Board
from ferz.engine import Info, Limits
from ferz.match.engines import EngineError
from ferz.protocol.uci import parse_go
from ferz.web import searches
from ferz.web.searches import ANALYSIS, SearchPool
from ferz.web.workers import WorkerSpec, go_line

pytestmark = pytest.mark.timeout(90)

CUSTOM = """[workerchess:chess]
customPiece1 = a:NB
startFen = rnbakbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBAKBNR w KQkq - 0 1
"""
PROCESS_CUSTOM = CUSTOM.replace("workerchess", "processchess")  # never loaded in this process


def legal(variant: str, moves: list[str] | None = None) -> set[str]:
    """The legal moves (UCI) of a variant's start position after `moves`."""
    board = Board(variant=variant)
    for uci in moves or []:
        board.push_uci(uci)
    return {board.uci(m) for m in board.legal_moves}


def gone(pid: int, seconds: float = 5) -> bool:
    """Whether process `pid` has ended (and been reaped) within `seconds`."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                if stat.read().rpartition(")")[2].split()[0] == "Z":
                    time.sleep(0.05)
                    continue
        except OSError:
            return True
        time.sleep(0.05)
    return False


def pool(**kw: Any) -> SearchPool:
    """A pool of worker processes (one slot unless told)."""
    slots = kw.pop("slots", 1)
    return SearchPool(slots, kw.pop("max_think_ms", 10_000), **kw)


START = {"fen": None, "moves": [], "options": {}}


def run(coro: Any) -> Any:
    """Run a scenario on a fresh event loop."""
    return asyncio.run(coro)


# ---------------------------------------------------------------- the lines


@pytest.mark.parametrize(
    "limits",
    [
        Limits(wtime=60_000, btime=1, winc=2000, binc=0, movestogo=12),
        Limits(movetime=100),
        Limits(depth=4, nodes=10_000),
        Limits(infinite=True, searchmoves=["e2e4", "d2d4"]),
    ],
)
def test_go_lines_read_back_as_ferz_reads_them(limits: Limits):
    assert Limits(**parse_go(go_line(limits).split()[1:])) == limits


# ---------------------------------------------------------------- the pool with workers


def test_analysis_lines_stream_and_a_stopped_search_keeps_its_worker():
    engines = pool(workers=WorkerSpec())
    lines: dict[int, Info] = {}
    seen = asyncio.Event()

    def on_info(info: Info) -> None:
        lines[info.multipv or 1] = info
        if len(lines) == 2 and info.depth and info.depth >= 3:
            seen.set()

    async def scenario() -> tuple[int | None, int | None, str | None, bool]:
        options = {"MultiPV": 2, "UCI_LimitStrength": False, "OwnBook": False}
        analysis = asyncio.create_task(
            engines.search(
                owner="board",
                variant="xiangqi",
                fen=None,
                moves=[],
                limits={"infinite": True},
                options=options,
                on_info=on_info,
                priority=ANALYSIS,
            )
        )
        await asyncio.wait_for(seen.wait(), 30)
        first = engines.stats()["workers"][0]["pid"]
        asked = time.monotonic()
        analysis.cancel()  # the board moved on: `stop`, and the worker answers at once
        await asyncio.gather(analysis, return_exceptions=True)
        stopped_fast = time.monotonic() - asked < 2
        options = {"MultiPV": 1, "UCI_LimitStrength": True, "UCI_Elo": 1500, "OwnBook": False}
        result = await engines.search(
            owner="game",
            variant="xiangqi",
            fen=None,
            moves=["h3e3"],
            limits={"movetime": 50},
            options=options,
        )
        second = engines.stats()["workers"][0]["pid"]
        await engines.close()
        return first, second, result.best, stopped_fast

    first, second, best, stopped_fast = run(scenario())
    assert set(lines) == {1, 2} and lines[1].pv[0] in legal("xiangqi")
    assert stopped_fast and first == second  # the same process, searching again
    assert best in legal("xiangqi", ["h3e3"]) and engines.failures == 0
    assert gone(first)  # close() ended it


def test_a_worker_killed_mid_search_is_replaced_and_the_search_still_answers():
    engines = pool(workers=WorkerSpec(), max_think_ms=30_000)
    killed: list[int] = []

    def on_info(info: Info) -> None:
        if not killed and info.depth and info.depth >= 2:
            pid = engines.stats()["workers"][0]["pid"]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    async def scenario() -> tuple[str | None, float, list[dict[str, Any]]]:
        await engines.warm("chess")
        asked = time.monotonic()
        result = await engines.search(
            owner="g", variant="chess", limits={"movetime": 800}, on_info=on_info, **START
        )
        took = time.monotonic() - asked
        workers = engines.stats()["workers"]
        await engines.close()
        return result.best, took, workers

    best, took, workers = run(scenario())
    assert killed and best in legal("chess")
    assert engines.failures == 1 and engines.stats()["engine_failures"] == 1
    assert len(workers) == 1 and workers[0]["pid"] != killed[0] and gone(killed[0])
    assert took < 15  # the end of its output is seen at once, not at the 30 s ceiling


def test_a_hung_worker_is_killed_after_the_ceiling_and_the_search_answers(monkeypatch):
    monkeypatch.setattr(searches, "STOP_GRACE_S", 0.5)
    engines = pool(workers=WorkerSpec(), max_think_ms=3000)
    hung: list[int] = []

    def on_info(info: Info) -> None:
        if not hung:
            pid = engines.stats()["workers"][0]["pid"]
            os.kill(pid, signal.SIGSTOP)  # alive, but it reads and says nothing any more
            hung.append(pid)

    async def scenario() -> tuple[str | None, float]:
        await engines.warm("chess")  # the ceiling counts from the slot, a start included
        asked = time.monotonic()
        result = await engines.search(
            owner="g", variant="chess", limits={"movetime": 20_000}, on_info=on_info, **START
        )
        took = time.monotonic() - asked
        await engines.close()
        return result.best, took

    best, took = run(scenario())
    assert hung and best in legal("chess") and engines.failures == 1
    assert took < 15  # the ceiling (3 s) + the grace (0.5 s) + a new worker's quick answer
    assert gone(hung[0])


def test_a_worker_that_cannot_run_fails_the_search_clearly():
    failing = WorkerSpec(command=[sys.executable, "-c", "import sys; sys.exit(3)"], nice=0)
    engines = pool(workers=failing)

    async def scenario() -> None:
        await engines.search(owner="g", variant="chess", limits={"movetime": 50}, **START)

    with pytest.raises(EngineError, match=r"exited with code 3 \(tried twice\)"):
        run(scenario())
    assert engines.failures == 2 and engines.engines() == 0


def test_idle_workers_quit():
    engines = pool(workers=WorkerSpec(), idle_release_s=0.3)

    async def scenario() -> tuple[int, dict[str, Any]]:
        await engines.search(owner="g", variant="chess", limits={"depth": 2}, **START)
        pid = engines.stats()["workers"][0]["pid"]
        await asyncio.sleep(1.0)
        return pid, engines.stats()

    pid, stats = run(scenario())
    assert stats["engines"] == 0 and stats["workers"] == [] and stats["engines_released"] == 1
    assert gone(pid)


def test_at_the_ceiling_a_worker_changes_variant_instead_of_a_new_process():
    engines = pool(workers=WorkerSpec(), max_engines=1)

    async def scenario() -> tuple[list[int], list[str | None]]:
        pids, best = [], []
        for variant in ("chess", "shogi", "chess"):
            result = await engines.search(owner="x", variant=variant, limits={"depth": 3}, **START)
            pids.append(engines.stats()["workers"][0]["pid"])
            best.append(result.best)
        await engines.close()
        return pids, best

    pids, best = run(scenario())
    assert len(set(pids)) == 1 and engines.failures == 0
    assert best[0] in legal("chess") and best[1] in legal("shogi") and best[2] in legal("chess")


def test_mixed_variants_at_once_never_start_more_workers_than_the_ceiling():
    engines = pool(workers=WorkerSpec(), slots=2)  # one worker per slot by default
    pids: set[int] = set()

    def note(info: Info) -> None:
        pids.update(w["pid"] for w in engines.stats()["workers"])

    async def one(n: int, variant: str) -> str | None:
        result = await engines.search(
            owner=f"g{n}", variant=variant, limits={"depth": 2}, on_info=note, **START
        )
        pids.update(w["pid"] for w in engines.stats()["workers"])
        return result.best

    async def scenario() -> list[str | None]:
        mixed = ["chess", "shogi", "xiangqi", "chess", "capablanca", "shogi", "crazyhouse"]
        best = await asyncio.gather(*(one(n, v) for n, v in enumerate(mixed)))
        await engines.close()
        return list(zip(mixed, best, strict=True))

    for variant, best in run(scenario()):
        assert best in legal(variant), variant
    assert engines.max_engines == 2 and len(pids) == 2 and engines.failures == 0


def test_the_users_variants_file_reaches_the_workers(tmp_path: Path):
    from ferz import variants

    path = tmp_path / "mine.ini"
    path.write_text(CUSTOM)
    variants.load_file(path)  # as `ferz --variants FILE web` loads it into the server
    start = legal("workerchess")

    async def search(spec: WorkerSpec) -> str | None:
        engines = pool(workers=spec)
        try:
            result = await engines.search(
                owner="g", variant="workerchess", limits={"depth": 3}, **START
            )
        finally:
            await engines.close()
        return result.best

    assert run(search(WorkerSpec(variants_file=str(path)))) in start
    # without the file a worker does not know the variant, and says so
    with pytest.raises(EngineError, match="workerchess"):
        run(search(WorkerSpec()))


def test_workers_run_nicer_than_the_server():
    engines = pool(workers=WorkerSpec(nice=3))

    async def scenario() -> tuple[int, str | None]:
        await engines.warm("chess")
        pid = engines.stats()["workers"][0]["pid"]
        nice = os.getpriority(os.PRIO_PROCESS, pid)
        group = None
        enabled = Path("/proc/sys/kernel/sched_autogroup_enabled")
        if enabled.exists() and enabled.read_text().strip() == "1":
            group = Path(f"/proc/{pid}/autogroup").read_text()  # its session's group
        await engines.close()
        return nice, group

    nice, group = run(scenario())
    assert nice == min(19, os.getpriority(os.PRIO_PROCESS, 0) + 3)
    assert group is None or group.split()[-1] == "3"


# ---------------------------------------------------------------- the server with workers


def test_a_game_goes_on_when_its_worker_is_killed(tmp_path: Path):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    from starlette.testclient import TestClient

    from ferz.web.server import create_app
    from tests.web.web_standin import TEST_POLICY
    from tests.web.webserver import state

    app = create_app(tmp_path / "g.sqlite3", slots=1, policy=TEST_POLICY)
    with TestClient(app) as client:
        warm = [w["pid"] for w in client.get("/api/stats").json()["workers"]]
        assert len(warm) == 1  # one worker per slot, started with the server
        game = client.post("/api/games", json={"movetime_ms": 1000, "book": False}).json()
        with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
            state(ws)
            ws.send_json({"type": "move", "uci": "e2e4", "ply": 0})
            state(ws, lambda g: g["thinking"] and len(g["moves"]) == 1)
            time.sleep(0.3)
            os.kill(warm[0], signal.SIGKILL)
            played = state(ws, lambda g: len(g["moves"]) == 2, limit=500)
        assert played["moves"][1]["uci"] in legal("chess", ["e2e4"])
        stats = client.get("/api/stats").json()
        assert stats["engine_failures"] == 1 and stats["workers"][0]["pid"] != warm[0]
        assert stats["total_rss_mb"] >= stats["rss_mb"] + stats["workers"][0]["rss_mb"] - 0.2
        workers = [w["pid"] for w in stats["workers"]]
    assert all(gone(pid) for pid in workers)  # the server's shutdown ended them


def test_ferz_variants_file_web_plays_the_users_variant(tmp_path: Path):
    pytest.importorskip("uvicorn")
    import json

    from websockets.sync.client import connect

    from tests.web.webserver import running_server

    path = tmp_path / "mine.ini"
    path.write_text(PROCESS_CUSTOM)
    options = ["--variants", str(path)]
    with running_server(tmp_path / "games.sqlite3", options) as port:
        base = f"http://127.0.0.1:{port}"
        body = json.dumps({"variant": "processchess", "movetime_ms": 100}).encode()
        request = urllib.request.Request(
            f"{base}/api/games", data=body, headers={"content-type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            cookie = response.headers["set-cookie"].split(";")[0]
            game = json.loads(response.read())
        url = f"ws://127.0.0.1:{port}/ws/games/{game['id']}"
        with connect(url, additional_headers={"cookie": cookie}) as ws:
            ws.send(json.dumps({"type": "move", "uci": "e2e4", "ply": 0}))
            for _ in range(200):
                message = json.loads(ws.recv(timeout=20))
                assert message["type"] != "error", message
                if message["type"] == "state" and len(message["game"]["moves"]) == 2:
                    break
            else:
                raise AssertionError("ferz never answered")
        from ferz import variants

        board = Board(
            rules=variants.parse_text(PROCESS_CUSTOM)["processchess"]
        )  # not registered here
        board.push_uci("e2e4")
        assert message["game"]["moves"][1]["uci"] in {board.uci(m) for m in board.legal_moves}
