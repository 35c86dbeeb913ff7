"""Every tunable number of search and evaluation, named, in one place.

The search reads SEARCH once when a Search is built; the evaluation reads EVAL and the tuned
block (KNOWN_VALUES, TERMS, KING_DANGER, PST) when it builds its tables for a variant.
tools/tune.py fits the tuned block to labelled positions (Texel tuning) and rewrites it in place;
EVAL holds the settings it leaves alone. Centipawns unless a comment says otherwise.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ferz.core.rules import Rules

# ---------------------------------------------------------------------------------------------
# Search
# ---------------------------------------------------------------------------------------------
SEARCH: dict[str, int] = {
    # aspiration windows around the previous iteration's score
    "aspiration_delta": 18,
    "aspiration_min_depth": 5,
    # null-move pruning: R = base + depth / div (+ 1 when eval is well above beta)
    "null_min_depth": 3,
    "null_base_reduction": 3,
    "null_depth_div": 4,
    "null_eval_div": 200,
    "null_verify_depth": 10,  # verify a null-move cutoff by a reduced search from this depth
    # reverse futility (static null move): eval - margin * depth >= beta; smaller margins or
    # deeper use cut away sacrifices (WAC at 200k nodes: 75/8 solved 272, 150/6 279)
    "rfp_max_depth": 6,
    "rfp_margin": 150,
    # razoring: eval + margin * depth < alpha at low depth drops into quiescence
    "razor_max_depth": 3,
    "razor_margin": 250,
    # futility pruning of quiet moves: eval + base + per_depth * depth <= alpha
    "futility_max_depth": 7,
    "futility_base": 80,
    "futility_per_depth": 90,
    # late move pruning: quiets after (base + depth^2) / (2 - improving) moves are skipped
    "lmp_max_depth": 8,
    "lmp_base": 3,
    "lmp_checks": 0,  # 1: late move pruning keeps the quiet moves that give check (DROPS)
    # late move reductions in plies: base / 100 + ln(depth) * ln(moves) / (div / 100), less
    # by lmr_check plies for a move that gives check
    "lmr_min_depth": 3,
    "lmr_base": 75,
    "lmr_div": 225,
    "lmr_history_div": 8192,
    "lmr_check": 1,
    # SEE thresholds for pruning in the main search (per depth)
    "see_quiet_margin": 60,
    "see_capture_margin": 30,
    "see_max_depth": 8,
    # internal iterative reduction: no TT move at this depth or more -> one ply less
    "iir_min_depth": 4,
    # quiescence delta pruning
    "delta_margin": 200,
    # lazy evaluation in quiescence: material this far above beta is a cutoff
    "lazy_margin": 400,
    # history heuristic bonus cap (per update) and the maximum absolute value
    "history_bonus_max": 1600,
    "history_max": 16384,
    # singular extension: a TT move at least this deep (TT depth >= depth - 3) whose score
    # stands `margin * depth` above every other move's (searched at half depth) gets a ply
    "se_min_depth": 6,
    "se_margin": 2,
    # correction history: the static eval moves by what searches found for the same pawn
    # structure, up to corr_limit / corr_div centipawns
    "corr_limit": 1024,
    "corr_div": 32,
    # how often (in nodes) the search polls the stop flag and node limit
    "poll_mask": 1023,
}

# ---------------------------------------------------------------------------------------------
# Time management (milliseconds unless said otherwise)
# ---------------------------------------------------------------------------------------------
TIME: dict[str, int] = {
    "move_overhead": 50,  # default of the Move Overhead option (Python and busy machines)
    "moves_to_go": 20,  # assumed remaining moves in sudden death (30: -30 Elo at 4+0.04)
    "optimum_percent": 100,  # soft limit = (time / mtg + inc * 3/4) * percent / 100
    "maximum_percent": 500,  # hard limit = soft limit * percent / 100, capped by the clock
    "maximum_share": 40,  # the hard limit never exceeds this share (%) of the clock
    "clock_share": 20,  # ... nor this share (%) of the clock after the move overhead
    "short_clock": 3000,  # below this clock the hard limit is at most twice the soft one
    "min_think": 5,
    # the soft limit scales with the search's stability (timeman.Stability): right after the
    # best move changed, and down by a step for each further iteration that kept it
    "unstable_percent": 130,
    "stable_step_percent": 10,
    "stable_min_percent": 70,
    "score_drop_percent": 50,  # + this % per 100 cp that the score fell since the last iteration
}

# Games with drops (shogi, crazyhouse, ...) use these SEARCH and TIME values in place of the
# tables' own: a drop can land anywhere, so static evaluation and quiescence see less of what
# threatens there, and the games run longer than chess's. Each entry is kept by an SPRT in drop
# games (docs/variants.md, "the rungs reached").
DROPS: dict[str, int] = {
    # a mate by a drop is a quiet move that the histories rarely put first (+60 Elo in shogi,
    # +48 in crazyhouse at 20 000 nodes)
    "lmp_checks": 1,
}


# Games whose royal piece keeps to a palace (xiangqi, janggi and their kin) use these SEARCH
# values: most of their games end in a mate or a stalemate, and a checking move is a quiet move
# as often as not (a chariot or a cannon's hop). Each entry is kept by an SPRT in xiangqi
# (docs/variants.md, "the rungs reached").
PALACE: dict[str, int] = {
    # the quiet checks are searched when late move pruning starts, as in drop games
    "lmp_checks": 1,
}


def values(table: dict[str, int], drops: bool, palace: bool = False) -> dict[str, int]:
    """SEARCH or TIME, with DROPS' values for its names in games with drops and PALACE's in
    games with a palace (search values only)."""
    out = table
    for family, applies in ((DROPS, drops), (PALACE, palace)):
        if applies:
            out = {**out, **{k: v for k, v in family.items() if k in table}}
    return out


def has_palace(rules: Rules) -> bool:
    """Whether a variant's royal piece keeps to a region of the board (a palace)."""
    return any(p.royal and p.region is not None for p in rules.pieces)


