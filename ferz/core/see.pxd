# C-level interface of static exchange evaluation (implementation in see.py).
from ferz.core.position cimport Position
from ferz.core.evaluate cimport Evaluator

cpdef int captured_value(Position pos, Evaluator ev, int m) noexcept nogil
cpdef int see(Position pos, Evaluator ev, int m, int[::1] buf) noexcept nogil
cpdef bint see_ge(Position pos, Evaluator ev, int m, int threshold, int[::1] buf) noexcept nogil
