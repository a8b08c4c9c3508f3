"""Files -> workloads (assemble.py), the dependency graph between them (graph.py), and their
verdicts: class per target (classify.py, verdict.py) and effort (estimate.py).
"""

# Fact kinds that nothing here reads (they are the bulk of a C/C++ file's facts): once a file
# is matched, its FileResult keeps every other kind for assembly and the dependency graph.
UNREAD_KINDS = frozenset({"identifier", "construct", "asm", "defined", "namespace_alias"})
