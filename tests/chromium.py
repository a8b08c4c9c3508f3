"""Headless Chromium through Selenium for the browser tests: the binaries and the skip marks (the
`browser` fixture itself is in conftest.py)."""
from __future__ import annotations

import importlib.util
import shutil

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
needs_chromium = pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="Chromium and chromedriver are not installed")
needs_selenium = pytest.mark.skipif(importlib.util.find_spec("selenium") is None, reason="selenium is not installed")
