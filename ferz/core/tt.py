"""The transposition table: buckets of four entries sized in MB, shared by all search threads.

An entry is two 64-bit words. `data` holds the move (low 32 bits) and the score (high 32);
`check` holds the top 32 bits of the key, the static eval, the depth, the generation and the
bound, and is stored XOR `data`, so an entry torn by two threads writing at once fails the key
check instead of mixing two positions (lockless hashing). Mate scores are stored relative to
the node (distance from this node to the mate), not to the root, so they stay true wherever the
position is met again.
"""

from __future__ import annotations

from array import array

import cython

if not cython.compiled:  # the constants of tt.pxd, for the uncompiled fallback
    TT_BUCKET = 4
    BOUND_NONE = 0
    BOUND_UPPER = 1
    BOUND_LOWER = 2
    BOUND_EXACT = 3
    MATE = 32000
    MATE_BOUND = 31000
    TB_WIN = 31500
    TT_DEPTH_OFFSET = 8

    def ferz_prefetch(address) -> None:
        """The C prefetch hint of tt.pxd; nothing to do uncompiled."""


ENTRY_BYTES = 16
LOW32 = cython.declare(cython.ulonglong, 0xFFFFFFFF)
MASK64 = 0xFFFFFFFFFFFFFFFF
GENERATION_MASK = 63


def tt_move(data: cython.ulonglong) -> cython.int:
    """The move of an entry's data word."""
    return cython.cast(cython.int, data & LOW32)


def tt_score(data: cython.ulonglong, ply: cython.int) -> cython.int:
    """The score of an entry's data word, as seen from the root at this ply."""
    score: cython.int = cython.cast(cython.int, (data >> 32) & 0xFFFF) - 32768
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


def tt_eval(meta: cython.ulonglong) -> cython.int:
    """The static evaluation kept in an entry's check word."""
    return cython.cast(cython.int, (meta >> 16) & 0xFFFF) - 32768


def tt_depth(meta: cython.ulonglong) -> cython.int:
    """The search depth of an entry."""
    return cython.cast(cython.int, (meta >> 8) & 0xFF) - TT_DEPTH_OFFSET


def tt_bound(meta: cython.ulonglong) -> cython.int:
    """The bound type of an entry (BOUND_UPPER, BOUND_LOWER or BOUND_EXACT)."""
    return cython.cast(cython.int, meta & 3)


