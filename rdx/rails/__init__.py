"""Rails and ActiveSupport: the macros the Ruby walker reads as the methods they define
(``macros.py``), the ActiveRecord facts of one file (``facts.py``: ``db/schema.rb`` tables,
literal model settings) and the cross-file join that gives each model its table's column
methods (``schema.py``, run by ``Graph.resolve`` before resolution).
"""
