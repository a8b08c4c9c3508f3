"""The rule base builds a rule when first read (load.RuleBase.rule): an edited-file lint reads ~450
records and builds the few rules its facts find. What every rule's selection needs is read from the
records as columns; these tests hold the columns equal to the built rules' fields, the lazy index's
answers equal to the eager one's, and an edited-file lint's builds few (a site that iterates
`rulebase.rules` on lint's path builds all ~450 and fails the count)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from migrate.cli import lint_run
from migrate.cli.lint_run import LintOptions
from migrate.model import Fact, Target
from migrate.rulebase import load, precompiled, targets
from migrate.rulebase.load import RuleBase, RuleError, from_records
from migrate.scan.match import RuleIndex

KERNEL = """#include <cuda_runtime.h>
__global__ void reduce(float *out, const float *in) {
  float v = in[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
"""
TARGETS = [("10.1", ("gfx942",)), ("6.2", ("gfx90a", "gfx1100")), ("5.7", ("gfx906",)), ("7.0", ("gfx1201",))]


def _lazy() -> RuleBase:
    rules = precompiled.load(None, None)
    assert rules.built == 0, "the compiled copy serves a lazy rule base"
    return rules


def test_columns_are_the_built_rules_fields() -> None:
    lazy, built = _lazy(), load.load_rules()
    assert lazy.ids == [r.id for r in built.rules] and lazy.names == [r.name for r in built.rules]
    assert lazy.in_backend_files() == [r.in_backend_files for r in built.rules]
    assert [kind for kind, _ in lazy.matchers()] == [r.matcher.kind for r in built.rules]
    catalogue = targets.load()
    for rocm, names in TARGETS:
        archs = catalogue.resolve(names, rocm)
        assert lazy.in_force(rocm, archs) == [r.applies_to(rocm, archs) for r in built.rules], rocm
    assert lazy.built == 0
    assert lazy.rules == built.rules and lazy.built == len(lazy)


def test_get_finds_an_id_or_a_name_and_builds_that_rule_alone() -> None:
    lazy, built = _lazy(), load.load_rules()
    first = built.rules[0]
    assert lazy.get(first.id) == first and lazy.get(first.name) == first and lazy.built == 1
    assert lazy.get("HIP9999-no-such-rule") is None and lazy.built == 1


@pytest.mark.parametrize(("rocm", "archs"), TARGETS)
def test_the_lazy_index_answers_as_the_eager_one(rocm: str, archs: tuple[str, ...]) -> None:
    lazy, built = _lazy(), load.load_rules()
    assert built.built == len(built)  # records not compiled before: every rule built (and its patterns) at once
    one, other = RuleIndex(lazy, Target(rocm=rocm, arch=archs)), RuleIndex(built, Target(rocm=rocm, arch=archs))
    assert one.in_force == other.in_force
    facts = [Fact(kind=kind, name=name, line=1, column=1, end_line=1, end_column=2, role=role) for kind, name, role in [
        ("identifier", "cudaMalloc", "call"), ("identifier", "__shfl_down_sync", "call"),
        ("identifier", "cublasSgemm", "call"), ("identifier", "cudaNoSuchThing", "call"),
        ("include", "cuda_runtime.h", "value"), ("include", "cub/cub.cuh", "value"),
        ("construct", "kernel-definition", "value"), ("asm", "shfl.sync.bfly.b32", "value"),
        ("python_attr", "torch.cuda.is_available", "call"), ("python_import", "pycuda.driver", "value")]]
    for fact in facts:
        assert one.lookup(fact) == other.lookup(fact), fact
    assert lazy.built < len(lazy) // 4


def test_records_not_compiled_before_are_built_at_once_and_a_bad_pattern_is_an_error() -> None:
    raw = {"id": "HIP9990", "name": "bad-pattern", "title": "t", "class": "minor-adaptation", "hip": None,
           "hipify": "yes", "effort": {"per_occurrence": 0, "first_use": 0}, "confidence": "high",
           "status": "stable", "rationale": "r", "docs": "d", "match": {"identifier": {"regex": "("}}}
    with pytest.raises(RuleError, match="bad regex"):
        from_records([("x.yaml", [raw])], "v")
    lazy = from_records([("x.yaml", [raw])], "v", checked=True)  # compiled before: built (and compiled) when read
    assert lazy.built == 0 and lazy.ids == ["HIP9990"]


def test_an_edited_file_lint_builds_only_the_rules_it_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "reduce.cu"
    source.write_text(KERNEL)
    monkeypatch.chdir(tmp_path)
    seen: list[RuleBase] = []
    real = lint_run._rules

    def kept(rules_dir: Path | None, cache_dir: Path | None) -> RuleBase:
        seen.append(real(rules_dir, cache_dir))
        return seen[-1]

    monkeypatch.setattr(lint_run, "_rules", kept)
    for formats in [("text",), ("sarif",), ("json",)]:
        for select in [(), ("HIP4",)]:
            with pytest.raises(SystemExit) as exited:
                lint_run.run(LintOptions(files=(source,), formats=formats, select=select, statistics="json" in formats))
            out = capsys.readouterr().out
            assert exited.value.code == 1 and "HIP4010" in out, (formats, select)
            rules = seen.pop()
            assert len(rules) > 400
            # the rules the file's facts find (a handful) and no more: lint's all-rule sites read the columns
            assert 0 < rules.built <= 10, (formats, select, rules.built)  # 4: the rules of its 4 findings
            # a compiled map is decoded only for a rule a fact found (compiled.json's FORMAT 2 and 3)
            maps = [spec.get("map") for _, spec in rules.matchers()]
            compiled_maps = [m for m in maps if isinstance(m, load.MapText)]
            assert len(compiled_maps) > 250 and sum(m.decoded() for m in compiled_maps) <= rules.built
            # the index made the names of its facts' lengths, not the 11k of the packed name tables (FORMAT 3)
            packed = [names for _, table in rules.name_tables() for names in table.values()
                      if isinstance(names, load.PackedNames)]
            made = sum(len(names) for table in packed for names in table._by_length.values())
            assert len(packed) > 20 and 0 < made < 2_000, made
    assert os.environ.get("ROCM_MIGRATE_CACHE_DIR")  # conftest's own cache: the compiled copy, not a cache hit



RECORD = {"id": "HIP9990", "match": {"identifier": {"exact": ["cudaB", "cudaZ|pipe"],
                                                   "map": {"cudaA": "hipA", "cudaB": {"hip": "hipB", "since": "6.0"},
                                                           "cudaC": None}}}}


def _line(tmp_path: Path, records: list[dict[str, object]]) -> str:
    from migrate.rulebase import compiled

    (tmp_path / "x.yaml").write_text("x")
    return compiled._line(tmp_path, "x.yaml", records)


def test_a_compiled_map_decodes_its_values_when_first_asked(tmp_path: Path) -> None:
    """compiled.json writes a map as a span of JSON text after the file's records; read back it is the map the
    YAML validates to, decoded when first read."""
    import json

    from migrate.rulebase import compiled

    line = _line(tmp_path, [RECORD])
    row, tail = line.split("\t", 1)
    _, _, (written,), _ = json.loads(row)
    start, end = written["match"]["identifier"]["map"]
    assert json.loads(tail.encode()[start:end]) == RECORD["match"]["identifier"]["map"]
    assert RECORD["match"]["identifier"]["map"]["cudaA"] == "hipA"  # the record is left as it was
    (back,) = compiled._with_maps([written], tail.encode())
    text = back["match"]["identifier"]["map"]
    assert isinstance(text, load.MapText) and not text.decoded()
    assert text == RECORD["match"]["identifier"]["map"] and text.decoded()
    assert text["cudaB"] == {"hip": "hipB", "since": "6.0"} and "cudaD" not in text and len(text) == 3
    assert load.Entries(text)["cudaB"].hip == "hipB" and load.Entries(text)["cudaA"].hip == "hipA"


def test_a_packed_name_table_answers_as_the_records_table(tmp_path: Path) -> None:
    """The names of a kind packed by length, the names of one length made a dict when first asked: the same
    hits as the table made from the records; a kind with a name holding the packing's separator is written as
    an object (near miss)."""
    import json

    from migrate.rulebase import compiled

    records = [RECORD, {"id": "HIP9991", "match": {"identifier": {"exact": "cudaA"}}},
               {"id": "HIP9992", "match": {"include": {"exact": ["cuda.h", "cub/cub.cuh"], "map": {"cudnn.h": None}}}}]
    expected = load.name_table(records)
    assert expected == {"identifier": {"cudaB": [0, 1], "cudaZ|pipe": 0, "cudaA": [1, 2], "cudaC": 1},
                        "include": {"cuda.h": 4, "cub/cub.cuh": 4, "cudnn.h": 5}}
    row, tail = _line(tmp_path, records).split("\t", 1)
    table = compiled._table(json.loads(row)[3], tail.encode())
    assert isinstance(table["identifier"], dict)  # "cudaZ|pipe": written as an object
    packed = table["include"]
    assert isinstance(packed, load.PackedNames) and dict(packed) == expected["include"] and len(packed) == 3
    assert packed.get("cudnn.h") == 5 and packed.get("cudnn.hh") is None and packed.get("") is None
    assert packed.get("x" * 99) is None and "cuda.h" in packed and "cub" not in packed
    names = load.PackedNames(*_packed({"cudaMalloc": 3, "cudaFree": [3, 4], "cudaFre=": 6, "": 9}))
    assert (names.get("cudaFree"), names.get("cudaFre="), names.get("cudaFrex"), names.get("cudaMalloc")) == \
           ([3, 4], 6, None, 3)
    assert list(names._by_length) == [8, 10] and names.get("") == 9 and names.get("x" * 99) is None
    assert dict(names) == {"": 9, "cudaFree": [3, 4], "cudaFre=": 6, "cudaMalloc": 3}


def _packed(names: dict[str, int | list[int]]) -> tuple[bytes, list[int]]:
    pairs = load.PackedNames.pack(names)
    assert pairs is not None
    offsets = [0]
    for text in (text for pair in pairs for text in pair):
        offsets.append(offsets[-1] + len(text))
    return b"".join(text for pair in pairs for text in pair), offsets


@pytest.mark.parametrize("written", [{"cudaA": "hipA"}, [["cudaA"], '["hipA"]'], [0, 99], [3, 1], "cudaA"])
def test_a_compiled_map_of_another_shape_sets_the_copy_aside(tmp_path: Path, written: object) -> None:
    """Near miss: a map as FORMAT 1 or 2 wrote it (an object, names and values), a span outside the line's
    bytes, or of no known shape, is not read as a span of JSON text."""
    import json

    from migrate.rulebase import compiled

    head = json.dumps({"format": compiled.FORMAT, "checked_against": compiled.checked_against()})
    good = {"id": "HIP9990", "match": {"identifier": {"map": [0, 16]}}}
    tail = '{"cudaA":"hipA"}'
    (tmp_path / compiled.NAME).write_text(f"{head}\n{json.dumps(['x.yaml', 'd', [good], {}])}\t{tail}\n")
    assert list(compiled.read(tmp_path)) == ["x.yaml"] and compiled.read(tmp_path)["x.yaml"][1][0]["match"] == \
        {"identifier": {"map": {"cudaA": "hipA"}}}
    bad = {"id": "HIP9990", "match": {"identifier": {"map": written}}}
    (tmp_path / compiled.NAME).write_text(f"{head}\n{json.dumps(['x.yaml', 'd', [bad], {}])}\t{tail}\n")
    assert compiled.read(tmp_path) == {}


@pytest.mark.parametrize("table", [[], {"identifier": "cudaA"}, {"identifier": [0, 0, 99]}, {"identifier": [5, 1, 6]},
                                   {"identifier": []}, {"identifier": [0, 5]}, {"identifier": [0, "5", 6]}])
def test_a_name_table_of_another_shape_sets_the_copy_aside(tmp_path: Path, table: object) -> None:
    import json

    from migrate.rulebase import compiled

    head = json.dumps({"format": compiled.FORMAT, "checked_against": compiled.checked_against()})
    (tmp_path / compiled.NAME).write_text(f"{head}\n{json.dumps(['x.yaml', 'd', [], table])}\t|cudaA=0|\n")
    assert compiled.read(tmp_path) == {}


def test_the_index_finds_the_rules_that_list_a_name_in_rule_order() -> None:
    """Every name of every rule's exact names and map, looked up in the compiled name tables: the rules in force
    listing it, in rule order, a rule's exact listing before its map's (as the index entered them before FORMAT 3)."""
    lazy, built = _lazy(), load.load_rules()
    catalogue = targets.load()
    for rocm, archs in TARGETS[:2]:
        index = RuleIndex(lazy, Target(rocm=rocm, arch=archs))
        on = built.in_force(rocm, catalogue.resolve(archs, rocm))
        expected: dict[tuple[str, str], list[tuple[int, bool]]] = {}
        for position, rule in enumerate(built.rules):
            for name in sorted(rule.matcher.exact):
                expected.setdefault((rule.matcher.kind, name), []).extend([(position, False)] if on[position] else [])
            for name in rule.matcher.entries:
                expected.setdefault((rule.matcher.kind, name), []).extend([(position, True)] if on[position] else [])
        assert len(expected) > 10_000
        assert all(index._named_hits(kind, name) == hits for (kind, name), hits in expected.items())
        assert index.names("identifier") == {name for (kind, name), hits in expected.items() if kind == "identifier" and hits}
        assert index._named_hits("identifier", "cudaNoSuchThing") == [] and index._named_hits("nokind", "x") == []
    assert lazy.built == 0


def test_a_compiled_map_that_is_not_an_object_is_an_error() -> None:
    with pytest.raises(ValueError, match="not a JSON object"):
        load.MapText(b'["hipA"]', 0, 8)["cudaA"]


def test_an_empty_rule_base_has_no_name_tables_and_an_index_finds_nothing() -> None:
    rules = RuleBase([], "v")
    index = RuleIndex(rules, Target(rocm="6.4", arch=("gfx90a",)))
    assert rules.name_tables() == [] and index.names("identifier") == set() and index._named_hits("identifier", "x") == []
