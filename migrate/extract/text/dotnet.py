""".NET project files (`.csproj`, `.fsproj`, `.vbproj`): discovered so that the parts know where a .NET package is (a
folder holding its project file: workloads/alternatives.py `backend_packages`). Nothing in them is a fact yet: their
`ProjectReference` and `PackageReference` items are not read (https://learn.microsoft.com/en-us/visualstudio/msbuild/
common-msbuild-project-items)."""
from __future__ import annotations

from migrate.extract.text.lines import finish
from migrate.model import Extraction


def extract(source: bytes) -> Extraction:
    encoding = "utf-16" if source[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    return finish(source.decode(encoding, errors="replace"), [])