# ---------------------------------------------------------------------------------------------
# Evaluation settings (not fitted by the tuner)
# ---------------------------------------------------------------------------------------------
EVAL: dict[str, int] = {
    # values of pieces whose movement is not chess-like: base + per_move * average empty-board
    # reach (squares it moves to and squares it captures on, counted half each)
    "derived_base": 40,
    "derived_per_move": 36,
    "derived_eg_percent": 105,
    # square tables derived from mobility (pieces without a PST entry, boards other than 8 x 8):
    # cp per unit of extra empty-board mobility (leapers and kings) and per rank advanced (pawns)
    "pst_centre_mg": 4,
    "pst_centre_eg": 3,
    "pst_king_mg_edge": 10,  # a royal piece likes the edge/back rank in the middlegame
    "pst_king_eg_centre": 9,  # and the centre in the endgame
    "pst_pawn_advance_mg": 3,
    "pst_pawn_advance_eg": 7,
    "pst_pawn_centre_mg": 6,
    # game phase weight of a piece: its value divided by this (pawns and royals count 0)
    "phase_div": 100,
    # side to move bonus (kept out of tuning: labels carry a side-to-move bias)
    "tempo": 15,
    # endgame scaling (in 1/64ths): no pawns and little material, opposite bishops
    "scale_no_pawns_small": 8,
    "scale_opposite_bishops": 40,
    # mop-up: drive the lone king to the edge (or the right corner) and bring ours close
    "mopup_edge": 12,
    "mopup_close": 10,
    "mopup_corner": 40,  # per step from the long diagonal of the wrong corners (bishop + knight)
    "mopup_base": 600,
    # explosions (blastOnCapture, atomic): a capture on a square next to a royal piece blows
    # it up. The side to move that can make one wins at once; the side that faces one must
    # parry it (two or more are rarely parried by one move)
    "blast_win": 1000,
    "blast_threat": 150,  # per square next to the mover's royal piece it faces a capture on
    "blast_threats": 300,  # extra when there are two or more
}

# The tables keep their board layout:
# fmt: off
# BEGIN TUNED (tools/tune.py rewrites everything down to END TUNED)
# Piece values of chess-like movements, found by movement, never by variant name.
KNOWN_VALUES: dict[str, tuple[int, int]] = {
    "pawn": (80, 82),
    "knight": (323, 337),
    "bishop": (341, 360),
    "rook": (457, 620),
    "queen": (1155, 1000),
}

