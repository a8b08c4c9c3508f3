"""The thin click commands: scan, rules and explain (main.py), lint (lint.py), convert
(convert.py).
"""
