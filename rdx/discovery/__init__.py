"""Stage 1: find files and turn each into plain per-file records, in worker processes."""
