"""Precise mode: libclang behind one adapter (clang.py), compilation databases and nvcc flag
translation (compile_commands.py), the analysis of a translation unit (analyse.py), the scan
pass (scan_pass.py) and stand-in headers (shims/).
"""
