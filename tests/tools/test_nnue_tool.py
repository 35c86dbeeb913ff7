"""tools/nnue.py: `ferz datagen`'s Stockfish positions read by the trainer, and a trained
network that ferz reads and scores as the float model does (its worth is judged by matches)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from ferz.core import factory, nnue
from ferz.core.evaluate import Evaluator
from ferz.variants import get
from tests.programs import find, need_module
from tests.search.helpers import random_game

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import nnue as tool  # noqa: E402

STOCKFISH = find("stockfish")


@pytest.mark.e2e
@pytest.mark.programs("stockfish")
def test_stockfish_datagen_positions_are_quiet_and_read_by_the_trainer(tmp_path):
    """Every position `ferz datagen` keeps from Stockfish's games is legal and quiet, with a
    result and a score in range, and the trainer reads them all."""
    import chess

    need_module("numpy")
    from ferz.datagen.fileformat import read_chunk
    from ferz.datagen.generate import Recipe, dataset, generate

    out = tmp_path / "data"
    recipe = Recipe(engine=str(STOCKFISH), nodes=300, seed=5, chunk_games=3)
    progress = generate(recipe, 3, out, 2, report=lambda line: None)
    records = [r for path in dataset(out) for r in read_chunk(path)[1]]
    assert progress.positions == len(records) > 10
    for record in records:
        board = chess.Board(record.fen)
        assert board.is_valid() and not board.is_check()
        assert record.result in (-1, 0, 1) and abs(record.score) <= 3000
    data = tool.encode(tool.data_files([out]), "chess", cache=False)
    assert len(data["side"]) == len(records)


def test_trained_network_scores_like_the_float_model(tmp_path):
    """A short training run writes a network that loads, fits chess, and whose integer scores
    follow the float model's within the rounding of its weights."""
    torch = need_module("torch")
    import random

    rng = random.Random(3)
    lines = []
    for _ in range(60):
        *_, board = random_game(rng, rng.randint(4, 40))
        material = sum(
            {"P": 100, "N": 300, "B": 300, "R": 500, "Q": 900}.get(c.upper(), 0)
            * (1 if c.isupper() else -1)
            for c in board.fen().split()[0]
        )
        lines.append(f"{board.fen()};0.5;{material}")
    data = tmp_path / "data.txt"
    data.write_text("\n".join(lines) + "\n")
    out = tmp_path / "tiny.nnue"
    torch.manual_seed(1)
    stats = tool.train([data], out, "chess", 16, 2, 16, 30, 64, 0.01, 0.0, 400, 1)
    assert stats["positions"] == 60
    net = nnue.read(out)
    rules = get("chess")
    assert net.fits(rules) and net.hidden == 16 and net.buckets == 2
    ev = Evaluator(rules, net=net)
    pos = factory.position(rules, None, ev)
    errors = []
    for line in lines:
        fen = line.split(";")[0]
        pos.set_fen(fen)
        if pos.pcount[0] == 1 or pos.pcount[1] == 1:
            continue  # (a bare king is evaluated by hand)
        expected = tool.float_score(stats["model"], stats["layout"], pos, 16)
        # rounding the weights to 1/255 and 1/64 moves a score by a few centipawns; a
        # mistake in the inputs, the views or the output would move it by far more
        assert abs(ev.eval(pos) - expected) <= 15 + abs(expected) / 20, fen
        errors.append(abs(ev.eval(pos) - expected))
    assert sum(errors) / len(errors) < 5


def test_encoding_in_parallel_and_from_the_cache_gives_the_same_arrays(tmp_path):
    """Files encoded by two processes, or read back from their caches, give the arrays of one
    process in the files' order; a garbled line is skipped."""
    need_module("numpy")
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1;0.5;30\n"
        "8/8/4k3/8/8/4K3/4P3/8 w - - 0 1;1.0;250\n"
    )
    second.write_text("not a position;1.0;0\n4k3/8/8/8/8/8/8/R3K3 b - - 0 1;1.0;-900\n")
    one = tool.encode([first, second], "chess", cache=False, jobs=1)
    two = tool.encode([first, second], "chess", cache=True, jobs=2)
    cached = tool.encode([first, second], "chess", cache=True, jobs=2)
    assert len([p for p in tmp_path.glob("*.enc") if p.is_dir()]) == 2
    assert list(one["score"]) == [30.0, 250.0, -900.0]
    assert list(one["side"]) == [1, 0, 1]
    for key in tool.FIELDS:
        assert (one[key] == two[key]).all() and (one[key] == cached[key]).all(), key


