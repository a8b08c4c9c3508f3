"""rocm-migrate: assess what it takes to move CUDA code to AMD ROCm/HIP."""

__version__ = "0.1.0"
