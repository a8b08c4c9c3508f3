"""workloads/digraph.py: the same answers as networkx (which the HTML layout still uses) on random
graphs, cycles and self-loops included."""
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
        paths = ours.paths_to(target, anchor_depth=2)
        for node in theirs.nodes:
            if nx.has_path(theirs, node, target):
                path = paths.walk(node)
                assert path[0] == node and path[-1] == target
                assert len(path) - 1 == paths.depth[node] == nx.shortest_path_length(theirs, node, target)
                assert all(theirs.has_edge(a, b) for a, b in pairwise(path))
                assert paths.walk(node, 1) == path[:2]
                if paths.depth[node] >= 2:
                    assert paths.anchor(node) == path[-3]
            else:
                with pytest.raises(NoPath):
                    paths.walk(node)


def test_a_cycle_shares_a_level() -> None:
    graph: DiGraph[str] = DiGraph(["a", "b", "c", "d"])
    for a, b in (("a", "b"), ("b", "a"), ("a", "c"), ("d", "a")):
        graph.add_edge(a, b)
    assert graph.levels() == {"a": 1, "b": 1, "c": 0, "d": 2}


@pytest.mark.parametrize("seed", range(300))
def test_least_descendants_is_the_least_of_the_descendants(seed: int) -> None:
    ours, theirs = _pair(seed)
    rng = random.Random(-seed)
    rank = {n: rng.randint(0, 3) for n in theirs.nodes}
    counted = {n for n in theirs.nodes if rng.random() < 0.7}

    def key(n: str) -> tuple[int, str]:
        return (-rank[n], n)

    least = ours.least_descendants(key, counted.__contains__)
    for node in theirs.nodes:
        reached = [d for d in nx.descendants(theirs, node) if d in counted]
        assert least[node] == min(reached, key=key, default=None)


def test_least_descendants_of_a_long_chain_is_linear() -> None:
    """A CMake chain of 20,000 targets, each linking the one before (a generated or hostile build): one
    search per target would visit 200 million nodes; the condensation visits each node once."""
    import time

    nodes = [f"t{n:05}" for n in range(20_000)]
    graph: DiGraph[str] = DiGraph(nodes)
    for a, b in pairwise(nodes):
        graph.add_edge(b, a, f"{b} links {a}")
    start = time.process_time()
    least = graph.least_descendants(lambda n: (n != "t00000", n), lambda n: True)
    assert time.process_time() - start < 2.0
    assert least["t19999"] == "t00000" and least["t00000"] is None
