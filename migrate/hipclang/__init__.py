"""hip-clang over a converted tree: the toolchain (a ROCm installation or the pip-only fallback), the
compile of each translation unit for each target, and what each diagnostic means for the port."""
