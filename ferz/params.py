"""Every tunable number of search and evaluation, named, in one place.

The search reads the SEARCH values once when a Search is built; the evaluation reads EVAL when it
builds its tables for a variant. tools/tune.py rewrites EVAL values (Texel tuning), so weights
are plain integers keyed by name, in centipawns unless a comment says otherwise.
"""

from __future__ import annotations

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
    # singular extension is not implemented; check extension is always one ply
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
}

# ---------------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------------
# Piece values of chess-like movements, found by the piece's movement, never by the variant's
# name: a piece that moves like a knight is worth a knight in any variant. Other pieces get
# values derived from their mobility on the empty board (see evaluate.piece_value).
KNOWN_VALUES: dict[str, tuple[int, int]] = {
    "pawn": (82, 104),
    "knight": (337, 281),
    "bishop": (365, 297),
    "rook": (477, 512),
    "queen": (1025, 936),
}

EVAL: dict[str, int] = {
    # derived values for other pieces: value = base + per_move * average empty-board reach
    # (squares it moves to and squares it captures on, counted half each)
    "derived_base": 40,
    "derived_per_move": 36,
    "derived_eg_percent": 105,
    # centralisation in the piece-square tables: cp per unit of extra empty-board mobility
    # (leapers and kings) and per rank advanced (pawns)
    "pst_centre_mg": 4,
    "pst_centre_eg": 3,
    "pst_king_mg_edge": 10,  # a royal piece likes the edge/back rank in the middlegame
    "pst_king_eg_centre": 9,  # and the centre in the endgame
    "pst_pawn_advance_mg": 3,
    "pst_pawn_advance_eg": 7,
    "pst_pawn_centre_mg": 6,
    # game phase weight of a piece: its value divided by this (pawns and royals count 0)
    "phase_div": 100,
    # mobility: cp per reachable square above the piece's average, per phase
    "mobility_mg": 4,
    "mobility_eg": 4,
    # pawn structure
    "doubled_mg": -10,
    "doubled_eg": -20,
    "isolated_mg": -10,
    "isolated_eg": -12,
    "backward_mg": -6,
    "backward_eg": -8,
    "connected_mg": 6,
    "connected_eg": 4,
    "passed_mg": 5,  # times the rank index (scaled to the board's ranks) of the pawn
    "passed_eg": 14,
    "passed_free_eg": 10,  # extra per rank when the stop square is empty
    "passed_king_dist_eg": 5,  # per square of (their king distance - our king distance)
    "candidate_mg": 3,
    "candidate_eg": 6,
    # pieces
    "bishop_pair_mg": 30,
    "bishop_pair_eg": 50,
    "rook_open_mg": 25,
    "rook_open_eg": 10,
    "rook_semiopen_mg": 12,
    "rook_semiopen_eg": 6,
    "rook_seventh_mg": 15,
    "rook_seventh_eg": 25,
    "outpost_mg": 18,
    "outpost_eg": 8,
    # threats: a piece attacked by a pawn, a hanging piece attacked by a lesser value
    "threat_by_pawn_mg": 45,
    "threat_by_pawn_eg": 35,
    # king safety
    "shield_mg": 12,  # per own pawn in front of the royal piece
    "king_open_file_mg": -20,
    "king_attack_weight": 7,  # per attack unit, squared-ish via the table in evaluate
    "king_attack_max": 500,
    "tempo": 15,
    # endgame scaling (in 1/64ths): no pawns and little material, opposite bishops
    "scale_no_pawns_small": 8,
    "scale_opposite_bishops": 40,
    # mop-up: drive the lone king to the edge (or the right corner) and bring ours close
    "mopup_edge": 12,
    "mopup_close": 6,
    "mopup_base": 600,
    # explosions (blastOnCapture, atomic): a capture on a square next to a royal piece blows
    # it up. The side to move that can make one wins at once; the side that faces one must
    # parry it (two or more are rarely parried by one move)
    "blast_win": 1000,
    "blast_threat": 150,  # per square next to the mover's royal piece it faces a capture on
    "blast_threats": 300,  # extra when there are two or more
}
