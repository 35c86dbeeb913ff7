"""Perft speed of every built-in variant from its start position (compiled core).

Usage: python bench/variant_speed.py [--nodes N] [--variant NAME ...]

For each variant the depth is the deepest whose node count stays under N (default 5 M), found
by counting upward; only the last, deepest run is timed, in CPU seconds of this process (the
machine is shared, and CPU time is the fairer measure there). Prints nodes/second per variant.
"""

from __future__ import annotations

import argparse
import os
import time

from ferz import variants
from ferz.core import compiled
from ferz.core.perft import perft
from ferz.core.position import Position


def measure(name: str, budget: int) -> tuple[int, int, float]:
    """(depth, nodes, seconds) of the deepest start-position perft under the node budget."""
    rules = variants.get(name)
    pos = Position(rules)
    pos.set_fen(rules.start_fen)
    depth, nodes = 1, perft(pos, 1)
    while nodes * max(nodes ** (1 / depth), 1) < budget:
        depth += 1
        nodes = perft(pos, depth)
    start = time.process_time()
    nodes = perft(pos, depth)
    return depth, nodes, time.process_time() - start


def main() -> None:
    """Print the speed table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=5_000_000)
    parser.add_argument("--variant", action="append")
    args = parser.parse_args()
    print(f"compiled core: {compiled()}, load average: {os.getloadavg()[0]:.2f}")
    for name in args.variant or variants.names():
        depth, nodes, seconds = measure(name, args.nodes)
        rate = nodes / seconds / 1e6
        print(f"{name:14} perft({depth}) = {nodes:>11} in {seconds:6.2f} s: {rate:5.1f} M nodes/s")


if __name__ == "__main__":
    main()
