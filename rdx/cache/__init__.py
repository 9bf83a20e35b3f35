"""Persistence: the on-disk snapshot of discovery results (snapshot.py), the shared gem cache
(gems.py), and the checksummed envelope every cache file is written in (envelope.py)."""
