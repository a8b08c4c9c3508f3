"""The small directed graph the workload stages need: edges with a reason, what a node reaches (and the
least of it, for every node at once), shortest paths to a target and the level of every node (cycles share
one). Written here instead of importing networkx, whose import alone cost a scan ~0.15 s of CPU on the
2-core machine. Every reading is linear in the graph: a generated build of thousands of chained targets
must not make a scan quadratic (decision record 2026-12-06-s26-dependency-chains)."""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any, Generic, TypeVar

N = TypeVar("N", bound=Hashable)


class NoPath(LookupError):
    """No path leads from the source to the target."""


class DiGraph(Generic[N]):
    """Nodes and edges in the order they were added; each edge has one optional reason."""

    def __init__(self, nodes: Iterable[N] = ()) -> None:
        self.succ: dict[N, dict[N, str]] = {}
        self.pred: dict[N, dict[N, str]] = {}
        for node in nodes:
            self.add_node(node)

    def add_node(self, node: N) -> None:
        if node not in self.succ:
            self.succ[node] = {}
            self.pred[node] = {}

    def add_edge(self, source: N, target: N, step: str = "") -> None:
        self.add_node(source)
        self.add_node(target)
        self.succ[source][target] = step
        self.pred[target][source] = step

    def has_edge(self, source: N, target: N) -> bool:
        return target in self.succ.get(source, {})

    def step(self, source: N, target: N) -> str:
        return self.succ[source][target]

    def successors(self, node: N) -> Iterator[N]:
        return iter(self.succ[node])

    def descendants(self, node: N) -> set[N]:
        """Every node a path leads to from `node` (itself not included, even on a cycle)."""
        seen, todo = {node}, [node]
        while todo:
            for child in self.succ[todo.pop()]:
                if child not in seen:
                    seen.add(child)
                    todo.append(child)
        seen.discard(node)
        return seen

    def least_descendants(self, key: Callable[[N], Any], counted: Callable[[N], bool]) -> dict[N, N | None]:
        """For every node, its counted descendant of least `key` (keys are distinct and comparable), or None: what
        `min(d for d in descendants(node) if counted(d))` gives, in time linear in the graph (a long chain of
        targets would make the per-node searches quadratic). The condensation's components are visited after
        every component they reach; a component's nodes reach each other, never themselves."""
        component = self._components()
        members: dict[int, list[N]] = {}
        for node, number in component.items():
            members.setdefault(number, []).append(node)
        below: dict[int, N | None] = {}  # least counted node a component reaches outside itself
        within: dict[int, N | None] = {}  # least counted node of a component, or of what it reaches
        least: dict[N, N | None] = {}
        for number in sorted(members):
            entered = {component[w] for v in members[number] for w in self.succ[v] if component[w] != number}
            reached: list[N] = [n for c in entered if (n := within[c]) is not None]
            below[number] = min(reached, key=key, default=None)
            outside = [b] if (b := below[number]) is not None else []
            inside = sorted((v for v in members[number] if counted(v)), key=key)
            within[number] = min(inside[:1] + outside, key=key, default=None)
            for node in members[number]:
                others = [v for v in inside[:2] if v != node][:1] if len(members[number]) > 1 else []
                least[node] = min(others + outside, key=key, default=None)
        return least

    def paths_to(self, target: N, anchor_depth: int = 0) -> PathsTo[N]:
        """Shortest paths to `target` from every node that reaches it: one breadth-first search backwards."""
        return PathsTo(self, target, anchor_depth)

    def levels(self) -> dict[N, int]:
        """0 for a node that reaches nothing outside its own cycle, else one more than the highest
        level it reaches; the nodes of a cycle share a level (the condensation's longest path)."""
        component = self._components()
        members: dict[int, list[N]] = {}
        for node, number in component.items():
            members.setdefault(number, []).append(node)
        level: dict[int, int] = {}
        # Tarjan numbers a component only after every component it reaches: ascending order is safe
        for number in sorted(members):
            level[number] = 1 + max((level[component[w]] for v in members[number] for w in self.succ[v]
                                     if component[w] != number), default=-1)
        return {node: level[component[node]] for node in self.succ}

    def _components(self) -> dict[N, int]:
        """Strongly connected components (Tarjan's, without recursion): node -> component number,
        numbered in the order they close, so a component comes after every one it reaches."""
        index: dict[N, int] = {}
        low: dict[N, int] = {}
        on_stack: set[N] = set()
        stack: list[N] = []
        component: dict[N, int] = {}
        components = 0
        for root in self.succ:
            if root in index:
                continue
            index[root] = low[root] = len(index)
            stack.append(root)
            on_stack.add(root)
            work: list[tuple[N, list[N], int]] = [(root, list(self.succ[root]), 0)]
            while work:
                node, children, at = work[-1]
                if at < len(children):
                    work[-1] = (node, children, at + 1)
                    child = children[at]
                    if child not in index:
                        index[child] = low[child] = len(index)
                        stack.append(child)
                        on_stack.add(child)
                        work.append((child, list(self.succ[child]), 0))
                    elif child in on_stack:
                        low[node] = min(low[node], index[child])
                    continue
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component[member] = components
                        if member == node:
                            break
                    components += 1
        return component


class PathsTo(Generic[N]):
    """The breadth-first tree of the nodes that reach one target: each node's next step on a shortest path,
    its distance, and (`anchor_depth`) the node at that distance on its path, so that both ends of a long path
    are read without walking its middle."""

    def __init__(self, graph: DiGraph[N], target: N, anchor_depth: int) -> None:
        self.target = target
        self.next: dict[N, N | None] = {target: None}
        self.depth: dict[N, int] = {target: 0}
        self._anchor: dict[N, N] = {target: target} if anchor_depth == 0 else {}
        queue = deque([target])
        while queue:
            node = queue.popleft()
            for before in graph.pred[node]:
                if before not in self.next:
                    self.next[before] = node
                    self.depth[before] = self.depth[node] + 1
                    if self.depth[before] == anchor_depth:
                        self._anchor[before] = before
                    elif node in self._anchor:
                        self._anchor[before] = self._anchor[node]
                    queue.append(before)

    def walk(self, source: N, steps: int | None = None) -> list[N]:
        """The path from `source` (NoPath where it does not reach the target), `steps` long at most."""
        if source not in self.next:
            raise NoPath(f"no path from {source!r} to {self.target!r}")
        path = [source]
        while (node := self.next[path[-1]]) is not None and (steps is None or len(path) <= steps):
            path.append(node)
        return path

    def anchor(self, source: N) -> N:
        """The node at the anchor depth on `source`'s path (`source` at least that far from the target)."""
        return self._anchor[source]
