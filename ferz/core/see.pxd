# C-level interface of static exchange evaluation (implementation in see.py).
from ferz.core.position cimport Position
from ferz.core.evaluate cimport Evaluator

cdef int captured_value(Position pos, Evaluator ev, int m) noexcept nogil
cdef int see(Position pos, Evaluator ev, int m, int[::1] buf) noexcept nogil
cdef bint see_ge(Position pos, Evaluator ev, int m, int threshold, int[::1] buf) noexcept nogil