def random_chunks(folder: Path, games: int, seed: int) -> list[Path]:
    """Chunks (.fzd) of the positions of random games, scored by material and a king that
    stays home (so that where the king stands matters), a chunk per 10 games."""
    from ferz.datagen.fileformat import TrainingRecord, write_chunk

    rng = random.Random(seed)
    values = {"P": 100, "N": 300, "B": 300, "R": 500, "Q": 900}
    paths, records = [], []
    for game in range(games):
        for ply, board in enumerate(random_game(rng, rng.randint(20, 70))):
            fen = board.fen()
            placement, side = fen.split()[:2]
            white = sum(values.get(c.upper(), 0) * (1 if c.isupper() else -1) for c in placement)
            ranks = placement.split("/")
            white += 40 * ("K" in ranks[7]) - 40 * ("k" in ranks[0])
            mover = white if side == "w" else -white
            records.append(TrainingRecord(fen, mover, 0, ply, game))
        if game % 10 == 9 or game == games - 1:
            path = folder / f"chunk-{len(paths):06d}.fzd"
            write_chunk(path, records, "chess", {"chunk": len(paths)})
            paths.append(path)
            records = []
    return paths


def test_king_bucket_training_writes_format_2_that_the_engine_scores_as_trained(tmp_path):
    """A tiny king-bucket training run on a few thousand positions of .fzd chunks writes a
    format 2 network; the engine's evaluation of it equals the same network computed from
    scratch (a check of the inputs, the king buckets and the cache) and follows the float
    model within the rounding of its weights; a run stopped and continued from its checkpoint
    writes the same weights as a run that was not stopped."""
    need_module("torch")
    need_module("numpy")
    chunks = random_chunks(tmp_path, 40, 11)
    settings = dict(
        variant="chess", hidden=16, buckets=2, bucket_div=16, epochs=2, batch=128, lr=0.01,
        result_weight=0.1, scale=400, seed=3, kings="k8", group=1000, save_every=4,
    )  # fmt: skip
    whole = tmp_path / "whole.nnue"
    stats = tool.train(chunks, whole, checkpoints=tmp_path / "a", **settings)
    assert stats["positions"] > 1500
    net = nnue.read(whole)
    assert int.from_bytes(whole.read_bytes()[8:12], "little") == 2
    assert net.nkings == 8 and net.mirror and net.fits(get("chess"))
    check = tool.agree(whole, stats["model"], stats["layout"], chunks, 200, "chess")
    assert check["positions"] == 200 and check["exact"] == 200
    assert check["beyond"] == 0 and check["mean"] < 8
    assert_continues_as_if_never_stopped(tmp_path, chunks, settings, net, steps=7)


def assert_continues_as_if_never_stopped(tmp_path, chunks, settings, net, steps: int) -> None:
    """A run of `settings` stopped after `steps` steps, then continued from its checkpoint,
    writes the weights of `net`, the same run not stopped."""
    resumed = tmp_path / "resumed.nnue"
    first = tool.train(chunks, resumed, checkpoints=tmp_path / "b", max_steps=steps, **settings)
    assert first["stopped"] and not resumed.exists()
    (checkpoint,) = (tmp_path / "b").glob("resumed-*/checkpoint.pt")
    tool.train(chunks, resumed, checkpoints=tmp_path / "b", **settings)
    again = nnue.read(resumed)
    for name in ("ft_w", "ft_b", "out_w", "out_b"):
        assert list(getattr(again, name)) == list(getattr(net, name)), name


