"""A warp-size constant a source defines and never spells again is read by no code; a header's is its includers'
(docs/decisions/2026-12-07-s30-unused-warp-size-constant.md). The candidate is cached per content, so the same text
under a .cu and a .cuh name must still part at `match.select`."""
from __future__ import annotations

from pathlib import Path

from migrate.rulebase.load import load_rules
from migrate.scan import project
from migrate.settings import Settings

# Abyssaledge/TorchEx torchex/src/mask_codec/codec_kernel.cu:7, cut down: WARP_SIZE is never read
UNUSED = ("#define THREADS_PER_BLOCK 128\n#define WARP_SIZE 32  // the warp\n"
          "__global__ void k(int* x) { x[threadIdx.x] = THREADS_PER_BLOCK; }\n")
# the same, with the constant read by host code (the launch's block size)
READ = UNUSED + "void run(int* x) { k<<<1, 8 * WARP_SIZE>>>(x); }\n"


def _hip4017(tmp_path: Path, files: dict[str, str]) -> set[str]:
    for rel, text in files.items():
        (tmp_path / rel).write_text(text)
    settings = Settings(jobs=1, cache_dir=tmp_path / "cache")
    rules = load_rules()
    project.scan_project([tmp_path], settings, rules)  # a cold run fills the cache; the second reads it
    report = project.scan_project([tmp_path], settings, rules)
    return {f.path.rsplit("/", 1)[-1] for f in report.findings if f.rule == "HIP4017"}


def test_an_unused_constant_is_reported_in_a_header_only(tmp_path: Path) -> None:
    assert _hip4017(tmp_path, {"codec.cu": UNUSED, "codec.cuh": UNUSED}) == {"codec.cuh"}


def test_a_constant_host_code_reads_is_reported_in_a_source(tmp_path: Path) -> None:
    assert _hip4017(tmp_path, {"run.cu": READ}) == {"run.cu"}
