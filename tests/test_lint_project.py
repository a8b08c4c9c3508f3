"""lint sees the project: the ROCm path, the files its HIP build leaves out and the optional parts a scan
of the project finds, so that `lint --fail-on` and `scan` give every finding the same class (the real
CLI in a subprocess, on copies of fixture trees)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.conftest import ROOT, run_cli

GGML = ROOT / "fixtures" / "lint" / "ported_ggml"
SCOPED = ROOT / "fixtures" / "workloads" / "ported_scoped"
CAFFE = ROOT / "fixtures" / "workloads" / "optional" / "caffe_cudnn"
TORCH = ROOT / "fixtures" / "lint" / "torch_extension"


def copy(tree: Path, tmp_path: Path) -> Path:
    target = tmp_path / tree.name
    shutil.copytree(tree, target)
    return target


def classes(tree: Path, folder: str, env: dict[str, str]) -> tuple[dict, dict, int]:
    """(scan's class per finding in `folder`, lint's, lint's exit code at --fail-on migration-required)."""
    scanned = run_cli("scan", ".", "-f", "json", "--no-hipify", cwd=tree, env=env)
    assert scanned.returncode == 0, scanned.stderr
    linted = run_cli("lint", folder, "-f", "json", "--fail-on", "migration-required", cwd=tree, env=env)
    assert linted.returncode in (0, 1), linted.stderr
    key = ("path", "line", "column", "rule", "symbol")
    scan = {tuple(f[k] for k in key): f["class"] for f in json.loads(scanned.stdout)["findings"]
            if f["path"].startswith(folder + "/")}
    lint = {tuple(f[k] for k in key): f["class"] for f in json.loads(linted.stdout)["findings"]}
    return scan, lint, linted.returncode


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}


def test_lint_and_scan_agree_on_a_ported_project(tmp_path: Path, env: dict[str, str]) -> None:
    """ggml: src/ggml-cuda is built for ROCm by src/ggml-hip; lint of the folder blocks nothing."""
    tree = copy(GGML, tmp_path)
    scan, lint, code = classes(tree, "src/ggml-cuda", env)
    assert scan and scan == lint
    assert set(lint.values()) == {"native"}
    assert code == 0
    again = run_cli("lint", "src/ggml-cuda/argmax.cu", "--fail-on", "migration-required", cwd=tree, env=env)
    assert again.returncode == 0, again.stdout  # one file, from the cache: the same answer


def test_without_its_hip_build_the_same_code_fails_lint(tmp_path: Path, env: dict[str, str]) -> None:
    tree = copy(GGML, tmp_path)
    shutil.rmtree(tree / "src" / "ggml-hip")
    (tree / "CMakeLists.txt").write_text((tree / "CMakeLists.txt").read_text().replace(
        'option(GGML_HIP  "ggml: use HIP"  OFF)\n', ""))
    (tree / "src" / "CMakeLists.txt").write_text("add_library(ggml-base ggml.c)\nadd_subdirectory(ggml-cuda)\n")
    scan, lint, code = classes(tree, "src/ggml-cuda", env)
    assert scan == lint
    assert "migration-required" in lint.values()
    assert code == 1


def test_a_lint_after_an_edit_of_the_build_answers_for_the_build_as_it_is_now(tmp_path: Path, env: dict[str, str]) -> None:
    """The project's parts are kept in the cache (with the stat rows and the analysed files' rows, committed once) under
    the content of every file: a lint after the HIP build is taken out, with the same cache, fails as a lint of a
    project without it does; a lint after the build is put back passes again (whether the linted file was edited
    in between or not)."""
    tree = copy(GGML, tmp_path)
    (tree / ".git").mkdir()
    kernel = tree / "src" / "ggml-cuda" / "argmax.cu"

    def lint() -> tuple[int, str]:
        done = run_cli("lint", "src/ggml-cuda/argmax.cu", "--fail-on", "migration-required", cwd=tree, env=env)
        assert done.returncode in (0, 1), done.stderr
        return done.returncode, done.stdout

    assert lint()[0] == 0 and lint()[0] == 0  # read, then from the cache
    hip = tree / "src" / "ggml-hip"
    shutil.move(hip, tmp_path / "ggml-hip")
    builds = {path: path.read_text() for path in (tree / "CMakeLists.txt", tree / "src" / "CMakeLists.txt")}
    (tree / "CMakeLists.txt").write_text(builds[tree / "CMakeLists.txt"].replace('option(GGML_HIP  "ggml: use HIP"  OFF)\n', ""))
    (tree / "src" / "CMakeLists.txt").write_text("add_library(ggml-base ggml.c)\nadd_subdirectory(ggml-cuda)\n")
    code, out = lint()
    assert code == 1 and "HIP4002" in out
    kernel.write_text(kernel.read_text() + "// edited\n")
    assert lint()[0] == 1
    shutil.move(tmp_path / "ggml-hip", hip)
    for path, text in builds.items():
        path.write_text(text)
    assert lint()[0] == 0
    kernel.write_text(kernel.read_text() + "// edited again\n")
    assert lint()[0] == 0


