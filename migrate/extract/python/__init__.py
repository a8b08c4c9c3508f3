"""Python sources and notebooks: imports, attribute chains, calls, vendor branches, and CUDA source
embedded in strings (cupy, load_inline, pycuda).
"""
