"""The schema of `[tool.rocm-migrate]` / `.rocm-migrate.toml`, with bounds.

A configuration file comes from the repository being scanned, so it is untrusted input:
each key is checked on its own against this schema (jsonschema), and a key that fails is
reported and left out, so that its default applies. Globs are bounded in length and
wildcards (their regular expressions could otherwise backtrack for minutes)."""
from __future__ import annotations

from migrate.model import CLASSES

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any

MESSAGE_CHARS = 160
GLOB = {"type": "string", "maxLength": 1024, "pattern": r"^(?:[^*?]*[*?]){0,32}[^*?]*$"}
GLOBS = {"type": "array", "items": GLOB, "maxItems": 10_000}
SELECTORS = {"type": "array", "items": {"type": "string", "maxLength": 128}, "maxItems": 10_000}
HOURS = {"type": "number", "minimum": 0, "maximum": 10_000}
CLASS_TABLE = {"type": "object", "propertyNames": {"enum": list(CLASSES)}}
KEYS: dict[str, dict[str, Any]] = {
    "rocm": {"type": "string", "pattern": r"^[0-9]{1,3}(\.[0-9]{1,3}){0,2}$"},
    "target-arch": {"type": "array", "items": {"type": "string", "pattern": r"^[A-Za-z0-9_:+-]{1,32}$"},
                    "minItems": 1, "maxItems": 32},
    "exclude": GLOBS,
    "max-file-size": {"type": "integer", "minimum": 1, "maximum": 1 << 32},
    "include-vendored": {"type": "boolean"},
    "jobs": {"type": "integer", "minimum": 1, "maximum": 4096},
    "fail-on": {"enum": list(CLASSES)},
    "select": SELECTORS,
    "ignore": SELECTORS,
    "workloads": {"type": "object", "additionalProperties": GLOBS, "propertyNames": {"maxLength": 256},
                  "maxProperties": 10_000},
    "per-file-ignores": {"type": "object", "additionalProperties": SELECTORS, "propertyNames": GLOB,
                         "maxProperties": 10_000},
    "effort": {"type": "object"},  # each entry is checked against EFFORT_KEYS
}
EFFORT_KEYS: dict[str, dict[str, Any]] = {
    "learning-rate": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
    "kernel-review": HOURS,
    "kernel-validation": HOURS,
    "kernel-rules": SELECTORS,
    "hipify-factor": {"type": "object", "propertyNames": {"enum": ["yes", "partial", "no"]},
                      "additionalProperties": {"type": "number", "minimum": 0, "maximum": 10}},
    "fixed": {**CLASS_TABLE, "additionalProperties": {"type": "object", "additionalProperties": HOURS,
                                                       "maxProperties": 1000}},
    "calibrated": {"type": "boolean"},
    "uncertainty": {**CLASS_TABLE, "additionalProperties": {
        "type": "array", "items": {"type": "number", "minimum": 0, "maximum": 100}, "minItems": 2, "maxItems": 2}},
}


def problem(schema: dict[str, Any], value: object) -> str | None:
    """None when `value` fits `schema`, else one short line saying what is wrong."""
    import jsonschema

    error = jsonschema.exceptions.best_match(_validator(schema).iter_errors(value))
    if error is None:
        return None
    where = "".join(f"[{p!r}]" for p in error.absolute_path)
    text = " ".join(str(error.message).split())
    if error.validator == "pattern":
        text = "does not have the expected form"
        if error.schema is GLOB:
            text += " (a glob of at most 1024 characters and 32 wildcards)"
    if len(text) > MESSAGE_CHARS:
        text = text[:MESSAGE_CHARS] + "..."
    return f"{where}: {text}" if where else text


_VALIDATORS: dict[int, Any] = {}


def _validator(schema: dict[str, Any]) -> Any:
    found = _VALIDATORS.get(id(schema))
    if found is None:
        import jsonschema

        found = _VALIDATORS[id(schema)] = jsonschema.Draft202012Validator(schema)
    return found
