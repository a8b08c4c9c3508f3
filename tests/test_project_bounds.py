"""Project-level readings on hostile trees: the time of a reading grows with the tree, not with its square.
(The branch index: 8,000 lines of 8,000 branches took 1.16 s of CPU on the old scan, 0.035 s indexed.)"""
from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from migrate.model import Fact, Finding
from migrate.model_report import CHAIN_HEAD, CHAIN_TAIL, OptionalPart, Workload, is_elision
from migrate.workloads import calibration as effort_calibration
from migrate.workloads import costs
from migrate.workloads.costs import with_part_costs
from migrate.workloads.digraph import DiGraph
from migrate.workloads.estimate import EffortModel
from migrate.workloads.includes import IncludeSite, _gated_headers
from migrate.workloads.switches import STAB_MIN, Region, branches_at, switches_around


def _naive(regions: tuple[Region, ...], line: int) -> list[Region]:
    return [r for r in regions if r.start <= line <= r.end]


def test_branches_around_a_line_match_a_scan_of_every_branch() -> None:
    rng = random.Random(25)
    for size in (3, STAB_MIN, 200):
        regions = []
        for i in range(size):
            start = rng.randint(1, 300)
            regions.append(Region("CMakeLists.txt", start, start + rng.randint(-2, 60), f"OPT{i}", f"if(OPT{i})"))
        kept = tuple(regions)
        for line in range(370):
            assert list(branches_at(kept, line)) == _naive(kept, line)


def test_nested_and_adjacent_branches_keep_the_files_order() -> None:
    # `if(A)` around `if(B)`, then `else()` starting on the line `if(B)`'s branch ends (a near miss for containment)
    kept = tuple([Region("c.cmake", 1, 100, "A", "if(A)"), Region("c.cmake", 5, 10, "B", "if(B)"),
                  Region("c.cmake", 10, 20, "NOT B", "else()")] +
                 [Region("c.cmake", 200 + i, 200 + i, f"X{i}", "") for i in range(STAB_MIN)])
    assert [r.switch for r in branches_at(kept, 10)] == ["A", "B", "NOT B"]
    assert [r.switch for r in branches_at(kept, 11)] == ["A", "NOT B"]
    assert [r.switch for r in branches_at(kept, 150)] == []


def test_thousands_of_branches_in_one_build_file_take_linear_time() -> None:
    # 8,000 `option(OPTn) if(OPTn) add_library(tn sn.cu) endif()` blocks: each source's line asks for its branches
    n = 8000
    regions = {"CMakeLists.txt": tuple(Region("CMakeLists.txt", 4 * i + 2, 4 * i + 4, f"OPT{i}", f"if(OPT{i})")
                                       for i in range(n))}
    begun = time.process_time()
    found = [switches_around(regions, {}, "CMakeLists.txt", line=4 * i + 3) for i in range(n)]
    spent = time.process_time() - begun
    assert [r[0].switch for r in found[:3]] == ["OPT0", "OPT1", "OPT2"]
    assert spent < 0.3, f"{spent:.2f} s of CPU for {n} lines of {n} branches"


def _common_h_tree(n: int) -> tuple[dict[str, list[Fact]], list[IncludeSite]]:
    # n folders, each with its own common.h and a k.cu that includes "common.h" (the one beside it)
    facts: dict[str, list[Fact]] = {f"d{i}/common.h": [] for i in range(n)}
    sites: list[IncludeSite] = [(f"d{i}/k.cu", 1, "common.h", "common.h", f"d{i}/common.h") for i in range(n)]
    return facts, sites


def test_an_include_names_the_header_beside_it_among_same_named_headers() -> None:
    facts, sites = _common_h_tree(3)
    facts["common.h"] = []  # the project's top has one too: a near miss for `p == name`
    sites.append(("top.cu", 1, "common.h", "common.h", "common.h"))
    sites.append(("d9/k.cu", 1, "common.h", "common.h", "d9/common.h"))  # no header beside it: the nearest
    branch = Region("CMakeLists.txt", 1, 9, "USE_CUDA", "if(USE_CUDA)")
    gated = {"d0/": branch, "d9/": branch}
    out = _gated_headers(facts, sites, {}, gated, frozenset(), {})
    assert out == {"d0/common.h": branch}  # d9's include named the top's common.h, which top.cu includes ungated


