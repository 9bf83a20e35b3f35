"""The partial evaluator the Ruby walker calls for what a file computes while it loads: literal
constant values (``literals.py``), the branch a load-time conditional takes (``branches.py``),
loops over literal lists unrolled with their block-local values (``loops.py``, ``frames.py``,
``unroll.py``, ``shared.py``) and load-time method calls, inlined within a file
(``loadtime.py``) or recorded as facts for resolution across files (``loadfacts.py``). Pure
functions of syntax nodes and the walker's records; nothing here runs Ruby.
"""
