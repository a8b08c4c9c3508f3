""".NET project files (`.csproj`, `.fsproj`, `.vbproj`) and NuGet's `packages.config`: the NuGet packages a project
depends on, as `requirement` facts named `nuget:<id>` (NuGet ids are case-insensitive: lower case here). An SDK
project lists them as `<PackageReference Include="Alea" Version="3.0.4" />` items
(https://learn.microsoft.com/en-us/nuget/consume-packages/package-references-in-project-files), read with the
MSBuild item pattern of extract/text/vsproject.py; a .NET Framework project keeps them in packages.config as
`<package id="Alea" version="3.0.4" targetFramework="net46" />`
(https://learn.microsoft.com/en-us/nuget/reference/packages-config). The project file's folder also tells the parts
where a .NET package is (workloads/alternatives.py `backend_packages`). Other items (`ProjectReference`, assembly
`Reference`s, sources) are not read."""
from __future__ import annotations

import bisect
import re

from migrate.extract.text.lines import fact, finish
from migrate.extract.text.vsproject import LISTED
from migrate.model import Extraction, Fact

PACKAGE_ITEM = "packagereference"
PACKAGES_CONFIG = re.compile(r"<package\s[^<>]*?\bid\s*=\s*\"([^\"]+)\"", re.IGNORECASE)


def extract(source: bytes) -> Extraction:
    encoding = "utf-16" if source[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    text = source.decode(encoding, errors="replace")
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    facts: list[Fact] = []
    found = [(m.start(3), m.group(3)) for m in LISTED.finditer(text)
             if m.group(1).lower() == PACKAGE_ITEM and m.group(2).lower() == "include"]
    found += [(m.start(1), m.group(1)) for m in PACKAGES_CONFIG.finditer(text)]
    for offset, package in sorted(found):
        line = bisect.bisect_right(starts, offset) - 1  # 0-based: starts holds each line's first offset
        column = offset - starts[line]
        name = package.strip()
        if name:
            facts.append(fact("requirement", f"nuget:{name.lower()}", line + 1, column, column + len(package),
                              text=name))
    return finish(text, facts)
