"""`ferz spsa`: tune an engine's numbers by SPSA over game pairs (ferz.spsa), resumable."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..files import claim, release
from ..match import openings as openings_module
from ..match import spsa
from ..match.adjudication import Adjudication
from ..match.clock import MatchLimits, parse_tc
from ..match.engines import parse_spec
from ..match.runner import MatchConfig, default_concurrency, play_each

EXAMPLES = """parameters are NAME,START,MIN,MAX[,C_END[,R_END]] (fishtest's spelling), given with
--param or one to a line in a --params file (# comments). ferz's parameters are the names of
ferz/params.py's SEARCH, TIME and EVAL tables (set through FERZ_PARAMS); any other UCI engine
gets them as UCI options of the same names.

examples:
  ferz spsa --param rfp_margin,150,80,250,10 --param lmr_div,225,150,300,12 \\
      --nodes 5000 --iterations 2000 --name rfp-lmr
  ferz spsa --params search.txt --tc 2+0.02 --iterations 10000 --ray auto
  ferz spsa --params tunables.txt --engine cmd=./myengine --nodes 20000 --iterations 5000

The state is written after every batch to --state (default
$XDG_CACHE_HOME/ferz/spsa/NAME.json); the same command resumes the run. At the end (or now,
with --show) it prints the tuned values as FERZ_PARAMS and the `ferz match` command of an
SPRT that checks them against the defaults: keep only what it accepts."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `ferz spsa`."""
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="SPEC",
        help="a parameter: NAME,START,MIN,MAX[,C_END[,R_END]]",
    )
    parser.add_argument("--params", metavar="FILE", help="parameters, one spec a line")
    parser.add_argument(
        "--engine",
        nargs="+",
        default=["cmd=ferz"],
        metavar="KEY=VALUE",
        help="the engine (as in ferz match; default cmd=ferz)",
    )
    parser.add_argument("--variant", default="chess", help="variant to play (default: chess)")
    parser.add_argument(
        "--iterations", type=int, default=1000, help="game pairs in the run (default 1000)"
    )
    limits = parser.add_argument_group("limits (default --nodes 5000)")
    limits.add_argument("--tc", help="time control [MOVES/]BASE[+INC] in seconds")
    limits.add_argument("--movetime", type=int, metavar="MS", help="fixed time per move")
    limits.add_argument("--nodes", type=int, help="nodes per move")
    limits.add_argument("--depth", type=int, help="depth per move")
    parser.add_argument("--openings", metavar="FILE", help="EPD or PGN (default: bundled set)")
    parser.add_argument("--seed", type=int, default=1, help="signs and openings (default 1)")
    parser.add_argument(
        "--max-moves", type=int, default=200, metavar="N", help="a draw at N moves (default 200)"
    )
    run = parser.add_argument_group("running")
    run.add_argument(
        "--concurrency",
        type=int,
        help=f"game pairs at once (default: cores - 1 = {default_concurrency()})",
    )
    run.add_argument("--ray", metavar="ADDRESS", help="play the pairs as Ray tasks")
    run.add_argument("--batch", type=int, help="pairs per step (default: --concurrency)")
    run.add_argument("--name", help="the run's name (default: from its parameters)")
    run.add_argument("--state", metavar="FILE", help="where the run's state is kept")
    run.add_argument("--show", action="store_true", help="print the state's values and stop")
    run.add_argument("--quiet", action="store_true", help="no line per batch")


def state_path(args: argparse.Namespace, state: spsa.State) -> Path:
    """--state, or the cache directory's file of the run's name."""
    if args.state:
        return Path(args.state)
    from ..cache import cache_dir

    return cache_dir("spsa", f"{args.name or state.key()}.json")


def load_state(args: argparse.Namespace) -> tuple[spsa.State, Path]:
    """The run: resumed from its state file when it exists and is the same run, else new."""
    params = [spsa.parse_param(text) for text in args.param]
    if args.params:
        params += spsa.read_params(args.params)
    fresh = spsa.State.new(params, args.iterations, args.seed)
    path = state_path(args, fresh)
    if not path.exists():
        return fresh, path
    state = spsa.State.from_json(path.read_text())
    if state.key() != fresh.key():
        raise ValueError(
            f"{path} holds another run (other parameters, iterations or seed): "
            "give another --name or --state, or delete it"
        )
    return state, path


def base_config(args: argparse.Namespace) -> MatchConfig:
    """What every pair shares: the engine, the variant, the limits and the openings."""
    from .. import variants

    variants.get(args.variant)
    nodes = args.nodes if any((args.tc, args.movetime, args.nodes, args.depth)) else 5000
    budget = MatchLimits(
        tc=parse_tc(args.tc) if args.tc else None,
        movetime_ms=args.movetime,
        nodes=nodes,
        depth=args.depth,
    )
    budget.check()
    spec = parse_spec(list(args.engine))
    if spec.protocol != "uci":
        raise ValueError("ferz spsa tunes UCI engines")
    starts = openings_module.load(args.openings, args.variant, None, 1000, args.seed)
    adjudication = Adjudication(max_moves=args.max_moves)
    adjudication.check()
    return MatchConfig((spec, spec), args.variant, budget, adjudication, tuple(starts), 2)


def check_names(state: spsa.State, config: MatchConfig) -> None:
    """ValueError for a name ferz does not have (other engines are trusted)."""
    if config.engines[0].command:
        return
    unknown = [p.name for p in state.params if p.name not in spsa.ferz_names()]
    if unknown:
        raise ValueError(f"ferz has no parameter {', '.join(unknown)} (see ferz/params.py)")


def report(state: spsa.State) -> list[str]:
    """The values and the command that checks them."""
    values = ",".join(f"{name}={value}" for name, value in state.values().items())
    played = sum(state.pairs)
    return [
        f"Iterations: {state.k - 1} of {state.iterations}",
        "Pairs (r=-2..2): " + " ".join(str(n) for n in state.pairs) + f" ({played} played)",
        f"Failures: {state.failures}",
        f"Params: {values}",
        f"Check: ferz match --engine cmd=ferz name=tuned params={values} "
        "--engine cmd=ferz name=base --tc 10+0.1 --games 20000 --sprt 0 5",
    ]


def main(args: argparse.Namespace) -> int:
    """Run (or resume) the tuning; ValueError for bad input."""
    state, path = load_state(args)
    config = base_config(args)
    check_names(state, config)
    if args.show:
        print("\n".join(report(state)))
        return 0
    concurrency = args.concurrency or default_concurrency()
    if concurrency < 1 or (args.batch is not None and args.batch < 1):
        raise ValueError("--concurrency and --batch must be at least 1")
    try:
        # the cache folder of the default --state exists on no first run (datagen makes its
        # own too); the lock file is made in it before the state is
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ValueError(f"cannot write {path}: {error.strerror}") from None
    claim(path, "ferz spsa")
    try:
        tune(args, state, path, config, concurrency)
    finally:
        release(path)  # a finished or failed run leaves no NAME.json.lock
    print("\n".join(report(state)))
    return 0


def tune(
    args: argparse.Namespace, state: spsa.State, path: Path, config: MatchConfig, concurrency: int
) -> None:
    """Play the run's batches of pairs (`concurrency` at once locally), saving the state after
    each, until it is done."""
    batch = args.batch or concurrency
    if args.ray:
        from ..match import cluster

        batch = args.batch or cluster.cluster_cpus(cluster.connect(args.ray))
    started = time.monotonic()
    print(f"state: {path}", file=sys.stderr)
    while not state.done():
        ks = list(range(state.k, min(state.k + batch, state.iterations + 1)))
        pairs = [spsa.pair_config(config, state, k) for k in ks]
        configs = [pair for pair, _ in pairs]
        if args.ray:
            from ..match.cluster import play_each as play_ray

            records = play_ray(configs, args.ray)
        else:
            records = play_each(configs, concurrency)
        for k, (_, d), games in zip(ks, pairs, records, strict=True):
            result, failures = spsa.pair_result(games)
            state.step(k, d, result)
            state.failures += failures
            state.k = k + 1
        state.save(path)
        if not args.quiet:
            shown = " ".join(f"{n}={v:.1f}" for n, v in state.theta.items())
            elapsed = time.monotonic() - started
            print(f"spsa {state.k - 1}/{state.iterations} {shown} ({elapsed:.0f} s)", flush=True)
