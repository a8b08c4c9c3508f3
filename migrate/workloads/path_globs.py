"""Globs of paths as build files write them: CMake's file(GLOB), Cargo's workspace `members` and a build script's
`glob("src/**/*.cu")` (the glob crate) match a pattern one path segment at a time, so `*`, `?` and `[...]` never match
a `/` (`src/*.cu` is not `src/sub/x.cu`); only a `**` segment matches any number of folders, none included
(https://cmake.org/cmake/help/latest/command/file.html#glob, https://docs.rs/glob/latest/glob/struct.Pattern.html,
https://doc.rust-lang.org/cargo/reference/workspaces.html#the-members-and-exclude-fields). fnmatch's `*` matches
`/` too, so it is no reading of such a pattern."""
from __future__ import annotations

import re
from functools import lru_cache


def matches(path: str, pattern: str) -> bool:
    """Whether `path` (relative, `/`-separated) is a path `pattern` names."""
    return _compiled(pattern).fullmatch(path) is not None


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**", i) and (i == 0 or pattern[i - 1] == "/"):
            if pattern.startswith("**/", i):
                out.append("(?:[^/]*/)*")  # any number of folders, none included
                i += 3
            elif i + 2 == n:
                out.append(".*")
                i += 2
            else:
                out.append("[^/]*")  # `**x`: no segment of its own, one `*`
                i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and (end := pattern.find("]", i + 2)) > 0:
            body = pattern[i + 1:end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out))
