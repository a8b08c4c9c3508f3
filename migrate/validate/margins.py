"""Measured differences between two fingerprints, per check: what the default tolerances are set from.

For each check both sides ran, the largest relative difference |c − r| / |r| over the values compare
would compare with rtol (zero references are left out), and the largest error measure (*_err, *_diff) of either
side, which compare holds against a bound. A pure function of two fingerprints.
"""
from __future__ import annotations

import math
from typing import Any

from migrate.validate.fingerprint import checks_by_key


def differences(reference: dict[str, Any], candidate: dict[str, Any]) -> list[dict[str, Any]]:
    ref, cand = checks_by_key(reference), checks_by_key(candidate)
    out = []
    for key, r in ref.items():
        c = cand.get(key)
        if c is None or r["status"] != "ran" or c["status"] != "ran" or key[0] == "cpu_fallback":
            continue
        rel: list[float] = []
        errors: list[float] = []
        _walk(r["metrics"], c["metrics"], "", rel, errors)
        out.append({"check": key[0], "dtype": key[1], "values": len(rel),
                    "max_rel_diff": max(rel) if rel else None, "max_error": max(errors) if errors else None})
    return out


def _walk(ref: Any, cand: Any, key: str, rel: list[float], errors: list[float]) -> None:
    if isinstance(ref, dict) and isinstance(cand, dict):
        for k, v in ref.items():
            if k in cand:
                _walk(v, cand[k], k, rel, errors)
    elif isinstance(ref, list) and isinstance(cand, list) and len(ref) == len(cand) and key != "shape":
        for a, b in zip(ref, cand, strict=True):
            _walk(a, b, key, rel, errors)
    elif isinstance(ref, bool) or isinstance(cand, bool):
        return
    elif isinstance(ref, (int, float)) and isinstance(cand, (int, float)):
        if key.endswith(("_err", "_diff")):
            errors += [v for v in (float(ref), float(cand)) if math.isfinite(v)]
        elif ref and math.isfinite(ref) and math.isfinite(cand):
            rel.append(abs(cand - ref) / abs(ref))
