"""Every tunable number of search and evaluation, named, in one place.

The search reads SEARCH once when a Search is built; the evaluation reads EVAL and the tuned
block (KNOWN_VALUES, TERMS, KING_DANGER, PST) when it builds its tables for a variant.
tools/tune.py fits the tuned block to labelled positions (Texel tuning) and rewrites it in place;
EVAL holds the settings it leaves alone. Centipawns unless a comment says otherwise.
"""

from __future__ import annotations

import os

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
    # late move pruning: quiets after (base + depth^2) / div moves are skipped
    "lmp_max_depth": 8,
    "lmp_base": 3,
    # late move reductions: r = (base + ln(depth) * ln(moves) * 100 / div) / 100
    "lmr_min_depth": 3,
    "lmr_base": 75,
    "lmr_div": 225,
    "lmr_history_div": 8192,
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
    "se_min_depth": 8,
    "se_margin": 2,
    # how often (in nodes) the search polls the stop flag and node limit
    "poll_mask": 1023,
}

# ---------------------------------------------------------------------------------------------
# Time management (milliseconds unless said otherwise)
# ---------------------------------------------------------------------------------------------
TIME: dict[str, int] = {
    "move_overhead": 50,  # default of the Move Overhead option (Python and busy machines)
    "moves_to_go": 30,  # assumed remaining moves in sudden death
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
    "pawn": (74, 70),
    "knight": (336, 329),
    "bishop": (335, 349),
    "rook": (437, 622),
    "queen": (1109, 1019),
}

# Evaluation terms, (middlegame, endgame) in centipawns per unit of the term; tables are
# indexed by a count (mobility: squares reached) or a rank (0 = own first rank, scaled to
# 8 ranks on other boards).
TERMS: dict[str, tuple[int, int] | list[tuple[int, int]]] = {
    "mobility_knight": [
        (-28, -10), (-11, -3), (-3, 6), (0, 5), (10, 13), (13, 20), (15, 25),
        (20, 17), (19, 11),
    ],
    "mobility_bishop": [
        (-24, -34), (-14, -8), (-5, -8), (-3, -4), (3, 6), (9, 18), (13, 15),
        (18, 22), (24, 23), (26, 24), (29, 31), (15, 32), (13, 36), (8, 39),
    ],
    "mobility_rook": [
        (-49, -28), (-35, -27), (-29, -20), (-25, 1), (-21, 0), (-16, 8), (-12, 11),
        (-3, 8), (-1, 19), (7, 22), (9, 21), (21, 25), (31, 23), (40, 20),
        (44, 28),
    ],
    "mobility_queen": [
        (-8, -27), (-10, -27), (-5, -28), (-6, -31), (-8, -30), (-9, -27), (-5, -26),
        (1, -24), (-1, -13), (5, 0), (-1, 12), (-1, 25), (-3, 37), (2, 43),
        (4, 41), (1, 33), (7, 31), (14, 24), (18, 20), (21, 20), (25, 20),
        (27, 20), (26, 20), (25, 20), (26, 21), (27, 23), (28, 25), (29, 26),
    ],
    "mobility_other": (4, 4),
    "doubled": (-13, 0),
    "isolated": (-6, -7),
    "backward": (0, -18),
    "connected": [
        (7, 0), (7, -1), (10, 4), (10, 15), (13, 12), (35, 42), (39, 44), (37, 41),
    ],
    "passed": [
        (-1, 10), (-1, 11), (-8, 21), (-3, 29), (2, 49), (22, 77), (42, 105), (44, 113),
    ],
    "passed_free": [
        (10, 0), (11, 0), (1, 6), (5, 17), (5, 32), (9, 51), (20, 66), (18, 66),
    ],
    "passed_own_king": (2, -4),
    "passed_their_king": (-4, 7),
    "candidate": [
        (2, 18), (2, 20), (14, 24), (14, 21), (18, 30), (23, 35), (22, 36), (22, 37),
    ],
    "bishop_pair": (43, 68),
    "rook_open": (26, 7),
    "rook_semiopen": (11, 13),
    "rook_seventh": (6, 15),
    "outpost_leaper": (45, 18),
    "outpost_bishop": (28, 10),
    "minor_behind_pawn": (11, 5),
    "bad_bishop": (-2, -5),
    "threat_by_pawn": (40, 43),
    "threat_minor_on_rook": (27, 5),
    "threat_minor_on_queen": (17, 11),
    "threat_rook_on_queen": (30, 11),
    "hanging": (12, 5),
    "hanging_pawn": (-3, 26),
    "shield_near": (13, 2),
    "shield_far": (6, 3),
    "king_open_file": (-22, -1),
}