@cython.cclass
class TT:
    """A fixed-size hash table of search results keyed by Zobrist keys."""

    def __init__(self, size_mb: int = 16) -> None:
        self.generation = 0
        self.resize(size_mb)

    def resize(self, size_mb: int) -> None:
        """Allocate an empty table of about `size_mb` megabytes (at least one bucket)."""
        if size_mb < 1:
            raise ValueError(f"hash size must be at least 1 MB, got {size_mb}")
        entries = size_mb * 1024 * 1024 // ENTRY_BYTES
        self.nbuckets = max(1, entries // TT_BUCKET)
        words = self.nbuckets * TT_BUCKET * 2
        # A bucket is one 64-byte cache line only if the table starts on a line: the array's
        # buffer is merely 16-byte aligned, so the table is a view that starts on the first
        # line boundary in it (one memory access per probe instead of two).
        raw = array("Q", bytes((words + 8) * 8))
        skip = (-raw.buffer_info()[0] % 64) // 8
        self.table = memoryview(raw)[skip : skip + words]
        self.size_mb = size_mb

    def clear(self) -> None:
        """Forget every entry."""
        i: cython.longlong
        n: cython.longlong = self.nbuckets * TT_BUCKET * 2
        with cython.nogil:
            for i in range(n):
                self.table[i] = 0
        self.generation = 0

    def new_search(self) -> None:
        """Start a new search: entries of older searches become preferred victims."""
        self.generation = (self.generation + 1) & GENERATION_MASK

    def hashfull(self) -> int:
        """Permille of the first 1000 entries used by the current search."""
        used = 0
        n = min(1000, self.nbuckets * TT_BUCKET)
        for i in range(n):
            meta = self.table[2 * i] ^ self.table[2 * i + 1]
            if meta != 0 and (meta >> 2) & GENERATION_MASK == self.generation:
                used += 1
        return used * 1000 // n if n else 0

    def lookup(self, key: int, ply: int = 0) -> tuple[int, int, int, int, int] | None:
        """(move, score, eval, depth, bound) stored for a key, or None (for tools and tests)."""
        slot = self.probe(key & MASK64)
        if slot < 0:
            return None
        data = self.table[2 * slot + 1]
        meta = self.table[2 * slot] ^ data
        return tt_move(data), tt_score(data, ply), tt_eval(meta), tt_depth(meta), tt_bound(meta)

    def put(
        self, key: int, ply: int, move: int, score: int, static_eval: int, depth: int, bound: int
    ) -> None:
        """Store an entry (for tools and tests)."""
        self.store(key & MASK64, ply, move, score, static_eval, depth, bound)

    def probe(self, key: cython.ulonglong) -> cython.longlong:
        """The slot holding this key, or -1."""
        base: cython.longlong = ((key & LOW32) * self.nbuckets) >> 32
        base *= TT_BUCKET
        high: cython.ulonglong = key >> 32
        i: cython.longlong
        for i in range(base, base + TT_BUCKET):
            if (self.table[2 * i] ^ self.table[2 * i + 1]) >> 32 == high:
                return i
        return -1

    def prefetch(self, key: cython.ulonglong) -> cython.void:
        """Ask the CPU to load the bucket of a key, so that the probe a little later finds it
        in cache instead of waiting for memory (a no-op uncompiled)."""
        base: cython.longlong = ((key & LOW32) * self.nbuckets) >> 32
        if cython.compiled:
            ferz_prefetch(cython.address(self.table[2 * base * TT_BUCKET]))

    def store(
        self,
        key: cython.ulonglong,
        ply: cython.int,
        move: cython.int,
        score: cython.int,
        static_eval: cython.int,
        depth: cython.int,
        bound: cython.int,
    ) -> cython.void:
        """Save a search result, replacing the shallowest or oldest entry of the bucket."""
        base: cython.longlong = ((key & LOW32) * self.nbuckets) >> 32
        base *= TT_BUCKET
        high: cython.ulonglong = key >> 32
        victim: cython.longlong = base
        worst: cython.int = 1 << 30
        i: cython.longlong
        meta: cython.ulonglong
        data: cython.ulonglong
        value: cython.int
        age: cython.int
        for i in range(base, base + TT_BUCKET):
            data = self.table[2 * i + 1]
            meta = self.table[2 * i] ^ data
            if meta >> 32 == high:
                # same position: keep a deeper result of this search unless this one is exact
                if (
                    bound != BOUND_EXACT
                    and depth + 2 < tt_depth(meta)
                    and cython.cast(cython.int, (meta >> 2) & 63) == self.generation
                ):
                    return
                if move == 0:
                    move = tt_move(data)
                victim = i
                break
            age = (self.generation - cython.cast(cython.int, (meta >> 2) & 63)) & 63
            value = tt_depth(meta) - 8 * age
            if meta == 0:
                value = -(1 << 20)
            if value < worst:
                worst = value
                victim = i
        if score >= MATE_BOUND:
            score += ply
        elif score <= -MATE_BOUND:
            score -= ply
        if depth < -TT_DEPTH_OFFSET:
            depth = -TT_DEPTH_OFFSET
        if depth > 255 - TT_DEPTH_OFFSET:
            depth = 255 - TT_DEPTH_OFFSET
        data = (cython.cast(cython.ulonglong, move) & LOW32) | (
            cython.cast(cython.ulonglong, (score + 32768) & 0xFFFF) << 32
        )
        meta = (
            (high << 32)
            | (cython.cast(cython.ulonglong, (static_eval + 32768) & 0xFFFF) << 16)
            | (cython.cast(cython.ulonglong, depth + TT_DEPTH_OFFSET) << 8)
            | (cython.cast(cython.ulonglong, self.generation) << 2)
            | cython.cast(cython.ulonglong, bound)
        )
        self.table[2 * victim] = meta ^ data
        self.table[2 * victim + 1] = data
