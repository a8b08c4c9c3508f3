"""Targets are data; the settings' defaults agree with them."""
from __future__ import annotations

import pytest
from migrate import settings
from migrate.rulebase import targets
from migrate.rulebase.load import version_tuple


def test_catalogue_defaults_match_settings() -> None:
    catalogue = targets.load()
    assert catalogue.default_rocm == settings.Settings().rocm
    assert catalogue.default_arch == settings.Settings().arch


def test_the_default_target_is_the_newest_release() -> None:
    catalogue = targets.load()
    assert version_tuple(catalogue.default_rocm) == max(version_tuple(r) for r in catalogue.rocm_releases)


def test_a_release_and_its_dot_zero_are_one_release() -> None:
    assert version_tuple("7.2") == version_tuple("7.2.0") < version_tuple("7.2.1") < version_tuple("7.10")


@pytest.mark.parametrize(("arch", "wave", "lds", "fp8"), [
    ("gfx942", 64, 64 * 1024, "fnuz"), ("gfx950", 64, 160 * 1024, "ocp"), ("gfx1100", 32, 64 * 1024, "none"),
    ("gfx1201", 32, 64 * 1024, "ocp"), ("gfx90a", 64, 64 * 1024, "none"),
])
def test_architecture_facts(arch: str, wave: int, lds: int, fp8: str) -> None:
    (resolved,) = targets.load().resolve((arch,), "7.2")
    assert (resolved.wave_size, resolved.lds_bytes, resolved.fp8) == (wave, lds, fp8)
    assert resolved.satisfies({"wave_size": wave, "fp8": [fp8, "x"]})
    assert not resolved.satisfies({"wave_size": 96 - wave})


def test_bad_targets() -> None:
    with pytest.raises(targets.TargetError, match="unknown GPU architecture 'sm_90'"):
        targets.load().resolve(("sm_90",), "7.2")
    with pytest.raises(targets.TargetError, match="--rocm takes a version"):
        targets.load().resolve(("gfx942",), "latest")
