"""Inline suppressions: parsed from real comment tokens, applied to findings, unused ones reported."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from migrate.extract import extract
from migrate.lint import suppression
from migrate.lint.run import Checker
from migrate.model import Finding
from migrate.scan.discover import file_kind
from migrate.settings import Settings, resolve
from tests.test_rule_fixtures import annotations

ROOT = Path(__file__).resolve().parent.parent
H = "HIP1100"


def nb(*cells: str) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "source": c} for c in cells]})


# (id, kind, source, [(line, column, codes, lines covered)]) -- flake8's is_inline_ignored table, per language
PARSE = [
    ("cuda trailing //", "cuda", f"cudaFree(p);  // rocm-migrate: ignore[{H}]", [(1, 18, (H,), (1,))]),
    ("cuda // on the line above", "cuda", f"// rocm-migrate: ignore[{H}]\ncudaFree(p);", [(1, 4, (H,), (1, 2))]),
    ("cuda indented line above", "cuda", f"{{\n    // rocm-migrate: ignore[{H}]\n    f();\n}}", [(2, 8, (H,), (2, 3))]),
    ("cuda trailing block", "cuda", f"cudaFree(p); /* rocm-migrate: ignore[{H}] */", [(1, 17, (H,), (1,))]),
    ("cuda block before code", "cuda", f"/* rocm-migrate: ignore[{H}] */ cudaFree(p);", [(1, 4, (H,), (1, 2))]),
    ("cuda multi-line block", "cuda", f"/* why:\n   rocm-migrate: ignore[{H}] */\nf();", [(2, 4, (H,), (1, 2, 3))]),
    ("several ids", "cuda", "f(); // rocm-migrate: ignore[HIP1100,HIP4010]", [(1, 9, ("HIP1100", "HIP4010"), (1,))]),
    ("ids and names, spaced", "cuda", "f(); // rocm-migrate: ignore[ HIP1100 , sync-mask-32bit ]",
     [(1, 9, ("HIP1100", "sync-mask-32bit"), (1,))]),
    ("bare marker", "cuda", "f(); // rocm-migrate: ignore", [(1, 9, (), (1,))]),
    ("empty brackets", "cuda", "f(); // rocm-migrate: ignore[]", [(1, 9, (), (1,))]),
    ("marker after other text", "cuda", f"f(); // TODO(ana): port; rocm-migrate: ignore[{H}]", [(1, 26, (H,), (1,))]),
    ("fortran trailing !", "fortran", f"call k<<<1, 1>>>(a)  ! rocm-migrate: ignore[{H}]", [(1, 24, (H,), (1,))]),
    ("fortran ! on the line above", "fortran", f"  ! rocm-migrate: ignore[{H}]\n  use cudafor", [(1, 5, (H,), (1, 2))]),
    ("fortran string", "fortran", f"print *, '! rocm-migrate: ignore[{H}]', \"it's\"", []),
    ("fortran fixed-form comment line", "fortran_fixed", f"C     rocm-migrate: ignore[{H}]\n      use cudafor",
     [(1, 7, (H,), (1, 2))]),
    ("cuda string", "cuda", f'const char* s = "// rocm-migrate: ignore[{H}]";', []),
    ("cuda raw string", "cuda", f'auto s = R"(// rocm-migrate: ignore[{H}])";', []),
    ("cuda char then comment", "cuda", f"char c = '/'; // rocm-migrate: ignore[{H}]", [(1, 18, (H,), (1,))]),
    ("macro body comment", "cuda", f"#define FREE(p) cudaFree(p) // rocm-migrate: ignore[{H}]", [(1, 32, (H,), (1,))]),
    ("macro body string", "cuda", f'#define S "// rocm-migrate: ignore[{H}]"', []),
    ("not a marker: prefix word", "cuda", f"// my-rocm-migrate: ignore[{H}]", []),
    ("not a marker: other key", "cuda", "// rocm-migrate-target: rocm=6.4", []),
    ("not a marker: case", "cuda", f"// ROCM-MIGRATE: IGNORE[{H}]", []),
    ("non-ASCII before the comment", "cuda", f'auto s = "λ"; // rocm-migrate: ignore[{H}]', [(1, 18, (H,), (1,))]),
    ("cpp header", "cpp", f"// rocm-migrate: ignore[{H}]\nvoid f();", [(1, 4, (H,), (1, 2))]),
    ("python trailing", "python", "import pynvml  # rocm-migrate: ignore[HIP6004]", [(1, 18, ("HIP6004",), (1,))]),
    ("python line above", "python", "# rocm-migrate: ignore[pynvml]\nimport pynvml", [(1, 3, ("pynvml",), (1, 2))]),
    ("python string", "python", 's = "# rocm-migrate: ignore[HIP6004]"', []),
    ("python docstring", "python", '"""\n# rocm-migrate: ignore[HIP6004]\n"""\nimport pynvml', []),
    ("python f-string", "python", 'x = 1\ns = f"{x} # rocm-migrate: ignore[HIP6004]"', []),
    ("python after a syntax error", "python", "# rocm-migrate: ignore[HIP6004]\nx = (", [(1, 3, ("HIP6004",), (1, 2))]),
    ("notebook cell", "notebook", nb("x = 1", "import pynvml  # rocm-migrate: ignore[HIP6004]"),
     [(1, 18, ("HIP6004",), (1,))]),
    ("notebook shell line", "notebook", nb("!nvidia-smi  # rocm-migrate: ignore[HIP6007]"), [(1, 16, ("HIP6007",), (1,))]),
    ("cmake trailing", "cmake", "project(x LANGUAGES CUDA)  # rocm-migrate: ignore[HIP8001]",
     [(1, 30, ("HIP8001",), (1,))]),
    ("cmake quoted", "cmake", 'message("# rocm-migrate: ignore[HIP8001]")', []),
    ("dockerfile line above", "dockerfile", "# rocm-migrate: ignore[HIP9001]\nFROM nvidia/cuda:12.4.0-base-ubuntu22.04",
     [(1, 3, ("HIP9001",), (1, 2))]),
    ("dockerfile quoted", "dockerfile", 'RUN echo "# rocm-migrate: ignore[HIP9001]"', []),
    ("dockerfile escaped hash", "dockerfile", "RUN echo \\# rocm-migrate: ignore[HIP9001]", []),
    ("yaml trailing", "manifest", "image: nvidia/cuda:12.4.0  # rocm-migrate: ignore[HIP9001]",
     [(1, 30, ("HIP9001",), (1,))]),
    ("yaml single-quoted", "manifest", "msg: '# rocm-migrate: ignore[HIP9001]'", []),
    ("yaml hash inside a word", "manifest", "url: http://x/#rocm-migrate: ignore[HIP9001]", []),
    ("requirements trailing", "requirements", "cupy-cuda12x  # rocm-migrate: ignore[HIP7001]",
     [(1, 17, ("HIP7001",), (1,))]),
    ("requirements URL fragment", "requirements", "pkg @ https://x/y.whl#rocm-migrate: ignore[HIP7001]", []),
    ("shell", "shell", "nvidia-smi  # rocm-migrate: ignore[HIP6007]\necho '# rocm-migrate: ignore[x]'",
     [(1, 15, ("HIP6007",), (1,))]),
    ("setup.cfg whole-line only", "setupcfg", "; rocm-migrate: ignore[HIP7001]\nx = cupy  # rocm-migrate: ignore[HIP7001]",
     [(1, 3, ("HIP7001",), (1, 2))]),
    ("toml", "pyproject", 'deps = ["cupy-cuda12x"]  # rocm-migrate: ignore[HIP7001]\nx = "# rocm-migrate: ignore[y]"',
     [(1, 28, ("HIP7001",), (1,))]),
    ("no marker at all", "cuda", "cudaFree(p); // nothing to see", []),
]


