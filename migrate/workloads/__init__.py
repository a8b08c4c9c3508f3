"""Files -> workloads (assemble.py), the dependency graph between them (graph.py), and their verdicts: class per target (classify.py, verdict.py) and effort (estimate.py)."""

# The fact kinds that assembly and the dependency graph read: all a file keeps of its facts
# once it has been matched (see FileResult).
FACT_KINDS = frozenset({"extension", "cmake_target", "cmake_project", "cmake_link", "distribution", "include",
                        "python_import", "python_attr"})