# Evaluation terms, (middlegame, endgame) in centipawns per unit of the term; tables are
# indexed by a count (mobility: squares reached) or a rank (0 = own first rank, scaled to
# 8 ranks on other boards).
TERMS: dict[str, tuple[int, int] | list[tuple[int, int]]] = {
    "mobility_knight": [
        (-32, -18), (-13, -6), (-3, 5), (0, 8), (9, 17), (12, 22), (14, 26),
        (20, 23), (15, 15),
    ],
    "mobility_bishop": [
        (-23, -41), (-12, -13), (-1, -8), (3, 0), (7, 14), (13, 24), (16, 23),
        (21, 26), (22, 25), (29, 24), (26, 27), (10, 30), (7, 34), (0, 40),
    ],
    "mobility_rook": [
        (-40, -49), (-28, -40), (-26, -22), (-23, -2), (-18, 0), (-14, 5), (-12, 12),
        (-1, 12), (-2, 22), (6, 26), (6, 31), (18, 29), (29, 27), (41, 25),
        (46, 33),
    ],
    "mobility_queen": [
        (-4, -32), (-6, -33), (-2, -34), (-1, -35), (-5, -32), (-5, -26), (-2, -20),
        (3, -20), (5, -7), (7, 7), (3, 19), (1, 31), (2, 44), (3, 50),
        (2, 51), (-2, 50), (2, 45), (12, 37), (19, 28), (24, 22), (29, 15),
        (31, 8), (29, 5), (26, 4), (25, 5), (26, 7), (26, 10), (26, 10),
    ],
    "mobility_other": (4, 4),
    "doubled": (-21, -4),
    "isolated": (-2, -12),
    "backward": (1, -20),
    "connected": [
        (5, -3), (4, -4), (12, 3), (12, 12), (18, 15), (40, 45), (48, 37), (47, 37),
    ],
    "passed": [
        (-4, 4), (-4, 3), (-8, 10), (2, 17), (11, 34), (19, 50), (33, 68), (34, 73),
    ],
    "passed_free": [
        (11, 2), (11, 2), (2, 1), (5, 16), (4, 30), (16, 50), (36, 71), (34, 70),
    ],
    "passed_own_king": (2, -4),
    "passed_their_king": (-3, 7),
    "candidate": [
        (0, 11), (0, 10), (11, 15), (9, 15), (17, 31), (26, 36), (25, 36), (25, 36),
    ],
    "bishop_pair": (25, 77),
    "rook_open": (27, 2),
    "rook_semiopen": (11, 14),
    "rook_seventh": (-3, 15),
    "outpost_leaper": (35, 24),
    "outpost_bishop": (34, 0),
    "minor_behind_pawn": (9, 7),
    "bad_bishop": (-2, -7),
    "threat_by_pawn": (40, 41),
    "threat_minor_on_rook": (42, 4),
    "threat_minor_on_queen": (22, 32),
    "threat_rook_on_queen": (44, 3),
    "hanging": (8, 7),
    "hanging_pawn": (-3, 24),
    "shield_near": (13, 1),
    "shield_far": (5, 2),
    "king_open_file": (-19, -1),
}

# King danger: a sum of these weights times their counts; the middlegame penalty is
# danger^2 / 4096 and the endgame penalty danger * danger_eg / 256 (danger > 0 only).
KING_DANGER: dict[str, int] = {
    "attacker_other": 0,
    "attacker_knight": 34,
    "attacker_bishop": 59,
    "attacker_rook": 65,
    "attacker_queen": -13,
    "zone_other": 60,
    "zone_knight": 79,
    "zone_bishop": 79,
    "zone_rook": 88,
    "zone_queen": 131,
    "check_other": 0,
    "check_knight": 46,
    "check_bishop": 14,
    "check_rook": 69,
    "check_queen": 119,
    "weak": -16,
    "no_queen": -119,
    "bias": 27,
    "danger_eg": -1,
}

