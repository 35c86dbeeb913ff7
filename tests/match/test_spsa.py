"""`ferz spsa`: the schedule's worked values, the step, convergence on a known optimum, the
state that resumes a run, and a short real run through the match runner."""

from __future__ import annotations

import json
import math
import random

import pytest

from ferz import commands
from ferz.match import spsa
from ferz.match.engines import EngineSpec


def test_parse_param_and_its_defaults() -> None:
    param = spsa.parse_param("lmr_div, 225, 150, 300")
    assert param == spsa.Param("lmr_div", 225, 150, 300, 7.5, 0.002)
    assert spsa.parse_param("x,5,0,10,2,0.01").c_end == 2
    assert spsa.parse_param("x,1,0,4").c_end == 1  # at least 1: integers must move


@pytest.mark.parametrize(
    "text",
    ["x,1,2", "x,5,6,10", "x,1,0,10,0", "x,1,0,10,1,-1", ",1,0,2", "x,a,0,2", "x,nan,0,2"],
)
def test_bad_param_is_a_clear_error(text: str) -> None:
    with pytest.raises(ValueError):
        spsa.parse_param(text)


def test_gains_follow_spalls_schedule() -> None:
    """At the last iteration c_k is c_end and a_k / c_k^2 is r_end, as fishtest sets them."""
    param = spsa.Param("p", 100, 0, 200, 10, 0.002)
    a_end, c_end = spsa.gains(param, 1000, 1000)
    assert c_end == pytest.approx(10)
    assert a_end / c_end**2 == pytest.approx(0.002)
    a_1, c_1 = spsa.gains(param, 1, 1000)
    assert c_1 == pytest.approx(10 * 1000**0.101)  # 20.1: wider steps early
    assert a_1 == pytest.approx(0.2 * 1100**0.602 / 101**0.602)


def test_a_won_pair_moves_theta_towards_the_winner() -> None:
    state = spsa.State.new([spsa.Param("p", 100, 0, 200, 10, 0.002)], 100, seed=3)
    d, plus, minus = state.sides(1)
    assert plus["p"] - 100 == -(minus["p"] - 100) != 0
    state.step(1, d, 2)
    moved = state.theta["p"] - 100
    assert math.copysign(1, moved) == d[0] and abs(moved) > 0
    assert state.pairs == [0, 0, 0, 0, 1]


def test_spsa_finds_a_known_optimum() -> None:
    """Pairs drawn from a model where the engine nearer (60, 140) wins more often: two
    parameters started far away end near it."""
    optimum = {"a": 60.0, "b": 140.0}
    params = [spsa.Param("a", 100, 0, 200, 8, 0.02), spsa.Param("b", 100, 0, 200, 8, 0.02)]
    state = spsa.State.new(params, 3000, seed=7)
    rng = random.Random(1)

    def strength(values: dict[str, int]) -> float:
        return -sum((values[n] - optimum[n]) ** 2 for n in optimum) / 400

    for k in range(1, state.iterations + 1):
        d, plus, minus = state.sides(k)
        p_plus = 1 / (1 + math.exp(strength(minus) - strength(plus)))
        wins = sum(rng.random() < p_plus for _ in range(2))
        state.step(k, d, 2 * wins - 2)
    assert abs(state.theta["a"] - 60) < 12 and abs(state.theta["b"] - 140) < 12


def test_state_round_trips_and_refuses_junk(tmp_path) -> None:
    state = spsa.State.new([spsa.parse_param("x,5,0,10")], 10, 1)
    state.step(1, [1], 1)
    state.k = 2
    path = tmp_path / "s.json"
    state.save(path)
    back = spsa.State.from_json(path.read_text())
    assert back == state and back.key() == state.key()
    for junk in ("{}", "[1]", json.dumps({"version": 99})):
        with pytest.raises(ValueError, match="not an SPSA state"):
            spsa.State.from_json(junk)


def test_engine_values_go_to_ferz_params_or_uci_options() -> None:
    ferz = spsa.engine_with(EngineSpec([], params="tempo=10"), {"rfp_margin": 140})
    assert ferz.params == "tempo=10,rfp_margin=140"
    other = spsa.engine_with(EngineSpec(["./engine"]), {"Margin": 3})
    assert other.options == {"Margin": "3"} and other.params == ""
    # a drop-game value (DROPS) is tuned under its FERZ_PARAMS name
    names = spsa.ferz_names()
    assert {"drops.rfp_margin", "drops.moves_to_go"} <= names and "drops.tempo" not in names


def test_unknown_ferz_parameter_and_other_runs_are_refused(tmp_path, capsys) -> None:
    state = str(tmp_path / "run.json")
    assert commands.main(["spsa", "--param", "no_such,1,0,2", "--state", state]) == 2
    assert "no parameter no_such" in capsys.readouterr().err
    (tmp_path / "run.json").write_text(
        spsa.State.new([spsa.parse_param("tempo,15,0,30")], 9, 1).to_json()
    )
    assert commands.main(["spsa", "--param", "tempo,15,0,30", "--state", state]) == 2
    assert "holds another run" in capsys.readouterr().err


@pytest.mark.slow
def test_a_short_run_plays_pairs_and_resumes(tmp_path, capsys) -> None:
    """Two pairs of real ferz games at 300 nodes; the same command then resumes a finished run
    without playing, and --show prints the values."""
    args = [
        "spsa",
        "--param",
        "rfp_margin,150,80,250,10",
        "--nodes",
        "300",
        "--iterations",
        "2",
        "--concurrency",
        "2",
        "--max-moves",
        "30",
        "--state",
        str(tmp_path / "run.json"),
    ]
    assert commands.main(args) == 0
    out = capsys.readouterr().out
    assert "Iterations: 2 of 2" in out and "Failures: 0" in out
    saved = spsa.State.from_json((tmp_path / "run.json").read_text())
    assert saved.k == 3 and sum(saved.pairs) == 2
    assert commands.main(args) == 0
    assert "spsa " not in capsys.readouterr().out  # nothing left to play
    assert commands.main([*args, "--show"]) == 0
    assert "Params: rfp_margin=" in capsys.readouterr().out


@pytest.mark.slow
def test_ray_plays_the_same_pairs_as_the_local_runner(tmp_path) -> None:
    """A batch of two node-limited pairs through a private Ray head: the same games."""
    from tests.programs import need_module

    need_module("ray", "ray[default]")
    from ferz.commands.spsa import add_arguments, base_config
    from ferz.match import cluster, runner

    parser = __import__("argparse").ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--param", "tempo,15,0,30", "--nodes", "300", "--max-moves", "20"])
    state = spsa.State.new([spsa.parse_param("tempo,15,0,30")], 2, 1)
    configs = [spsa.pair_config(base_config(args), state, k)[0] for k in (1, 2)]
    local = runner.play_each(configs, 2)
    remote = cluster.play_each(configs, "local")
    moves = [[[p.uci for p in r.plies] for r in games] for games in local]
    assert moves == [[[p.uci for p in r.plies] for r in games] for games in remote]
    assert [[r.result for r in games] for games in local] == [
        [r.result for r in games] for games in remote
    ]
