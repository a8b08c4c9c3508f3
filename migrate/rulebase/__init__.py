"""The rule base: loading and validating rules/*.yaml (load.py, rule.schema.json), the precompiled
copy in the cache directory (precompiled.py), the generated rule docs (docs.py) and the GPU
targets (targets.py).
"""