@pytest.mark.parametrize(("kind", "source", "expected"), [p[1:] for p in PARSE], ids=[p[0] for p in PARSE])
def test_parse(kind: str, source: str, expected: list[tuple]) -> None:
    found = suppression.parse(kind, source.encode())
    assert [(s.line, s.column, s.codes, s.covers) for s in found] == expected


def test_notebook_suppressions_carry_their_cell() -> None:
    found = suppression.parse("notebook", nb("x = 1", "# rocm-migrate: ignore[HIP6004]\nimport pynvml").encode())
    assert [(s.cell, s.line, s.covers) for s in found] == [(2, 1, (1, 2))]


def finding(rule: str, line: int, cell: int | None = None) -> Finding:
    return Finding(rule=rule, path="a.cu", line=line, column=1, end_line=line, end_column=2, symbol="x",
                   message="m", hip=None, hipify="yes", confidence="high", migration_class="migration-required",
                   cell=cell)


def apply(source: str, findings: list[Finding], rulebase, active=lambda rule: True):
    return suppression.apply("a.cu", findings, suppression.parse("cuda", source.encode()), rulebase, active)


def test_a_suppression_hides_its_rule_on_its_lines_only(rulebase) -> None:
    source = "// rocm-migrate: ignore[HIP4010]\nf();\ng();  // rocm-migrate: ignore[sync-mask-32bit]\nh();"
    outcome = apply(source, [finding("HIP4010", 2), finding("HIP1100", 2), finding("HIP4010", 3),
                             finding("HIP4010", 4)], rulebase)
    assert [(f.rule, f.line) for f in outcome.kept] == [("HIP1100", 2), ("HIP4010", 4)]
    assert outcome.suppressed == 2 and outcome.meta == ()


