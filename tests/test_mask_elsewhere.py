"""HIP4068: a 32-bit alias reported because another file of the project knows its name as a lane mask
(match.own_masks, Candidate.needs_mask), in a scan and a rescan from the per-file cache."""
from __future__ import annotations

from pathlib import Path

from migrate.scan import project
from migrate.settings import Settings

HEADER = "#pragma once\nusing bitmask_t = unsigned int;\n" \
         "static inline __device__ bitmask_t ballot(int p) { return __ballot_sync(0xFFFFFFFFU, p); }\n"
USER = '#pragma once\n#include "kernel.h"\nusing bitmask_t = unsigned int;\n' \
       "inline unsigned long bytes(unsigned long n) { return n * sizeof(bitmask_t); }\n"


def _hip4068(root: Path, cache: Path, rulebase) -> list[tuple[str, int]]:
    report = project.scan_project([root], Settings(jobs=1, cache_dir=cache), rulebase)
    return sorted((f.path, f.line) for f in report.findings if f.rule == "HIP4068")


def test_alias_known_as_a_mask_in_another_file_is_reported_in_scan_and_rescan(tmp_path: Path, rulebase) -> None:
    root = tmp_path / "src"
    root.mkdir()
    (root / "kernel.h").write_text(HEADER)
    (root / "bn_add_relu.h").write_text(USER)
    cache = tmp_path / "cache"
    assert _hip4068(root, cache, rulebase) == [("bn_add_relu.h", 3)]
    assert _hip4068(root, cache, rulebase) == [("bn_add_relu.h", 3)]  # from the cached rows


def test_alias_is_left_alone_without_the_file_that_knows_it(tmp_path: Path, rulebase) -> None:
    root = tmp_path / "src"
    root.mkdir()
    (root / "bn_add_relu.h").write_text(USER)
    assert _hip4068(root, tmp_path / "cache", rulebase) == []
    (root / "kernel.h").write_text(HEADER.replace("__ballot_sync(0xFFFFFFFFU, p)", "p * 2654435761u"))
    assert _hip4068(root, tmp_path / "cache", rulebase) == []
