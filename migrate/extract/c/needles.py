"""Bytes patterns run over a whole source behind the literals each of their matches holds.

Python's `re` skips ahead by a pattern's literal prefix only; one that starts with `\\b`, a class
or an alternation tries every offset (0.04-0.27 s over cuda-samples' 9.6 MB per pattern, a dozen
such patterns a file). `bytes.__contains__` finds a literal hundreds of times faster, so a text
that holds none of a pattern's needles is not searched: the answer is the same, no match."""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any


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
        hay = text.lower() if self.fold else text
        return any(needle in hay for needle in self.needles)

    def search(self, text: bytes) -> re.Match[bytes] | None:
        return self.pattern.search(text) if self.may_match(text) else None

    def finditer(self, text: bytes) -> Iterator[re.Match[bytes]]:
        return self.pattern.finditer(text) if self.may_match(text) else iter(())

    def findall(self, text: bytes) -> list[Any]:
        return self.pattern.findall(text) if self.may_match(text) else []
