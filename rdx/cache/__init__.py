"""Persistence: the on-disk snapshot of discovery results (see snapshot.py)."""
