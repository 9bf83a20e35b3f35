"""The Ruby tree walker: one tree-sitter cursor walk per file (``parse.py``) that turns a Ruby
source into a ``FileResult`` of plain records (definitions, references, requires,
diagnostics), with its handlers by construct (``definitions.py``, ``directives.py``,
``receivers.py``, ``calls.py``), the open scopes and blocks of the walk (``scope.py``) and the
grammar's known gaps (``gaps.py``). Runs in worker processes; no fully qualified name is
computed here.
"""
