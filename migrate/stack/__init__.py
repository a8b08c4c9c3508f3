"""stack: the project's pinned stack (frameworks, Python, OS, images) against ROCm's compatibility matrix."""
