"""What a newcomer reads first, through the real CLI: counts agree with their nouns, and `stack` on a
project without framework pins prints its target line without an empty table."""
from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import ROOT, run_cli

NO_HIPIFY = {"PATH": "/usr/bin:/bin", "HIPIFY_PERL": "", "ROCM_PATH": "/nonexistent", "COLUMNS": "200"}


def _one_kernel(tmp_path: Path) -> Path:
    (tmp_path / "k.cu").write_text("__global__ void k(float* v) { v[0] = 1; }\n")
    return tmp_path


def test_scan_counts_of_one_are_singular(tmp_path: Path) -> None:
    result = run_cli("scan", str(_one_kernel(tmp_path)), "--no-cache", env=NO_HIPIFY)
    assert result.returncode == 0, result.stderr
    assert "Scanned 1 file (" in result.stdout and "; 1 finding." in result.stdout
    assert "Plan: 2 milestones, 1 step, 0 risks" in result.stdout


def test_stack_without_pins_has_no_empty_table_and_counts_in_the_singular(tmp_path: Path) -> None:
    result = run_cli("stack", str(_one_kernel(tmp_path)), "--rocm", "7.2", "--no-cache", env=NO_HIPIFY)
    assert result.returncode == 0, result.stderr
    assert "ROCm 7.2 (7.2.4) on gfx942: native" in result.stdout
    assert "┃ framework" not in result.stdout and "┏" not in result.stdout
    assert result.stderr.strip() == "rocm-migrate: stack: 0 pins checked against 1 target"


def test_stack_with_a_pin_keeps_its_table(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("triton==2.0.0\n")
    result = run_cli("stack", str(tmp_path), "--rocm", "7.2,7.0", "--details", "--no-cache", env=NO_HIPIFY)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("┃ framework") == 2 and "triton (requirements.txt:1)" in result.stdout
    assert result.stderr.strip() == "rocm-migrate: stack: 1 pin checked against 2 targets"


def test_the_readme_names_each_report_by_an_option_scan_shows_in_its_help() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    reports = readme.split("\n## Reports\n", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"`(--[a-z-]+) FILE`", reports)
    assert sorted(named) == ["--csv-output", "--html-output", "--markdown-output", "--sarif-output"]
    shown = run_cli("scan", "--help").stdout
    assert all(f"{option} FILE" in shown for option in named)


def test_confidence_says_hipify_ran_when_it_found_nothing_to_convert(tmp_path: Path) -> None:
    from tests.check_toolchain import hipify_perl

    tool = hipify_perl()
    (tmp_path / "kernels.py").write_text("import triton\n\n\n@triton.autotune(configs=[triton.Config({}, num_warps=4)], "
                                         "key=[])\n@triton.jit\ndef k(x):\n    pass\n")

    def statement(*args: str) -> str:
        ran = run_cli("scan", str(tmp_path), "--no-cache", "-f", "json", *args)
        assert ran.returncode == 0, ran.stderr
        return str(json.loads(ran.stdout)["effort"]["confidence"]["statement"])

    assert "hipify-perl found no CUDA references to convert" in statement("--hipify", str(tool.path))
    assert "hipify-perl was not run, so its automatic share is the rule base's claim" in statement("--no-hipify")


def test_convert_todo_gives_each_finding_the_class_the_scan_gives_it(tmp_path: Path) -> None:
    from tests.check_toolchain import hipify_perl

    tool = hipify_perl()
    source = tmp_path / "src"
    source.mkdir()
    (source / "kernels.py").write_text("import triton\n\n\n@triton.autotune(configs=[triton.Config({}, num_warps=4)], "
                                       "key=[])\n@triton.jit\ndef k(x):\n    pass\n")
    scanned = run_cli("scan", str(source), "--no-cache", "--no-hipify", "-f", "json")
    assert [f["class"] for f in json.loads(scanned.stdout)["findings"]] == ["native"]  # a hint: num_warps
    converted = run_cli("convert", str(source), "--out", str(tmp_path / "out"), "--hipify", str(tool.path))
    assert converted.returncode == 0, converted.stderr
    assert "hand work left: 1 finding, 0 hipify rewrites or warnings to review" in converted.stderr
    assert converted.stdout == ""  # what it did goes to stderr, as in every command
    quiet = run_cli("convert", str(source), "--out", str(tmp_path / "quiet"), "--hipify", str(tool.path), "-q")
    assert quiet.returncode == 0 and quiet.stdout == quiet.stderr == ""
    assert (tmp_path / "quiet" / "rocm-migrate-todo.md").is_file()
    todo = (tmp_path / "out" / "rocm-migrate-todo.md").read_text()
    assert "**HIP6015**" in todo and "(class native, confidence low)" in todo
