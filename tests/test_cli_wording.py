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


def test_stack_says_alike_capability_checks_once_and_json_keeps_each(tmp_path: Path) -> None:
    arches = [70, 75, 80, 86, 89, 90]
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\nset(CUDA_ARCH\n"
        + "".join(f"    -gencode=arch=compute_{a},code=sm_{a}\n" for a in arches)
        + ")\nadd_library(p k.cu)\n")
    _one_kernel(tmp_path)
    text = run_cli("stack", str(tmp_path), "--rocm", "7.2", "--no-cache", env=NO_HIPIFY)
    assert text.returncode == 0, text.stderr
    lines = [line for line in text.stdout.replace("\n--", " --").splitlines() if "capability check HIP8010" in line]
    assert len(lines) == 1, text.stdout
    assert "(CMakeLists.txt:4) `-gencode=arch=compute_70,code=sm_70` and 5 more like it (CMakeLists.txt:5, 6, 7, 8 ...)" \
        in " ".join(text.stdout.split())
    data = json.loads(run_cli("stack", str(tmp_path), "--rocm", "7.2", "--no-cache", "-f", "json", env=NO_HIPIFY).stdout)
    assert [c["line"] for c in data["capabilities"] if c["rule"] == "HIP8010"] == [4, 5, 6, 7, 8, 9]


def test_the_readme_says_seconds_is_null_unless_timing_and_so_it_is(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert '"seconds": null' in readme and "`scan --timing` puts the elapsed times in" in readme
    _one_kernel(tmp_path)

    def seconds(*args: str) -> object:
        ran = run_cli("scan", str(tmp_path), "--no-cache", "-f", "json", *args, env=NO_HIPIFY)
        assert ran.returncode == 0, ran.stderr
        return json.loads(ran.stdout)["summary"]["seconds"]

    assert seconds() is None
    assert isinstance(seconds("--timing"), float)


def test_the_readme_installs_extras_from_the_checkout_and_each_exists() -> None:
    from migrate.compat import tomllib

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"])
    named = {e for group in re.findall(r"pip install -?e? ?'\.\[([a-z,-]+)\]'", readme) for e in group.split(",")}
    assert {"cluster", "check", "precise", "validate", "test"} <= named <= extras
    assert "pip install 'rocm-migrate[" not in readme  # no release on an index: the quick start installs `.`
    inventory = next(line for line in readme.splitlines() if line.startswith("rocm-migrate inventory --scan"))
    assert "'.[cluster]'" in inventory


def _folders(tmp_path: Path, count: int) -> Path:
    """`count` top folders, each a workload of one kernel and one runtime call."""
    for i in range(count):
        (tmp_path / f"p{i:02}").mkdir(parents=True)
        (tmp_path / f"p{i:02}" / "k.cu").write_text(
            f"#include <cuda_runtime.h>\n__global__ void k{i}(float* v) {{ v[0] = 1; }}\n"
            f"void f() {{ float* p; cudaMalloc(&p, {i + 1}); }}\n")
    return tmp_path


def test_one_workload_past_a_limit_is_shown_not_counted_as_1_others(tmp_path: Path) -> None:
    def scan(tree: Path, *args: str) -> str:
        ran = run_cli("scan", str(tree), "--no-cache", *args, env=NO_HIPIFY)
        assert ran.returncode == 0, ran.stderr
        return ran.stdout

    text = scan(_folders(tmp_path / "t21", 21))  # the terminal shows 20 workloads
    assert "others" not in text and all(f"p{i:02}" in text for i in range(21))
    markdown = scan(_folders(tmp_path / "t11", 11), "-f", "markdown")  # Markdown shows 10
    assert "others" not in markdown and all(f"| p{i:02} |" in markdown for i in range(11))
    html = scan(_folders(tmp_path / "t8", 8), "-f", "html")  # 8 workloads and the project costs: 9 bars of 8
    assert "1 others" not in html and "<title>project costs: t8:" in html


def test_validate_plan_says_what_it_planned_on_stderr_and_q_hides_it(tmp_path: Path) -> None:
    _one_kernel(tmp_path)
    said = run_cli("validate", "plan", str(tmp_path), "--no-cache", "-f", "json", env=NO_HIPIFY)
    assert said.returncode == 0, said.stderr
    planned = json.loads(said.stdout)["workloads"]
    checks = sum(len(w["checks"]) for w in planned)
    assert checks and len(planned) == 1
    assert said.stderr.strip() == f"rocm-migrate: validate plan: {checks} check{'' if checks == 1 else 's'} for 1 of 1 workload"
    quiet = run_cli("validate", "plan", str(tmp_path), "--no-cache", "-q", env=NO_HIPIFY)
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout


def test_messages_name_extras_that_exist_and_install_them_from_the_checkout() -> None:
    from migrate.compat import tomllib
    from migrate.vocabulary import EXTRAS, install_hint

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"])
    assert EXTRAS and set(EXTRAS) <= extras  # EXTRAS holds the words of the type Extra (tests/test_lint_typing.py)
    assert install_hint("cluster") == "pip install '.[cluster]' in rocm-migrate's checkout"
    sources = {p: p.read_text(encoding="utf-8") for p in (ROOT / "migrate").rglob("*.py")}
    assert not [p for p, text in sources.items() if "pip install 'rocm-migrate[" in text]
