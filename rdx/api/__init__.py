"""The public façade: ``Graph`` (``graph.py``) and the mixins it is made of, one per role:
opening, saving and refreshing (``persisting.py``), navigation (``navigating.py``), declaration
search (``searching.py``), the repository map's arguments (``mapping.py``), diagnostics and
statistics (``reporting.py``), the other languages' state between revisions
(``other_languages.py``), and the one watch loop that applies file events to a graph
(``watching.py``). Argument checks live here; the answers come from the subsystems below.
"""
