"""The data files every run reads (the GPU targets, the ROCm routes, the stack's compatibility
matrix), without importing YAML: beside such a file lies a JSON twin of its parsed content and of
the YAML's SHA-256, written by scripts/generate_docs.py (whose --check test fails on a stale twin;
it writes the matrix's only once the matrix passes its checks). A twin is used only when its
digest is that of the YAML's bytes, so an edited file or a --rules-dir without twins is parsed.

A YAML file's digest is known by its stat stamp (filestamp) once this process hashed its bytes, or
once the rule data's memo (rulebase/stamps) vouched for it: several readers of one file (layout/
backends.yaml is read six times by a lint) and every file the memo covers are then not read and hashed
again while its stamp is the one recorded. A stamp within RACY_NS of the hashing is never recorded."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from migrate import jsonio
from migrate.compat import sha256_hex
from migrate.rulebase import filestamp

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any

# relative to a rules directory
TWINNED = ("targets/gpus.yaml", "alternatives/routes.yaml", "stack/matrix.yaml", "workloads/optional.yaml",
           "effort/families.yaml", "effort/mechanical.yaml", "validation/checks.yaml", "stack/outcomes.yaml",
           "layout/backends.yaml", "alternatives/rewrites.yaml", "alternatives/ported-elsewhere.yaml",
           "targets/capability.yaml", "workloads/alternatives.yaml", "layout/build-output.yaml",
           "names/device.yaml", "names/python.yaml", "names/build.yaml", "names/julia.yaml", "names/fortran.yaml",
           "names/libraries.yaml",
           "workloads/installs.yaml", "layout/vendored.yaml")


def read(path: Path) -> Any:
    """The parsed content of the YAML file at `path`, from its twin when that was made from these bytes."""
    content = fresh_twin(path)
    return parse(path.read_bytes()) if content is None else content


RACY_NS = filestamp.RACY_NS  # this module's own name, so that a test can set it for the data files alone
_KNOWN: dict[str, tuple[filestamp.Stamp, str]] = {}  # a YAML file's path -> (its stamp, the SHA-256 of its bytes)


def know(path: str, stamp: filestamp.Stamp, digest: str) -> None:
    """Record the digest of the file at `path` while its stamp is `stamp` (one the caller found not racy)."""
    _KNOWN[path] = (stamp, digest)


def fresh_twin(path: Path) -> Any | None:
    """The twin's content while it was made from the bytes now at `path`; None otherwise (a file whose
    twin is written only after its checks pass, stack/matrix.yaml, is then parsed and checked)."""
    sha = _known_digest(path)
    try:
        twin = jsonio.loads(twin_path(path).read_bytes())
        if isinstance(twin, dict) and twin.get("sha256") == sha and "content" in twin:
            return twin["content"]
    except (OSError, ValueError, RecursionError):
        pass
    return None


def _known_digest(path: Path) -> str:
    """The SHA-256 of the bytes at `path`: by its stamp when recorded, else read and hashed (raises
    OSError as reading does)."""
    name = os.fspath(path)
    try:
        stamp: filestamp.Stamp | None = filestamp.stamp_of(os.stat(name))
    except OSError:
        stamp = None
    known = _KNOWN.get(name)
    if known is not None and known[0] == stamp:
        return known[1]
    started = time.time_ns()
    sha = _digest(path.read_bytes())
    if stamp is not None and max(stamp[1], stamp[2]) < started - RACY_NS:
        _KNOWN[name] = (stamp, sha)
    return sha


def parse(raw: bytes) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(raw.decode("utf-8"), Loader=loader)


def twin_path(path: Path) -> Path:
    return path.with_suffix(".json")


def twin_text(path: Path) -> str:
    """The twin of the YAML file at `path`. Raises ValueError for content JSON cannot carry as it is
    (dates, keys that are not text, ...)."""
    raw = path.read_bytes()
    content = parse(raw)
    text = json.dumps({"sha256": _digest(raw), "content": content}, ensure_ascii=False, indent=1, default=_refuse)
    if json.loads(text)["content"] != content:
        raise ValueError(f"{path}: its content does not survive JSON unchanged")
    return text + "\n"


def _refuse(value: object) -> None:
    raise ValueError(f"a value JSON cannot carry: {value!r}")


def _digest(raw: bytes) -> str:
    return sha256_hex(raw)
