"""Maven modules only a profile off by default builds (extract/text/maven.py): a folder every POM that lists it lists
only inside profiles a plain `mvn` does not activate (`<profile><id>cuda-backend</id>` with `activeByDefault` false,
beehive-lab/TornadoVM 06616ddd tornado-drivers/pom.xml:71-84) is built only with `-P<id>`: an optional part, the
switch `maven profile <id> of <pom.xml>`, over everything below the folder (a native library's CMake project that the
module's build runs, cutlass-jni/src/main/cpp). A module any POM lists by default, or in a profile active by default,
is required."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.build_sources import join
from migrate.workloads.fact_index import of_kind
from migrate.workloads.switches import Region

POM = "pom.xml"
PREFIX = "maven profile "


def profile_modules(facts: Mapping[str, Sequence[Fact]]) -> tuple[dict[str, Region], dict[str, tuple[str, ...]]]:
    """(folder/ -> the profile's region, switch -> evidence) for the modules only profiles off by default list."""
    sites: dict[str, list[tuple[str, Fact]]] = {}
    for path, f in of_kind(facts, "maven_module"):
        if posixpath.basename(path) == POM and "$" not in f.name:
            sites.setdefault(join(posixpath.dirname(path), f.name).rstrip("/") + "/", []).append((path, f))
    gated: dict[str, Region] = {}
    switches: dict[str, tuple[str, ...]] = {}
    for folder, found in sorted(sites.items()):
        if any(f.role != "not-default" for _, f in found):
            continue
        path, first = found[0]
        name = f"{PREFIX}{first.text or '(no id)'} of {path}"
        gated[folder] = Region(path, first.line, first.line, name, f"module {first.name} of profile {first.text}")
        switches.setdefault(name, (f"{path}:{first.line} profile `{first.text}` lists module {first.name}; the "
                                   "profile is not active by default: a plain `mvn` builds none of it",))
    return gated, switches
