"""A first scan with the cache (a user's default) forks its workers holding no file's bytes: the report cache's key
keeps none for files the workers will read (`pooling.workers_read`), the workers read them, rows past
`analyse.DECODED_AHEAD` are decoded once the pool is gone, and a report past `reportcache.SPOOLED` bytes is held in a
temporary file, not in memory. The reports are those of a serial scan, byte for byte.
docs/decisions/2026-12-07-s29-first-scan-memory.md."""
from __future__ import annotations

import dataclasses
import os
import random
from pathlib import Path

import pytest
from migrate.rulebase import precompiled
from migrate.scan import analyse, pooling, reportcache
from migrate.settings import Settings

FORMATS = ["json", "sarif", "csv", "markdown", "text"]


def _tree(tmp_path: Path) -> Path:
    """A small CUDA tree with copies (equal bytes under other names), cut from a runtime-API sample's calls."""
    tree = tmp_path / "tree"
    (tree / "src").mkdir(parents=True)
    for n in range(12):
        (tree / "src" / f"k{n}.cu").write_text(
            f"__global__ void k{n}(float* x) {{ x[threadIdx.x] *= {n}; }}\n"
            f"void run{n}(float* h, int n) {{\n  float* d;\n  cudaMalloc((void**)&d, n * sizeof(float));\n"
            f"  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);\n  k{n}<<<1, n>>>(d);\n"
            f"  cudaDeviceSynchronize();\n  cudaFree(d);\n}}\n")
    for n in range(3):  # vendored-like copies: analysed once
        (tree / "src" / f"copy{n}.cu").write_bytes((tree / "src" / "k1.cu").read_bytes())
    (tree / "src" / "blob.cu").write_bytes(b"\x00\x01 cudaMalloc")  # skipped as binary
    return tree


def _scan(tree: Path, settings: Settings) -> dict[str, bytes]:
    got: dict[str, bytes] = {}

    def write(done: reportcache.Outputs) -> None:
        got.update({name: b"".join(pieces()) for name, pieces in done.reports.items()})

    reportcache.scan([tree], settings, rules_dir=None, load_rules=lambda: precompiled.load(None, settings.cache_dir),
                     formats=FORMATS, write=write)
    return {name: _timeless(data) for name, data in got.items()}


def _timeless(data: bytes) -> bytes:
    import re

    return re.sub(rb'"seconds": [0-9.]+|"scanned_at": "[^"]*"|in [0-9.]+s;', b"T", data)