# Square tables of chess-like movements on 8 x 8 boards (other boards derive theirs from
# mobility): centipawns added to the piece value, a1..h1 first, from White's side.
PST: dict[str, dict[str, list[int]]] = {
    "pawn": {
        "mg": [
              -3,   -3,    0,    6,    6,    0,   -3,   -3,
             -19,   -5,  -18,   -3,  -20,   13,   18,  -23,
             -20,  -21,  -10,  -15,  -14,   -4,    7,  -30,
             -20,   -8,    4,   19,    9,   17,    1,  -22,
               0,    2,    8,   29,   17,   18,   12,   -8,
              28,   19,    4,   50,   38,   44,   26,    3,
              64,   40,   24,   43,   34,   26,   47,  101,
              18,   18,   21,   27,   27,   21,   18,   18,
        ],
        "eg": [
              -7,   -7,   -7,   -7,   -7,   -7,   -7,   -7,
              18,   18,   11,    2,   33,   18,   10,   20,
              -5,   -5,    6,    9,    4,   10,    4,    3,
               1,    3,  -13,  -15,    6,    0,    5,    4,
               6,    3,    4,  -17,  -11,    4,    5,    6,
               0,   33,   43,   -6,   35,   11,   22,   45,
              41,  100,  119,   36,   40,   69,   77,    6,
              42,   42,   42,   42,   42,   42,   42,   42,
        ],
    },
    "knight": {
        "mg": [
             -29,  -16,  -28,    7,   -6,   -2,  -10,  -54,
             -65,  -13,  -20,    6,   11,    3,  -11,  -15,
             -26,  -21,    1,   27,   -5,   15,   27,   -6,
              -6,    8,   29,   22,   43,   25,    3,    9,
              19,   16,   25,   27,   29,   47,   29,   41,
            -109,   29,   63,   51,   90,   66,   39,   33,
             -19,  -33,   -3,    8,  -30,    4,  -43,  -44,
             -68,  -23,  -55,   11,   -4,  -15,  -23,  -73,
        ],
        "eg": [
             -23,  -17,   44,  -48,    5,  -38,  -23,  -35,
              15,   12,   26,   16,  -11,    2,   -1,   -2,
               7,   10,    7,    7,   26,   14,   -8,  -18,
              20,   34,   17,   27,   28,   23,   35,    4,
               4,   16,   23,   42,   49,   12,   26,   15,
             -38,  -32,   16,   12,    1,   10,   17,  -40,
             -43,  -12,    5,    8,   12,   -2,  -33,   14,
              -8,  -12,  -60,  -17,  -25,  -27,    9,  -56,
        ],
    },
    "bishop": {
        "mg": [
              28,   20,   -3,  -23,  -33,  -14,   -7,  -17,
              34,   18,   -3,    4,    5,   -8,   21,   -3,
               7,   -8,   30,   -2,   11,   16,   19,    2,
              -9,   -7,    9,    6,   20,   14,   17,   16,
             -22,   15,   12,   20,   24,   14,   12,    0,
             -22,  -27,  -41,   23,   51,   25,    1,   22,
             -28,    4,   11,  -22,   11,   17,  -19,  -76,
             -22,  -19,   -5,  -58,   -9,   -6,  -19,  -52,
        ],
        "eg": [
             -24,  -28,    1,   -3,   13,  -15,  -14,  -28,
             -59,  -13,    6,   -5,   -7,   -4,  -24,   37,
             -16,   -2,   13,   13,    8,  -11,    0,   -9,
             -29,   -5,   -2,   48,   17,   -4,   -3,  -24,
               0,   -1,    3,   33,    1,   18,  -15,  -14,
              -2,   21,   37,   -8,   -3,   25,    6,   -7,
              11,   22,  -16,   38,  -21,    2,   22,   42,
              17,   27,    5,   -2,   19,    0,   -7,   -1,
        ],
    },
    "rook": {
        "mg": [
             -13,   -7,    1,    6,    5,    4,  -17,  -11,
             -37,  -37,   -7,   -7,  -10,  -11,  -18,  -62,
             -19,    2,  -25,  -38,   -7,  -22,  -34,  -32,
             -25,  -35,  -15,    5,    4,    3,  -17,  -53,
             -47,  -18,    4,   32,    6,    3,  -18,  -19,
              41,   37,  -25,   57,   64,   19,   -5,   19,
               7,    3,   36,   39,   68,   49,  -18,   15,
              34,   18,   17,   25,   39,   35,  -11,    4,
        ],
        "eg": [
             -10,   -7,   -6,  -10,  -20,   -3,   -7,   -7,
              -3,   -6,  -16,   -5,  -17,  -12,   -8,    9,
              -9,  -19,   13,    0,  -13,   -3,   12,   -4,
               6,    1,   15,  -13,  -10,    4,    5,   20,
              17,   23,    0,   -5,   10,   -4,   -1,   16,
               7,   13,   11,   13,  -16,   11,   -5,    8,
               7,   16,    9,    9,   -6,   -3,    8,   14,
              15,    4,   17,    4,    7,   14,   21,    0,
        ],
    },
    "queen": {
        "mg": [
              -6,   -7,  -15,    5,   14,  -18,  -26,  -19,
               8,    5,    8,   15,   11,   20,    4,  -23,
             -14,    3,   -2,   -3,   -2,   -3,    9,  -10,
             -11,  -13,  -11,  -19,  -19,   12,  -22,  -12,
             -14,  -34,  -40,  -24,  -16,   33,    2,    1,
             -14,   -7,  -24,   58,   20,   41,   29,   34,
             -21,  -20,   33,   46,   23,  -16,    4,   17,
               8,   22,   27,   51,   30,    0,   36,  -16,
        ],
        "eg": [
             -53,  -18,  -46,  -73,  -83,  -18,  -30,  -40,
             -10,  -38,  -53,  -58,  -32,  -66,  -41,  -15,
             -33,  -52,    0,   10,   24,   43,   -1,   25,
              -8,  -22,    2,   41,   26,   31,   33,   26,
               5,   -3,   26,   44,   97,   16,    1,   70,
              11,   -9,   48,   15,   23,   27,   36,    4,
             -14,    9,   23,   25,   29,   35,    8,   -8,
             -22,   15,   28,   41,  -10,   12,   21,   10,
        ],
    },
    "king": {
        "mg": [
             -19,   31,   15,  -27,    1,  -31,   29,   10,
              34,  -37,   24,  -27,  -28,  -15,  -12,    1,
              29,   65,  -14,  -71, -102,  -30,   -5,  -72,
             -12,   -5,  -63,  -82,  -38,  -63,  -44,  -76,
             -48,  -11,  -70,  -32,  -50,  -90,  -56,  -54,
             -33,  -53,  -49,  -50, -102,  -36,  -46,  -67,
             -59,  -65,  -61,  -74,  -68,  -75,  -60,  -44,
             -68,  -71,  -70,  -82,  -79,  -80,  -57,  -58,
        ],
        "eg": [
             -47,  -25,  -29,  -28,  -25,  -17,  -33,  -39,
              -9,    3,   -7,  -18,  -13,   -5,   -8,  -31,
             -30,  -28,  -23,  -14,    0,   -7,   -8,   11,
             -23,  -19,   -8,    3,  -11,    9,    7,  -19,
               3,   -4,    4,    0,   -4,   -2,   20,  -24,
             -31,   12,   14,   -7,   13,    6,   -4,  -26,
             -56, -106,  -10,  -39,  -24,  -15,   -1,  -88,
            -109,  -32,  -38,  -27,   -6,  -25,   18,  -68,
        ],
    },
}
# END TUNED
# fmt: on


def _override(spec: str) -> None:
    """Change SEARCH, TIME or EVAL values from `name=value,name=value` (the FERZ_PARAMS
    environment variable: for experiments, such as a match of two settings, without editing
    this file); `drops.NAME=value` sets a search or time value for games with drops only
    (DROPS), `palace.NAME=value` a search value for games with a palace only (PALACE). An
    unknown name or a value that is not an integer is an error."""
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, _, value = item.partition("=")
        if name.startswith("drops."):
            name = name[len("drops.") :]
            table = DROPS if name in SEARCH or name in TIME else None
        elif name.startswith("palace."):
            name = name[len("palace.") :]
            table = PALACE if name in SEARCH else None
        else:
            table = next((t for t in (SEARCH, TIME, EVAL) if name in t), None)
        if table is None or not value.lstrip("-").isdigit():
            raise ValueError(f"FERZ_PARAMS: cannot set {item!r}")
        table[name] = int(value)


_override(os.environ.get("FERZ_PARAMS", ""))
