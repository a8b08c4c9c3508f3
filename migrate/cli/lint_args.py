"""The lint command lines a pre-commit hook gives, read without click (whose import and parse
cost a lint of one file about a sixth of its instructions): files that exist and are readable,
and options in their plain spellings (`--name value`, `--name=value`, `-f value`, `-q`, `-v`)
with values click would take as they are. Anything else (an unknown or abbreviated option, `-h`,
`--`, a value that starts with `-`, a missing or unreadable file, a value outside a choice, an
output file, a baseline, --rules-dir, shell completion) is left to click: `read` returns None and
cli.main reads the line, so every message and exit code stays click's."""
from __future__ import annotations

import os
from pathlib import Path

from migrate.cli.lint_run import FORMATS, LINT_CLASSES, LintOptions

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any

# option spellings -> LintOptions field, for options that take a value (all repeatable ones are tuples)
VALUES = {"--select": "select", "--ignore": "ignore", "--per-file-ignores": "per_file_ignores",
          "--fail-on": "fail_on", "--target-arch": "arch", "--rocm": "rocm", "--exclude": "exclude",
          "-f": "formats", "--format": "formats", "--output-format": "formats"}
FLAGS = {"--statistics": "statistics", "--no-cache": "no_cache", "-q": "quiet", "--quiet": "quiet",
         "-v": "verbose", "--verbose": "verbose"}
MULTIPLE = frozenset({"select", "ignore", "per_file_ignores", "arch", "exclude", "formats"})
CHOICES = {"fail_on": LINT_CLASSES, "formats": (*FORMATS, "terminal")}
COMPLETE = "_ROCM_MIGRATE_COMPLETE"  # click's shell-completion variable for prog_name rocm-migrate


def read(argv: list[str]) -> LintOptions | None:
    """`rocm-migrate lint ...`'s options when click would read them to these values without a
    message; else None."""
    if argv[:1] != ["lint"] or os.name != "posix" or COMPLETE in os.environ:
        return None
    values: dict[str, list[str]] = {}
    flags: set[str] = set()
    files: list[str] = []
    words = iter(argv[1:])
    for word in words:
        if not word.startswith("-"):
            files.append(word)
            continue
        name, equals, value = word.partition("=")
        if name in FLAGS and not equals:
            flags.add(FLAGS[name])
            continue
        field = VALUES.get(name)
        if field is None or (equals and not name.startswith("--")):
            return None
        if not equals:
            value = next(words, "-")
        if value.startswith("-") or value not in CHOICES.get(field, (value,)):
            return None
        values.setdefault(field, []).append(value)
    if not all(_readable(file) for file in files):
        return None
    chosen: dict[str, Any] = {field: tuple(given) if field in MULTIPLE else given[-1] for field, given in values.items()}
    chosen.update(dict.fromkeys(flags, True))
    return LintOptions(files=tuple(Path(file) for file in files), **chosen)


def _readable(file: str) -> bool:
    """As click.Path(exists=True) checks a file argument (a stat, then read access)."""
    try:
        os.stat(file)
    except OSError:
        return False
    return os.access(file, os.R_OK)
