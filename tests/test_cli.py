"""The real CLI in a subprocess: the demo scan against its golden JSON, the schema, exit codes."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from tests.conftest import ROOT, run_cli

GOLDEN = Path(__file__).parent / "golden"
SCHEMA = json.loads((ROOT / "docs" / "report.schema.json").read_text())


def normalised(report: dict) -> dict:
    report["tool"]["version"] = "<version>"
    report["tool"]["rules_version"] = "<rules>"
    assert report["summary"]["seconds"] in (None, 0) and report["source"]["scanned_at"] in (None, "<scanned_at>")
    report["summary"]["seconds"] = 0
    report["source"]["scanned_at"] = "<scanned_at>"
    return report


@pytest.fixture(scope="module")
def demo_json() -> dict:
    result = run_cli("scan", "fixtures/repos/demo", "--format", "json", "--no-cache")
    assert result.returncode == 0, result.stderr
    said = result.stderr.splitlines()  # notes and one summary line, nothing else
    assert all(line.startswith("rocm-migrate: note: ") for line in said[:-1]), said
    assert said[-1].startswith("rocm-migrate: 21 files scanned; ") and "Traceback" not in result.stderr
    return json.loads(result.stdout)


def test_demo_report_validates_against_the_schema(demo_json: dict) -> None:
    jsonschema.Draft202012Validator(SCHEMA).validate(demo_json)


def test_demo_report_matches_golden(demo_json: dict, update_golden: bool) -> None:
    golden = GOLDEN / "demo.json"
    actual = json.dumps(normalised(demo_json), indent=2, ensure_ascii=False) + "\n"
    if update_golden:
        golden.write_text(actual)
    assert actual == golden.read_text()


def test_terminal_summary_matches_golden(update_golden: bool) -> None:
    result = run_cli("scan", "fixtures/repos/demo", "--no-cache", env={"COLUMNS": "100"})
    assert result.returncode == 0, result.stderr
    text = "\n".join(line for line in result.stdout.splitlines() if not line.startswith(("rocm-migrate ", "Scanned ")))
    golden = GOLDEN / "demo.terminal.txt"
    if update_golden:
        golden.write_text(text + "\n")
    assert text + "\n" == golden.read_text()
    assert result.stdout.startswith("rocm-migrate ")


def test_outputs_to_files_and_fail_on(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    result = run_cli("scan", "fixtures/repos/demo", "-f", "json", "-o", str(out), "--fail-on", "migration-required")
    assert result.returncode == 1 and result.stdout == ""
    assert json.loads(out.read_text())["summary"]["class"] == "migration-required"
    assert run_cli("scan", "fixtures/repos/demo/fastattn/model.py", "--fail-on", "minor-adaptation").returncode == 0


def test_python_dash_m_and_version() -> None:
    result = run_cli("--version")
    from migrate import __version__
    from migrate.rulebase.load import load_rules

    assert result.returncode == 0
    assert result.stdout == f"rocm-migrate {__version__} (rules {load_rules().version})\n"


@pytest.mark.parametrize(("args", "message"), [
    (["scan", "no/such/dir"], "Path 'no/such/dir' does not exist."),
    (["explain", "HIPXYZ"], "rocm-migrate: error: no rule with id or name 'HIPXYZ' (see 'rocm-migrate rules')\n"),
    (["scan", "fixtures/repos/demo", "-f", "json", "-o", "/nonexistent/dir/r.json"],
     "rocm-migrate: error: cannot write /nonexistent/dir/r.json: No such file or directory\n"),
])
def test_usage_errors_exit_2_with_one_line(args: list[str], message: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_explain_and_rules_listing() -> None:
    explained = run_cli("explain", "sync-mask-32bit")
    assert explained.returncode == 0
    assert explained.stdout.startswith("HIP4010 (sync-mask-32bit): 32-bit lane mask passed to a *_sync warp intrinsic\n")
    listing = run_cli("rules").stdout.splitlines()
    assert any(line.split()[:3] == ["HIP1100", "cuda-runtime-api-memory-management", "migration-required"]
               for line in listing)


def test_scan_of_bad_inputs_completes(tmp_path: Path) -> None:
    (tmp_path / "ok.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "blob.cu").write_bytes(b"\x00\x01\x02")
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    result = run_cli("scan", str(tmp_path), "-f", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert [(s["path"], s["reason"]) for s in report["skipped"]] == [
        ("blob.cu", "binary file (contains NUL bytes)"), ("loop", "symlink loop (directory already scanned)")]
    assert [f["rule"] for f in report["findings"]] == ["HIP4002"]


def test_parallel_and_cached_scans_agree(tmp_path: Path, demo_json: dict) -> None:
    env = {"ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    first = run_cli("scan", "fixtures/repos/demo", "-f", "json", "--jobs", "2", env=env)
    second = run_cli("scan", "fixtures/repos/demo", "-f", "json", env=env)
    assert (tmp_path / "cache" / "facts.sqlite3").exists()
    for result in (first, second):
        assert normalised(json.loads(result.stdout)) == normalised(json.loads(json.dumps(demo_json)))


def test_target_arch_changes_wave_size_verdicts() -> None:
    def rules(*args: str) -> set[str]:
        result = run_cli("scan", "fixtures/repos/demo", "-f", "json", "--no-cache", *args)
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        return {f["rule"] for f in report["findings"]}, report["target"]

    wave64, target64 = rules()
    wave32, target32 = rules("--target-arch", "gfx1100", "--rocm", "6.4")
    assert target64 == {"rocm": "10.1", "arch": ["gfx942"]} and target32 == {"rocm": "6.4", "arch": ["gfx1100"]}
    assert {"HIP4013", "HIP4015"} <= wave64 - wave32
    assert "HIP4010" in wave32  # a 32-bit mask fails to compile on every AMD target


def test_unknown_target_is_a_usage_error() -> None:
    result = run_cli("scan", "fixtures/repos/demo", "--target-arch", "gfx9999")
    assert result.returncode == 2
    assert result.stderr.startswith("rocm-migrate: error: unknown GPU architecture 'gfx9999' (known: gfx906, gfx908, ")


def test_scan_collects_young_objects_rarely(tmp_path: Path) -> None:
    """The scan command sets the collector's threshold before any work (and any worker fork)."""
    import gc

    from click.testing import CliRunner
    from migrate.cli.scan import SCAN_GC_THRESHOLD, scan

    before = gc.get_threshold()
    try:
        gc.set_threshold(700)
        result = CliRunner().invoke(scan, [str(ROOT / "fixtures" / "repos" / "demo"), "--no-cache", "--no-hipify", "-q",
                                           "-f", "json", "-o", str(tmp_path / "r.json")], catch_exceptions=False)
        assert result.exit_code == 0 and gc.get_threshold()[0] == SCAN_GC_THRESHOLD != 700
    finally:
        gc.set_threshold(*before)


def test_scan_process_does_not_collect_while_it_scans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan command's own process makes no cyclic collection while it runs; a child it forks collects (the workers,
    as before); afterwards the collector is on again with an empty young generation (what the scan made is old)."""
    import gc
    import os

    from click.testing import CliRunner
    from migrate.cli.scan import scan
    from migrate.workloads import parts

    seen: list[tuple[bool, bool]] = []
    real = parts.build

    def build(*args: object, **kwargs: object) -> object:
        pid = os.fork()
        if pid == 0:  # the child says whether it collects by its exit status
            os._exit(0 if gc.isenabled() else 1)
        _, status = os.waitpid(pid, 0)
        seen.append((gc.isenabled(), os.waitstatus_to_exitcode(status) == 0))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(parts, "build", build)
    assert gc.isenabled()
    result = CliRunner().invoke(scan, [str(ROOT / "fixtures" / "repos" / "demo"), "--no-cache", "--no-hipify", "-q",
                                       "--jobs", "1", "-f", "json", "-o", str(tmp_path / "r.json")],
                                catch_exceptions=False)
    assert result.exit_code == 0 and seen == [(False, True)]
    assert gc.isenabled() and gc.get_count()[0] < 1000
