"""Precise mode takes clang headers of the libclang release that parses: a clang 15 installed beside
Debian's hipcc is passed over (its CUDA wrappers do not parse with libclang 18), and CUDA headers
newer than libclang supports are named in a note."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate.precise import clang


def _resource(root: Path, version: str) -> Path:
    folder = root / "lib" / "clang" / version
    (folder / "include").mkdir(parents=True)
    (folder / "include" / clang.WRAPPER).write_text("")
    return folder


def test_a_resource_dir_of_another_clang_release_is_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fifteen = _resource(tmp_path / "llvm-15", "15.0.6")
    (tmp_path / "llvm-15" / "bin").mkdir()
    (tmp_path / "llvm-15" / "bin" / "clang").write_text("#!/bin/sh\n")
    (tmp_path / "llvm-15" / "bin" / "clang").chmod(0o755)
    monkeypatch.delenv(clang.ENV_RESOURCE_DIR, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "llvm-15" / "bin"))
    monkeypatch.setattr(clang, "_ziglang_lib", lambda: None)
    assert clang.find_resource_dir(15) == fifteen
    found = clang.find_resource_dir(18)
    assert found != fifteen and (found is None or "15" not in found.name)


def test_the_zig_release_is_read_from_its_libcxx(tmp_path: Path) -> None:
    config = tmp_path / "libcxx" / "include" / "__config"
    config.parent.mkdir(parents=True)
    config.write_text("#  define _LIBCPP_VERSION 180100\n")
    assert clang._libcxx_major(tmp_path) == 18
    assert clang._libcxx_major(tmp_path / "missing") is None
    assert clang._path_major("/usr/lib/llvm-15/lib/clang/15.0.6") == 15


def test_cuda_headers_newer_than_libclang_supports_are_named(tmp_path: Path) -> None:
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "cuda.h").write_text("#define CUDA_VERSION 13000\n")
    assert clang.cuda_version(tmp_path) == (13, 0)
    chain = clang.Toolchain(resource_dir=tmp_path, cuda_path=tmp_path, version="", cuda_version=(13, 0))
    if clang.libclang_major() not in clang.CLANG_NEWEST_CUDA:
        pytest.skip("the libclang wheel is not installed (pip install '.[precise]')")
    assert "CUDA 13.0 headers" in chain.header_note() and "up to 12.3" in chain.header_note()
    older = clang.Toolchain(resource_dir=tmp_path, cuda_path=tmp_path, version="", cuda_version=(12, 2))
    assert older.header_note() == ""
