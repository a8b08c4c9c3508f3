"""Go files that use cgo: the native libraries their `#cgo LDFLAGS:` directives link
(https://pkg.go.dev/cmd/cgo: `#cgo [GOOS/GOARCH constraints] LDFLAGS: -L${SRCDIR}/libs -lfoo` in the comment above
`import "C"`). A library a Go package links is part of what `go build` needs: workloads/includes.py reads these."""
from __future__ import annotations

import re

from migrate.extract.text.lines import fact, finish
from migrate.model import Extraction

CGO_LDFLAGS = re.compile(r"^[ \t]*(?://[ \t]*)?#cgo[ \t]+(?:[^:\n]*[ \t])?LDFLAGS:[ \t]*(.*)$", re.MULTILINE)
WORD = re.compile(r"\S+")


def extract(source: bytes) -> Extraction:
    """`link_library` per `-lNAME` (the text: the `-L` folders of the same directive, one a line; role `cgo`)."""
    text = source.decode("utf-8")
    facts = []
    line, counted = 1, 0
    for m in CGO_LDFLAGS.finditer(text):
        line += text.count("\n", counted, m.start())  # counted from the last directive: linear in the file
        counted = m.start()
        start = m.start(1) - (text.rfind("\n", 0, m.start(1)) + 1)
        words = [(w.start(), w.group(0)) for w in WORD.finditer(m.group(1))]
        folders = "\n".join(f[2:] for _, f in words if f.startswith("-L") and len(f) > 2)
        for at, flag in words:
            if flag.startswith("-l") and len(flag) > 2:
                facts.append(fact("link_library", flag[2:], line, start + at, start + at + len(flag), text=folders,
                                  role="cgo"))
    return finish(text, facts)
