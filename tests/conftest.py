from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite golden files from current output")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROCM_MIGRATE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture(scope="session")
def rulebase():
    from migrate.rulebase.load import load_rules

    return load_rules()


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """`files` (relative path -> text) written under `root`, folders made as needed; returns `root`."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def copied_tree(source: Path, tmp_path: Path, edits: Iterable[tuple[str, str, str]] = (), *,
                name: str | None = None) -> Path:
    """A copy of the fixture tree `source` at `tmp_path / name` (default: its own name), each (path, old, new) edit
    made once in turn; every `old` must be in its file."""
    import shutil

    tree = Path(shutil.copytree(source, tmp_path / (name or source.name)))
    for rel, old, new in edits:
        target = tree / rel
        text = target.read_text()
        assert old in text, rel
        target.write_text(text.replace(old, new, 1))
    return tree


def scan_tree(tree: Path, rulebase: Any) -> dict:
    """`tree` scanned in process (one job, no cache, no hipify), as the JSON report."""
    from migrate.render.json_report import to_json
    from migrate.scan import pipeline as scan
    from migrate.settings import Settings

    return to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None):
    """The real CLI in a subprocess."""
    import subprocess

    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "migrate", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=full_env, timeout=300, check=False)


@pytest.fixture
def browser() -> Iterator[Any]:
    """Headless Chromium with the flags this machine's closed network needs (the tests skip without it)."""
    from selenium import webdriver
    from tests.chromium import CHROMIUM, DRIVER

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1400,2000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)
    yield driver
    driver.quit()
