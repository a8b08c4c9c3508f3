"""validate: the validation chain after a port (plan from the scan, run a spec into a fingerprint, compare).

plan.py and compare.py need no framework; the runner (runner.py and the modules it calls) needs PyTorch,
installed with the optional extra rocm-migrate[validate], and imports it only when it runs.
"""
