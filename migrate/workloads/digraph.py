"""The small directed graph the workload stages need: edges with a reason, what a node reaches,
a shortest path and the level of every node (cycles share one). Written here instead of importing
networkx, whose import alone cost a scan ~0.15 s of CPU on the 2-core machine: the path search is
networkx's bidirectional breadth-first search step for step (3.6, `bidirectional_shortest_path`),
so that the same path is chosen where several are as short."""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from typing import Generic, TypeVar

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

    def shortest_path(self, source: N, target: N) -> list[N]:
        """A shortest path from source to target (both included); NoPath where there is none."""
        if source not in self.succ or target not in self.succ:
            raise NoPath(f"{source!r} or {target!r} is not in the graph")
        pred, succ, meet = self._meet(source, target)
        path: list[N] = []
        node: N | None = meet
        while node is not None:
            path.append(node)
            node = pred[node]
        path.reverse()
        node = succ[path[-1]]
        while node is not None:
            path.append(node)
            node = succ[node]
        return path

    def _meet(self, source: N, target: N) -> tuple[dict[N, N | None], dict[N, N | None], N]:
        """Breadth-first from both ends, the smaller fringe first, until the searches meet."""
        if source == target:
            return {target: None}, {source: None}, source
        pred: dict[N, N | None] = {source: None}
        succ: dict[N, N | None] = {target: None}
        forward, reverse = [source], [target]
        while forward and reverse:
            if len(forward) <= len(reverse):
                level, forward = forward, []
                for v in level:
                    for w in self.succ[v]:
                        if w not in pred:
                            forward.append(w)
                            pred[w] = v
                        if w in succ:
                            return pred, succ, w
            else:
                level, reverse = reverse, []
                for v in level:
                    for w in self.pred[v]:
                        if w not in succ:
                            succ[w] = v
                            reverse.append(w)
                        if w in pred:
                            return pred, succ, w
        raise NoPath(f"no path from {source!r} to {target!r}")

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
