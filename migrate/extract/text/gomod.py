"""extract, Go `go.mod`: the modules a Go module requires directly, as `requirement` facts named `go:<module path>`
(rules/dependencies.yaml matches NVIDIA's management-library bindings and driver-stack modules by these names, as it
matches a Cargo crate's `cargo:` and a Julia package's `julia:` names).

The go.mod reference (https://go.dev/ref/mod#go-mod-file-require): `require path version` on one line, or a
`require ( ... )` block with one `path version` a line; a `// indirect` comment marks a requirement that no package
of the main module imports (https://go.dev/ref/mod#go-mod-file-require: "An // indirect comment indicates that no
package from the required module is directly imported by any package in the main module"), which gives nothing here.
`replace`, `exclude` and `retract` directives name no new dependency of the build and give nothing; a go.mod's
`module` line is read by workloads/reach.py through the file's name, not here."""
from __future__ import annotations

import re

from migrate.extract.text.lines import fact, finish
from migrate.model import Extraction, Fact

PREFIX = "go:"
REQUIRE_LINE = re.compile(r"^[ \t]*require[ \t]+(?!\()")  # `require path version` (not a block's opening)
BLOCK_START = re.compile(r"^[ \t]*(\w+)[ \t]*\([ \t]*(?://.*)?$")  # `require (`, `replace (`, ...
ENTRY = re.compile(r"^[ \t]*(\"[^\"]+\"|`[^`]+`|[^\s\"`/()][^\s]*)[ \t]+v\S+[ \t]*(//.*)?$")
INDIRECT = re.compile(r"^//[ \t]*indirect\b")


def extract(source: bytes) -> Extraction:
    text = source.decode("utf-8", errors="replace")
    facts: list[Fact] = []
    block = ""
    for number, line in enumerate(text.split("\n"), 1):
        if block:
            if line.strip().startswith(")"):
                block = ""
            elif block == "require":
                facts += _requirement(line, 0, number)
            continue
        opened = BLOCK_START.match(line)
        if opened:
            block = opened.group(1)
            continue
        single = REQUIRE_LINE.match(line)
        if single:
            facts += _requirement(line[single.end():], single.end(), number)
    return finish(text, facts)


def _requirement(entry: str, column: int, number: int) -> list[Fact]:
    """The fact of one `path version` entry (none for an indirect one); `column`: where `entry` starts on its line."""
    m = ENTRY.match(entry)
    if not m or (m.group(2) and INDIRECT.match(m.group(2))):
        return []
    path = m.group(1).strip("\"`")
    return [fact("requirement", PREFIX + path, number, column + m.start(1), column + m.end(1))]
