"""Every rule has fixtures: `ruleid: X` above each line that must fire, `ok: X` above near misses."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from migrate.extract import extract
from migrate.lint.run import check_file
from migrate.model import Target
from migrate.scan.discover import file_kind
from migrate.scan.match import IdentifierNames, RuleIndex

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "rules"
ANNOTATION = re.compile(r"(?://|#|<!--|!)\s*(ruleid|ok|todoruleid|todook):\s*([\w, -]+)")  # <!-- -->: XML; !: Fortran


def rule_list(text: str) -> list[str]:
    """The rule ids of an annotation, without an XML comment's closing `-->`."""
    return [r.strip() for r in text.strip().removesuffix("--").split(",") if r.strip()]


def annotations(text: str) -> dict[str, dict[int, set[str]]]:
    """kind -> target line -> rule ids; the target is the next line that is not an annotation."""
    out: dict[str, dict[int, set[str]]] = {k: {} for k in ("ruleid", "ok", "todoruleid", "todook")}
    pending: list[tuple[str, list[str]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        m = ANNOTATION.search(line)
        if m and line.strip().startswith(("//", "#", "<!--", "!")):
            pending.append((m.group(1), rule_list(m.group(2))))
            continue
        for kind, rules in pending:
            out[kind].setdefault(number, set()).update(rules)
        pending = []
    return out


SIDECAR = ".annotation"  # a binary fixture's annotations (`ruleid: X` or `ok: X`), for its one finding at line 1


def fixture_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.is_file() and p.suffix != SIDECAR)


def fixture_text(path: Path) -> str:
    """The fixture's text, where its annotations are; a binary has none (its sidecar holds them)."""
    return "" if file_kind(path) == "binary" else path.read_text(encoding="utf-8")


def fixture_notes(path: Path, text: str) -> dict[str, dict[int, set[str]]]:
    """The fixture's annotations; a binary's sidecar `NAME.annotation` (`ruleid: X`, `ok: X`) names the rules for
    its line 1, where a prebuilt binary's one finding is."""
    if file_kind(path) != "binary":
        return annotations(text)
    out: dict[str, dict[int, set[str]]] = {k: {} for k in ("ruleid", "ok", "todoruleid", "todook")}
    for line in path.with_name(path.name + SIDECAR).read_text(encoding="utf-8").splitlines():
        if m := ANNOTATION.search(line):
            out[m.group(1)].setdefault(1, set()).update(rule_list(m.group(2)))
    return out


TARGET = re.compile(r"rocm-migrate-target:\s*(.*)")


def fixture_index(text: str, rulebase, default: RuleIndex) -> RuleIndex:
    """A fixture may assess for another target: `// rocm-migrate-target: rocm=6.1 arch=gfx1100`."""
    m = TARGET.search("\n".join(text.split("\n")[:2]))
    if not m:
        return default
    settings = dict(item.split("=", 1) for item in m.group(1).split())
    return RuleIndex(rulebase, Target(rocm=settings.get("rocm", "7.2"),
                                      arch=tuple(settings.get("arch", "gfx942").split(","))))


_SCAN_NAMES: dict[Target, IdentifierNames] = {}


def scan_names(index: RuleIndex) -> IdentifierNames:
    """The identifier names a scan for the index's target builds facts of (lint builds every fact): a fixture
    is extracted as the scan extracts it, so a rule whose fixture passes fires in a scan too."""
    if index.target not in _SCAN_NAMES:
        _SCAN_NAMES[index.target] = IdentifierNames([index])
    return _SCAN_NAMES[index.target]


def fired(path: Path, index: RuleIndex, rulebase, rel: str = "", tree: tuple[str, ...] = (),
          cross: bool = False) -> set[tuple[int, str]]:
    """What lint reports for the file, with the facts a scan builds: matching plus inline suppressions
    (HIP0901/HIP0902). A fixture in a subfolder is matched under its path in the rule's folder, with `tree`
    (that folder's other files) as the rest of its scanned tree; with `cross` (a rule of the cross-file join or
    of the project-wide lane-mask names) those files are read with it, as lint reads the files it is given."""
    kind = file_kind(path)
    assert kind, f"{path}: fixture has no scannable kind"
    data = path.read_bytes()
    names = scan_names(index)
    extraction = extract(kind, data, names)
    if kind == "binary" and extraction.error:  # skipped, as the scan skips it: no finding
        return set()
    assert extraction.error is None, extraction.error
    root = path.parents[len(Path(rel).parts) - 1] if rel else path.parent
    others = [(other, extract(file_kind(root / other), (root / other).read_bytes(), names)) for other in tree
              if other != rel] if cross else []
    findings, _ = check_file(rel or path.name, kind, data, extraction, [index], rulebase, tree, others)
    found = {(f.line, f.rule) for f in findings} | stack_fired(path.name, extraction, index, rulebase)
    return found if kind == "binary" else found | precise_fired(path, index) | check_fired(path, rulebase)


def stack_fired(name: str, extraction, index: RuleIndex, rulebase) -> set[tuple[int, str]]:
    """The stack rules (HIP71xx) judge the file's pins against the matrix for the fixture's target."""
    from migrate.stack import assess, matrix

    report = assess.assess(matrix.load(), {name: extraction}, [], rocm=[index.target.rocm],
                           arch=list(index.target.arch))
    return {(f.line, f.rule) for f in assess.to_findings(report, rulebase)}


def precise_fired(path: Path, index: RuleIndex) -> set[tuple[int, str]]:
    """A fixture whose first lines say `rocm-migrate-precise` is also parsed by libclang (precise mode)."""
    if "rocm-migrate-precise" not in "\n".join(path.read_text(encoding="utf-8").split("\n")[:2]):
        return set()
    from migrate.precise import analyse as precise

    chain = precise.toolchain()
    if isinstance(chain, str):
        pytest.skip(f"precise mode unavailable: {chain}")
    result = precise.analyse(path, ["-std=c++17", "--cuda-gpu-arch=sm_80"], root=path.parent, tc=chain)
    assert not isinstance(result, str), result
    return {(f.line, f.rule) for f in precise.rejected_findings([result], index)}


def check_fired(path: Path, rulebase) -> set[tuple[int, str]]:
    """A fixture whose first line says `rocm-migrate-check` is converted and compiled (rocm-migrate check)."""
    if "rocm-migrate-check" not in path.read_text(encoding="utf-8").split("\n")[0]:
        return set()
    from tests.check_toolchain import checked_findings

    return {(f.line, f.rule) for f in checked_findings(path, rulebase)}


# rules of the cross-file join (migrate/scan/crossref.py) and of the project's lane-mask names (HIP4068, match.own_masks):
# their fixtures are read together
CROSS_FILE = frozenset({"HIP3027", "HIP4068"})


def rule_dirs() -> list[Path]:
    return sorted(p for p in FIXTURES.iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def index(rulebase) -> RuleIndex:
    return RuleIndex(rulebase, Target(rocm="7.2", arch=("gfx942",)))


@pytest.mark.parametrize("directory", rule_dirs(), ids=lambda p: p.name)
def test_rule_fixture(directory: Path, index: RuleIndex, rulebase) -> None:
    rule = directory.name
    seen_positive = seen_negative = False
    gaps: list[str] = []
    files = fixture_files(directory)
    tree = tuple(p.relative_to(directory).as_posix() for p in files)
    for path, rel in zip(files, tree, strict=True):
        text = fixture_text(path)
        notes = fixture_notes(path, text)
        hits = {line for line, rid in fired(path, fixture_index(text, rulebase, index), rulebase, rel, tree,
                                            cross=rule in CROSS_FILE) if rid == rule}
        expected = {line for line, rules in notes["ruleid"].items() if rule in rules}
        must_not = {line for line, rules in notes["ok"].items() if rule in rules}
        todo = {line for line, rules in notes["todoruleid"].items() if rule in rules}
        todo_ok = {line for line, rules in notes["todook"].items() if rule in rules}
        assert hits - must_not == hits, f"{path.name}: {rule} fired on ok lines {sorted(hits & must_not)}"
        # a todook line is a known false positive: it fires until fixed, then becomes an ok line
        assert hits - todo_ok == expected, f"{path.name}: {rule} fired on {sorted(hits)}, expected {sorted(expected)}"
        assert todo_ok <= hits, f"{path.name}: {rule} no longer fires on todook lines {sorted(todo_ok - hits)}"
        seen_positive |= bool(expected)
        seen_negative |= bool(must_not)
        if todo - hits:
            gaps.append(f"{path.name}: {rule} does not fire on lines {sorted(todo - hits)}")
        if hits & todo_ok:
            gaps.append(f"{path.name}: {rule} fires on near-miss lines {sorted(hits & todo_ok)}")
    assert seen_positive and seen_negative, f"{rule}: needs a ruleid and an ok annotation"
    if gaps:
        pytest.xfail("known gaps: " + "; ".join(gaps))


def test_annotations_for_another_rule_hold(index: RuleIndex, rulebase) -> None:
    """test_rule_fixture reads only its folder's rule, so an annotation for another rule in a fixture
    (HIP4084/bad.cu's `ruleid: HIP4082`) would be checked by nothing: each such annotation must hold too."""
    wrong = []
    for directory in rule_dirs():
        files = fixture_files(directory)
        tree = tuple(p.relative_to(directory).as_posix() for p in files)
        for path, rel in zip(files, tree, strict=True):
            text = fixture_text(path)
            notes = fixture_notes(path, text)
            foreign = {(kind, line, rule) for kind in ("ruleid", "ok") for line, rules in notes[kind].items()
                       for rule in rules if rule != directory.name}
            if not foreign:
                continue
            hits = fired(path, fixture_index(text, rulebase, index), rulebase, rel, tree,
                         cross=directory.name in CROSS_FILE)
            wrong += [f"{directory.name}/{rel}:{line} {kind}: {rule}" for kind, line, rule in sorted(foreign)
                      if ((line, rule) in hits) != (kind == "ruleid")]
    assert not wrong, f"annotations for another rule that do not hold: {wrong}"


def test_every_rule_has_fixtures(rulebase) -> None:
    have = {p.name for p in rule_dirs()}
    missing = [r.id for r in rulebase.rules if r.id not in have and r.status != "removed"]
    assert not missing, f"rules without fixtures: {missing}"


def test_fixture_dirs_name_real_rules(rulebase) -> None:
    ids = {r.id for r in rulebase.rules}
    assert not [p.name for p in rule_dirs() if p.name not in ids]


def test_annotations_parser() -> None:
    notes = annotations("// ruleid: HIP1, HIP2\n// ok: HIP3\nx();\n# ruleid: HIP4\ny\n")
    assert notes["ruleid"] == {3: {"HIP1", "HIP2"}, 5: {"HIP4"}}
    assert notes["ok"] == {3: {"HIP3"}}
