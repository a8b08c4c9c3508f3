"""Native libraries a program loads by file name: which are NVIDIA's. One reading for every reader that sees a library
load (Python's ctypes: extract/python/constructs.py; Java's JNA and System.loadLibrary: extract/text/java.py), from the
lists of rules/names/libraries.yaml.

A CUDA library (`libcublas.so.12`, `cudart64_12.dll`, `nvrtc`) has a ROCm counterpart: construct `cuda-library-load`.
A closed NVIDIA SDK's binary (OptiX anywhere in the name, TensorRT's nvinfer, NVENC, NVAPI, Reflex's NvLowLatencyVk)
has none: construct `nvidia-sdk-library-load`. A CUDA runtime or driver loaded only to read a version or a device count or
set a device limit (every call through the handle in rules/names/libraries.yaml `cuda_settings_calls`) is construct
`cuda-library-settings`: decided by the Python reader, which sees the calls (extract/python/constructs.py)."""
from __future__ import annotations

import re

from migrate.extract.names import alternatives, name_list

LIBRARY_FILE = r"(?:64)?(?:_\d+)*(?:\.(?:so|dll|dylib)(?:\.[\d.]+)?)?$"  # lib<stem>64_12.so.12.1, <stem>64_12.dll
CUDA_LIBRARY = re.compile(r"^(?:.*[/\\])?(?:lib)?(" + alternatives("libraries", "cuda_libraries") + ")" + LIBRARY_FILE)
NVIDIA_SDK_LIBRARY = re.compile(alternatives("libraries", "nvidia_sdk_name_parts") + "|^(?:lib)?(?:"
                                + alternatives("libraries", "nvidia_sdk_libraries") + ")" + LIBRARY_FILE, re.IGNORECASE)
CUDA_LOAD = "cuda-library-load"
SDK_LOAD = "nvidia-sdk-library-load"
SETTINGS_LOAD = "cuda-library-settings"
SETTINGS_CALLS = name_list("libraries", "cuda_settings_calls")


def is_cuda_library(name: str) -> bool:
    """Whether `name` (as a load names it: a path, a file name or a bare stem) is one of CUDA's libraries."""
    return CUDA_LIBRARY.match(name) is not None


def is_nvidia_sdk_library(file_name: str) -> bool:
    """Whether the file name (no folder) is a closed NVIDIA SDK's binary."""
    return NVIDIA_SDK_LIBRARY.search(file_name) is not None


def load_construct(name: str) -> str | None:
    """The construct a load of `name` is, or None for a library that is not NVIDIA's."""
    if is_cuda_library(name):
        return CUDA_LOAD
    return SDK_LOAD if is_nvidia_sdk_library(name.replace("\\", "/").rsplit("/", 1)[-1]) else None
