"""The command line behaves like the tools users already know (ruff, semgrep, pre-commit): one
output convention for scan and lint, notes on stderr, -q/-v, NO_COLOR, validated options,
case-insensitive explain with suggestions, sorted listings, a version that names the rules."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from migrate.cli import outputs
from tests.conftest import ROOT, run_cli

DEMO = "fixtures/repos/demo"
NO_HIPIFY = {"PATH": "/usr/bin:/bin", "HIPIFY_PERL": "", "ROCM_PATH": "/nonexistent"}


def test_notes_reach_stderr_with_a_summary_line_and_quiet_hides_them(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text("__global__ void k(float* v) { v[0] = 1; }\n")
    (tmp_path / "broken.py").write_text("def f(:\n")
    loud = run_cli("scan", str(tmp_path), env=NO_HIPIFY)
    assert loud.returncode == 0, loud.stderr
    assert "rocm-migrate: note: hipify-perl not found" in loud.stderr
    assert "rocm-migrate: 1 file scanned, 1 skipped (-v lists them); 1 finding; class migration-required" in loud.stderr
    verbose = run_cli("scan", str(tmp_path), "-v", env=NO_HIPIFY)
    assert "rocm-migrate: skipped: broken.py: " in verbose.stderr
    quiet = run_cli("scan", str(tmp_path), "-q", env=NO_HIPIFY)
    assert quiet.returncode == 0 and quiet.stderr == "" and "Class:" in quiet.stdout


def test_one_format_on_stdout_and_format_output_files_for_the_rest(tmp_path: Path) -> None:
    report, html, sarif = tmp_path / "a.json", tmp_path / "r.html", tmp_path / "r.sarif"
    done = run_cli("scan", DEMO, "-f", "json", "-o", str(report), "--html-output", str(html),
                   "--sarif-output", str(sarif))
    assert done.returncode == 0, done.stderr
    assert json.loads(report.read_text())["tool"]["name"] == "rocm-migrate"
    assert html.read_text().lstrip().startswith("<!DOCTYPE html>")
    assert json.loads(sarif.read_text())["version"] == "2.1.0"
    assert done.stdout == ""


def test_two_formats_for_one_destination_is_a_usage_error_that_says_what_to_write() -> None:
    done = run_cli("scan", DEMO, "-f", "json", "-f", "html", "-o", "a.json")
    assert done.returncode == 2
    assert done.stderr == ("rocm-migrate: error: --format takes one format, not json, html: "
                           "write the others with --html-output FILE\n")


def test_scan_and_lint_share_the_format_names(tmp_path: Path) -> None:
    kernel = tmp_path / "k.cu"
    kernel.write_text("__global__ void k(float* v) { v[0] += __shfl_down_sync(0xffffffff, v[0], 1); }\n")
    assert run_cli("scan", str(tmp_path), "--format", "text", "--output-format", "terminal", "-q").returncode == 0
    as_text = run_cli("lint", str(kernel), "--format", "terminal", "--fail-on", "incompatible")
    assert as_text.returncode == 0 and "HIP4010" in as_text.stdout
    written, extra = tmp_path / "lint.txt", tmp_path / "lint.json"
    to_file = run_cli("lint", str(kernel), "-o", str(written), "--json-output", str(extra), "--fail-on", "incompatible")
    assert to_file.returncode == 0 and to_file.stdout == ""
    assert "HIP4010" in written.read_text()
    assert {f["rule"] for f in json.loads(extra.read_text())["findings"]} >= {"HIP4010"}


@pytest.mark.parametrize(("args", "message"), [
    (["scan", DEMO, "--fail-on", "native"], "Invalid value for '--fail-on'"),
    (["lint", DEMO, "--fail-on", "native"], "Invalid value for '--fail-on'"),
    (["scan", DEMO, "--rocm", "99.9"], "rocm-migrate: error: unknown ROCm release '99.9' (known: "),
    (["scan", DEMO, "--rocm", "6.5"], "rocm-migrate: error: unknown ROCm release '6.5' (known: "),
    (["scan", DEMO, "--rocm", "seven"], "rocm-migrate: error: --rocm takes a version such as"),
])
def test_bad_options_are_usage_errors(args: list[str], message: str) -> None:
    done = run_cli(*args)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_an_older_rocm_release_is_still_accepted() -> None:
    assert run_cli("scan", f"{DEMO}/fastattn/model.py", "--rocm", "6.4", "-q").returncode == 0


def test_help_shows_examples_exit_codes_and_defaults() -> None:
    text = run_cli("scan", "--help").stdout
    assert "Examples:" in text and "Exit codes: 0 done, 1 the --fail-on class was reached" in text
    assert "[default: the CPU count]" in text and "--sarif-output FILE" in text and "--quiet" in text


def test_explain_ignores_case_and_suggests_near_names() -> None:
    assert run_cli("explain", "hip4010").stdout.startswith("HIP4010 (sync-mask-32bit)")
    assert run_cli("explain", "SYNC-MASK-32BIT").stdout.startswith("HIP4010 (sync-mask-32bit)")
    near = run_cli("explain", "sync-mask-32bi")
    assert near.returncode == 2 and "did you mean sync-mask-32bit" in near.stderr


def test_rules_are_listed_by_id() -> None:
    ids = [line.split()[0] for line in run_cli("rules").stdout.splitlines()]
    assert ids == sorted(ids) and len(ids) > 300


def test_statistics_columns_line_up_for_long_ids(tmp_path: Path) -> None:
    (tmp_path / "blas.cu").write_text("#include <cublas_v2.h>\nvoid f(cublasHandle_t h) { cublasCreate(&h); }\n"
                                      "__global__ void k(float* v) { v[0] += __shfl_down_sync(0xffffffff, v[0], 1); }\n")
    rows = run_cli("lint", str(tmp_path), "--statistics", "--fail-on", "incompatible").stdout.splitlines()
    widths = {len(line.split()[1]) for line in rows}
    assert max(widths) > 7, rows  # a 9-character id such as HIP301010 is among them
    assert len({line.index(line.split()[2]) for line in rows}) == 1, rows


def test_version_names_the_rules() -> None:
    done = run_cli("--version")
    assert done.returncode == 0 and "(rules " in done.stdout


def test_no_color_and_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    monkeypatch.setattr("os.get_terminal_size", lambda *_: __import__("os").terminal_size((150, 40)))
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert outputs.color_and_width("-") == (True, 150)
    monkeypatch.setenv("NO_COLOR", "1")
    assert outputs.color_and_width("-") == (False, 150)
    assert outputs.color_and_width("report.txt") == (False, 100)


def test_the_readme_pre_commit_example_names_a_rev_that_exists() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "rev: v0.1.0" not in readme


def test_reports_name_their_schema_and_validate_against_it(tmp_path: Path) -> None:
    import jsonschema
    from migrate import schemas

    report = json.loads(run_cli("scan", DEMO, "-f", "json", "-q").stdout)
    assert report["$schema"] == schemas.schema_id(schemas.REPORT)
    report_schema = json.loads(schemas.path(schemas.REPORT).read_text())
    assert report_schema["$id"] == report["$schema"]
    jsonschema.validate(report, report_schema)
    kernel = tmp_path / "k.cu"
    kernel.write_text("__global__ void k(float* v) { v[0] += __shfl_down_sync(0xffffffff, v[0], 1); }\n")
    linted = json.loads(run_cli("lint", str(kernel), "-f", "json", "--fail-on", "incompatible").stdout)
    lint_schema = json.loads(schemas.path(schemas.LINT).read_text())
    assert linted["$schema"] == lint_schema["$id"] == schemas.schema_id(schemas.LINT)
    jsonschema.validate(linted, lint_schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**linted, "findings": [{"rule": "HIP4010"}]}, lint_schema)


def test_the_wheel_ships_the_schemas(tmp_path: Path) -> None:
    import subprocess
    import sys
    import zipfile

    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                           capture_output=True, text=True, timeout=600, check=False)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = tmp_path.glob("rocm_migrate-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"migrate/_schemas/report.schema.json", "migrate/_schemas/lint.schema.json"} <= names


def test_a_run_that_writes_only_files_still_says_what_happened(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text("__global__ void k(float* v) { v[0] = 1; }\n")
    report, sarif = tmp_path / "r.json", tmp_path / "r.sarif"
    for args in (["-f", "json", "-o", str(report)], ["--sarif-output", str(sarif), "-f", "json", "-o", str(report)]):
        done = run_cli("scan", str(tmp_path), *args, "--no-cache", env=NO_HIPIFY)
        assert done.returncode == 0 and done.stdout == "", done.stderr
        assert "rocm-migrate: note: hipify-perl not found" in done.stderr
        assert done.stderr.rstrip().endswith("1 finding; class migration-required; 1 note")
    assert run_cli("scan", str(tmp_path), "-f", "json", "-o", str(report), "-q", env=NO_HIPIFY).stderr == ""


def test_an_invalid_configuration_stops_with_file_key_and_reason(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text("__global__ void k(float* v) { v[0] = 1; }\n")
    config = tmp_path / ".rocm-migrate.toml"
    config.write_text('fail-on = "nonsense"\ntarget-arc = ["gfx942"]\n')
    for command in ("scan", "lint", "stack"):
        done = run_cli(command, str(tmp_path), env=NO_HIPIFY)
        assert done.returncode == 2 and done.stdout == "", (command, done.stderr)
        assert done.stderr.splitlines() == [
            f"rocm-migrate: error: {config}: key 'fail-on': 'nonsense' is not one of ['native', 'minor-adaptation', "
            "'migration-required', 'incompatible']",
            f"rocm-migrate: error: {config}: unknown key 'target-arc' in [tool.rocm-migrate] (did you mean "
            "'target-arch'?)"], command
    config.write_text("select = [\n")
    done = run_cli("scan", str(tmp_path), env=NO_HIPIFY)
    assert done.returncode == 2 and f"rocm-migrate: error: {config}: cannot read configuration: " in done.stderr


def test_sarif_paths_are_relative_to_the_checkout_top_when_a_subfolder_is_scanned(tmp_path: Path) -> None:
    import subprocess

    src = tmp_path / "mono" / "services" / "gpu"
    src.mkdir(parents=True)
    (src / "reduce.cu").write_text("__global__ void k(unsigned m, float v) { v += __shfl_down_sync(m, v, 16); }\n")
    subprocess.run(["git", "init", "-q", str(tmp_path / "mono")], check=True)
    sarif = tmp_path / "r.sarif"
    elsewhere = tmp_path / "no-checkout"  # lint run from a folder outside any git checkout
    elsewhere.mkdir()
    for command, cwd in (("scan", None), ("lint", None), ("lint", elsewhere)):
        done = run_cli(command, str(src), "-f", "sarif", "-o", str(sarif), "--no-cache", env=NO_HIPIFY, cwd=cwd)
        assert done.returncode in (0, 1), done.stderr
        run = json.loads(sarif.read_text())["runs"][0]
        uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"] for loc in r["locations"]}
        assert uris == {"services/gpu/reduce.cu"}, (command, cwd, uris)
        assert "top of the git checkout" in run["originalUriBaseIds"]["%SRCROOT%"]["description"]["text"], (command, cwd)
    outside = tmp_path / "plain"
    outside.mkdir()
    (outside / "reduce.cu").write_text((src / "reduce.cu").read_text())
    assert run_cli("scan", str(outside), "-f", "sarif", "-o", str(sarif), "--no-cache", env=NO_HIPIFY).returncode == 0
    run = json.loads(sarif.read_text())["runs"][0]
    assert {loc["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"] for loc in r["locations"]} \
        == {"reduce.cu"}


@pytest.mark.parametrize("command", ["scan", "lint", "stack", "convert", "rules", "explain", "inventory", "lint-server"])
def test_every_command_has_examples_and_exit_codes_in_its_help(command: str) -> None:
    text = run_cli(command, "--help").stdout
    assert "Examples:" in text and "Exit codes: 0 " in text, command


def test_stack_takes_the_same_output_options_as_scan(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("torch==2.6.0\n")
    json_file, markdown = tmp_path / "s.json", tmp_path / "s.md"
    done = run_cli("stack", str(tmp_path), "-f", "json", "-o", str(json_file), "--markdown-output", str(markdown),
                   "--no-cache")
    assert done.returncode == 0 and done.stdout == "", done.stderr
    assert json.loads(json_file.read_text())["pins"] and markdown.read_text().startswith("#")
    assert done.stderr.startswith("rocm-migrate: stack: ")
    as_terminal = run_cli("stack", str(tmp_path), "--format", "terminal", "--no-cache", "-q")
    assert as_terminal.returncode == 0 and "torch" in as_terminal.stdout and as_terminal.stderr == ""


def test_stack_reads_no_sources_and_gives_the_scans_stack_block(tmp_path: Path) -> None:
    scanned = json.loads(run_cli("scan", DEMO, "-f", "json", "-q", "--no-cache", "--no-hipify", "--rocm", "7.2",
                                 "--target-arch", "gfx942").stdout)["stack"]
    stacked = run_cli("stack", DEMO, "-f", "json", "-q", "--no-cache", "--rocm", "7.2", "--target-arch", "gfx942")
    assert stacked.returncode == 0, stacked.stderr
    assert json.loads(stacked.stdout) == scanned and scanned["pins"]
