"""Search, of declarations and of text. Declarations: name matching (``names.py``: exact,
prefix, fuzzy) and ranked intent-style search over an SQLite FTS5 index (``ranked.py``,
``ranked_query.py``, ``ranked_score.py``, ``synonyms.py``). Text, for grep: the trigram index
of every file (``text_index.py``), patterns (``pattern.py``), verification (``grep.py``), the
index kept for a graph (``text_workspace.py``) and grep without a graph (``textsearch.py``).
"""