def test_thousands_of_same_named_headers_take_linear_time() -> None:
    n = 4000
    facts, sites = _common_h_tree(n)
    begun = time.process_time()
    out = _gated_headers(facts, sites, {}, {}, frozenset(), {})
    spent = time.process_time() - begun
    assert out == {}
    assert spent < 0.3, f"{spent:.2f} s of CPU for {n} includes of {n} headers named common.h"


def _parts_tree(n: int) -> tuple[list[Workload], list[Finding], dict[str, tuple[str, int]]]:
    # one workload with n optional folders, each a part with one CUDA file and its finding
    findings = [Finding(rule="HIP1100", path=f"d{i}/k.cu", line=1, column=1, end_line=1, end_column=11,
                        symbol="cudaMalloc", message="cudaMalloc", hip="hipMalloc", hipify="yes", confidence="high",
                        migration_class="migration-required", workload="w", status="optional") for i in range(n)]
    parts = tuple(OptionalPart(root=f"d{i}/", migration_class="migration-required", findings=1, files=(f"d{i}/k.cu",))
                  for i in range(n))
    workload = Workload(name="w", root="", kind="cmake", files=(), verdicts=(), optional_parts=parts)
    return [workload], findings, {f"d{i}/k.cu": ("cuda", 3) for i in range(n)}


def test_a_parts_cost_reads_its_own_workloads_optional_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    workloads, findings, files = _parts_tree(2)
    given: dict[str, list[Finding]] = {}

    def part_cost(part: OptionalPart, found: list[Finding], *_: object, **__: object) -> OptionalPart:
        given[part.root] = found
        return part

    monkeypatch.setattr(costs, "_part_cost", part_cost)
    # near misses at the same file: a required finding, and another workload's optional one; a second one of its own
    more = [replace(findings[0], status="", line=2), replace(findings[0], workload="v", line=3),
            replace(findings[0], line=4)]
    with_part_costs(workloads, [more[2], *findings, *more[:2]], files, [], effort_calibration.load(), EffortModel())
    assert given == {"d0/": [more[2], findings[0]], "d1/": [findings[1]]}


def test_thousands_of_optional_parts_take_linear_time() -> None:
    n = 8000
    workloads, findings, files = _parts_tree(n)
    calibration, model = effort_calibration.load(), EffortModel()
    begun = time.process_time()
    out = with_part_costs(workloads, findings, files, [], calibration, model)
    spent = time.process_time() - begun
    assert len(out[0].optional_parts) == n and out[0].optional_parts[-1].effort.likely > 0
    assert spent < 1.0, f"{spent:.2f} s of CPU for {n} optional parts"


def test_own_header_includes_group_the_flagged_sites_once() -> None:
    """session 25: each file holding a flagged include read every flagged site of the scan again (cuda-samples: 624
    files x 17,139 sites, 0.43 s of the parent's serial tail)."""
    from migrate.scan import own_headers
    files: list[tuple[str, tuple[Fact, ...]]] = []
    flagged: list[tuple[str, int, str]] = []
    for n in range(2000):
        path = f"d{n}/k.cu"
        facts = tuple(Fact(kind="include", name=f"h{i}.h", line=i + 1, column=1, end_line=i + 1, end_column=1,
                           text=f'"h{i}.h"') for i in range(10))
        files.append((path, facts))
        flagged += [(path, i + 1, f"h{i}.h") for i in range(10)]
    files.append(("d0/h0.h", ()))
    started = time.process_time()
    own = own_headers.own_includes(files, ["d0/h0.h"], flagged)
    assert time.process_time() - started < 1.0
    # every file includes only what is flagged: a bare name found elsewhere (d0/h0.h, quiet) is the project's
    assert own == frozenset((f"d{n}/k.cu", 1, "h0.h") for n in range(2000))


def _chained_targets(root: Path, n: int) -> None:
    # n CMake targets, each linking the one before; only the first includes what no AMD route serves
    root.mkdir()
    lines = ["cmake_minimum_required(VERSION 3.18)", "project(chain LANGUAGES CXX CUDA)"]
    for i in range(n):
        lines += [f"add_library(t{i} s{i}.cu)"] + ([f"target_link_libraries(t{i} t{i - 1})"] if i else [])
        body = f"__global__ void k{i}(float* x) {{ x[threadIdx.x] = {i}; }}\n"
        (root / f"s{i}.cu").write_text(("#include <optix.h>\nvoid f() { optixInit(); }\n" if i == 0 else "") + body)
    (root / "CMakeLists.txt").write_text("\n".join(lines) + "\n")


