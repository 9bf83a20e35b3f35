"""One module per language, each a ``SPEC`` (see ``rdx.languages.engine``)."""
