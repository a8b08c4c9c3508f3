"""A project's facts listed by kind once (docs/decisions/2026-12-06-s24-facts-by-kind.md): `of_kind`, `of_kinds` and
`each_of_kinds` give what the pass over every fact they replace gives, in its order, and a scan's report is the same
whether the readings get the index or a plain mapping."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from migrate.model import Fact
from migrate.render.json_report import to_json
from migrate.scan import pipeline
from migrate.settings import Settings
from migrate.workloads import fact_index
from migrate.workloads.fact_index import ProjectFacts, each_of_kinds, of_kind, of_kinds
from tests.conftest import ROOT

KINDS = ("cmake", "include", "flag", "build_source", "switch_branch", "extension")


def fact(kind: str, name: str, line: int) -> Fact:
    return Fact(kind=kind, name=name, line=line, column=1, end_line=line, end_column=2)


def random_facts(seed: int) -> dict[str, tuple[Fact, ...]]:
    rng = random.Random(seed)
    return {f"d{n % 3}/f{n}.cu": tuple(fact(rng.choice(KINDS), f"x{rng.randrange(5)}", line)
                                       for line in range(rng.randrange(0, 12)))
            for n in rng.sample(range(40), 20)}


def long_way(facts: dict[str, tuple[Fact, ...]], *kinds: str) -> list[tuple[str, Fact]]:
    return [(path, f) for path, items in facts.items() for f in items if f.kind in kinds]


@pytest.mark.parametrize("seed", range(8))
def test_each_kind_list_is_the_pass_over_every_fact_in_its_order(seed: int) -> None:
    plain = random_facts(seed)
    indexed = ProjectFacts(plain)
    for kind in (*KINDS, "absent"):
        assert list(of_kind(indexed, kind)) == list(of_kind(plain, kind)) == long_way(plain, kind)
    for kinds in (("cmake", "flag"), ("build_source", "cmake", "include"), ("extension",), ("absent", "include"), ()):
        assert list(of_kinds(indexed, *kinds)) == list(of_kinds(plain, *kinds)) == long_way(plain, *kinds)
        assert sorted(map(repr, each_of_kinds(indexed, *kinds))) == sorted(map(repr, long_way(plain, *kinds)))
    assert indexed == plain


def test_two_kinds_interleaved_in_one_file_keep_the_files_order_not_kind_by_kind() -> None:
    """The near miss: the kinds' lists one after the other would put a.cu's flag after b.cu's cmake."""
    facts = {"a.cu": (fact("cmake", "1", 1), fact("flag", "2", 2), fact("cmake", "3", 3)),
             "b.cu": (fact("flag", "4", 1), fact("cmake", "5", 2))}
    assert [f.name for _, f in of_kinds(ProjectFacts(facts), "cmake", "flag")] == ["1", "2", "3", "4", "5"]
    assert [f.name for _, f in each_of_kinds(ProjectFacts(facts), "cmake", "flag")] == ["1", "3", "5", "2", "4"]


def test_a_change_of_the_mapping_drops_the_lists() -> None:
    facts = ProjectFacts({"a.cu": (fact("include", "a.h", 1),)})
    assert [p for p, _ in of_kind(facts, "include")] == ["a.cu"]
    facts["b.cu"] = (fact("include", "b.h", 1),)
    assert [p for p, _ in of_kind(facts, "include")] == ["a.cu", "b.cu"]
    facts.update({"c.cu": (fact("include", "c.h", 1),)})
    del facts["a.cu"]
    assert [p for p, _ in of_kinds(facts, "include", "flag")] == ["b.cu", "c.cu"]
    facts.pop("b.cu")
    facts |= {"d.cu": ()}
    assert [p for p, _ in of_kind(facts, "include")] == ["c.cu"]
    facts.clear()
    assert not of_kind(facts, "include")


TREES = sorted(p for p in (ROOT / "fixtures" / "workloads").iterdir() if p.is_dir() and p.name != "optional")[:12] \
    + sorted(p for p in (ROOT / "fixtures" / "workloads" / "optional").iterdir() if p.is_dir())[::6]


@pytest.mark.parametrize("tree", TREES, ids=lambda p: p.name)
def test_a_scans_report_is_the_same_with_the_index_as_with_a_plain_mapping(tree: Path, rulebase,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def scanned() -> dict:
        return to_json(pipeline.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))

    with_index = scanned()
    monkeypatch.setattr(fact_index, "indexed", dict)
    assert scanned() == with_index


def test_derived_data_is_made_once_and_again_after_a_change() -> None:
    made: list[int] = []

    def count(facts) -> int:
        made.append(len(facts))
        return len(facts)

    facts = ProjectFacts({"a.cu": ()})
    assert fact_index.derived(facts, count) == fact_index.derived(facts, count) == 1 and made == [1]
    facts["b.cu"] = ()
    assert fact_index.derived(facts, count) == 2 and made == [1, 2]
    assert fact_index.derived({"a.cu": ()}, count) == 1 and made == [1, 2, 1]  # a plain mapping: made every time


def test_the_json_reports_findings_by_their_place_are_what_the_ids_by_finding_give(rulebase) -> None:
    """Each finding's id from its place where no two are equal; the near miss: two equal findings share the later id."""
    import dataclasses
    import json

    from migrate.render.json_report import render

    report = pipeline.run([ROOT / "fixtures" / "repos" / "demo"], Settings(jobs=1, cache_dir=None, use_hipify=False),
                          rulebase)
    doubled = dataclasses.replace(report, findings=(report.findings[0], *report.findings))
    assert len(report.findings) > 2
    for each in (report, doubled):
        assert render(each) == json.dumps(to_json(each), indent=2, ensure_ascii=False) + "\n"
    ids = [f["id"] for f in json.loads(render(doubled))["findings"]]
    assert ids[:2] == ["F2", "F2"] and ids[2] == "F3"