def test_a_stopped_run_with_mirrored_halves_continues_as_if_never_stopped(tmp_path):
    """Without king buckets a random half of each batch is mirrored by a seeded generator,
    whose state the checkpoint keeps: stopped and continued, the run writes the same weights
    as one that was not stopped."""
    need_module("torch")
    need_module("numpy")
    chunks = random_chunks(tmp_path, 30, 5)
    settings = dict(
        variant="chess", hidden=16, buckets=2, bucket_div=16, epochs=2, batch=64, lr=0.01,
        result_weight=0.1, scale=400, seed=4, kings="none", group=500, save_every=3,
    )  # fmt: skip
    whole = tmp_path / "whole.nnue"
    tool.train(chunks, whole, checkpoints=tmp_path / "a", **settings)
    assert_continues_as_if_never_stopped(tmp_path, chunks, settings, nnue.read(whole), steps=11)


def variant_lines(variant: str, games: int, seed: int) -> list[str]:
    """`FEN;result;score` lines of random games of a variant, scored by material with the
    pieces in hand (drop games) worth more than on the board (so that the hands matter)."""
    from ferz.core.position import Position

    rules = get(variant)
    worth = [0 if p.royal else 100 + 60 * len(p.atoms) % 700 for p in rules.pieces]
    rng = random.Random(seed)
    pos = Position(rules)
    lines = []
    for _ in range(games):
        pos.set_fen(rules.start_fen)
        for _ in range(rng.randint(10, 50)):
            moves = pos.legal_moves()
            if not moves:
                break
            pos.make(rng.choice(moves))
            white = 0
            for p in range(2, pos.npc):
                sign = 1 if p & 1 == 0 else -1
                white += sign * worth[(p >> 1) - 1] * (pos.count[p] + 2 * pos.hand[p])
            lines.append(f"{pos.fen()};{rng.choice((0.0, 0.5, 1.0))};{white}")
    return lines


@pytest.mark.parametrize(("variant", "kings"), [("crazyhouse", "k8"), ("shogi", "none")])
def test_drop_game_training_writes_hand_inputs_that_the_engine_scores_as_trained(
    tmp_path, variant, kings
):
    """Two passes over a few hundred positions of a drop game write a format 3 network with
    hand inputs (caps from the rules); the engine's evaluation of it equals the network
    computed from scratch by the trainer's own inputs (the pocket read by ferz's FEN reader)
    on every position and follows the float model; `check` runs on the same data."""
    need_module("torch")
    need_module("numpy")
    data = tmp_path / "data.txt"
    data.write_text("\n".join(variant_lines(variant, 14, 5)) + "\n")
    out = tmp_path / f"{variant}.nnue"
    stats = tool.train(
        [data], out, variant, 16, 2, 16, 2, 64, 0.01, 0.1, 400, 3, kings=kings, cache=False
    )
    assert 300 < stats["positions"] < 800
    assert int.from_bytes(out.read_bytes()[8:12], "little") == 3
    net = nnue.read(out)
    rules = get(variant)
    assert net.fits(rules) and net.hands == tool.hand_caps(rules)
    assert (net.nkings == 8 and net.mirror) if kings == "k8" else not net.kings
    check = tool.agree(out, stats["model"], stats["layout"], [data], 300, variant)
    assert check["positions"] == check["exact"] == 300 and check["beyond"] == 0
    errors = tool.check(out, data, 100, variant)
    assert 0 <= errors["network"] < 0.25 and 0 <= errors["hand-made"] < 0.25