def test_a_long_chain_of_targets_keeps_both_ends_and_counts_the_middle(tmp_path: Path) -> None:
    """session 26: every target of a 2,000-target chain held its whole chain (2 million steps, a 188 MB report, 500 MB
    of memory); a verdict now keeps CHAIN_HEAD and CHAIN_TAIL steps and the number between them."""
    _chained_targets(tmp_path / "tree", 40)
    out = tmp_path / "report.json"
    subprocess.run([sys.executable, "-m", "migrate", "scan", str(tmp_path / "tree"), "--no-cache", "--no-hipify",
                    "-f", "json", "-o", str(out)], check=True, capture_output=True, cwd=tmp_path)
    chains = {w["name"]: w["chain"] for w in json.loads(out.read_text(encoding="utf-8"))["workloads"]}
    assert chains["t39"][:2] == ["CMakeLists.txt: t39 links t38", "CMakeLists.txt: t38 links t37"]
    assert chains["t39"][CHAIN_HEAD:] == ["… 31 more steps …", "CMakeLists.txt: t2 links t1",
                                         "CMakeLists.txt: t1 links t0", "s0.cu:1 HIP0023 optix.h"]
    assert len(chains["t9"]) == 10 and not any(map(is_elision, chains["t9"]))  # 9 steps: whole (a near miss)
    assert is_elision(chains["t10"][CHAIN_HEAD]) and len(chains["t10"]) == CHAIN_HEAD + CHAIN_TAIL + 2


def test_thousands_of_chained_workloads_take_linear_time() -> None:
    n = 20_000
    names = [f"t{i:05}" for i in range(n)]
    graph: DiGraph[str] = DiGraph(names)
    for before, after in itertools.pairwise(names):
        graph.add_edge(after, before, f"{after} links {before}")
    begun = time.process_time()
    paths = graph.paths_to(names[0], CHAIN_TAIL)
    ends = [(paths.walk(name, CHAIN_HEAD), paths.walk(paths.anchor(name))) for name in names[CHAIN_TAIL:]]
    spent = time.process_time() - begun
    assert ends[-1] == (names[:-CHAIN_HEAD - 2:-1], names[CHAIN_TAIL::-1])
    assert spent < 1.0, f"{spent:.2f} s of CPU for the chains of {n} chained workloads"


def test_branches_taken_unless_a_macro_is_defined_read_the_files_defines_once() -> None:
    """session 26: each `#ifndef X` chain searched the whole file for a `#define X` (cuda-samples: 2.3 s of CPU in the
    first scan); the file's defines are read once. 4,000 chains in a 100 KB file; the even macros are defined."""
    from migrate.extract.c import guards
    lines: list[bytes] = []
    chains: list[guards.Chain] = []
    for i in range(4000):
        start = sum(len(x) for x in lines)
        lines += [b"#ifndef X%d\n" % i, b"int a%d;\n" % i, b"#endif\n"]
        chains.append([(f"X{i}", False, start, start + 20)])
    lines += [b"#define X%d 1\n" % i for i in range(0, 4000, 2)]
    source = b"".join(lines)
    begun = time.process_time()
    taken = [guards.unless_branches(chain, source) for chain in chains]
    spent = time.process_time() - begun
    assert [bool(t) for t in taken[:4]] == [False, True, False, True]
    assert spent < 0.5, f"{spent:.2f} s of CPU for {len(chains)} chains"


def test_a_file_of_thousands_of_unless_branches_is_read_in_linear_time() -> None:
    """session 26: each #if chain read line by line collected the file's `unless_branch` facts again (cuda-samples:
    0.24 s of CPU); the set is kept and grown. 6,000 `#ifndef OPTn` branches, none of them defined by the file, in a
    file with a syntax error (read line by line)."""
    from migrate.extract import extract
    source = b"int broken( {\n" + b"".join(b"#ifndef OPT%d\nint a%d;\n#endif\n" % (i, i) for i in range(6000))
    begun = time.process_time()
    facts = extract("cuda", source).facts
    spent = time.process_time() - begun
    assert sum(f.kind == "unless_branch" for f in facts) == 6000
    assert spent < 4.0, f"{spent:.2f} s of CPU for 6,000 branches"
