"""`rocm-migrate lint`: output, exit codes, configuration, baseline, rule cache, start-up imports."""
from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest
from click.testing import CliRunner
from migrate.cli.lint import lint
from migrate.rulebase import load as rules_module
from migrate.rulebase import precompiled as rulecache
from tests.conftest import ROOT

MASK = """#include <cuda_runtime.h>
__global__ void reduce(float* v) {
  v[0] += __shfl_down_sync(0xffffffff, v[0], 1);
}
"""
CLEAN = "int add(int a, int b) { return a + b; }\n"
MASK_LINE = ("kernel.cu:3:28: HIP4010 __shfl_down_sync: the lane mask is 32 bits wide; HIP masks are 64-bit "
             "(one bit per lane of a wave64)\n")


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kernel.cu").write_text(MASK)
    (tmp_path / "clean.cpp").write_text(CLEAN)
    (tmp_path / "train.py").write_text("import torch\ncuda = torch.version.cuda\n")
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(lint, list(args), catch_exceptions=False)


def test_findings_are_printed_one_per_line_and_fail(tree: Path) -> None:
    result = run("kernel.cu", "--select", "HIP4010")
    assert (result.exit_code, result.stdout) == (1, MASK_LINE)
    assert result.stderr == "rocm-migrate: 1 file checked; 1 finding, 1 at or above migration-required\n"


def test_verbose_names_the_configuration_and_sums_up_a_clean_run(tree: Path) -> None:
    result = run("clean.cpp", "-v")
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == ("rocm-migrate: configuration: none (defaults)\n"
                             "rocm-migrate: 1 file checked; 0 findings, 0 at or above migration-required\n")


def test_clean_files_are_quiet(tree: Path) -> None:
    result = run("clean.cpp")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")


@pytest.mark.parametrize(("args", "code"), [
    (["train.py"], 0),  # minor-adaptation is below the default threshold: printed, not failing
    (["train.py", "--fail-on", "minor-adaptation"], 1),
    (["kernel.cu", "--fail-on", "incompatible"], 0),
    (["kernel.cu"], 1),
])
def test_fail_on_threshold(tree: Path, args: list[str], code: int) -> None:
    result = run(*args)
    assert result.exit_code == code
    assert result.stdout


def test_the_tree_is_linted_when_no_files_are_given(tree: Path) -> None:
    result = run("--select", "HIP4010,torch-version-cuda")
    assert result.stdout == MASK_LINE + (
        "train.py:2:8: HIP6001 torch.version.cuda: torch.version.cuda used to detect a GPU build; HIP/ROCm: "
        "torch.version.hip (a string on ROCm builds, where torch.version.cuda is None)\n")


@pytest.mark.parametrize(("args", "config", "message"), [
    (["missing.cu"], None, "does not exist"),
    (["kernel.cu", "--select", "HIP4,FOO"], None, "unknown rule selector 'FOO' (command line)"),
    (["kernel.cu"], 'ignore = ["nope"]', "unknown rule selector 'nope' (configuration file)"),
    (["kernel.cu", "--target-arch", "gfx000"], None, "unknown GPU architecture 'gfx000'"),
    (["kernel.cu", "--baseline", "none.json"], None, "cannot read baseline none.json"),
    (["kernel.cu", "--baseline", "a", "--write-baseline", "b"], None, "use either --baseline or --write-baseline"),
    (["kernel.cu", "--per-file-ignores", "tests"], None, "--per-file-ignores takes GLOB:RULE"),
    (["kernel.cu", "--fail-on", "fatal"], None, "Invalid value for '--fail-on'"),
])
def test_usage_and_input_errors_exit_2(tree: Path, args: list[str], config: str | None, message: str) -> None:
    if config:
        (tree / ".rocm-migrate.toml").write_text(config + "\n")
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_configuration_value_is_a_usage_error_naming_file_and_key(tree: Path) -> None:
    (tree / ".rocm-migrate.toml").write_text('select = "HIP4"\n')
    result = run("kernel.cu")
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert ".rocm-migrate.toml: key 'select': 'HIP4' is not of type 'array'" in result.stderr
    assert result.stderr.startswith("rocm-migrate: error: ") and result.stdout == ""


