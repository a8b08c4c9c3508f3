"""discover and the scan's handling of bad input: nothing crashes, nothing is silently dropped."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from migrate.scan import pipeline as scan
from migrate.scan.discover import discover, file_kind
from migrate.settings import Settings
from tests.deep_folders import deep_folders, remove_deep


@pytest.mark.parametrize(("name", "kind"), [
    ("kernel.cu", "cuda"), ("a.cuh", "cuda"), ("x.cpp", "cpp"), ("x.h", "cpp"), ("m.py", "python"),
    ("n.ipynb", "notebook"), ("CMakeLists.txt", "cmake"), ("deps.cmake", "cmake"), ("Makefile", "makefile"),
    ("requirements-dev.txt", "requirements"), ("pyproject.toml", "pyproject"), ("setup.cfg", "setupcfg"),
    ("Dockerfile", "dockerfile"), ("Dockerfile.rocm", "dockerfile"), ("docker-compose.yml", "manifest"),
    ("environment.yml", "conda"), ("run.sh", "shell"), (".gitmodules", "gitmodules"), ("README.md", None),
    ("data.bin", None),
])
def test_file_kinds(tmp_path: Path, name: str, kind: str | None) -> None:
    path = tmp_path / name
    path.write_text("x\n")
    assert file_kind(path) == kind


def test_kinds_by_content(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text("apiVersion: batch/v1\nkind: Job\n")
    (tmp_path / "values.yaml").write_text("replicas: 2\n")
    (tmp_path / "train").write_text("#!/usr/bin/env python3\nimport torch\n")
    assert [file_kind(tmp_path / n) for n in ("job.yaml", "values.yaml", "train")] == ["manifest", None, "python"]


def test_gitignore_and_vendored_dirs(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("generated/\n*.gen.cu\n")
    for rel in ("src/a.cu", "src/b.gen.cu", "generated/c.cu", "third_party/cutlass/d.cu", "build/e.cu",
                "pkg.egg-info/f.py", "sub/.gitignore", "sub/keep.cu", "sub/drop.cu", "dependencies/optix/optix.h"):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("drop.cu\n" if rel == "sub/.gitignore" else "int x;\n")
    found = discover([tmp_path])
    assert [f.rel for f in found.files] == ["src/a.cu", "sub/keep.cu"]
    assert {s.path for s in found.skipped} == {"build/", "pkg.egg-info/", "third_party/", "dependencies/"}
    vendored = discover([tmp_path], include_vendored=True)
    assert "third_party/cutlass/d.cu" in {f.rel for f in vendored.files}


def test_bad_inputs_are_skipped_with_reasons(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "good.cu").write_text("void f() { cudaMalloc(&p, 4); }\n")
    (tmp_path / "blob.cu").write_bytes(b"\x7fELF\x00\x00binary")
    (tmp_path / "latin1.cpp").write_bytes("// caf\xe9\nvoid g() { cudaFree(p); }\n".encode("latin-1"))
    (tmp_path / "latin1.py").write_bytes("# caf\xe9\nimport pynvml\n".encode("latin-1"))
    (tmp_path / "broken.cu").write_text("void f( { cudaMalloc(&p, 4);\n}}}\nvoid g() { cudaFree(p); }\n")
    (tmp_path / "bad.py").write_text("def f(:\n")
    (tmp_path / "huge.cu").write_text("int x;\n" * 200)
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "dangling.cu").symlink_to(tmp_path / "missing.cu")
    os.mkfifo(tmp_path / "pipe.cu")
    (tmp_path / "secret.cu").write_text("void s() {}\n")
    from migrate.scan import readfile

    real_read = readfile.read_inside

    def read_inside(path: Path, top: Path, limit: int) -> bytes:
        if Path(path).name == "secret.cu":
            raise PermissionError(13, "Permission denied")
        return real_read(path, top, limit)

    monkeypatch.setattr(readfile, "read_inside", read_inside)
    from migrate.rulebase.load import load_rules

    report = scan.run([tmp_path], Settings(max_file_size=1000, jobs=1), load_rules())
    reasons = {s.path: s.reason for s in report.skipped}
    assert reasons == {
        "bad.py": "Python syntax error at line 1: invalid syntax",
        "blob.cu": "binary file (contains NUL bytes)",
        "dangling.cu": "broken symlink",
        "huge.cu": "larger than the size limit (1400 > 1000 bytes)",
        "latin1.py": "not valid UTF-8 text (byte 5)",
        "loop": "symlink loop (directory already scanned)",
        "pipe.cu": "not a regular file",
        "secret.cu": "unreadable: Permission denied",
    }
    assert {(f.path, f.symbol) for f in report.findings} == {
        ("broken.cu", "cudaMalloc"), ("broken.cu", "cudaFree"), ("good.cu", "cudaMalloc"), ("latin1.cpp", "cudaFree")}
    assert "latin1.cpp: not UTF-8 (byte 6); bytes that are not UTF-8 were read as one character each" in report.notes
    assert any(n.startswith("broken.cu: syntax errors") for n in report.notes)


def test_folders_a_thousand_deep_are_walked_without_recursion(tmp_path: Path) -> None:
    from tests.conftest import run_cli

    (tmp_path / "deep").mkdir()
    deep_folders(tmp_path / "deep", 1200, b"void f(float** p) { cudaMalloc(p, 4); }\n")
    try:
        found = discover([tmp_path / "deep"], include_vendored=False, exclude=())
        assert [f.rel for f in found.files] == ["d/" * 1200 + "k.cu"]
        for command in (("scan", str(tmp_path / "deep"), "-f", "json", "--no-cache"), ("lint", str(tmp_path / "deep"))):
            result = run_cli(*command)
            assert result.returncode in (0, 1) and "RecursionError" not in result.stderr and "Traceback" not in result.stderr
    finally:
        remove_deep(tmp_path / "deep")


def test_no_file_is_read_past_the_read_cap_whatever_the_size_limit(tmp_path: Path) -> None:
    from migrate.model import SourceFile
    from migrate.scan import readfile

    sparse = tmp_path / "big.cu"
    with open(sparse, "wb") as handle:
        handle.truncate(readfile.READ_CAP + 1)
    file = SourceFile(path=sparse, rel="big.cu", kind="cuda", size=sparse.stat().st_size)
    data, reason = readfile.read(file, 6 << 30)
    assert data is None and reason is not None and "largest file rocm-migrate reads" in reason


def test_a_build_folder_of_the_projects_own_build_files_gives_only_those(tmp_path: Path) -> None:
    """astra-toolbox keeps its autotools build (Makefile.in, configure.ac) under build/linux: its build files are
    read, nothing else there; a `build/` a build tool wrote into (CMakeCache.txt at its top) stays skipped."""
    for rel in ("src/a.cu", "build/linux/Makefile.in", "build/linux/configure.ac", "build/linux/helper.cu",
                "build/conda/build.sh", "out/build/CMakeCache.txt", "out/build/CMakeFiles/x.cmake", "out/build/y.cu",
                "dist/build/lib.linux-x86_64-3.12/m.py"):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("int x;\n")
    found = discover([tmp_path])
    assert [f.rel for f in found.files] == ["build/linux/Makefile.in", "src/a.cu"]
    assert {s.path: s.reason.split(":")[0] for s in found.skipped} == {
        "build/": "the project's build folder", "out/build/": "vendored or build directory (use --include-vendored)",
        "dist/build/": "vendored or build directory (use --include-vendored)"}
    everything = discover([tmp_path], include_vendored=True)
    assert "build/linux/helper.cu" in {f.rel for f in everything.files}


def test_a_build_link_to_outside_the_tree_is_not_looked_into(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "linux").mkdir(parents=True)
    (outside / "linux" / "Makefile.in").write_text("HIPCC = @HIPCC@\n")
    tree = tmp_path / "tree"
    (tree / "src").mkdir(parents=True)
    (tree / "src" / "a.cu").write_text("int x;\n")
    (tree / "build").symlink_to(outside, target_is_directory=True)
    found = discover([tree])
    assert [f.rel for f in found.files] == ["src/a.cu"]
    assert {s.path: s.reason for s in found.skipped} == {"build/": "vendored or build directory (use --include-vendored)"}
