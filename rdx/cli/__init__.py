"""The ``rdx`` command line, a thin layer over the public API: the commands and their parser
(``main.py``, the console script's entry point), what they share (``base.py``), ``rdx grep`` and
``rdx serve`` (``search.py``), ``rdx map`` (``map.py``) and ``rdx demo`` (``demo.py``).
"""
