"""The ``rdx`` command line, a thin layer over the public API: the commands and their parser
(``main.py``, the console script's entry point), what they share (``base.py``), ``rdx grep`` and
``rdx serve`` (``search.py``), ``rdx map`` (``map.py``), ``rdx demo`` (``demo.py``), and the
resident server that answers commands for the light client ``rdx_resident`` (``resident.py``,
its re-check of the files ``freshness.py``, its controls ``daemon.py``).
"""
