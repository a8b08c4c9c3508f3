"""Files -> workloads (assemble.py), the dependency graph between them (graph.py), and their
verdicts: class per target (classify.py, verdict.py) and effort (estimate.py).
"""