def test_hand_caps_inputs_and_mirroring_of_drop_games():
    """Each type's cap is as many as one hand can hold (crazyhouse's promoted pieces return
    as pawns, kings never; seirawan's hands only what they start with); a FEN's pocket gives
    one input per piece up to its cap, own hand first; mirroring moves board inputs only, and
    is off for rules that are not left-right symmetric."""
    need_module("torch")
    from ferz.core.position import Position

    assert tool.hand_caps(get("chess")) == []
    assert tool.hand_caps(get("crazyhouse")) == [16, 4, 4, 4, 2, 0, 0, 0, 0, 0]
    assert tool.hand_caps(get("crazyhouse"), 8)[0] == 8
    assert tool.hand_caps(get("seirawan")) == [0, 0, 0, 0, 0, 0, 1, 1]
    assert tool.hand_caps(get("shogi"))[:3] == [16, 4, 4]  # pawns, silvers, golds
    assert tool.input_width(get("shogi"), tool.hand_caps(get("shogi"))) == 40
    rules = get("crazyhouse")
    base = tool.Inputs(rules, tool.hand_caps(rules))
    pos = Position(rules)
    pos.set_fen("4k3/8/8/8/8/8/8/4K3[PPPQp] b - - 0 1")
    white, black = base.of(pos)
    hand = [f - base.nfeat for f in white[2:]]
    # by piece code: White's pawns (own P >= 1, 2, 3), Black's pawn (enemy P >= 1: the enemy
    # block starts after the 30 own inputs), White's queen (own Q >= 1: after 16 + 4 + 4 + 4)
    assert hand == [0, 1, 2, 30, 28]
    assert [f - base.nfeat for f in black[2:]] == [30, 31, 32, 0, 30 + 28]
    layout = tool.Layout(rules, None, hands=base.caps)
    flip = tool.mirror_table(layout)
    assert flip[base.nfeat :].tolist() == list(range(base.nfeat, base.pad + 1))
    assert flip[0].item() == 7  # a white pawn on a1 -> h1
    for variant in ("chess", "shogi", "xiangqi", "crazyhouse", "makruk", "janggi"):
        assert tool.symmetric(get(variant)), variant
    assert not tool.symmetric(get("cambodian"))
    assert tool.mirror_table(tool.Layout(get("cambodian"), None)) is None
    assert not tool.Layout(get("cambodian"), [0] * 64).mirror


def test_palace_king_buckets_for_xiangqi(tmp_path):
    """--kings palace gives xiangqi a bucket per palace square, mirror images sharing one (6),
    and a network trained with it scores in the engine as the trainer computes it; a variant
    whose king roams has no palace layout."""
    need_module("torch")
    need_module("numpy")
    rules = get("xiangqi")
    kings = tool.king_map("palace", 9, 10, rules)
    assert max(kings) == 5 and kings[4] == 1 and kings[3] == kings[5] == 0
    assert kings[9 + 3] == kings[9 + 5] == 2 and kings[2 * 9 + 4] == 5
    with pytest.raises(ValueError, match="no royal piece confined"):
        tool.king_map("palace", 9, 9, get("shogi"))
    net = trained(tmp_path, "xiangqi", "palace")
    assert net.nkings == 6 and net.mirror and not net.hands and net.fits(rules)


def test_zones_king_buckets_for_any_board(tmp_path):
    """--kings zones draws 6 buckets on any board (back-rank corner, next file and centre;
    second-rank edge and centre; the rest), left and right alike; a shogi network trained with
    them and its hands scores in the engine as the trainer computes it."""
    need_module("torch")
    need_module("numpy")
    kings = tool.king_map("zones", 9, 9, get("shogi"))
    assert kings[:9] == [0, 1, 2, 2, 2, 2, 2, 1, 0]
    assert kings[9:18] == [3, 3, 4, 4, 4, 4, 4, 3, 3] and set(kings[18:]) == {5}
    assert tool.king_map("zones", 10, 8)[:10] == [0, 1, 2, 2, 2, 2, 2, 2, 1, 0]
    net = trained(tmp_path, "shogi", "zones", version=3)
    assert net.nkings == 6 and net.mirror and net.hands and net.fits(get("shogi"))


def trained(tmp_path: Path, variant: str, kings: str, version: int = 2) -> nnue.Network:
    """A small network of a variant trained with these king buckets, checked to score in the
    engine exactly as the trainer's integer model does."""
    data = tmp_path / "data.txt"
    data.write_text("\n".join(variant_lines(variant, 8, 2)) + "\n")
    out = tmp_path / f"{variant}.nnue"
    stats = tool.train(
        [data], out, variant, 16, 2, 16, 2, 64, 0.01, 0.1, 400, 3, kings=kings, cache=False
    )
    check = tool.agree(out, stats["model"], stats["layout"], [data], 200, variant)
    assert check["positions"] == check["exact"] > 100 and check["beyond"] == 0
    assert out.read_bytes()[8] == version  # the format (the version after the magic)
    return nnue.read(out)


def test_networks_without_king_buckets_have_the_finer_output_scale(tmp_path):
    """--kings none keeps format 1's inputs but writes the output weights at qb 256 (format
    2's scale, a format 2 file without king buckets), and the engine scores it as trained."""
    need_module("torch")
    need_module("numpy")
    net = trained(tmp_path, "xiangqi", "none")
    assert net.qb == 256 and not net.kings and net.fits(get("xiangqi"))