@pytest.fixture
def serial(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    tree = _tree(tmp_path)
    return tree, _scan(tree, Settings(jobs=1, cache_dir=tmp_path / "serial-cache", use_hipify=False))


@pytest.mark.skipif(not pooling.forks(), reason="workers are forked only where fork is a start method")
@pytest.mark.parametrize("ahead", [0, 200, 1 << 30])
def test_a_parallel_first_scan_forks_without_the_files_bytes(serial: tuple[Path, dict[str, bytes]], tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch, ahead: int) -> None:
    tree, expected = serial
    monkeypatch.setattr(pooling, "PARALLEL_THRESHOLD", 1)
    monkeypatch.setattr(pooling, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(analyse, "DECODED_AHEAD", ahead)  # none, some or every row decoded while the workers go on
    held: list[int] = []
    real_all, real_pool = analyse._analyse_all, analyse._read_in_pool

    def analyse_all(files, settings, rules, work, progress, known, meanwhile, cache):  # type: ignore[no-untyped-def]
        held.append(sum(len(k.data or b"") for k in known.values()))
        return real_all(files, settings, rules, work, progress, known, meanwhile, cache)

    read_by_workers: list[str] = []

    def read_in_pool(files, positions, *a):  # type: ignore[no-untyped-def]
        read_by_workers.extend(files[n].rel for n in positions)
        return real_pool(files, positions, *a)

    monkeypatch.setattr(analyse, "_analyse_all", analyse_all)
    monkeypatch.setattr(analyse, "_read_in_pool", read_in_pool)
    got = _scan(tree, Settings(jobs=2, cache_dir=tmp_path / "cache", use_hipify=False))
    assert held == [0]  # the key kept no file's bytes for the scan
    # every file but the binary one (skipped by the key) and the copies (analysed once) was read by a worker
    same = {"src/k1.cu", "src/copy0.cu", "src/copy1.cu", "src/copy2.cu"}
    assert len(read_by_workers) == 12 and len(same & set(read_by_workers)) == 1
    assert set(read_by_workers) - same == {f"src/k{n}.cu" for n in range(12) if n != 1}
    assert got == expected


@pytest.mark.skipif(not pooling.forks(), reason="workers are forked only where fork is a start method")
def test_a_small_first_scan_keeps_the_bytes_the_key_read(serial: tuple[Path, dict[str, bytes]], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Too little for a pool: the scan runs here, on the bytes the key read (no second read)."""
    tree, expected = serial
    held: list[int] = []
    real_all = analyse._analyse_all

    def analyse_all(files, settings, rules, work, progress, known, meanwhile, cache):  # type: ignore[no-untyped-def]
        held.append(sum(len(k.data or b"") for k in known.values()))
        return real_all(files, settings, rules, work, progress, known, meanwhile, cache)

    monkeypatch.setattr(analyse, "_analyse_all", analyse_all)
    assert _scan(tree, Settings(jobs=2, cache_dir=tmp_path / "cache", use_hipify=False)) == expected
    assert held and held[0] > 0


@pytest.mark.parametrize("piece", [5, 23, 1 << 20])
def test_a_report_past_the_spooled_size_is_written_through_a_file(serial: tuple[Path, dict[str, bytes]],
                                                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   piece: int) -> None:
    """Every format through a temporary file (SPOOLED 0), read back in pieces that cut the stand-ins: the same bytes,
    stored, and served from the cache on the next run."""
    tree, expected = serial
    monkeypatch.setattr(reportcache, "SPOOLED", 0)
    monkeypatch.setattr(reportcache, "PIECE", piece)
    settings = Settings(jobs=1, cache_dir=tmp_path / "cache", use_hipify=False)
    assert _scan(tree, settings) == expected
    assert len(os.listdir(tmp_path / "cache" / "reports")) == 1
    assert _scan(tree, settings) == expected  # the stored report's hit


def test_stand_ins_found_in_pieces_are_those_found_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    pick = random.Random(33)
    parts = [*reportcache.STAND_INS, b'"seconds": 98', b"x", b"\n", b"in 1.00s;", b'"scanned_at": ']
    data = b"".join(pick.choice(parts) for _ in range(3000))
    whole = reportcache._marks(data)
    assert len(whole) > 300
    for piece in (1, 7, 31, 64, 4096):
        monkeypatch.setattr(reportcache, "PIECE", piece)
        assert reportcache._marks_in(io.BytesIO(data)) == whole


def test_the_settings_reach_the_key_unchanged() -> None:
    """`workers_read` is asked with the scan's own jobs: a serial scan never drops the key's bytes."""
    assert not pooling.workers_read(1, [1 << 30] * 1000)
    assert not pooling.workers_read(2, [1] * (pooling.PARALLEL_THRESHOLD - 1))
    assert dataclasses.replace(Settings(), jobs=1).jobs == 1


@pytest.mark.skipif(not pooling.forks(), reason="workers are forked only where fork is a start method")
def test_a_copy_whose_original_cannot_be_read_by_the_worker_is_analysed_here(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Files of equal digests go to the workers once; when the one sent is gone by then (read fails in the
    worker), each of its copies is read and analysed by this process, and the one gone is listed as skipped."""
    import json

    tree = _tree(tmp_path)
    monkeypatch.setattr(pooling, "PARALLEL_THRESHOLD", 1)
    monkeypatch.setattr(pooling, "PARALLEL_BYTES", 0)
    real_read = analyse.read  # type: ignore[attr-defined]
    monkeypatch.setattr(analyse, "read", lambda file, limit: (None, "gone since") if file.rel == "src/copy0.cu"
                        else real_read(file, limit))  # the workers are forked with this in place
    report = json.loads(_scan(tree, Settings(jobs=2, cache_dir=tmp_path / "cache", use_hipify=False))["json"])
    paths = {f["path"] for f in report["findings"]}
    assert {"src/k1.cu", "src/copy1.cu", "src/copy2.cu"} <= paths and "src/copy0.cu" not in paths
    assert "gone since" in json.dumps(report["skipped"])
