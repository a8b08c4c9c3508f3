"""Dtype-aware tolerances of validate compare (defaults documented in docs/validate.md; a TOML file overrides).

For each dtype and check: `rtol`/`atol` for values compared with the reference (|c - r| <= atol + rtol·|r|),
and `bound` for error measures (metrics named *_err or *_diff), which the candidate must not exceed.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from migrate.compat import tomllib

Tolerance = dict[str, float]

# Measured H200 (fp32 without TF32, bf16) against the CPU left these margins; see docs/validate.md.
DEFAULTS: dict[str, dict[str, Tolerance]] = {
    "float32": {
        "default": {"rtol": 1e-3, "atol": 1e-6, "bound": 1e-5},
        "forward": {"rtol": 1e-4, "atol": 1e-6},
        "loss": {"rtol": 1e-4, "atol": 1e-6},
        "grad_norms": {"rtol": 1e-3, "atol": 1e-6},
        "param_deltas": {"rtol": 1e-2, "atol": 1e-6},
        "checkpoint": {"bound": 1e-6},
        "ddp": {"bound": 1e-5},
    },
    "bfloat16": {
        "default": {"rtol": 5e-2, "atol": 1e-3, "bound": 4e-2},
        "forward": {"rtol": 2e-2, "atol": 1e-3},
        "loss": {"rtol": 2e-2, "atol": 1e-3},
        "grad_norms": {"rtol": 5e-2, "atol": 1e-3},
        "param_deltas": {"rtol": 1e-1, "atol": 1e-3},
        "checkpoint": {"bound": 1e-2},
    },
    "float16": {
        "default": {"rtol": 2e-2, "atol": 1e-3, "bound": 5e-3},
        "checkpoint": {"bound": 5e-3},
    },
}
KEYS = ("rtol", "atol", "bound")


class ToleranceError(Exception):
    """A bad tolerance file; str() is one line naming the file and the key."""


def lookup(table: dict[str, dict[str, Tolerance]], dtype: str | None, check: str) -> Tolerance:
    """The check's entry over the dtype's default; checks without a dtype use float32's."""
    by_check = table.get(dtype or "float32", table["float32"])
    base = check.split(":", maxsplit=1)[0]
    return {**table["float32"]["default"], **by_check.get("default", {}), **by_check.get(base, {}),
            **by_check.get(check, {})}


def load(path: Path | None) -> dict[str, dict[str, Tolerance]]:
    """Defaults, with [dtype.check] tables of a TOML file on top (e.g. [bfloat16.loss] rtol = 0.05)."""
    table = {d: {c: dict(t) for c, t in checks.items()} for d, checks in DEFAULTS.items()}
    if path is None:
        return table
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ToleranceError(f"{path}: {exc}") from None
    for dtype, checks in data.items():
        if dtype not in DEFAULTS or not isinstance(checks, dict):
            raise ToleranceError(f"{path}: [{dtype}]: must be one of {', '.join(DEFAULTS)} with check tables")
        for check, values in checks.items():
            if not isinstance(values, dict) or set(values) - set(KEYS) or \
                    not all(isinstance(v, (int, float)) and v >= 0 for v in values.values()):
                raise ToleranceError(f"{path}: [{dtype}.{check}]: keys {', '.join(KEYS)}, non-negative numbers")
            table[dtype].setdefault(check, {}).update({k: float(v) for k, v in values.items()})
    return table
