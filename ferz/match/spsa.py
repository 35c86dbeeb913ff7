"""SPSA: tune an engine's numbers from game pairs, as fishtest does.

Simultaneous perturbation stochastic approximation moves every parameter at once. Iteration k
draws a sign d_i = +-1 for each parameter, plays one game pair (an opening, colours reversed)
between the engine with theta + c_k d and the engine with theta - c_k d, and moves

    theta_i += a_k / c_k,i * r * d_i,        r = W - L of theta + c_k d over the pair (-2..2)

so a parameter drifts towards the side that won. The gains shrink with k (Spall's schedule,
as fishtest sets it from each parameter's values at the end of the run):

    c_k = c / k^gamma,      c = c_end * N^gamma                         gamma = 0.101
    a_k = a / (A + k)^alpha, a = r_end * c_end^2 * (A + N)^alpha        alpha = 0.602, A = N / 10

where N is the number of iterations, c_end the perturbation and r_end the learning rate
(a_k / c_k^2) of the last iteration. A batch of pairs is played from the same theta (one per
game slot: `--concurrency` locally, the cluster's CPUs with Ray) and their steps are then
applied in order. The state (theta, k, the results) is written after every batch, so a run
that is stopped resumes where it was. Parameters are integers for the engine: theta + c_k d is
rounded and kept within [min, max].
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..files import write_atomically
from .engines import EngineSpec
from .referee import GameRecord
from .runner import MatchConfig

ALPHA = 0.602
GAMMA = 0.101
A_RATIO = 0.1
STATE_VERSION = 1


@dataclass(frozen=True)
class Param:
    """One tuned number: its start, bounds, and its perturbation and learning rate at the end."""

    name: str
    start: float
    low: float
    high: float
    c_end: float
    r_end: float

    def check(self) -> None:
        """ValueError for bounds that do not hold the start or gains that are not positive."""
        if not self.low <= self.start <= self.high or self.low >= self.high:
            raise ValueError(f"{self.name}: need min < max and min <= start <= max")
        if self.c_end <= 0 or self.r_end <= 0:
            raise ValueError(f"{self.name}: c_end and r_end must be positive")


def parse_param(text: str) -> Param:
    """A Param from `name,start,min,max[,c_end[,r_end]]` (c_end defaults to (max - min) / 20,
    at least 1; r_end to 0.002, fishtest's usual); ValueError for a bad spec."""
    fields = [part.strip() for part in text.split(",")]
    if not 4 <= len(fields) <= 6 or not fields[0]:
        raise ValueError(f"parameter {text!r}: expected name,start,min,max[,c_end[,r_end]]")
    name = fields[0]
    try:
        numbers = [float(value) for value in fields[1:]]
    except ValueError:
        raise ValueError(f"parameter {text!r}: the values must be numbers") from None
    if not all(math.isfinite(value) for value in numbers):
        raise ValueError(f"parameter {text!r}: numbers must be finite")
    start, low, high = numbers[:3]
    c_end = numbers[3] if len(numbers) > 3 else max(1.0, (high - low) / 20)
    r_end = numbers[4] if len(numbers) > 4 else 0.002
    param = Param(name, start, low, high, c_end, r_end)
    param.check()
    return param


def read_params(path: str | Path) -> list[Param]:
    """The parameters of a file: one spec per line, `#` starts a comment."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a parameter file (not UTF-8 text)") from None
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if text:
            try:
                out.append(parse_param(text))
            except ValueError as error:
                raise ValueError(f"{path}:{number}: {error}") from None
    return out


def gains(param: Param, k: int, iterations: int) -> tuple[float, float]:
    """(a_k, c_k) of a parameter at iteration k (1-based) of a run of `iterations`."""
    big_a = A_RATIO * iterations
    c = param.c_end * iterations**GAMMA
    a = param.r_end * param.c_end**2 * (big_a + iterations) ** ALPHA
    return a / (big_a + k) ** ALPHA, c / k**GAMMA


def signs(seed: int, k: int, count: int) -> list[int]:
    """The perturbation's signs of iteration k: the same for the same seed, on any machine."""
    rng = random.Random(f"spsa:{seed}:{k}")
    return [rng.choice((-1, 1)) for _ in range(count)]


def clamp(param: Param, value: float) -> float:
    """A value kept within the parameter's bounds."""
    return max(param.low, min(param.high, value))


@dataclass
class State:
    """A run: its parameters, theta, the next iteration and what the pairs scored."""

    params: list[Param]
    iterations: int
    seed: int
    theta: dict[str, float]
    k: int = 1  # the next iteration
    pairs: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])  # r = -2..2 counts
    failures: int = 0

    @classmethod
    def new(cls, params: list[Param], iterations: int, seed: int) -> State:
        """A run at its start."""
        if not params:
            raise ValueError("no parameter to tune")
        names = [param.name for param in params]
        if len(set(names)) != len(names):
            raise ValueError("a parameter is given twice")
        if iterations < 1:
            raise ValueError("--iterations must be at least 1")
        return cls(list(params), iterations, seed, {p.name: p.start for p in params})

    def done(self) -> bool:
        """Every iteration played."""
        return self.k > self.iterations

    def sides(self, k: int) -> tuple[list[int], dict[str, int], dict[str, int]]:
        """Iteration k's signs and the integer values of the plus and the minus engine."""
        d = signs(self.seed, k, len(self.params))
        plus, minus = {}, {}
        for param, sign in zip(self.params, d, strict=True):
            _, c_k = gains(param, k, self.iterations)
            theta = self.theta[param.name]
            plus[param.name] = round(clamp(param, theta + c_k * sign))
            minus[param.name] = round(clamp(param, theta - c_k * sign))
        return d, plus, minus

    def step(self, k: int, d: list[int], result: int) -> None:
        """Apply iteration k's pair result (W - L of the plus engine)."""
        for param, sign in zip(self.params, d, strict=True):
            a_k, c_k = gains(param, k, self.iterations)
            theta = self.theta[param.name] + a_k / c_k * result * sign
            self.theta[param.name] = clamp(param, theta)
        self.pairs[result + 2] += 1

    def values(self) -> dict[str, int]:
        """theta rounded: the values to use."""
        return {name: round(value) for name, value in self.theta.items()}

    def key(self) -> str:
        """What makes two runs the same run: parameters, length and seed."""
        text = json.dumps([[asdict(p) for p in self.params], self.iterations, self.seed])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_json(self) -> str:
        """The state as JSON (with its format version and key)."""
        data = asdict(self)
        data["version"] = STATE_VERSION
        data["key"] = self.key()
        return json.dumps(data, indent=1)

    @classmethod
    def from_json(cls, text: str) -> State:
        """A state read back; ValueError for a file that is not one."""
        try:
            data = json.loads(text)
            if data.pop("version") != STATE_VERSION:
                raise ValueError("another format version")
            data.pop("key", None)
            data["params"] = [Param(**p) for p in data["params"]]
            state = cls(**data)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ValueError(f"not an SPSA state file: {error}") from None
        return state

    def save(self, path: Path) -> None:
        """Write the state atomically (a stopped run never leaves half a file)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, self.to_json())


def engine_with(spec: EngineSpec, values: dict[str, int]) -> EngineSpec:
    """The engine set to `values`: ferz through FERZ_PARAMS, any other engine through UCI
    options of the same names (as OpenBench tunes engines)."""
    from dataclasses import replace

    if not spec.command:
        extra = ",".join(f"{name}={value}" for name, value in values.items())
        params = f"{spec.params},{extra}" if spec.params else extra
        return replace(spec, params=params)
    options = dict(spec.options)
    options.update({name: str(value) for name, value in values.items()})
    return replace(spec, options=options)


def pair_config(base: MatchConfig, state: State, k: int) -> tuple[MatchConfig, list[int]]:
    """Iteration k's game pair (plus engine as A) and its signs; the opening is drawn from the
    seed, so the same run plays the same pairs."""
    d, plus, minus = state.sides(k)
    opening = base.openings[random.Random(f"open:{state.seed}:{k}").randrange(len(base.openings))]
    spec = base.engines[0]
    engines = (engine_with(spec, plus), engine_with(spec, minus))
    config = MatchConfig(
        engines,
        base.variant,
        base.budget,
        base.adjudication,
        (opening,),
        2,
        base.grace,
        seed=base.seed,
    )
    return config, d


def pair_result(records: list[GameRecord]) -> tuple[int, int]:
    """(W - L of engine A over the pair, failures); an unfinished game counts as a draw."""
    points = sum(0.5 if (score := r.score_a()) is None else score for r in records)
    return round(2 * points) - 2, sum(1 for r in records if r.failed)


def ferz_names() -> set[str]:
    """The numbers FERZ_PARAMS can set."""
    from ..params import EVAL, SEARCH, TIME

    families = {f"drops.{name}" for name in (*SEARCH, *TIME)} | {f"palace.{n}" for n in SEARCH}
    return set(SEARCH) | set(TIME) | set(EVAL) | families
