"""Shell lines that run only where an NVIDIA tool is installed are an optional part
(fixtures/workloads/optional/shell_nvidia_host_guard: scripts/install-cupy.sh cut from lab-cosmo/sphericart 67643cfd,
which leaves with `exit 0` where nvidia-smi is missing; scripts/hardware.sh cut from mivertowski/DotCompute, which asks
nvidia-smi only inside `if command -v nvidia-smi`; scripts/quick_test.sh cut from talatops/DDoS-Detection-System-with-ML,
which runs nvidia-smi as the `if` condition and falls back to the CPU). Near misses keep the NVIDIA commands required."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from migrate.extract.text import host_tools
from migrate.render.json_report import to_json
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from tests.conftest import ROOT

CASE = ROOT / "fixtures" / "workloads" / "optional" / "shell_nvidia_host_guard"
INSTALL = "scripts/install-cupy.sh"
HARDWARE = "scripts/hardware.sh"
PROBE = "scripts/quick_test.sh"


def scanned(tree: Path, rulebase) -> dict:
    return to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))


def statuses(data: dict, path: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"] == path}


def test_lines_that_run_only_on_an_nvidia_host_are_optional(rulebase) -> None:
    data = scanned(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    assert statuses(data, INSTALL) == statuses(data, HARDWARE) == statuses(data, PROBE) == {"optional"}
    roots = {p["root"] for w in data["workloads"] for p in w["optional_parts"]}
    assert roots == {f"{INSTALL}:9-21 (runs only on an NVIDIA host)", f"{HARDWARE}:6-6 (runs only on an NVIDIA host)",
                     f"{PROBE}:5-5 (runs only on an NVIDIA host)", f"{PROBE}:6-7 (runs only on an NVIDIA host)"}


@pytest.mark.parametrize(("rel", "old", "new"), [
    # the guard only warns: the script goes on to nvidia-smi on every host
    (INSTALL, "    exit 0\n", "    echo 'no nvidia-smi'\n"),
    # nvidia-smi outside the branch that tests for it
    (HARDWARE, "else\n    echo \"no NVIDIA GPU\"\nfi\n", "fi\nnvidia-smi -L\n"),
])
def test_nvidia_commands_every_host_runs_stay_required(tmp_path: Path, rulebase, rel: str, old: str, new: str) -> None:
    tree = Path(shutil.copytree(CASE, tmp_path / "sphere"))
    path = tree / rel
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new))
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "minor-adaptation"
    assert "" in statuses(data, rel)


@pytest.mark.parametrize(("script", "spans"), [
    ("if command -v nvcc &> /dev/null\nthen\n  nvcc --version\nfi\n", [(3, 3)]),
    ("f() {\n  if ! command -v nvidia-smi; then\n    return 1\n  fi\n  nvidia-smi\n}\nf\n", []),  # not top level
    ('if [ ! -x "$(command -v nvidia-smi)" ]; then\n  echo missing\nelse\n  nvidia-smi\nfi\n', [(4, 4)]),
    ("if command -v nvidia-smi && true; then\n  nvidia-smi\nfi\n", []),  # the test is more than the tool's presence
    ("if which nvidia-smi; then\n  if true; then\n    nvidia-smi\n  fi\nelse\n  echo no\nfi\n", [(2, 4)]),
    ("if ! command -v nvidia-smi\nthen\n  echo skip\n  exit\nfi\nnvidia-smi\n", [(6, 7)]),
    # where the tool is missing the script fails: it needs NVIDIA's tools, the lines after stay required
    ("if ! command -v nvidia-smi; then\n  echo 'needs an NVIDIA GPU'\n  exit 1\nfi\nnvidia-smi\n", []),
    ('if [ ! -x "$(command -v nvidia-smi)" ]; then\n  fatal "install the driver"\nelse\n  nvidia-smi\nfi\n', []),
    # the tool run as the condition, cut from talatops/DDoS-Detection-System-with-ML 5352bab scripts/quick_test.sh:48-53:
    # the probe line and its `then` branch run nvidia-smi only where it works; the `else` falls back to the CPU
    ('if nvidia-smi &> /dev/null; then\n    echo "GPU detected"\n    nvidia-smi --query-gpu=name --format=csv\n'
     'else\n    echo "GPU not detected (will use CPU fallback)"\nfi\n', [(1, 1), (2, 3)]),
    # near misses: a pipeline as the condition is more than the tool; a negated probe that fails needs the tool
    ("if nvidia-smi -L | grep -q A100; then\n  echo a100\nfi\n", []),
    ("if ! nvidia-smi > /dev/null; then\n  echo 'needs an NVIDIA GPU'\n  exit 1\nfi\nnvidia-smi\n", []),
    ("if nvidia-smi-wrapper; then\n  nvidia-smi\nfi\n", []),
])
def test_presence_tests_and_the_lines_they_guard(script: str, spans: list[tuple[int, int]]) -> None:
    assert [(f.line, f.end_line) for f in host_tools.branches(script)] == spans
