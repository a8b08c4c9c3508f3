"""A one-word macro that turns a project's GPU code on (`#if defined(GPU)`: rules/names/device.yaml
`platform_switch_macros`) is a build switch like USE_CUDA, decided by the build that defines it
(fixtures/workloads/optional/cmake_platform_macro_detected, cut from microsoft/SPTAG 4ecf2495: GPUSupport/CMakeLists.txt
defines GPU only `if (CUDA_FOUND)`, the CPU library's NeighborhoodGraph.h includes the CUDA headers and the KNN
kernels' `.hxx` header only under it). Near misses keep the code required."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from migrate.render.json_report import to_json
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from tests.conftest import ROOT

CASE = ROOT / "fixtures" / "workloads" / "optional" / "cmake_platform_macro_detected"
GRAPH = "AnnService/inc/Common/NeighborhoodGraph.h"
KNN = "AnnService/inc/Common/cuda/KNN.hxx"


def scanned(tree: Path, rulebase) -> dict:
    return to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))


def edited(tmp_path: Path, rel: str, old: str, new: str) -> Path:
    tree = Path(shutil.copytree(CASE, tmp_path / "sptag"))
    path = tree / rel
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new))
    return tree


def statuses(data: dict, path: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["path"] == path}


def test_a_gpu_macro_defined_only_where_cuda_is_found_is_optional(rulebase) -> None:
    data = scanned(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    part = next(p for w in data["workloads"] for p in w["optional_parts"] if GRAPH in p["files"])
    assert part["root"] == "build switch CUDA_FOUND"
    assert f"{GRAPH}:6 #if defined(GPU) (GPU is defined only in GPUSupport/CMakeLists.txt:9 if(CUDA_FOUND))" \
        in part["evidence"]
    # the kernels' .hxx header, included only under the switch, goes with it
    assert KNN in part["files"]
    assert statuses(data, GRAPH) == statuses(data, KNN) == {"optional"}


@pytest.mark.parametrize(("rel", "old", "new"), [
    # every configure defines GPU: the branch is built by default
    ("CMakeLists.txt", "option(GPU \"GPU\" ON)\n", "option(GPU \"GPU\" ON)\nadd_definitions(-DGPU)\n"),
    # a one-word macro that is no GPU switch (DEBUG), though the GPU build defines it too
    (GRAPH, "#if defined(GPU)\n#include <cuda.h>", "#if defined(DEBUG)\n#include <cuda.h>"),
])
def test_a_gpu_macro_every_build_defines_or_no_gpu_switch_stays_required(tmp_path: Path, rulebase, rel: str,
                                                                        old: str, new: str) -> None:
    if rel == GRAPH:
        tree = edited(tmp_path, "GPUSupport/CMakeLists.txt", "set(Definition -DGPU)", "set(Definition -DGPU -DDEBUG)")
        path = tree / rel
        path.write_text(path.read_text().replace(old, new))
    else:
        tree = edited(tmp_path, rel, old, new)
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert "" in statuses(data, GRAPH) or "required" in statuses(data, GRAPH)


def test_a_hxx_header_a_cpu_source_includes_too_stays_required(tmp_path: Path, rulebase) -> None:
    tree = edited(tmp_path, "AnnService/src/VectorIndex.cpp", '#include "inc/Common/NeighborhoodGraph.h"\n',
                  '#include "inc/Common/NeighborhoodGraph.h"\n#include "inc/Common/cuda/KNN.hxx"\n')
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, GRAPH) == {"optional"}
    assert statuses(data, KNN) == {""}