def test_unused_and_unknown_rules_are_reported(rulebase) -> None:
    outcome = apply("f();  // rocm-migrate: ignore[HIP4010, HIP1100, HIP4O10]", [finding("HIP4010", 1)], rulebase)
    assert [(m.rule, m.line, m.column, m.symbol) for m in outcome.meta] == [
        ("HIP0902", 1, 10, "HIP1100"), ("HIP0902", 1, 10, "HIP4O10")]
    assert outcome.meta[1].message.endswith("'HIP4O10' is not a rule id or name")
    assert outcome.meta[0].source_line == "f();  // rocm-migrate: ignore[HIP4010, HIP1100, HIP4O10]"


def test_bare_marker_suppresses_nothing_and_is_reported(rulebase) -> None:
    outcome = apply("f();  // rocm-migrate: ignore", [finding("HIP4010", 1)], rulebase)
    assert [f.rule for f in outcome.kept] == ["HIP4010"]
    assert [(m.rule, m.symbol, m.migration_class) for m in outcome.meta] == [
        ("HIP0901", "rocm-migrate: ignore", "minor-adaptation")]


def test_rules_not_checked_are_not_reported_as_unused(rulebase) -> None:
    outcome = apply("f();  // rocm-migrate: ignore[HIP1100]", [], rulebase, active=lambda rule: rule != "HIP1100")
    assert outcome.meta == ()


def test_meta_findings_follow_selection_and_can_be_kept_on_purpose(rulebase) -> None:
    assert apply("f();  // rocm-migrate: ignore", [], rulebase, active=lambda r: r != "HIP0901").meta == ()
    assert apply("f();  // rocm-migrate: ignore[HIP1100]", [], rulebase, active=lambda r: r != "HIP0902").meta == ()
    assert apply("f();  // rocm-migrate: ignore[HIP1100, HIP0902]", [], rulebase).meta == ()


def test_notebook_cells_do_not_cover_each_other(rulebase) -> None:
    marks = suppression.parse("notebook", nb("x = 1  # rocm-migrate: ignore[HIP6004]", "import pynvml").encode())
    outcome = suppression.apply("n.ipynb", [finding("HIP6004", 1, cell=2)], marks, rulebase, lambda r: True)
    assert [f.cell for f in outcome.kept] == [2]
    assert [m.rule for m in outcome.meta] == ["HIP0902"]


# The meta rules' fixtures run through lint's per-file path (extract, match, suppression),
# with the same ruleid/ok annotations as every other rule's fixtures.
META_FIXTURES = sorted(p for rule in ("HIP0901", "HIP0902") for p in (ROOT / "fixtures" / "rules" / rule).iterdir())


@pytest.mark.parametrize("path", META_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_meta_rule_fixtures(rulebase, path: Path) -> None:
    rule = path.parent.name
    data = path.read_bytes()
    kind = file_kind(path)
    assert kind is not None
    findings, _ = Checker(rulebase, Settings()).check(path.name, kind, data, extract(kind, data))
    notes = annotations(data.decode())
    hits = {f.line for f in findings if f.rule == rule}
    assert hits == {line for line, rules in notes["ruleid"].items() if rule in rules}
    assert not hits & {line for line, rules in notes["ok"].items() if rule in rules}


def test_checker_respects_selection_for_unused_reports(rulebase) -> None:
    data = b"int x = 0;  // rocm-migrate: ignore[HIP1100]\n"
    checker = Checker(rulebase, resolve([{}, {}, {"ignore": ("HIP1",)}]))
    assert checker.check("a.cu", "cuda", data, extract("cuda", data)) == ([], 0)


def test_a_fortran_suppression_through_lint(tmp_path: Path) -> None:
    """A `!` comment holds a suppression in CUDA Fortran, as `//` does in CUDA C++ (the real CLI)."""
    from tests.conftest import run_cli

    source = tmp_path / "saxpy.cuf"
    source.write_text("program p\n  use cudafor  ! rocm-migrate: ignore[HIP4111]\n  call saxpy<<<1, 256>>>(x_d)\n"
                      "end program p\n")
    result = run_cli("lint", str(source), env={"ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache")})
    assert "HIP4114" in result.stdout and "HIP4111" not in result.stdout, result.stdout + result.stderr
    assert "1 suppressed inline" in result.stderr + result.stdout
