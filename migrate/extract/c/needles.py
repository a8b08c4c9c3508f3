"""Bytes patterns run over a whole source behind the literals each of their matches holds.

Python's `re` skips ahead by a pattern's literal prefix only; one that starts with `\\b`, a class
or an alternation tries every offset (0.04-0.27 s over cuda-samples' 9.6 MB per pattern, a dozen
such patterns a file). `bytes.__contains__` finds a literal hundreds of times faster, so a text
that holds none of a pattern's needles is not searched: the answer is the same, no match."""
from __future__ import annotations

import re
from collections.abc import Iterator

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any


_LOWERED: list[bytes] = [b"", b""]  # the last text a case-folding pattern looked at, and its lower-case copy


def lowered(text: bytes) -> bytes:
    """`text.lower()`, made once for the text the last call was given: a file's case-folding patterns (four of the
    extractors', each on every C/C++/CUDA file) look at the same bytes one after another, and lowering all of
    cuda-samples' 9.6 MB took as long again for each. Kept by identity: the bytes are the caller's object, held here
    until another text comes (one file's text, twice, in a worker or a lint process)."""
    if _LOWERED[0] is not text:
        _LOWERED[:] = [text, text.lower()]
    return _LOWERED[1]


class Needled:
    """`pattern`, and literals of which every match holds at least one (lower-case when the pattern
    ignores case: the text is lowered before looking, as `re` folds ASCII for bytes)."""

    __slots__ = ("fold", "needles", "pattern")

    def __init__(self, pattern: re.Pattern[bytes], *needles: bytes) -> None:
        if not needles:
            raise ValueError("a Needled pattern needs at least one needle")
        self.pattern = pattern
        self.fold = bool(pattern.flags & re.IGNORECASE)
        if self.fold and any(n != n.lower() for n in needles):
            raise ValueError(f"needles of a pattern that ignores case are lower-case: {needles!r}")
        self.needles = needles

    def may_match(self, text: bytes) -> bool:
        hay = lowered(text) if self.fold else text
        return any(needle in hay for needle in self.needles)

    def search(self, text: bytes) -> re.Match[bytes] | None:
        return self.pattern.search(text) if self.may_match(text) else None

    def finditer(self, text: bytes) -> Iterator[re.Match[bytes]]:
        return self.pattern.finditer(text) if self.may_match(text) else iter(())

    def findall(self, text: bytes) -> list[Any]:
        return self.pattern.findall(text) if self.may_match(text) else []


class LineNeedled(Needled):
    """A MULTILINE pattern anchored at a line's start (`^`) whose every match lies within one line and holds
    `needle`: tried at the start of each line that holds the needle, not at every offset of the text. The same
    matches, in the same order, as the pattern's own finditer (a match starts only where `^` holds, at a line's
    start, and ends before the next one), which for `^[ \\t]*#...` tries all 9.6 MB of cuda-samples' C/C++ per
    pattern (~0.05 s each); bytes.find skips to the few lines that can match."""

    __slots__ = ()

    def __init__(self, pattern: re.Pattern[bytes], needle: bytes) -> None:
        source = pattern.pattern.removeprefix(b"(?m)")
        if not pattern.flags & re.MULTILINE or not source.startswith(b"^") or b"\n" in needle:
            raise ValueError(f"not a pattern anchored at a line's start: {pattern.pattern!r}")
        super().__init__(pattern, needle)
        if self.fold:
            raise ValueError("a LineNeedled pattern does not ignore case")

    def finditer(self, text: bytes) -> Iterator[re.Match[bytes]]:
        needle, match = self.needles[0], self.pattern.match
        at = text.find(needle)
        while at >= 0:
            m = match(text, text.rfind(b"\n", 0, at) + 1)  # at the start of the needle's line
            if m is not None:
                yield m
            end = text.find(b"\n", at)
            if end < 0:
                return
            at = text.find(needle, end + 1)  # on the next lines

    def search(self, text: bytes) -> re.Match[bytes] | None:
        return next(self.finditer(text), None)

    def findall(self, text: bytes) -> list[Any]:
        groups, empty = self.pattern.groups, text[:0]  # as re's findall: a group that took no part is empty
        return [m.group(0) if groups == 0 else m.group(1) if groups == 1 and m.group(1) is not None
                else empty if groups == 1 else m.groups(empty) for m in self.finditer(text)]
