# C-level interface of the neural evaluation (implementation in nnue.py).
cimport cython
from ferz.core.position cimport Position


@cython.final
cdef class Network:
    cdef public object header
    cdef public int hidden, buckets, bucket_div, scale, files, ranks, ntypes, nfeatures
    cdef public int max_pieces
    cdef public short[::1] ft_w, ft_b, out_w
    cdef public int[::1] out_b

cdef int forward(Position pos, Network net) noexcept nogil