def test_configuration_selects_and_ignores_per_file(tree: Path) -> None:
    (tree / "pyproject.toml").write_text('[tool.rocm-migrate]\nselect = ["HIP4", "HIP6"]\nfail-on = "incompatible"\n'
                                         '[tool.rocm-migrate.per-file-ignores]\n"*.py" = ["torch-version-cuda"]\n')
    result = run("kernel.cu", "train.py", "--ignore", "HIP4002")
    assert (result.exit_code, result.stdout) == (0, MASK_LINE)


def test_exclude_applies_to_named_files(tree: Path) -> None:
    (tree / ".rocm-migrate.toml").write_text('exclude = ["*.cu"]\n')
    assert run("kernel.cu").stdout == ""


def test_unreadable_input_is_reported_and_the_rest_is_linted(tree: Path) -> None:
    (tree / "broken.py").write_text("def f(:\n")
    (tree / "blob.cu").write_bytes(b"\0\1\2")
    result = run("broken.py", "blob.cu", "kernel.cu", "--select", "HIP4010")
    assert (result.exit_code, result.stdout) == (1, MASK_LINE)
    assert "rocm-migrate: warning: blob.cu: skipped: binary file (contains NUL bytes)\n" in result.stderr
    assert "rocm-migrate: warning: broken.py: skipped: Python syntax error at line 1" in result.stderr


def test_inline_suppression_end_to_end(tree: Path) -> None:
    (tree / "kernel.cu").write_text(MASK.replace("1);", "1);  // rocm-migrate: ignore[sync-mask-32bit]"))
    result = run("kernel.cu", "--select", "HIP4010,HIP09")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")


def test_json_format(tree: Path) -> None:
    document = json.loads(run("kernel.cu", "--format", "json").stdout)
    assert document["summary"] == {"files": 1, "lines": 5, "findings": 3, "failing": 3,
                                   "fail_on": "migration-required", "suppressed": 0, "baselined": 0}
    assert [(f["rule"], f["line"], f["column"]) for f in document["findings"]] == [
        ("HIP0001", 1, 10), ("HIP4002", 2, 17), ("HIP4010", 3, 28)]


def test_statistics(tree: Path) -> None:
    (tree / "more.cu").write_text(MASK.replace("reduce", "reduce2"))
    result = run("kernel.cu", "more.cu", "--statistics")
    assert result.stdout == ("     2  HIP0001  include-cuda-runtime\n"
                             "     2  HIP4002  kernel-definition\n"
                             "     2  HIP4010  sync-mask-32bit\n")
    assert result.exit_code == 1


def test_sarif_format(tree: Path) -> None:
    result = run("kernel.cu", "--format", "sarif")
    if find_spec("migrate.render.sarif_report") is None:
        assert (result.exit_code, result.stderr) == (2, "rocm-migrate: error: sarif output not available\n")
        return
    run_ = json.loads(result.stdout)["runs"][0]
    assert result.exit_code == 1
    assert [r["ruleId"] for r in run_["results"]] == ["HIP0001", "HIP4002", "HIP4010"]
    assert {r["id"] for r in run_["tool"]["driver"]["rules"]} == {"HIP0001", "HIP4002", "HIP4010"}


def test_baseline_round_trip(tree: Path) -> None:
    written = run("kernel.cu", "--write-baseline", "baseline.json")
    assert (written.exit_code, written.stdout) == (0, "")
    assert written.stderr == "rocm-migrate: wrote 3 findings to baseline.json\n"
    assert run("kernel.cu", "--baseline", "baseline.json").exit_code == 0
    # Edit above the findings (they shift down two lines, re-indented) and add a new one.
    shifted = "// moved\n\n" + MASK.replace("  v[0] +=", "\tv[0]  +=")
    (tree / "kernel.cu").write_text(shifted + "__global__ void k(int* p) { p[0] = __ballot_sync(0xffffffff, 1); }\n")
    result = run("kernel.cu", "--baseline", "baseline.json")
    assert result.exit_code == 1
    assert [line.split(": ")[0] for line in result.stdout.splitlines()] == ["kernel.cu:7:17", "kernel.cu:7:50"]
    assert "(3 in the baseline)" in result.stderr


