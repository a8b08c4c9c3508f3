"""The lint path for pre-commit and CI: the pipeline on a subset of files without the workload
stages (run.py), rule selection (selection.py), inline suppressions (suppression.py), baselines
(baseline.py) and its output (report.py).
"""
