"""The repository map for LLMs: the graph of files and declarations joined by resolved uses
(``mapgraph.py``), ranked with personalized PageRank and cut to a token budget
(``repomap.py``), rendered in the compact symbol-map format (``mapformat.py``).
"""
