"""The name lists the extractors read are data (rules/names/*.yaml): every list says what it means
and where its names come from, is read by an extractor, and is what the extractor holds."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from migrate.extract import names
from migrate.extract.c import device, guards
from migrate.extract.python import constructs, extractor
from migrate.extract.text import commands, deps
from migrate.rulebase import datafile
from tests.conftest import ROOT

FILES = sorted((ROOT / "rules" / "names").glob("*.yaml"))
SOURCE = re.compile(r"https?://\S+")
READ = re.compile(r"""\b(?:name_list|guard_map)\("(\w+)", "(\w+)"\)""")
ALTERNATION = re.compile(r"""\b_alternatives\("(\w+)"\)""")  # python/constructs.py: a pattern built from a list


def _lists() -> list[tuple[str, str, dict[str, object]]]:
    return [(p.stem, key, entry) for p in FILES for key, entry in datafile.parse(p.read_bytes()).items()]


def test_every_area_is_twinned_and_read_through_its_twin() -> None:
    assert [p.stem for p in FILES] == ["build", "device", "python"]
    for path in FILES:
        assert f"names/{path.name}" in datafile.TWINNED
        assert datafile.fresh_twin(path) is not None, f"{path.name}: stale twin (run scripts/generate_docs.py)"


@pytest.mark.parametrize(("area", "key", "entry"), _lists(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_list_means_something_and_names_its_source(area: str, key: str, entry: dict[str, object]) -> None:
    assert set(entry) in ({"means", "source", "names"}, {"means", "source", "guards"}), f"{area}.{key}"
    assert str(entry["means"]).strip() and SOURCE.search(str(entry["source"])), f"{area}.{key}: no source address"
    values = entry.get("names") or list(entry["guards"])  # type: ignore[call-overload]
    assert values and len(values) == len(set(values)), f"{area}.{key}: empty or repeated names"
    assert all(isinstance(v, str) and v == v.strip() and v for v in values)


def test_every_list_is_read_by_an_extractor_and_every_read_list_exists() -> None:
    read = {m.groups() for path in (ROOT / "migrate" / "extract").rglob("*.py")
            for m in READ.finditer(path.read_text(encoding="utf-8"))}
    constructs = (ROOT / "migrate" / "extract" / "python" / "constructs.py").read_text(encoding="utf-8")
    read |= {("python", key) for key in ALTERNATION.findall(constructs)}
    declared = {(area, key) for area, key, _ in _lists()}
    assert read == declared


def test_the_extractors_hold_the_lists() -> None:
    assert device.BALLOTS == names.name_list("device", "warp_votes") >= {"__ballot_sync", "__activemask"}
    assert "__CUDA_ARCH__" in guards.NVIDIA_ONLY and "__HIP__" in guards.HIP_CLANG_DEFINES
    assert {"gzip", "tar"} <= commands.ARCHIVERS and "nsys" in commands.NVIDIA_TOOLS
    assert "pytorch-cuda" in deps.CONDA_RUNTIME_PINS and "cuda-nvcc" in deps.CONDA_TOOLCHAIN
    assert constructs.CUDA_LIBRARY.match("libcublasLt.so.12") and constructs.CUDA_LIBRARY.match("cudart64_12.dll")
    assert not constructs.CUDA_LIBRARY.match("libcublasx.so") and constructs.NVIDIA_SDK_LIBRARY.search("RnD.SharpOptiX.dll")
    assert constructs.NVIDIA_GPU_NAME.search("NVIDIA GeForce RTX 4090") and not constructs.NVIDIA_GPU_NAME.search("gfx90a")
    assert extractor.DEVICE_COUNT_GUARDS == {"cv2.cuda.getCudaEnabledDeviceCount": ("cv2.cuda.", "cv2.cuda_",
                                                                                    "cv2.cudacodec.")}


def test_an_edited_list_is_what_the_extractor_reads(tmp_path: Path) -> None:
    """The lists are read from the rule base's names folder (no copy of them in Python): a new process whose
    names folder holds an edited list builds the extractor's constant from it."""
    import subprocess
    import sys

    folder = tmp_path / "names"
    folder.mkdir()
    for area in ("device", "python", "build"):
        text = (ROOT / "rules" / "names" / f"{area}.yaml").read_text(encoding="utf-8")
        (folder / f"{area}.yaml").write_text(text.replace("[compute-sanitizer,", "[my-profiler, compute-sanitizer,"))
    probe = ("import pathlib, sys\n"
             "from migrate.extract import names\n"
             f"names.folder = lambda: pathlib.Path({str(folder)!r})\n"
             "names._area.cache_clear()\n"
             "from migrate.extract.text import commands\n"
             "print('my-profiler' in commands.NVIDIA_TOOLS, 'nsys' in commands.NVIDIA_TOOLS)\n")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True"]