# King danger: a sum of these weights times their counts; the middlegame penalty is
# danger^2 / 4096 and the endgame penalty danger * danger_eg / 256 (danger > 0 only).
KING_DANGER: dict[str, int] = {
    "attacker_other": 0,
    "attacker_knight": 17,
    "attacker_bishop": 20,
    "attacker_rook": 23,
    "attacker_queen": -4,
    "zone_other": 60,
    "zone_knight": 79,
    "zone_bishop": 94,
    "zone_rook": 106,
    "zone_queen": 156,
    "check_other": 0,
    "check_knight": 19,
    "check_bishop": 3,
    "check_rook": 25,
    "check_queen": 80,
    "weak": -24,
    "no_queen": -57,
    "bias": 13,
    "danger_eg": 1,
}

# Square tables of chess-like movements on 8 x 8 boards (other boards derive theirs from
# mobility): centipawns added to the piece value, a1..h1 first, from White's side.
PST: dict[str, dict[str, list[int]]] = {
    "pawn": {
        "mg": [
              -3,   -3,    0,    6,    6,    0,   -3,   -3,
             -10,  -15,  -20,  -11,  -22,    8,   14,  -11,
             -10,  -20,   -2,   -7,  -13,   -1,   11,  -20,
             -10,   -7,   12,   21,   12,   18,   13,  -16,
               5,   16,    5,   37,   20,   20,   23,    9,
              14,   35,   10,   19,   26,   48,   19,   -4,
              45,   25,   15,   21,   31,   -1,   61,   86,
              18,   18,   21,   27,   27,   21,   18,   18,
        ],
        "eg": [
              -7,   -7,   -7,   -7,   -7,   -7,   -7,   -7,
              14,   21,   22,    1,   29,   31,   15,   13,
              -3,   -7,   18,   -2,    6,   15,   13,    1,
               2,    9,  -11,  -17,    8,   10,   11,   13,
               9,    7,   17,  -12,   -3,   20,   13,    6,
               8,   28,   33,  -18,   36,   -7,    2,   30,
              36,   86,  100,   42,   34,   43,   62,   23,
              42,   42,   42,   42,   42,   42,   42,   42,
        ],
    },
    "knight": {
        "mg": [
             -20,  -17,  -23,  -14,   -7,   16,  -13,    5,
             -67,  -13,  -31,    2,   10,    2,  -21,  -27,
             -28,  -26,   -3,   21,  -16,   12,   26,  -12,
               0,    2,   29,   13,   42,   21,    6,   10,
              37,   15,   11,   13,   28,   32,   23,   49,
             -76,   19,   45,   36,   78,   55,   23,   23,
             -21,  -22,   -1,  -10,   -4,  -15,  -29,  -38,
             -19,  -11,  -26,    3,    3,  -15,  -20,  -65,
        ],
        "eg": [
             -16,  -27,   27,  -23,    8,  -18,  -35,  -24,
               1,    9,   45,   23,  -22,   -8,   -4,   -7,
               1,   -2,    7,   -3,   38,    8,  -19,  -15,
              24,   38,   10,   32,    9,   22,   41,   -1,
               2,  -12,    7,   62,   39,   12,   38,   11,
             -28,  -30,   34,   10,    0,    6,   27,  -18,
             -49,  -26,   -9,   -7,   10,   -4,  -41,   18,
               3,   -5,  -50,  -17,  -16,  -13,   -5,  -37,
        ],
    },
    "bishop": {
        "mg": [
              -5,   30,   -9,  -23,  -11,  -12,   -7,  -32,
               6,   19,  -10,   -4,    6,  -21,   24,  -14,
              -3,   -7,   28,    1,    6,   14,   31,    3,
             -16,    1,    1,    8,   26,    9,   19,    7,
             -13,   25,    3,   19,   19,   23,    5,  -12,
             -25,  -15,  -54,   14,   35,   18,   22,   10,
               0,    8,   16,   -3,    2,    6,  -12,  -70,
             -18,   -9,   -3,  -30,   -4,   -3,  -17,  -30,
        ],
        "eg": [
              -6,  -22,   11,   -6,   14,  -12,   -2,  -29,
             -41,  -17,   27,    2,  -14,   -3,  -15,   17,
               0,    5,    4,    8,   10,  -14,  -11,    4,
              -5,   -2,    2,   46,   20,    0,  -10,  -25,
             -11,  -33,   12,   34,    3,   -6,  -19,  -22,
              -6,   10,   33,   -9,   -5,   24,   22,    8,
              11,   24,  -27,   33,  -17,  -11,  -18,   43,
               2,   30,   14,  -13,   28,   10,   10,  -21,
        ],
    },
    "rook": {
        "mg": [
             -22,  -16,    9,   -1,    8,   -4,  -10,  -11,
             -41,  -38,  -20,   13,   -3,   13,    1,  -46,
             -26,   15,    1,  -35,  -13,   -4,  -24,  -33,
             -11,  -34,   22,    8,   11,  -10,  -24,  -49,
             -41,    0,   25,   33,   22,  -13,  -48,  -13,
              44,   26,  -30,   45,   35,   23,  -15,   22,
              12,   11,   15,   36,   27,   25,   -6,   10,
              19,   17,   15,   22,    9,   21,  -16,    1,
        ],
        "eg": [
              -2,    0,  -15,   -4,  -13,   10,   -7,    5,
               2,    3,  -14,   -8,  -16,  -10,   -5,  -10,
             -21,  -38,   -4,   -1,  -19,   -7,   17,   -4,
             -10,   -6,   -3,  -16,  -12,    0,   -5,   31,
              29,   13,   -5,   -2,    6,   -6,    8,   27,
               4,   22,   11,   24,  -13,   10,   -6,   -3,
               3,   34,   20,   23,   -7,   -1,    5,   32,
               1,    2,   18,   19,  -18,   26,   11,    7,
        ],
    },
    "queen": {
        "mg": [
              27,   14,  -24,    4,    0,   -9,  -14,  -34,
              12,    7,   10,   15,   13,   28,   -1,  -14,
             -17,    2,   -1,    1,    4,    5,   13,    5,
              -7,   -6,   -9,  -18,   -8,   13,  -22,  -16,
             -19,  -28,  -24,  -10,    0,   32,   -4,   -7,
             -17,   -4,   -5,   46,   15,   40,   16,    7,
              -4,  -16,   32,   33,   21,  -18,  -17,    7,
               5,    7,    4,   11,   16,   -5,   13,  -19,
        ],
        "eg": [
             -21,   -5,  -21,  -62,  -44,   -5,  -15,  -26,
             -12,    9,  -34,  -42,  -17,  -43,  -18,  -10,
              -9,  -47,   10,   12,   21,   24,    9,   27,
              -8,   -8,   -1,   31,   14,    8,    9,   12,
               2,   -8,   -4,   19,   66,   19,   -2,   45,
              12,  -11,   29,   17,   20,   22,   23,   11,
              -6,    0,    7,   21,   29,   12,   -5,   -3,
             -16,    6,   10,   18,    4,   -1,   20,    5,
        ],
    },
    "king": {
        "mg": [
             -16,   36,    6,  -28,   -4,  -28,   25,   -5,
              19,  -37,   10,  -33,  -24,  -15,  -16,   -7,
             -10,   41,  -21,  -55,  -87,  -20,    0,  -49,
             -21,  -26,  -38,  -82,  -34,  -49,  -35,  -51,
             -43,  -35,  -50,  -36,  -49,  -65,  -51,  -48,
             -44,  -60,  -58,  -46,  -83,  -42,  -54,  -61,
             -59,  -68,  -62,  -72,  -67,  -65,  -59,  -53,
             -68,  -67,  -72,  -83,  -81,  -76,  -63,  -61,
        ],
        "eg": [
             -62,  -35,  -27,  -32,  -21,  -17,  -29,  -52,
               4,   10,   -4,  -19,  -13,   -9,  -16,  -42,
             -23,  -26,  -13,  -15,    8,  -13,  -19,    9,
             -25,  -16,  -11,   -1,  -11,   14,    5,  -34,
               6,   -4,    6,   10,    4,   -7,    5,  -25,
             -37,  -22,   -7,  -16,    5,    8,  -15,  -38,
             -32,  -99,  -12,  -34,  -13,   -5,   -4,  -62,
             -70,  -22,  -38,  -19,   -8,  -25,   -9,  -36,
        ],
    },
}
# END TUNED
# fmt: on


def _override(spec: str) -> None:
    """Change SEARCH, TIME or EVAL values from `name=value,name=value` (the FERZ_PARAMS
    environment variable: for experiments, such as a match of two settings, without editing
    this file). An unknown name or a value that is not an integer is an error."""
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, _, value = item.partition("=")
        table = next((t for t in (SEARCH, TIME, EVAL) if name in t), None)
        if table is None or not value.lstrip("-").isdigit():
            raise ValueError(f"FERZ_PARAMS: cannot set {item!r}")
        table[name] = int(value)


_override(os.environ.get("FERZ_PARAMS", ""))