@pytest.mark.parametrize(
    ("variant", "kings"), [("chess", "k8"), ("chess", "none"), ("crazyhouse", "k8")]
)
def test_the_fast_backward_gives_autograds_gradients(variant, kings):
    """A step's gradients through FeatureSum (the rows' gradients as bag sums by input, then
    summed over king buckets and squares for the factorisers) equal autograd's through
    EmbeddingBag on the merged table, for every parameter."""
    torch = need_module("torch")
    np = need_module("numpy")
    rules = get(variant)
    layout = tool.Layout(rules, tool.king_map(kings, 8, 8), hands=tool.hand_caps(rules))
    torch.manual_seed(1)
    model = tool.build_model(layout, 16, 2)
    rng = np.random.default_rng(0)
    rows = rng.integers(0, layout.ninputs + 1, (60, 12)).astype(layout.dtype)
    bucket = torch.from_numpy(rng.integers(0, 2, 30))
    target = torch.rand(30)
    grads = []
    for fast in (False, True):
        model.zero_grad(set_to_none=True)
        plans = tool.plan(rows, layout.ninputs + 1) if fast else None
        out = model(torch.from_numpy(rows.astype(np.int64)), bucket, plans)
        ((torch.sigmoid(out) - target) ** 2).mean().backward()
        grads.append({k: p.grad.clone() for k, p in model.named_parameters()})
    for name, grad in grads[0].items():
        assert torch.allclose(grad, grads[1][name], rtol=1e-5, atol=1e-8), name


@pytest.mark.parametrize("source", ["shipped", "format 1"])
def test_training_goes_on_from_a_shipped_network(tmp_path, source):
    """--init starts from a network's weights: written after no step, the shipped chess
    network, or a format 1 file (output weights at qb 64, written again at the finer qb 256),
    scores every position as its file does; a network of another shape is refused with the
    option that differs."""
    need_module("torch")
    need_module("numpy")
    shipped = ROOT / "ferz" / "nets" / "chess.nnue"
    if source == "format 1":
        from tests.search.test_nnue import random_net

        shipped = random_net(
            tmp_path / "chess-1x.nnue", hidden=256, buckets=8, bucket_div=4, name="chess-1x"
        )
        assert int.from_bytes(shipped.read_bytes()[8:12], "little") == 1
    rng = random.Random(4)
    fens = [list(random_game(rng, rng.randint(4, 60)))[-1].fen() for _ in range(30)]
    data = tmp_path / "data.txt"
    data.write_text("".join(f"{fen};0.5;0\n" for fen in fens))
    out = tmp_path / "again.nnue"
    settings = dict(variant="chess", hidden=256, buckets=8, bucket_div=4, batch=64, lr=0.01)
    settings |= dict(result_weight=0.1, scale=400, seed=1, cache=False)
    tool.train([data], out, epochs=0, kings="none", init=shipped, **settings)
    again, original = nnue.read(out), nnue.read(shipped)
    name = "chess-6a" if source == "shipped" else "chess-1x"
    assert again.qb == 256 and f"from {name}" in again.header["trained"]
    rules = get("chess")
    new, old = Evaluator(rules, net=again), Evaluator(rules, net=original)
    a, b = factory.position(rules, None, new), factory.position(rules, None, old)
    for fen in fens:
        a.set_fen(fen)
        b.set_fen(fen)
        assert new.eval(a) == old.eval(b), fen
    with pytest.raises(ValueError, match="no king buckets"):
        tool.train([data], out, epochs=0, kings="k8", init=shipped, **settings)
    with pytest.raises(ValueError, match="not --hidden 128"):
        tool.train(
            [data], out, epochs=0, kings="none", init=shipped, **(settings | {"hidden": 128})
        )


def fine_tune_setup(tmp_path: Path, seed: int) -> tuple[Path, dict]:
    """A text file of 60 random chess positions with random results and scores, and train()'s
    settings for a fine-tune of the shipped chess network on it."""
    rng = random.Random(seed)
    lines = []
    for _ in range(60):
        fen = list(random_game(rng, rng.randint(4, 40)))[-1].fen()
        lines.append(f"{fen};{rng.choice((0, 0.5, 1))};{rng.randint(-300, 300)}\n")
    data = tmp_path / "data.txt"
    data.write_text("".join(lines))
    settings = dict(variant="chess", hidden=256, buckets=8, bucket_div=4, batch=16, lr=0.01)
    settings |= dict(result_weight=0.1, scale=400, seed=1, cache=False, kings="none")
    return data, settings