def test_baseline_paths_are_relative_to_the_baseline_file(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run("kernel.cu", "--write-baseline", "baseline.json")
    entries = json.loads((tree / "baseline.json").read_text())["findings"]
    assert {e["path"] for e in entries} == {"kernel.cu"}
    (tree / "sub").mkdir()
    monkeypatch.chdir(tree / "sub")
    result = run("../kernel.cu", "--baseline", "../baseline.json")
    assert (result.exit_code, result.stdout) == (0, "")


def test_rule_cache_skips_validation_when_the_rules_are_unchanged(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    (rules_dir / "meta.yaml").write_bytes((ROOT / "rules" / "meta.yaml").read_bytes())
    first = rulecache.load(rules_dir, tmp_path / "cache")
    monkeypatch.setattr(rules_module, "_validator", lambda: pytest.fail("validated again"))
    assert rulecache.load(rules_dir, tmp_path / "cache") == first
    (rules_dir / "meta.yaml").write_text((rules_dir / "meta.yaml").read_text().replace("high", "medium"))
    with pytest.raises(BaseException, match="validated again"):
        rulecache.load(rules_dir, tmp_path / "cache")


def _own_rules(tmp_path: Path) -> Path:
    """A copy of the shipped rules as a user's own --rules-dir: no compiled copy, so the cache serves it."""
    own = tmp_path / "own-rules"
    if not own.exists():
        shutil.copytree(ROOT / "rules", own, ignore=shutil.ignore_patterns("compiled.json"))
    return own


def test_rule_cache_survives_a_corrupt_file(tmp_path: Path) -> None:
    expected = rulecache.load(_own_rules(tmp_path), tmp_path)
    (cached,) = (tmp_path / rulecache.SUBDIR).glob("*.json")
    cached.write_bytes(b"not json")
    assert rulecache.load(_own_rules(tmp_path), tmp_path) == expected
    assert rulecache.load(_own_rules(tmp_path), None) == expected


def _poison(cached: Path, change) -> None:
    data = json.loads(cached.read_text())
    change(data["files"][0][1][0])
    cached.write_text(json.dumps(data))


@pytest.mark.parametrize("change", [
    lambda r: r.update(id=5),                                  # a number where a string belongs
    lambda r: r.update(match={"identifier": {"exact": [1, 2]}}),
    lambda r: r.update(effort="lots"),
    lambda r: r.update(effort={"per_occurrence": "0.5", "first_use": 1}),
    lambda r: r.update(arch="gfx942"),
    lambda r: r.update(fallback="yes"),
    lambda r: r.update(rationale=["a", "list"]),
    lambda r: r.pop("title"),
    lambda r: r.update(match={"identifier": {"map": {"cudaMalloc": {"hip": 5}}}}),
    lambda r: r.update(match={"identifier": {"map": {"cudaMalloc": {"hip": "hipMalloc", "bogus": "x"}}}}),
    lambda r: r.update(match={"flag": {"map": {"-arch": {"value": "("}}}}),
], ids=["int-id", "int-names", "str-effort", "str-hours", "str-arch", "str-flag", "list-text", "missing-key",
        "int-entry", "unknown-entry-field", "bad-entry-pattern"])
def test_a_wrong_typed_rule_cache_row_is_a_miss(tmp_path: Path, change) -> None:
    expected = rulecache.load(_own_rules(tmp_path), tmp_path)
    (cached,) = (tmp_path / rulecache.SUBDIR).glob("*.json")
    _poison(cached, change)
    assert rulecache.load(_own_rules(tmp_path), tmp_path) == expected
    assert rulecache.load(_own_rules(tmp_path), tmp_path) == expected  # rebuilt, then served


def test_a_bad_pattern_in_the_rule_cache_matches_nothing_and_crashes_nothing(tmp_path: Path) -> None:
    """Patterns of the cached rules compile on first use: a tampered one is a rule that never fires."""
    rulecache.load(_own_rules(tmp_path), tmp_path)
    (cached,) = (tmp_path / rulecache.SUBDIR).glob("*.json")
    data = json.loads(cached.read_text())
    record = next(r for _, records in data["files"] for r in records
                  if "regex" in next(iter(r["match"].values())))
    next(iter(record["match"].values()))["regex"] = "("
    cached.write_text(json.dumps(data))
    rule = rulecache.load(_own_rules(tmp_path), tmp_path).get(record["id"])
    assert rule is not None and rule.matcher.regex is not None
    assert rule.matcher.regex.search("((((") is None


def test_the_rule_cache_is_data_only(tmp_path: Path) -> None:
    """A pickle planted where the old cache lived is never loaded; a rebuild removes it."""
    rulecache.load(_own_rules(tmp_path), tmp_path)
    (cached,) = (tmp_path / rulecache.SUBDIR).glob("*.json")
    trap = tmp_path / "ran"
    planted = cached.with_suffix(".pickle")
    planted.write_bytes(pickle.dumps(_Trap(str(trap))))
    assert "pickle" not in rulecache.__dict__
    cached.unlink()  # a miss: rebuilt next to the planted file
    rulecache.load(_own_rules(tmp_path), tmp_path)
    assert not trap.exists()
    assert sorted(p.suffix for p in (tmp_path / rulecache.SUBDIR).iterdir()) == [".json"]


class _Trap:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_no_cache_still_uses_the_validated_rules(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--no-cache is about the per-file caches: rules are validated once per rule change."""
    monkeypatch.setenv("ROCM_MIGRATE_CACHE_DIR", str(tree / "cache"))
    assert run("kernel.cu", "--no-cache").exit_code == 1
    monkeypatch.setattr(rules_module, "_validator", lambda: pytest.fail("validated again"))
    assert run("kernel.cu", "--no-cache").exit_code == 1
    from migrate.cli.main import cli

    result = CliRunner().invoke(cli, ["scan", "kernel.cu", "--no-cache", "--no-hipify", "-f", "json"],
                                catch_exceptions=False)
    assert result.exit_code == 0 and '"HIP4010"' in result.output


def test_lint_imports_only_what_it_needs(tmp_path: Path) -> None:
    """Not timed: the modules a warm lint run imports, from `python -X importtime`."""
    source = tmp_path / "kernel.cu"
    source.write_text(MASK)
    command = [sys.executable, "-X", "importtime", "-m", "migrate", "lint", str(source), "--select", "HIP4010"]
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": path}
    subprocess.run(command, capture_output=True, text=True, env=env, check=False)  # warms the rule cache
    source.write_text(MASK.replace("reduce", "reduce2"))  # a new file: extracted, not served from the cache
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 1, result.stderr
    imported = _imported(result.stderr)
    # what the interpreter itself loads here (a site hook of this machine) is not lint's doing
    bare = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True,
                          env=env, check=False)
    heavy = {"click", "jinja2", "networkx", "rich", "jsonschema", "migrate.scan.pipeline", "migrate.workloads.assemble",
             "migrate.workloads.graph",
             "migrate.workloads.verdict", "migrate.render",
             # the rules and the data files come from JSON (the rule cache, the data files' twins);
             # nothing is walked or excluded, so neither pathspec nor git; no worker processes
             "yaml", "pathspec", "migrate.vcs", "multiprocessing", "concurrent.futures", "tempfile",
             "migrate.scan.analyse", "migrate.hipify", "migrate.precise", "migrate.cli.scan", "migrate.extract.python",
             "migrate.model_report",
             # imported only where the file needs them: a Jinja statement tag, a suppression comment,
             # a finding in a Python file (rule families)
             "migrate.extract.jinja", "migrate.extract.comments", "migrate.rulebase.families"}
    assert sorted(heavy & imported - _imported(bare.stderr)) == []
    assert {"migrate.lint.run", "migrate.extract.c.cuda_cpp"} <= imported


def _imported(importtime: str) -> set[str]:
    return {line.split("|")[-1].strip() for line in importtime.splitlines() if line.startswith("import time:")}


def test_the_process_entry_freezes_what_is_alive_before_the_interpreter_exits(tmp_path: Path) -> None:
    """The exit-time collection of the modules and the rule base cost a lint of one file ~20 ms."""
    source = tmp_path / "kernel.cu"
    source.write_text(MASK)
    probe = ("import atexit, gc, sys; atexit.register(lambda: print('frozen', gc.get_freeze_count(), file=sys.stderr)); "
             f"sys.argv = ['rocm-migrate', 'lint', {str(source)!r}]; from migrate.cli.main import run; run()")
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": path}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 1 and "HIP4010" in result.stdout, result.stderr
    frozen = int(result.stderr.rsplit("frozen ", 1)[1].split()[0])
    assert frozen > 10_000


def test_lint_and_scan_report_the_same_findings_on_the_same_files() -> None:
    """One path: lint is the scan's extract and match stages on a subset of files, with the
    same handling of the project's own names (ncclCheck/nvmlCheck are macros defined here)."""
    tree = ROOT / "fixtures" / "lint" / "project_macros"
    env = {**os.environ, "ROCM_MIGRATE_CACHE_DIR": str(Path(os.environ.get("TMPDIR", "/tmp")) / "rm-lint-scan")}
    scanned = subprocess.run([sys.executable, "-m", "migrate", "scan", ".", "-f", "json", "--no-hipify"], cwd=tree,
                             capture_output=True, text=True, env=env, check=True)
    linted = subprocess.run([sys.executable, "-m", "migrate", "lint", "--format", "json", "--fail-on", "incompatible"],
                            cwd=tree, capture_output=True, text=True, env=env, check=False)
    assert linted.returncode == 0, linted.stderr
    scan_set = {(f["path"], f["line"], f["rule"]) for f in json.loads(scanned.stdout)["findings"]}
    lint_set = {(f["path"], f["line"], f["rule"]) for f in json.loads(linted.stdout)["findings"]}
    assert scan_set == lint_set
    symbols = {f["symbol"] for f in json.loads(linted.stdout)["findings"]}
    assert {"ncclAllReduce", "nvmlInit", "__shfl_down_sync"} <= symbols
    assert not {"ncclCheck", "nvmlCheck"} & symbols


def test_a_tree_is_read_as_a_scan_reads_it_with_the_same_findings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past SCAN_PATH_FROM files lint takes the scan's cached per-file matches; both ways agree, suppressions,
    skipped files and the cross-file join included."""
    import shutil

    from migrate.lint import run as linting
    from migrate.rulebase.load import load_rules
    from migrate.settings import Settings

    tree, kernels = tmp_path / "t", linting.SCAN_PATH_FROM
    shutil.copytree(ROOT / "fixtures" / "repos" / "demo", tree)
    for i in range(kernels):
        (tree / f"k{i}.cu").write_text(f"__global__ void k{i}(float* v) {{ v[0] += __shfl_down_sync(0xffffffff, v[0], 1); }}\n"
                                       "cudaFree(p);  // rocm-migrate: ignore[HIP1100]\n")
    (tree / "blob.cu").write_bytes(b"\0\1\2")
    settings, rules = Settings(jobs=1, cache_dir=tmp_path / "cache"), load_rules()
    results = []
    for threshold in (10_000, 0):
        monkeypatch.setattr(linting, "SCAN_PATH_FROM", threshold)
        results.append(linting.lint([tree], settings, rules, cwd=tmp_path))
    slow, fast = results
    assert fast == slow and len(fast.findings) > 2 * kernels
    assert fast.suppressed == kernels and [s.path for s in fast.skipped] == ["t/blob.cu"]
