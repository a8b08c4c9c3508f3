"""workloads/digraph.py: the same answers as networkx (which the HTML layout still uses) on random
graphs, cycles and self-loops included: the same shortest path where several are as short."""
from __future__ import annotations

import random
from itertools import pairwise

import networkx as nx
import pytest
from migrate.workloads.digraph import DiGraph, NoPath


def _pair(seed: int) -> tuple[DiGraph[str], nx.DiGraph]:
    rng = random.Random(seed)
    nodes = [f"w{n}" for n in range(rng.randint(1, 30))]
    ours: DiGraph[str] = DiGraph(nodes)
    theirs = nx.DiGraph()
    theirs.add_nodes_from(nodes)
    for _ in range(rng.randint(0, 80)):
        a, b = rng.choice(nodes), rng.choice(nodes)
        ours.add_edge(a, b, f"{a}->{b}")
        theirs.add_edge(a, b, step=f"{a}->{b}")
    return ours, theirs


def _levels(graph: nx.DiGraph) -> dict[str, int]:
    condensed = nx.condensation(graph)
    level: dict[int, int] = {}
    for node in reversed(list(nx.topological_sort(condensed))):
        level[node] = 1 + max((level[s] for s in condensed.successors(node)), default=-1)
    return {n: level[condensed.graph["mapping"][n]] for n in graph.nodes}


@pytest.mark.parametrize("seed", range(300))
def test_the_same_answers_as_networkx(seed: int) -> None:
    ours, theirs = _pair(seed)
    assert ours.levels() == _levels(theirs)
    for node in theirs.nodes:
        assert ours.descendants(node) == nx.descendants(theirs, node)
        assert list(ours.successors(node)) == list(theirs.successors(node))
        for target in theirs.nodes:
            if nx.has_path(theirs, node, target):
                path = ours.shortest_path(node, target)
                assert path == nx.shortest_path(theirs, node, target)
                assert [ours.step(a, b) for a, b in pairwise(path)] == [theirs.edges[a, b]["step"] for a, b in pairwise(path)]
            else:
                with pytest.raises(NoPath):
                    ours.shortest_path(node, target)


def test_a_cycle_shares_a_level() -> None:
    graph: DiGraph[str] = DiGraph(["a", "b", "c", "d"])
    for a, b in (("a", "b"), ("b", "a"), ("a", "c"), ("d", "a")):
        graph.add_edge(a, b)
    assert graph.levels() == {"a": 1, "b": 1, "c": 0, "d": 2}
