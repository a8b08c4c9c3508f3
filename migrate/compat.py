"""Standard-library spellings that differ between the Python versions the project supports."""
from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

__all__ = ["tomllib"]
