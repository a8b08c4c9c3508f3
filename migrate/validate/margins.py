"""Measured differences between two fingerprints, per check: what the default tolerances are set from.

For each check both sides ran: `needed_rtol`, the smallest rtol with which compare would pass every value given
the table's atol (max over values of (|c − r| − atol) / |r|, at least 0), and `max_error`, the largest error
measure (*_err, *_diff) of either side, which compare holds against a bound; `max_rel_diff`, the largest
|c − r| / |r| over values with |r| ≥ 1e-3 (near-zero values, such as a mean, are what atol is for).
A pure function of two fingerprints.
"""
from __future__ import annotations

import math
from typing import Any

from migrate.validate.fingerprint import checks_by_key
from migrate.validate.tolerances import DEFAULTS, Tolerance, lookup


def differences(reference: dict[str, Any], candidate: dict[str, Any],
                table: dict[str, dict[str, Tolerance]] | None = None) -> list[dict[str, Any]]:
    ref, cand = checks_by_key(reference), checks_by_key(candidate)
    out = []
    for key, r in ref.items():
        c = cand.get(key)
        if c is None or r["status"] != "ran" or c["status"] != "ran" or key[0] == "cpu_fallback":
            continue
        atol = lookup(table or DEFAULTS, key[1], key[0])["atol"]
        needed: list[float] = []
        errors: list[float] = []
        rel: list[float] = []
        _walk(r["metrics"], c["metrics"], "", atol, (needed, errors, rel))
        out.append({"check": key[0], "dtype": key[1], "values": len(needed),
                    "needed_rtol": max(needed) if needed else None, "max_rel_diff": max(rel) if rel else None,
                    "max_error": max(errors) if errors else None})
    return out


NEAR_ZERO = 1e-3


def _walk(ref: Any, cand: Any, key: str, atol: float, found: tuple[list[float], list[float], list[float]]) -> None:
    needed, errors, rel = found
    if isinstance(ref, dict) and isinstance(cand, dict):
        for k, v in ref.items():
            if k in cand:
                _walk(v, cand[k], k, atol, found)
    elif isinstance(ref, list) and isinstance(cand, list) and len(ref) == len(cand) and key != "shape":
        for a, b in zip(ref, cand, strict=True):
            _walk(a, b, key, atol, found)
    elif isinstance(ref, bool) or isinstance(cand, bool):
        return
    elif isinstance(ref, (int, float)) and isinstance(cand, (int, float)):
        if key.endswith(("_err", "_diff")):
            errors += [v for v in (float(ref), float(cand)) if math.isfinite(v)]
        elif math.isfinite(ref) and math.isfinite(cand):
            excess = max(0.0, abs(cand - ref) - atol)
            needed.append(excess / abs(ref) if ref else (math.inf if excess else 0.0))
            if abs(ref) >= NEAR_ZERO:
                rel.append(abs(cand - ref) / abs(ref))
