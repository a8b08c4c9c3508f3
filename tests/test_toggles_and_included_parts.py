"""Code the default build never compiles, from what the sources themselves say: a toggle whose only
#define is commented out (fixtures/workloads/optional/commented_toggle), and headers only optional files
include. Each is optional with its evidence; near misses stay required."""
from __future__ import annotations

import shutil
from pathlib import Path

from migrate.render.json_report import to_json
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from tests.conftest import ROOT

CASES = ROOT / "fixtures" / "workloads" / "optional"


def scanned(tree: Path, rulebase) -> dict:
    return to_json(scan.run([tree], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase))


def statuses(data: dict, symbol: str) -> set[str]:
    return {f["status"] for f in data["findings"] if f["symbol"] == symbol}


def test_a_toggle_whose_only_define_is_commented_out_is_off_by_default(rulebase) -> None:
    """VanitySearch: `//#define FULLCHECK` then `#ifdef FULLCHECK` debug kernels; no build passes it."""
    data = scanned(CASES / "commented_toggle", rulebase)
    assert statuses(data, "get_endianness") == {"optional"}
    assert statuses(data, "comp_keys") == {""}
    [part] = [p for w in data["workloads"] for p in w["optional_parts"] if p["root"] == "build switch FULLCHECK"]
    assert part["evidence"][0] == "GPU/GPUEngine.cu:11 commented-out-define(FULLCHECK) default 0"


def test_a_toggle_another_file_defines_is_compiled(tmp_path: Path, rulebase) -> None:
    """Near miss: a header of the project defines FULLCHECK, so the debug kernels are built."""
    tree = shutil.copytree(CASES / "commented_toggle", tmp_path / "vanity")
    header = tree / "GPU" / "GPUEngine.h"
    header.write_text("#pragma once\n#define FULLCHECK\n" + header.read_text().removeprefix("#pragma once\n"))
    data = scanned(tree, rulebase)
    assert statuses(data, "get_endianness") == {""}
