r"""extract, Visual Studio C++ project files (`.vcxproj`, MSBuild; `.vcproj`, Visual Studio 2008 and older): the
files a project lists. MSBuild builds the items of its item groups (`<ClCompile Include="a.cpp" />`, the CUDA
toolkit's `<CudaCompile Include="kernel.cu" />`, `<ClInclude>`, `<CustomBuild>`, ...;
https://learn.microsoft.com/en-us/visualstudio/msbuild/msbuild-items, https://docs.nvidia.com/cuda/
cuda-installation-guide-microsoft-windows/#build-customizations-for-existing-projects); a `.vcproj` lists its files
as `<File RelativePath=".\kernel.cu">` (https://learn.microsoft.com/en-us/previous-versions/visualstudio/
visual-studio-2008/). Each listed path is a `vs_source` fact, relative to the project file's folder with `/` for `\`
(`$(Macro)` folders and wildcards kept as written); workloads/reached_files.py reads them. Nothing here is a finding."""
from __future__ import annotations

import re

from migrate.extract.text.lines import fact, finish
from migrate.model import Extraction, Fact

# an item's Include (MSBuild) or a File's RelativePath (.vcproj); a `;` list in one Include names several items
LISTED = re.compile(r"<(\w+)\s[^<>]*?\b(Include|RelativePath)\s*=\s*\"([^\"]*)\"", re.IGNORECASE)
DOT_SLASHES = re.compile(r"^(\./)+")
NOT_FILES = frozenset({"projectreference", "reference", "projectconfiguration", "import", "packagereference"})


def extract(source: bytes) -> Extraction:
    encoding = "utf-16" if source[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    text = source.decode(encoding, errors="replace")
    facts: list[Fact] = []
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    line = 0
    for match in LISTED.finditer(text):
        if match.group(1).lower() in NOT_FILES:
            continue
        while line + 1 < len(starts) and starts[line + 1] <= match.start(3):
            line += 1
        column = match.start(3) - starts[line]
        listed, element = match.group(3), match.group(1)  # each group() copies: once per match, not per item
        for item in filter(None, (i.strip() for i in listed.split(";"))):
            name = DOT_SLASHES.sub("", item.replace("\\", "/"))
            facts.append(fact("vs_source", name, line + 1, column, column + len(listed), text=element))
    return finish(text, facts)
