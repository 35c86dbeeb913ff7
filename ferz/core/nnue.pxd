# C-level interface of the neural evaluation (implementation in nnue.py).
cimport cython
from ferz.core.position cimport Position

# The output's dot product (see forward): clipped units times weights, as position.pxd's
# loops compiled twice (AVX2 and the baseline) where gcc can.
cdef extern from *:
    """
    #ifndef FERZ_SIMD
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define FERZ_SIMD __attribute__((target_clones("avx2", "default"), unused))
    #else
    #define FERZ_SIMD __attribute__((unused))
    #endif
    #endif
    FERZ_SIMD static int ferz_nn_dot(const short *restrict units, const short *restrict w,
                                     Py_ssize_t n, int qa) {
        int total = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            short v = units[i] < 0 ? 0 : (units[i] > qa ? qa : units[i]);
            total += v * w[i];
        }
        return total;
    }
    """
    int ferz_nn_dot(const short *units, const short *w, Py_ssize_t n, int qa) noexcept nogil


@cython.final
cdef class Network:
    cdef public object header
    cdef public int hidden, buckets, bucket_div, scale, files, ranks, ntypes, nfeatures
    cdef public int max_pieces, nkings, qb, nhand, hand_base
    cdef public object kings  # king bucket per own-view square (format 2), or []
    cdef public bint mirror
    cdef public object hands  # cap per piece type of the hand inputs (format 3), or []
    cdef public short[::1] ft_w, ft_b, out_w
    cdef public int[::1] out_b
    cdef object fitted  # (rules, tables()) of the last rules positions were set up for

cdef int forward(Position pos, Network net) noexcept nogil