def test_training_the_output_layer_only_keeps_every_inputs_weights(tmp_path):
    """--layers output: a pass over a few positions from the shipped chess network changes its
    output weights and not one weight of its inputs; without --init it is refused."""
    need_module("torch")
    need_module("numpy")
    shipped = ROOT / "ferz" / "nets" / "chess.nnue"
    data, settings = fine_tune_setup(tmp_path, 6)
    out = tmp_path / "output.nnue"
    tool.train([data], out, epochs=1, init=shipped, layers="output", **settings)
    new, old = nnue.read(out), nnue.read(shipped)
    assert list(new.ft_w) == list(old.ft_w) and list(new.ft_b) == list(old.ft_b)
    assert list(new.out_w) != [w * new.qb // old.qb for w in old.out_w]
    assert "output layer only" in new.header["trained"]
    with pytest.raises(ValueError, match="give --init"):
        tool.train([data], out, epochs=1, layers="output", **settings)


def test_a_lower_input_rate_moves_the_inputs_less(tmp_path):
    """--input-lr 0.1: a pass from the shipped chess network moves the inputs' weights, by less
    than at the full rate, and the header says so; a factor outside (0, 1] or beside --layers
    output is refused."""
    need_module("torch")
    need_module("numpy")
    shipped = ROOT / "ferz" / "nets" / "chess.nnue"
    data, settings = fine_tune_setup(tmp_path, 7)
    old = nnue.read(shipped)
    moved = {}
    for factor in (1.0, 0.1):
        out = tmp_path / f"inputs-{factor}.nnue"
        tool.train([data], out, epochs=1, init=shipped, input_lr=factor, **settings)
        new = nnue.read(out)
        moved[factor] = sum(abs(a - b) for a, b in zip(new.ft_w, old.ft_w, strict=True))
        assert list(new.out_w) != [w * new.qb // old.qb for w in old.out_w]
    assert 0 < moved[0.1] < moved[1.0] / 3
    assert "inputs at 0.1 of the rate" in new.header["trained"]
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match="--input-lr"):
            tool.train([data], out, epochs=1, init=shipped, input_lr=bad, **settings)
    with pytest.raises(ValueError, match="--input-lr"):
        tool.train([data], out, epochs=1, init=shipped, input_lr=0.5, layers="output", **settings)


def datagen_folder(folder: Path, games: int, seed: int) -> Path:
    """A `ferz datagen` directory of random games (random_chunks) with its manifest and a
    recipe of that seed."""
    import json

    folder.mkdir()
    chunks = random_chunks(folder, games, seed)
    listed = [
        {"file": path.name, "first_game": 10 * i, "games": 10, "positions": 1}
        for i, path in enumerate(chunks)
    ]
    (folder / "manifest.json").write_text(json.dumps({"chunks": listed, "format": 1}))
    recipe = {"engine": "/usr/games/test", "variant": "chess", "nodes": 400, "seed": seed}
    made = {"recipe": recipe | {"chunk_games": 10}, "engine": {"id": "Test 15"}}
    (folder / "recipe.json").write_text(json.dumps(made))
    return folder


@pytest.mark.slow
def test_the_ledger_refuses_data_an_init_network_has_seen(tmp_path):
    """train writes what it read (recipe, chunk and game ranges) into its training record, the
    network's ledger entry; with that entry in the ledger, going on from the network with any
    of those games is refused (a warning with allow_seen), with other games or another seed it
    is not."""
    import json

    need_module("torch")
    need_module("numpy")
    first = datagen_folder(tmp_path / "s1", 30, 1)
    other = datagen_folder(tmp_path / "s2", 10, 2)
    chunks = sorted(first.glob("chunk-*.fzd"))
    settings = dict(variant="chess", hidden=8, buckets=2, bucket_div=16, batch=256, lr=0.01)
    settings |= dict(result_weight=0.1, scale=400, seed=1, kings="none", epochs=1)
    net = tmp_path / "first.nnue"
    tool.train(chunks[:2], net, checkpoints=tmp_path / "ck", command=["train"], **settings)
    (record,) = (tmp_path / "ck").glob("first-*/training.json")
    entry = json.loads(record.read_text())
    (read,) = entry["data"]
    assert read["chunks"] == [0, 2] and read["games"] == [0, 20]
    assert read["recipe"] == {
        "engine": "Test 15", "variant": "chess", "nodes": 400, "seed": 1, "chunk_games": 10,
    }  # fmt: skip
    ledger = tmp_path / "ledger.json"
    ledger.write_text(json.dumps({"networks": [entry]}))
    go_on = dict(init=net, ledger=ledger, **settings)
    with pytest.raises(ValueError, match="games 10-19"):
        tool.train(chunks[1:], tmp_path / "again.nnue", **go_on)
    tool.train(chunks[1:], tmp_path / "again.nnue", allow_seen=True, **go_on)
    tool.train(chunks[2:], tmp_path / "later.nnue", **go_on)
    tool.train([other], tmp_path / "other.nnue", **go_on)


def test_the_ledger_names_every_shipped_network():
    """ferz/nets/ledger.json has an entry for each network file in ferz/nets, by its SHA-256,
    with the data it was trained on."""
    import hashlib
    import json

    ledger = json.loads((ROOT / "ferz" / "nets" / "ledger.json").read_text())
    entries = {entry["file"]: entry for entry in ledger["networks"]}
    for path in sorted((ROOT / "ferz" / "nets").glob("*.nnue")):
        entry = entries[f"ferz/nets/{path.name}"]
        assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest(), path.name
        assert entry["data"] and entry["training"], path.name


def test_network_inputs_from_the_table_equal_the_computed_ones():
    """Layout.rows reads each view's inputs from its table by (king square, base input): the
    same inputs as computed one by one (bucket block, mirroring, hands after the blocks, the
    padding), kings -1 included, on every kind of king layout."""
    np = need_module("numpy")
    need_module("torch")
    cases = [("chess", "k8"), ("crazyhouse", "k8"), ("shogi", "zones"), ("xiangqi", "palace")]
    for variant, kings in cases:
        rules = get(variant)
        layout = tool.Layout(
            rules,
            tool.king_map(kings, rules.files, rules.ranks, rules),
            hands=tool.hand_caps(rules),
        )
        rng = np.random.default_rng(1)
        views = rng.integers(0, layout.nbase + 1, (500, 32)).astype(np.int16)
        squares = rng.integers(-1, layout.area, 500).astype(np.int16)
        got = layout.rows(views, squares)
        assert got.dtype == layout.dtype, variant
        assert (got == layout._computed(views, squares)).all(), variant


def test_check_measures_the_side_to_moves_offset_and_train_takes_it_off(tmp_path):
    """Scores 40 cp above the shipped chess network for the side to move: `check` says so; the
    targets that `--stm-offset 40` trains on are those of the scores 40 cp lower, the side to
    move's view."""
    need_module("numpy")
    import numpy as np

    shipped = ROOT / "ferz" / "nets" / "chess.nnue"
    rules = get("chess")
    ev = Evaluator(rules, net=nnue.read(shipped))
    pos = factory.position(rules, None, ev)
    rng = random.Random(8)
    lines = []
    for _ in range(40):
        fen = list(random_game(rng, rng.randint(4, 40)))[-1].fen()
        pos.set_fen(fen)
        stm = ev.eval(pos) + 40
        if abs(stm) < 1000:
            lines.append(f"{fen};0.5;{stm if pos.side == 0 else -stm}\n")
    data = tmp_path / "data.txt"
    data.write_text("".join(lines))
    assert tool.check(shipped, data, 100, "chess")["offset"] == 40
    arrays = tool.encode_file(data, "chess", cache=False)
    layout = tool.Layout(rules, None)
    plain, shifted = (tool.prepare(arrays, layout, 0.0, 4, 8, off) for off in (0, 40))

    def centipawns(target):
        """The score whose expected result a target is."""
        return 400 * np.log(target / (1 - target))

    assert np.allclose(centipawns(shifted["target"]), centipawns(plain["target"]) - 40, atol=0.05)
