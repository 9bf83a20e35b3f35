"""Stage 2: from per-file definitions to declarations, ancestors and resolved references."""
