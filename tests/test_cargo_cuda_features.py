"""A Cargo package whose CUDA crates (rules/workloads/optional.yaml `cargo_cuda`: bindgen_cuda, cudarc, ...) are all
optional and off in the default features: its .cu files are built only with the features that turn them on. Fixture
cut from LaurentMazare/glim (its README); the near misses turn the feature on by default, or make the builder a
required build dependency."""
from __future__ import annotations

from pathlib import Path

from tests.test_default_build_reach import edited, statuses
from tests.test_optional_parts import optional_parts, report, scanned

CASE = "cargo_cuda_feature_off"
KERNEL = "cuda-kernels/arithmetic.cu"


def test_cuda_only_a_non_default_feature_builds_is_optional(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch cargo feature cuda of Cargo.toml"]
    assert part["class"] == "migration-required"
    assert part["evidence"][0].startswith("Cargo.toml:20 feature `cuda` turns on bindgen_cuda, candle-kernels, cudarc, "
                                          "optional; Cargo.toml:18 default = [] turns on none")
    assert statuses(data, KERNEL) == {"optional"}


def test_a_feature_on_by_default_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "Cargo.toml", "default = []", 'default = ["cuda"]')
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, KERNEL) == {""}


def test_a_required_builder_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "Cargo.toml", 'bindgen_cuda = { version = "0.1.5", optional = true }',
                  'bindgen_cuda = { version = "0.1.5" }')
    # build.rs's own `#[cfg(feature = "cuda")]` would gate the kernels too (tests/test_cargo_build_script_features.py)
    tree = edited(CASE, tmp_path, "build.rs", '#[cfg(feature = "cuda")]', "")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, KERNEL) == {""}