def test_what_the_hip_build_leaves_out_is_not_credited(tmp_path: Path, env: dict[str, str]) -> None:
    """vLLM-like: the AWQ GEMM is listed only in the CUDA branch of the CMake; custom_all_reduce.cu stops a
    HIP build with #error; cache_kernels.cu is built for both."""
    tree = copy(SCOPED, tmp_path)
    scan, lint, code = classes(tree, "csrc", env)
    assert scan == lint
    by_file: dict[str, set[str]] = {}
    for (path, *_), cls in lint.items():
        by_file.setdefault(path, set()).add(cls)
    assert by_file["csrc/cache_kernels.cu"] == {"native"}
    # no ported credit for what the HIP build leaves out: the AWQ mma.sync GEMM is a rewrite (rules/alternatives)
    assert "migration-required" in by_file["csrc/quantization/awq/gemm_kernels.cu"]
    assert "migration-required" in by_file["csrc/custom_all_reduce.cu"]
    assert code == 1
    bench = run_cli("scan", ".", "-f", "json", "--no-hipify", cwd=tree, env=env)
    statuses = {f["status"] for f in json.loads(bench.stdout)["findings"] if f["path"].startswith("benchmarks/")}
    assert statuses == {"optional"}  # a CUDA-only microbenchmark: its own class, not ported


@pytest.mark.parametrize("folder", ["src", "include"])
def test_lint_and_scan_agree_on_a_torch_extension(folder: str, tmp_path: Path, env: dict[str, str]) -> None:
    """torch-mesh-isect's shape: PyTorch's ROCm build hipifies the extension's sources and the headers they include,
    so scan grades them minor-adaptation; lint gives them the same class (it read them as migration-required and
    failed the hook) through the same decision (classify.hipified_by_build, kept in the project's parts)."""
    tree = copy(TORCH, tmp_path)
    scan, lint, code = classes(tree, folder, env)
    assert scan and scan == lint
    assert set(lint.values()) == {"minor-adaptation"}
    assert code == 0


def test_the_same_kernels_in_a_plain_cuda_build_fail_lint_and_scan_alike(tmp_path: Path, env: dict[str, str]) -> None:
    """Near miss: the same sources built by CMake as a CUDA library, no torch extension: nothing hipifies them."""
    tree = copy(TORCH, tmp_path)
    (tree / "setup.py").unlink()
    (tree / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.18)\nproject(bvh LANGUAGES CXX CUDA)\n"
                                         "add_library(bvh src/bvh_cuda_op.cu src/bvh.cpp)\n"
                                         "target_include_directories(bvh PRIVATE include)\n")
    scan, lint, code = classes(tree, "src", env)
    assert scan and scan == lint
    assert "migration-required" in lint.values()
    assert code == 1


def test_lint_and_scan_agree_on_an_optional_part(tmp_path: Path, env: dict[str, str]) -> None:
    tree = copy(CAFFE, tmp_path)
    scan, lint, _ = classes(tree, "src", env)
    assert scan and scan == lint


