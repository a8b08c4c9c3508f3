"""The stack check: table-driven fixtures (fixtures/stack/<case>/ + expected.yaml), each expectation traced to
the matrix sources it rests on, and the matrix's own guarantees (schema, a source for every entry)."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from migrate.extract.run import extract_all, extracted
from migrate.scan.cache import Cache
from migrate.scan.discover import discover
from migrate.stack import assess, matrix
from migrate.stack.pins import Where, image_pin, requirement_pin

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted(p for p in (ROOT / "fixtures" / "stack").iterdir() if p.is_dir())
MATRIX_FILE = ROOT / "rules" / "stack" / "matrix.yaml"
HERE = Where(path="x", line=1, column=1, end_line=1, end_column=2, text="")


def scan(case: Path) -> list:
    found = discover([case], include_vendored=False, exclude=())
    return extracted(extract_all(found.files, max_file_size=5 << 20, cache=Cache(None)))


def run_case(case: Path, rocm: list[str], arch: list[str]) -> dict:
    scanned = scan(case)
    report = assess.assess(matrix.load(), {f.rel: e for f, e in scanned}, [f for f, _ in scanned],
                           rocm=rocm, arch=arch)
    return report.to_json()


def test_there_are_at_least_twenty_cases() -> None:
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_stack_case(case: Path) -> None:
    spec = yaml.safe_load((case / "expected.yaml").read_text())
    table = matrix.load()
    got = []
    for target in spec["targets"]:
        block = run_case(case, [target["rocm"]] if target["rocm"] else [], [target["arch"]])
        got += block["targets"]
        for key, value in spec.get("stack", {}).items():
            actual = [p["requires"] for p in block["python"]] if key == "python" else block[key]
            assert actual == value, f"{case.name}: stack {key}"
    assert len(got) == len(spec["expect"])
    for target, want in zip(got, spec["expect"], strict=True):
        label = f"{case.name} {want['rocm']}/{want['arch']}"
        assert all(source in table.sources for source in want["why"]), f"{label}: cites an unknown source"
        assert (target["rocm"], target["arch"], target["release"]) == (want["rocm"], want["arch"], want["release"]), label
        assert target["gpu"]["status"] == want["gpu"], label
        assert target["class"] == want["class"], label
        assert sorted(target["problems"]) == sorted(want["problems"]), label
        if "images_os" in want:
            assert [i["supported"] for i in target["images_os"]] == want["images_os"], label
        frameworks = {f["package"]: f for f in target["frameworks"]}
        for package, fields in want["frameworks"].items():
            assert package in frameworks, f"{label}: no verdict for {package}"
            for key, value in fields.items():
                actual = frameworks[package][key]
                if key in ("install", "image"):
                    assert actual and value in actual, f"{label}: {package} {key} {actual!r}"
                else:
                    assert actual == value, f"{label}: {package} {key}"


def test_problems_become_findings_per_gpu(rulebase) -> None:
    block = run_case(ROOT / "fixtures" / "stack" / "what-if", ["7.2"], ["gfx90a", "gfx1100"])
    report = assess.assess(matrix.load(), {}, [], rocm=["7.2"], arch=["gfx90a"])
    assert not assess.to_findings(report, rulebase)
    scanned = scan(ROOT / "fixtures" / "stack" / "what-if")
    full = assess.assess(matrix.load(), {f.rel: e for f, e in scanned}, [], rocm=["7.2"], arch=["gfx90a", "gfx1100"])
    findings = assess.to_findings(full, rulebase)
    assert [(f.rule, f.path, f.line, f.targets, f.migration_class) for f in findings] == [
        ("HIP7107", "requirements.txt", 1, ("gfx90a", "gfx1100"), "native")]  # session 24: 7.0/7.1 build the pin
    assert [t["class"] for t in block["targets"]] == ["native", "native"]


def test_every_matrix_entry_has_a_source() -> None:
    data = yaml.safe_load(MATRIX_FILE.read_text())
    matrix.check(data)
    for name, source in data["sources"].items():
        assert source["url"].startswith("https://") and source["read"], name
    for section in matrix.SOURCED:
        for entry in data[section]:
            assert entry["source"] in data["sources"], (section, entry)


@pytest.mark.parametrize("section", matrix.SOURCED)
def test_an_entry_without_a_source_is_rejected(section: str) -> None:
    data = yaml.safe_load(MATRIX_FILE.read_text())
    broken = copy.deepcopy(data)
    del broken[section][0]["source"]
    with pytest.raises(matrix.MatrixError, match=section):
        matrix.check(broken)
    unknown = copy.deepcopy(data)
    unknown[section][0]["source"] = "nowhere"
    with pytest.raises(matrix.MatrixError, match="nowhere"):
        matrix.check(unknown)


def test_a_source_without_url_or_date_is_rejected() -> None:
    data = yaml.safe_load(MATRIX_FILE.read_text())
    for key in ("url", "read"):
        broken = copy.deepcopy(data)
        del broken["sources"]["cm-7.2.4"][key]
        with pytest.raises(matrix.MatrixError, match=key):
            matrix.check(broken)


def test_release_resolution() -> None:
    table = matrix.load()
    assert table.release("7.2").version == "7.2.4"
    assert table.release("7.2.2").version == "7.2.4"  # one column: 7.2.4/7.2.3 and 7.2.2/7.2.1 agree
    assert table.release("6.4").version == "6.4.3"
    assert table.release("6.4.0").version == "6.4.0"
    assert table.release("7.0.1").version == "7.0.0"
    assert table.release("7.2.0") is None  # no column for it in the revisions read
    assert table.release("10.0").version == "10.0.0"
    assert table.release("7.14").version == "7.14.0"
    assert table.release("7.14").stream == "core-sdk" and table.release("7.2").stream == "legacy"
    assert table.newest_for("gfx950").version == "10.1.0"
    assert table.newest_for("gfx1151").version == "10.1.0"  # the Core SDK lists the Ryzen APU; no 7.x column does
    assert table.newest_for("gfx906") is None


def test_matrix_gpus_are_known_targets() -> None:
    from migrate.rulebase import targets

    known = set(targets.load().architectures)
    assert {g for r in matrix.load().releases for g in r.gpus} <= known


@pytest.mark.parametrize(("spec", "version", "local", "kind"), [
    ("torch==2.1.2+cu118", "2.1.2", "cu118", "exact"),
    ("torch===2.3.0", "2.3.0", None, "exact"),
    ("torch>=2.1,<2.5", None, None, "range"),
    ("torch~=2.4", None, None, "range"),
    ("torch", None, None, "unpinned"),
    ("torch==2.*", None, None, "range"),
    ("pytorch=2.1.0=py3.10_cuda12.1_cudnn8_0", "2.1.0", "cu121", "exact"),
    ("pytorch>=2", None, None, "range"),
    ("torch==${{", None, None, "variable"),  # torch==${{ matrix.torch }} in a CI workflow: set elsewhere
    ("torch==${TORCH_VERSION}", None, None, "variable"),
])
def test_requirement_pins(spec: str, version: str | None, local: str | None, kind: str) -> None:
    pin = requirement_pin("pytorch" if spec.startswith("pytorch") else "torch", spec, HERE)
    assert (pin.package, pin.version, pin.local, pin.kind) == ("torch", version, local, kind)


@pytest.mark.parametrize(("ref", "expected"), [
    ("nvidia/cuda:12.1.0-devel-ubuntu22.04", {"cuda": "12.1", "os": "Ubuntu 22.04"}),
    ("rocm/pytorch:rocm6.4_ubuntu24.04_py3.12_pytorch_release_2.6.0",
     {"rocm": "6.4", "os": "Ubuntu 24.04", "python": "3.12", "framework": "pytorch", "version": "2.6.0"}),
    ("rocm/dev-ubuntu-22.04:6.2.4-complete", {"rocm": "6.2.4", "os": "Ubuntu 22.04"}),
    ("pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime", {"cuda": "12.1", "framework": "pytorch", "version": "2.1.0"}),
    ("python:3.11-slim", {"python": "3.11"}),
    ("ubuntu:22.04", {"os": "Ubuntu 22.04"}),
    ("rocm/jax-community:rocm6.1.1-jax0.4.30-py3.10.14", {"rocm": "6.1.1", "framework": "jax", "version": "0.4.30"}),
])
def test_image_pins(ref: str, expected: dict) -> None:
    pin = image_pin(ref, HERE)
    for key, value in expected.items():
        assert getattr(pin, key) == value, key


def test_stack_command_what_if_json_and_errors(tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    (tmp_path / "requirements.txt").write_text("torch==2.6.0\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    run = subprocess.run([sys.executable, "-m", "migrate", "stack", str(tmp_path), "--rocm", "6.4,7.2",
                          "--target-arch", "gfx90a,gfx942", "-f", "json"], capture_output=True, text=True, env=env, check=False)
    assert run.returncode == 0, run.stderr
    block = json.loads(run.stdout)
    assert [(t["rocm"], t["arch"], t["class"]) for t in block["targets"]] == [
        ("6.4", "gfx90a", "native"), ("7.2", "gfx90a", "native"),
        ("6.4", "gfx942", "native"), ("7.2", "gfx942", "native")]
    # 7.2 does not build torch 2.6; 6.4 does for both GPUs: a deployment choice (HIP7107), the bump still shown
    assert [t["problems"] for t in block["targets"] if t["rocm"] == "7.2"] == [["HIP7107"], ["HIP7107"]]
    table = subprocess.run([sys.executable, "-m", "migrate", "stack", str(tmp_path), "--rocm", "6.4,7.2",
                            "--target-arch", "gfx90a,gfx942"], capture_output=True, text=True, env=env, check=False)
    assert "What-if" in table.stdout and "torch→2.7.1" in table.stdout
    bad = subprocess.run([sys.executable, "-m", "migrate", "stack", str(tmp_path), "--rocm", "7.2.0"],
                         capture_output=True, text=True, env=env, check=False)
    assert bad.returncode == 2 and "7.2.0 not in the compatibility matrix" in bad.stderr
    arch = subprocess.run([sys.executable, "-m", "migrate", "stack", str(tmp_path), "--target-arch", "gfx999"],
                          capture_output=True, text=True, env=env, check=False)
    assert arch.returncode == 2 and "gfx999" in arch.stderr


def test_the_matrix_comes_from_its_checked_twin_and_an_edit_is_checked_again(tmp_path: Path) -> None:
    """The shipped matrix is read from the JSON twin generate_docs.py wrote after its checks; an
    edited YAML (the twin stale) is parsed and checked at load as before."""
    import shutil

    from migrate.rulebase import datafile

    assert datafile.fresh_twin(MATRIX_FILE) == yaml.safe_load(MATRIX_FILE.read_text())
    copy = tmp_path / "matrix.yaml"
    shutil.copy(MATRIX_FILE, copy)
    shutil.copy(datafile.twin_path(MATRIX_FILE), datafile.twin_path(copy))
    assert matrix.load(copy).releases == matrix.load().releases
    edited = tmp_path / "edited" / "matrix.yaml"  # another path: loads are cached by path
    edited.parent.mkdir()
    shutil.copy(datafile.twin_path(MATRIX_FILE), datafile.twin_path(edited))
    edited.write_text(copy.read_text().replace("sources:", "sources_renamed:", 1))
    assert datafile.fresh_twin(edited) is None
    with pytest.raises(matrix.MatrixError):
        matrix.load(edited)


def test_the_newest_release_a_source_names_is_in_the_matrix() -> None:
    """Every ROCm version the sources table names (URL or note) is at most the newest column; that one is in."""
    import re

    data = yaml.safe_load(MATRIX_FILE.read_text())
    named = {v for entry in data["sources"].values() for text in (entry["url"], entry.get("note", ""))
             for v in re.findall(r"(?<![\d.])(\d{1,2}\.\d{1,2}\.\d{1,2})(?![\d.])", text)
             if int(v.split(".")[0]) >= 6}  # ROCm releases; framework versions (0.x, 1.x, 2.x) are below
    newest = max(named, key=matrix.vtuple)
    table = matrix.load()
    assert table.releases[0].version == newest, f"a source names ROCm {newest}; the newest column is {table.releases[0].version}"
    assert {r.stream for r in table.releases} == {"legacy", "core-sdk"}
    assert {s.id for s in table.streams} == {"legacy", "core-sdk"}


def test_binary_coverage_reports_a_wheel_pinned_without_the_fleet_target() -> None:
    """The real CLI: each pinned prebuilt binary with the gfx targets it carries against the fleet."""
    import json

    from tests.conftest import run_cli

    result = run_cli("stack", "fixtures/rules/HIP7105", "--rocm", "7.14", "--target-arch", "gfx942,gfx950",
                     "-f", "json")
    binaries = {b["binary"]: b for b in json.loads(result.stdout)["binaries"]}
    assert binaries["torch[device-gfx942]==2.12.0+rocm7.14.0"]["missing"] == ["gfx950"]
    assert binaries["torch[device-gfx1151]==2.12.0+rocm7.14.0"]["missing"] == ["gfx942", "gfx950"]
    pytorch_org = binaries["torch==2.7.1+rocm6.3 (download.pytorch.org/whl/rocm6.3)"]
    assert pytorch_org["status"] == "missing" and pytorch_org["missing"] == ["gfx950"]
    assert "gfx942" in pytorch_org["carries"] and pytorch_org["source"].startswith("https://")
    text = run_cli("stack", "fixtures/rules/HIP7105", "--rocm", "7.14", "--target-arch", "gfx942", "-f", "markdown")
    assert "torch\\[device-gfx1151\\]==2.12.0\\+rocm7.14.0 \\(strix-wheel-on-mi300-requirements.txt:4\\) lacks gfx942" \
        in text.stdout
    family = binaries["rocm/vllm:rocm7.12.0_gfx94x-dcgpu_ubuntu24.04_py3.12_pytorch_2.9.1_vllm_0.16.0"]
    assert (family["kind"], family["carries"], family["missing"]) == ("image", ["gfx942"], ["gfx950"])
    assert family["source"].startswith("https://github.com/ROCm/TheRock/")  # the family's targets, with the source
    assert binaries["rocm/vllm:rocm7.12.0_gfx950-dcgpu_ubuntu24.04_py3.12_pytorch_2.9.1_vllm_0.16.0"]["missing"] \
        == ["gfx942"]


def test_an_image_whose_tag_names_no_family_stays_unknown(tmp_path: Path) -> None:
    """Only a tag naming a TheRock family (or a bare gfx target) gives an image's targets; a legacy tag does not."""
    import json

    from tests.conftest import run_cli

    (tmp_path / "Dockerfile").write_text("FROM rocm/vllm:rocm6.4.1_vllm_0.9.0.1_20250605\n"
                                         "FROM rocm/pytorch:rocm7.12.0_gfx1151_ubuntu24.04_py3.12_pytorch_2.9.1\n")
    result = run_cli("stack", str(tmp_path), "--rocm", "7.2", "--target-arch", "gfx942", "-f", "json")
    binaries = [(b["binary"].split(":")[1][:12], b["status"], b["carries"]) for b in json.loads(result.stdout)["binaries"]]
    assert binaries == [("rocm6.4.1_vl", "unknown", None), ("rocm7.12.0_g", "missing", ["gfx1151"])]


