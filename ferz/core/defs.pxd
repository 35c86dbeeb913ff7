# Constants and move-encoding helpers shared by every core module (see defs.py).

cdef enum:
    EMPTY = 0
    WALL = 1
    WHITE = 0
    BLACK = 1
    MAXP = 64
    MAXPLY = 4096
    NN_RING = 256
    MAXMOVES = 1024
    MAXHAND = 64
    LINE_REACH = 15
    LINE_SPAN = 31
    UNLIMITED = 64
    NORMAL = 0
    DOUBLE = 1
    CASTLE = 2
    EP = 3
    PROMO = 4
    DROP = 5
    F_MOVE = 1
    F_CAPT = 2
    F_HOP = 4
    F_LEG = 8
    F_INITIAL = 16
    F_RANK = 32
    F_DIAG = 64
    PROBE_RAY = 0
    PROBE_HOP = 1
    PROBE_LEG = 2
    PROBE_DIAG = 3
    GEN_ALL = 0
    GEN_CAPTURES = 1
    GEN_QUIETS = 2
    MAX_CHECKS = 10
    NO_END = 2

cdef inline int move_from(int m) noexcept nogil:
    return m & 511

cdef inline int move_to(int m) noexcept nogil:
    return (m >> 9) & 511

cdef inline int move_promo(int m) noexcept nogil:
    return (m >> 18) & 63

cdef inline int move_kind(int m) noexcept nogil:
    return (m >> 24) & 7

cdef inline int encode(int fr, int to, int promo, int kind) noexcept nogil:
    return fr | (to << 9) | (promo << 18) | (kind << 24)