def test_the_projects_parts_come_from_the_cache_while_it_is_unchanged(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from migrate.lint import project
    from migrate.rulebase.load import load_rules
    from migrate.settings import Settings

    tree = copy(GGML, tmp_path)
    settings = Settings(jobs=1, cache_dir=tmp_path / "cache")
    rules = load_rules()
    first = project.parts_of(tree, settings, rules)
    assert first.rocm_path
    monkeypatch.setattr(project, "_decide", lambda *a, **k: pytest.fail("decided again"))
    assert project.parts_of(tree, settings, rules) == first
    (tree / "src" / "ggml-cuda" / "argmax.cu").write_text("// changed\n")
    monkeypatch.undo()
    assert project.parts_of(tree, settings, rules).rocm_path == first.rocm_path


def test_the_project_root_is_the_nearest_checkout_inside_the_working_directory(tmp_path: Path) -> None:
    from migrate.lint.project import root_of

    (tmp_path / "home" / "proj" / ".git").mkdir(parents=True)
    (tmp_path / "home" / "proj" / "src").mkdir()
    (tmp_path / "other").mkdir()
    source, stray = tmp_path / "home" / "proj" / "src" / "a.cu", tmp_path / "other" / "b.cu"
    source.write_text("")
    stray.write_text("")
    assert root_of([source], tmp_path / "home") == (tmp_path / "home" / "proj").resolve()  # not all of home
    src = (tmp_path / "home" / "proj" / "src").resolve()
    assert root_of([source], src) is None  # below the checkout's top: no configuration, no build file
    assert root_of([source], src, declared=True) == src  # its configuration's folder
    (src / "CMakeLists.txt").write_text("add_library(a a.cu)\n")
    assert root_of([source], src) == src  # a build at its top
    assert root_of([stray], tmp_path / "home") is None  # outside the working directory and any checkout
    assert root_of([tmp_path / "other" / "b.cu"], tmp_path) is None  # a folder of projects is no project


def test_files_outside_the_working_directory_list_no_folder_above_them(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside the working directory only a checkout can hold the files: no folder on the way up is
    listed (a replayed lint would otherwise depend on every change to /tmp or the home folder)."""
    import os

    from migrate.lint import project
    from migrate.lint.project import root_of

    (tmp_path / "build" / "src").mkdir(parents=True)
    (tmp_path / "build" / "CMakeLists.txt").write_text("add_library(a src/a.cu)\n")
    source = tmp_path / "build" / "src" / "a.cu"
    source.write_text("")
    listed: list[str] = []
    real = os.listdir
    monkeypatch.setattr(project.os, "listdir", lambda folder: listed.append(str(folder)) or real(folder))
    assert root_of([source], tmp_path / "elsewhere") is None
    assert listed == []
    assert root_of([source], tmp_path) == (tmp_path / "build").resolve()  # inside: listed as before
    assert listed
    (tmp_path / "build" / ".git").mkdir()
    assert root_of([source], tmp_path / "elsewhere") == (tmp_path / "build").resolve()  # a checkout, as before


def test_lint_from_a_folder_of_projects_reads_the_project_not_the_folder(tmp_path: Path, env: dict[str, str]) -> None:
    """A newcomer in a folder of unpacked repositories (no .git, no configuration, no build file at its
    top) lints one project's folder: the project is the highest folder with a build file, not the whole
    working directory (which used to be scanned whole: ten minutes over two hundred checkouts)."""
    from migrate.lint.project import root_of

    repos = tmp_path / "repos"
    tree = copy(GGML, repos)
    copy(CAFFE, repos)
    assert root_of([tree / "src" / "ggml-cuda"], repos) == tree.resolve()
    assert root_of([tree / "src" / "ggml-cuda"], tmp_path / "repos" / "ported_ggml" / "src") == (tree / "src").resolve()
    scanned = run_cli("scan", ".", "-f", "json", "--no-hipify", cwd=tree, env=env)
    linted = run_cli("lint", "ported_ggml/src/ggml-cuda", "-f", "json", cwd=repos, env=env)
    assert linted.returncode in (0, 1), linted.stderr
    scan = {(f["path"], f["line"], f["rule"]): f["class"] for f in json.loads(scanned.stdout)["findings"]
            if f["path"].startswith("src/ggml-cuda/")}
    lint = {(f["path"].removeprefix("ported_ggml/"), f["line"], f["rule"]): f["class"]
            for f in json.loads(linted.stdout)["findings"]}
    assert scan and scan == lint  # the ROCm build of the project is seen from its parent folder too


TENSOR_CORE_HELPERS = ROOT / "fixtures" / "lint" / "tensor_core_helpers"


def test_lint_and_scan_agree_on_kernels_that_call_tensor_core_helpers(tmp_path: Path, env: dict[str, str]) -> None:
    """learn-cuda sm80's shape: every kernel calls common.h's mma.sync/ldmatrix helpers, so a scan takes them for
    rewrite kernels, the project for new development; lint reads the same calls and agrees (HIP5010 incompatible)."""
    tree = copy(TENSOR_CORE_HELPERS, tmp_path)
    scan, lint, code = classes(tree, "kernels", env)
    assert scan and scan == lint
    assert {c for k, c in lint.items() if k[3] == "HIP5010"} == {"incompatible"}
    assert code == 1


def test_lint_and_scan_agree_on_plain_kernels_beside_one_tensor_core_kernel(tmp_path: Path, env: dict[str, str]) -> None:
    """Near miss: two of the three kernels call only `cdiv`: plain kernels are more, a port with a named rewrite
    in both (HIP5010 migration-required)."""
    tree = copy(TENSOR_CORE_HELPERS, tmp_path)
    for n in (5, 6):
        path = tree / "kernels" / f"matmul_v{n}.cu"
        path.write_text(path.read_text().replace("ldmatrix_x4(a, 0); mma_m16n8k16(a, b, acc);", "acc[0] = float(A[0]);"))
    scan, lint, _ = classes(tree, "kernels", env)
    assert scan and scan == lint
    assert {c for k, c in lint.items() if k[3] == "HIP5010"} == {"migration-required"}
