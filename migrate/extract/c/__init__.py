"""C, C++, CUDA and HIP sources: tree-sitter parsing (ts.py is the only tree-sitter user),
identifiers, includes, kernels, launches, HIP guards and device-code constructs.
"""
