"""Line- and token-based extractors for build, dependency and container files: requirements, conda,
pyproject, setup.cfg, CMake, Makefiles, shell, Dockerfiles, compose and Kubernetes manifests.
"""
