"""Maven modules only a profile off by default lists (`<activeByDefault>false</activeByDefault>`): built only with
`mvn -P<id>`, an optional part with everything below them. Fixture cut from beehive-lab/TornadoVM (its README); the
near misses activate the profile by default, or list the module outside the profiles."""
from __future__ import annotations

from pathlib import Path

from migrate.extract.text import maven
from tests.test_default_build_reach import edited, statuses
from tests.test_optional_parts import optional_parts, report, scanned

CASE = "maven_profile_backend"
KERNEL = "tornado-drivers/cuda-jni/src/main/cpp/source/tornado-cuda.cu"


def test_modules_and_profiles_are_read() -> None:
    source = Path(__file__).parent.parent / "fixtures/workloads/optional" / CASE / "tornado-drivers/pom.xml"
    found = [(f.name, f.text, f.role, f.line) for f in maven.extract(source.read_bytes()).facts]
    assert found == [("drivers-common", "", "default", 7), ("opencl-jni", "opencl-backend", "not-default", 17),
                     ("cuda-jni", "cuda-backend", "not-default", 28)]  # the commented-out module is no module


def test_a_module_only_a_profile_off_by_default_lists_is_optional(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)["build switch maven profile cuda-backend of tornado-drivers/pom.xml"]
    assert part["evidence"][0] == ("tornado-drivers/pom.xml:28 profile `cuda-backend` lists module cuda-jni; the "
                                   "profile is not active by default: a plain `mvn` builds none of it")
    assert statuses(data, KERNEL) == {"optional"}


def test_a_profile_active_by_default_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "tornado-drivers/pom.xml",
                  "<id>cuda-backend</id>\n            <activation>\n                <activeByDefault>false",
                  "<id>cuda-backend</id>\n            <activation>\n                <activeByDefault>true")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, KERNEL) == {""}


def test_a_module_listed_outside_the_profiles_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "tornado-drivers/pom.xml", "<module>drivers-common</module>",
                  "<module>drivers-common</module>\n        <module>cuda-jni</module>")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, KERNEL) == {""}
