"""The fingerprint file: what `validate run` writes and `validate compare` reads (docs/validate-fingerprint.schema.json)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
KIND = "rocm-migrate-fingerprint"


class FingerprintError(Exception):
    """Not a readable fingerprint; str() is one line naming the file."""


def dumps(fingerprint: dict[str, Any]) -> str:
    return json.dumps(fingerprint, indent=2, sort_keys=False, allow_nan=True) + "\n"


def load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FingerprintError(f"{path}: {exc}") from None
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise FingerprintError(f"{path}: not a rocm-migrate fingerprint (no \"kind\": \"{KIND}\")")
    if data.get("schema_version") != SCHEMA_VERSION:
        raise FingerprintError(f"{path}: fingerprint schema_version {data.get('schema_version')!r}, "
                               f"this version reads {SCHEMA_VERSION}")
    return data


def checks_by_key(fingerprint: dict[str, Any]) -> dict[tuple[str, str | None], dict[str, Any]]:
    return {(c["check"], c.get("dtype")): c for c in fingerprint.get("checks", [])}
