"""The light side of rdx's resident server: the ``rdx`` command's entry point (``client.py``)
and what it shares with the server (``wire.py``).

A command the server can answer (``show``, ``refs``, ``def``, ``grep``, ``search``...) is sent
to the project's server, started on first use, which holds the opened graph and keeps it fresh
(``rdx.cli.resident``); the answer comes back byte for byte as the in-process command would print
it. Every other command, and every case where no server can answer, runs in-process through
``rdx.cli.main``. This package imports nothing of ``rdx`` on the served path, so a served command
costs Python's start-up and a round trip, not the graph's import.
"""
