"""The validated rule base, precompiled: a pickle in the cache directory keyed by a hash of the
rule files and of the code that reads them, so a hit skips YAML parsing and schema validation."""
from __future__ import annotations

import hashlib
import logging
import os
import pickle
import sys
from pathlib import Path

from migrate import __version__, vocabulary
from migrate.rulebase import load as rules
from migrate.rulebase.load import RuleBase, default_rules_dir, load_rules

LOG = logging.getLogger(__name__)
SUBDIR = "rules"
# What a stale pickle can raise on load: any of these just means "rebuild it".
BAD_PICKLE = (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError, TypeError,
              ValueError)


def content_key(directory: Path) -> str:
    """A hash of every rule file, the loader and its schema, the tool and Python versions."""
    digest = hashlib.sha256(f"{__version__}\0{sys.version_info[:2]}\0".encode())
    for path in (Path(rules.__file__), rules.SCHEMA_PATH, Path(vocabulary.__file__), *sorted(directory.glob("*.yaml"))):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def load(directory: Path | None = None, cache_dir: Path | None = None) -> RuleBase:
    """rules.load_rules(directory), served from `cache_dir` when the rules are unchanged."""
    directory = directory or default_rules_dir()
    if cache_dir is None:
        return load_rules(directory)
    try:
        path = cache_dir / SUBDIR / f"{content_key(directory)}.pickle"
    except OSError:
        return load_rules(directory)
    cached = _read(path)
    if cached is not None:
        return cached
    rulebase = load_rules(directory)
    _write(path, rulebase)
    return rulebase


def _read(path: Path) -> RuleBase | None:
    try:
        value = pickle.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except BAD_PICKLE as exc:
        LOG.debug("ignoring unreadable rule cache %s: %s", path, exc)
        return None
    return value if isinstance(value, RuleBase) else None


def _write(path: Path, rulebase: RuleBase) -> None:
    """Write atomically and drop pickles of older rule sets; any failure leaves no cache."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = pickle.dumps(rulebase, protocol=pickle.HIGHEST_PROTOCOL)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as handle:
            handle.write(data)
        os.replace(handle.name, path)
        for old in path.parent.glob("*.pickle"):
            if old != path:
                old.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError, TypeError) as exc:
        LOG.debug("cannot write rule cache %s: %s", path, exc)
