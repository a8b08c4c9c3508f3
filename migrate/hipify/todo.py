"""The to-do list `convert` writes (rocm-migrate-todo.md): what hipify-perl left for a person."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from migrate.hipify.compare import (
    CONVERTED_IN_COMMENT,
    CONVERTED_IN_STRING,
    DIFFERENT,
    DISPUTED,
    FALSE_ALARM,
    RULES_DIFFER,
    UNKNOWN,
    Disagreement,
)

if TYPE_CHECKING:
    from migrate.hipify.convert import ConvertResult

PLACES = 8  # places listed per entry
TABLE_PLACE = re.compile(r"(?:^|(?<=; ))\S.*?:\d+: (?=warning: )")
DEVICE_LINE = re.compile(r'(unsupported device function "[^"]+"):.*')
LEFTOVER_PLACE = re.compile(r"warning: .*?:#\d+ : ")
# Silent misses and names hipify left alone are still in the converted tree: the scan lists them.
REVIEW_KINDS = frozenset({DIFFERENT, DISPUTED, CONVERTED_IN_COMMENT, CONVERTED_IN_STRING, FALSE_ALARM,
                          RULES_DIFFER, UNKNOWN})
SECTIONS = (
    ((DISPUTED, DIFFERENT), "hipify-perl rewrites to check",
     "hipify-perl renamed these, but not to what the rule base maps them to (or the target ROCm lacks the name)."),
    ((CONVERTED_IN_STRING, CONVERTED_IN_COMMENT), "Rewritten inside strings or comments",
     "hipify-perl renames inside string literals (and, before HIP 7, comments): log messages, names looked up "
     "at run time (dlsym, getattr) and documentation may now be wrong."),
    ((UNKNOWN, RULES_DIFFER), "hipify-perl warnings the rule base does not share",
     "Names hipify-perl flags that no rule reports: often user identifiers that start with `cuda`."),
    ((FALSE_ALARM,), "hipify-perl warnings that do not apply",
     "Warnings about a name that is not on that line as a whole word of code (hipify-perl matches substrings)."),
)


@dataclass(frozen=True, slots=True)
class Review:
    """A disagreement, with its line in the converted file."""

    disagreement: Disagreement
    line: int


def render_todo(result: ConvertResult) -> str:
    tool = result.tool
    out = [
        "# rocm-migrate: hand work left after hipify-perl",
        "",
        f"hipify-perl {tool.version or '(unknown version)'} (`{tool.path}`) converted {len(result.changed)} of "
        f"{len(result.files)} CUDA/C++ files in {result.seconds:.1f} s. The changes are in `{result.diff_path.name}`; "
        "locations below are in the converted tree.",
        "",
    ]
    if result.failed:
        out += ["## Files hipify-perl could not convert", ""]
        out += [f"- `{rel}`: {error.splitlines()[0]}" for rel, error in result.failed]
        out.append("")
    out += [f"## Findings hipify-perl does not fix ({len(result.todo)})", ""]
    if not result.todo:
        out += ["None: the rule base finds nothing left to port by hand.", ""]
    current = None
    for f in result.todo:
        if f.path != current:
            if current is not None:
                out.append("")
            out += [f"### `{f.path}`", ""]
            current = f.path
        out.append(f"- [ ] line {f.line}, column {f.column}: **{f.rule}** {f.message.rstrip('.')}. "
                   f"(class {f.cls}, confidence {f.confidence})")
    if result.todo:
        out.append("")
    for kinds, title, intro in SECTIONS:
        items = [r for r in result.review if r.disagreement.kind in kinds]
        if items:
            out += [f"## {title} ({len(items)})", "", intro, "", *_grouped(items), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _grouped(items: list[Review]) -> list[str]:
    """One entry per name and verdict, with its places (a user's `cudaCheck` macro can warn 500 times)."""
    groups: dict[tuple[str, str, str], list[Review]] = {}
    for r in sorted(items, key=lambda r: (r.disagreement.path, r.line)):
        d = r.disagreement
        groups.setdefault((d.symbol, _unplaced(d.hipify), d.rules), []).append(r)
    out = []
    for (symbol, said, rules), places in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
        where = ", ".join(f"`{r.disagreement.path}:{r.line}`" for r in places[:PLACES])
        more = f" and {len(places) - PLACES} more" if len(places) > PLACES else ""
        out.append(f"- [ ] `{symbol}`: hipify-perl: {said}; rule base: {rules}. {len(places)} place"
                   f"{'s' if len(places) > 1 else ''}: {where}{more}")
    return out


def _unplaced(text: str) -> str:
    """hipify's message without its file and line (they differ in every place)."""
    if LEFTOVER_PLACE.match(text):
        return "flags a `cuda*` name still there after conversion"
    return DEVICE_LINE.sub(r"\1", TABLE_PLACE.sub("", text))
