"""validate: the validation chain after a port (plan from the scan, a spec skeleton from the plan, run a spec
into a fingerprint, compare two fingerprints with their cost).

plan.py, skeleton.py, command.py (a project's own program), compare.py, cost.py and margins.py need no
framework; the model runner (runner.py and the modules it calls) needs PyTorch, installed with the optional
extra `validate`, and imports it only when it runs.
"""
