"""Protocol latencies of `ferz uci`, measured as a GUI sees them (wall clock, so run it on a quiet
machine and report the load beside the figures).

Usage: python bench/latency.py [--runs N]

Prints the median and the worst of N runs for: start to `uciok`; `isready` to `readyok` during
an infinite search; `stop` to `bestmove`; how far `go movetime 300` overshoots 300 ms. The tests
only check these loosely (a loaded machine can delay any answer); this is where they are measured.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from ferz.match.engines import Process

ANSWER_SECONDS = 60.0  # the longest wait for one answer


class Uci(Process):
    """A `python -m ferz uci` process read line by line (ferz's engine driver, which stamps
    every line with the time it arrived)."""

    def __init__(self) -> None:
        super().__init__()
        self.started = time.monotonic()
        self.spawn([sys.executable, "-m", "ferz", "uci"])

    def send(self, text: str) -> float:
        """Send a line; the time it was sent."""
        super().send(text)
        return time.monotonic()

    def wait(self, prefix: str) -> float:
        """Read until a line starting with prefix; the time it arrived."""
        deadline = time.monotonic() + ANSWER_SECONDS
        while (got := self.readline(deadline)) is not None:
            if got[1].startswith(prefix):
                return got[0]
        raise RuntimeError(f"no {prefix!r} from ferz within {ANSWER_SECONDS:g} s")

    def close(self) -> None:
        """Quit and wait for the process."""
        self.quit(10.0)


def one_run() -> dict[str, float]:
    """One measurement of each latency, in ms."""
    out = {}
    engine = Uci()
    engine.send("uci")
    out["uciok after start"] = (engine.wait("uciok") - engine.started) * 1000
    engine.send("isready")
    engine.wait("readyok")
    engine.send("position startpos")
    engine.send("go infinite")
    time.sleep(0.3)
    out["readyok during search"] = (-engine.send("isready") + engine.wait("readyok")) * 1000
    out["bestmove after stop"] = (-engine.send("stop") + engine.wait("bestmove")) * 1000
    sent = engine.send("go movetime 300")
    out["movetime 300 overshoot"] = (engine.wait("bestmove") - sent) * 1000 - 300
    engine.close()
    return out


def main() -> None:
    """Measure N runs and print a table of medians and worst cases."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    runs = [one_run() for _ in range(args.runs)]
    print(f"ferz uci latencies, {args.runs} runs, load average {os.getloadavg()[0]:.2f}")
    for name in runs[0]:
        values = [run[name] for run in runs]
        print(f"{name:24} median {statistics.median(values):7.1f} ms   worst {max(values):7.1f} ms")


if __name__ == "__main__":
    main()
