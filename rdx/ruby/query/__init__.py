"""Read-only questions over a resolved Ruby graph: the public views and handles
(``handles.py``: ``View``, ``Declaration``, ``Definition``), what sits in documents
(``documents.py``: references, ``Document``) and navigation (``navigation.py``: references,
definition, hover, completion, dead code). Values they return are in ``rdx.model.public``.
"""
