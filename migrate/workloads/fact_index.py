"""A project's facts by file, with the facts of each kind listed once: the readings of parts, switches, includes
and reached files ask the same ~54,000 facts of a large project (cuda-samples) for one kind or two some eighty
times, each a pass over all of them (docs/decisions/2026-12-06-s24-facts-by-kind.md).

`of_kind(facts, kind)` is `[(path, f) for path, items in facts.items() for f in items if f.kind == kind]`, in that
order, for any mapping; for a `ProjectFacts` the list is made once, with every kind's in one pass."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from migrate.model import Fact

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

Placed = tuple[str, Fact]  # the file, one of its facts
_NONE: tuple[Placed, ...] = ()


class ProjectFacts(dict[str, tuple[Fact, ...]]):
    """file -> its facts (tuples, never changed), with `of_kind`'s lists kept; any change of the mapping drops
    them (the scan never changes it after it is made)."""

    __slots__ = ("_derived", "_kinds", "_order")

    def __init__(self, items: Iterable[tuple[str, tuple[Fact, ...]]] | Mapping[str, tuple[Fact, ...]] = ()) -> None:
        super().__init__(items)
        self._kinds: dict[str, list[Placed]] | None = None
        self._order: dict[str, list[int]] = {}  # kind -> each of its facts' place among all the facts
        self._derived: dict[object, object] = {}  # `derived`'s values, by the function that made each

    def of_set(self, kinds: Iterable[str]) -> list[Placed]:
        """The (file, fact) list of these kinds together, in the facts' order (the kinds' lists merged)."""
        index, order = self.by_kind(), self._order
        found = [k for k in dict.fromkeys(kinds) if k in index]
        if len(found) == 1:
            return list(index[found[0]])
        merged = sorted((n, at, k) for k in found for at, n in enumerate(order[k]))
        return [index[k][at] for _, at, k in merged]

    def by_kind(self) -> dict[str, list[Placed]]:
        """Every kind's (file, fact) list, made in one pass."""
        index = self._kinds
        if index is None:
            index, order = {}, {}
            n = 0
            for path, items in self.items():
                for f in items:
                    placed = index.get(f.kind)
                    if placed is None:
                        index[f.kind], order[f.kind] = [(path, f)], [n]
                    else:
                        placed.append((path, f))
                        order[f.kind].append(n)
                    n += 1
            self._kinds, self._order = index, order
        return index

    def __setitem__(self, key: str, value: tuple[Fact, ...]) -> None:
        self._kinds, self._order, self._derived = None, {}, {}
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self._kinds, self._order, self._derived = None, {}, {}
        super().__delitem__(key)

    def __ior__(self, other: Any) -> ProjectFacts:  # type: ignore[override,misc]
        self._kinds, self._order, self._derived = None, {}, {}
        return super().__ior__(other)

    def update(self, *args: Any, **kwargs: tuple[Fact, ...]) -> None:
        self._kinds, self._order, self._derived = None, {}, {}
        super().update(*args, **kwargs)

    def setdefault(self, key: str, default: tuple[Fact, ...] = ()) -> tuple[Fact, ...]:
        self._kinds, self._order, self._derived = None, {}, {}
        return super().setdefault(key, default)

    def pop(self, key: str, *default: Any) -> Any:
        self._kinds, self._order, self._derived = None, {}, {}
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, tuple[Fact, ...]]:
        self._kinds, self._order, self._derived = None, {}, {}
        return super().popitem()

    def clear(self) -> None:
        self._kinds, self._order, self._derived = None, {}, {}
        super().clear()


def derived(facts: Mapping[str, Sequence[Fact]], make: Callable[[Mapping[str, Sequence[Fact]]], T]) -> T:
    """`make(facts)`, made once for a `ProjectFacts` (until it changes): for data of the facts alone that several
    readings, or one reading called several times, make again. The value is shared: never change it."""
    if not isinstance(facts, ProjectFacts):
        return make(facts)
    if make not in facts._derived:
        facts._derived[make] = make(facts)
    return facts._derived[make]  # type: ignore[return-value]


def indexed(pairs: Iterable[tuple[str, tuple[Fact, ...]]]) -> ProjectFacts:
    """The facts of a scan's files (file, facts) as the readings get them."""
    return ProjectFacts(pairs)


def of_kind(facts: Mapping[str, Sequence[Fact]], kind: str) -> Sequence[Placed]:
    """(file, fact) for every fact of `kind`, files in the mapping's order, each file's facts in theirs."""
    if isinstance(facts, ProjectFacts):
        return facts.by_kind().get(kind, _NONE)
    return [(path, f) for path, items in facts.items() for f in items if f.kind == kind]


def of_kinds(facts: Mapping[str, Sequence[Fact]], *kinds: str) -> Sequence[Placed]:
    """`of_kind` for several kinds at once, in the order of one pass over all the facts (a file's facts of two
    kinds interleave)."""
    if isinstance(facts, ProjectFacts):
        return facts.of_set(kinds)
    wanted = frozenset(kinds)
    return [(path, f) for path, items in facts.items() for f in items if f.kind in wanted]


def each_of_kinds(facts: Mapping[str, Sequence[Fact]], *kinds: str) -> Iterator[Placed]:
    """The facts of these kinds, kind by kind (each in the facts' order): for readings the order does not change
    (a set, a membership test, `any`)."""
    for kind in dict.fromkeys(kinds):
        yield from of_kind(facts, kind)
