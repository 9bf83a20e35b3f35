"""Ruby: the tree walker that turns one file into records (``discover/``), the partial
evaluator it calls for what a file computes while it loads (``evaluate/``), and the read-only
questions over a resolved graph (``query/``); ``syntax.py`` holds the node readers the walker
and the evaluator share. Ruby's resolution rules are in ``rdx/ruby/resolve/`` for now.
"""