def test_a_variable_pin_renders(tmp_path: Path) -> None:
    """A pin written with a shell variable (torch==${PYTORCH_VERSION}) is listed, not a crash."""
    from tests.conftest import run_cli

    (tmp_path / "Dockerfile").write_text("FROM rocm/dev-ubuntu-24.04:7.2.4-complete\n"
                                         "RUN pip install torch==${PYTORCH_VERSION}\n")
    result = run_cli("stack", str(tmp_path), "--rocm", "7.2,10.0", "-f", "markdown")
    assert result.returncode == 0, result.stderr
    assert "torch" in result.stdout


def test_capability_audit_says_what_each_check_sees_on_each_target(tmp_path: Path) -> None:
    """Capability checks with the value each AMD target reports, and a literal gate's outcome."""
    import json

    from tests.conftest import run_cli

    # a scan reads the CUDA sources too (the stack command alone reads manifests and Python only)
    out = tmp_path / "report.json"
    run_cli("scan", "fixtures/stack/capability-audit", "--target-arch", "gfx90a,gfx942,gfx1100", "-f", "json",
            "-o", str(out))
    rows = {(c["rule"], c["line"]): c for c in json.loads(out.read_text())["stack"]["capabilities"]}
    gate = {t["arch"]: (t["sees"], t["decides"], t["evidence"]) for t in rows[("HIP6002", 4)]["targets"]}
    assert gate == {"gfx90a": ("(9, 0)", True, "seen"), "gfx942": ("(9, 4)", True, "derived"),
                    "gfx1100": ("(11, 0)", True, "derived")}  # a Hopper gate (>= 9.0) admits every AMD target
    assert all("None" in t["sees"] for t in rows[("HIP6001", 5)]["targets"])
    assert all("undefined" in t["sees"] for t in rows[("HIP4021", 4)]["targets"])
    assert all(c["source"].startswith("https://") for c in rows.values())
