"""The workspace: which files a project holds and how they are read and discovered. The
configuration (``config.py``), the file walk and the one rule for what is in the project
(``files.py``), safe opening of one file (``opening.py``), the worker processes that run
Ruby's or another language's discovery over many files (``pool.py``), and the project's gems
(``gems.py``: the lockfile and where each gem is installed; ``dependencies.py``: their
documents, from the gem cache or parsed).
"""
