"""Switch defaults a configuration file gives: `set(ENABLE_CUDA OFF)` at the top of a `config.cmake` that the project's
CMakeLists include()s. A set() of an included file runs in the includer's scope
(https://cmake.org/cmake/help/latest/command/include.html), so the value it gives is the switch's value in every
configure that does not edit the file: the same default an option() declares, with the file as the place a user
turns the switch on. Where the include names a file in the build folder (`include(${CMAKE_BINARY_DIR}/config.cmake)`)
or one the checkout lacks (`if(EXISTS ...)` around it), the user copies the project's template of that name there
(CortexFoundation/cvm-runtime b5a25188 docs/cvm/install.md:31 `cp cmake/config.cmake .`, read by CMakeLists.txt:11-12;
apache/tvm's `cp cmake/config.cmake build`): the template's values are the defaults."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.build_sources import join
from migrate.workloads.fact_index import of_kind
from migrate.workloads.optional_words import Words

# Folder variables an include() path may start with: the includer's folder (or the source tree's top), or the build
# folder, where nothing of the checkout is (https://cmake.org/cmake/help/latest/manual/cmake-variables.7.html)
SOURCE_FOLDER = re.compile(r"^\$\{(?:CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}/")
TOP_FOLDER = re.compile(r"^\$\{(?:CMAKE_SOURCE_DIR|PROJECT_SOURCE_DIR)\}/")
BUILD_FOLDER = re.compile(r"^\$\{(?:CMAKE_BINARY_DIR|CMAKE_CURRENT_BINARY_DIR|PROJECT_BINARY_DIR)\}/")
CMAKE_FILE = ".cmake"


def included_files(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> dict[str, str]:
    """The `.cmake` files of the project that an include() by path loads, each with the first include that loads
    it (`file:line`): the file at the path where the checkout has one, else every file of that name (the template
    the user copies to the build folder or to the path)."""
    by_name: dict[str, list[str]] = {}
    for path in facts:
        if path.endswith(CMAKE_FILE) and kinds.get(path) == "cmake":
            by_name.setdefault(posixpath.basename(path), []).append(path)
    out: dict[str, str] = {}
    for path, f in of_kind(facts, "cmake"):
        if f.name != "include" or f.role != "command" or not f.text.endswith(CMAKE_FILE):
            continue
        written = f.text
        if BUILD_FOLDER.match(written):
            named = ""
        elif TOP_FOLDER.match(written):
            named = join("", TOP_FOLDER.sub("", written))
        else:
            named = join(posixpath.dirname(path), SOURCE_FOLDER.sub("", written))
        if "$" in posixpath.basename(written):
            continue
        loaded = [named] if named in facts else sorted(by_name.get(posixpath.basename(written), ()))
        for file in loaded:
            out.setdefault(file, f"{path}:{f.line}")
    return out


def config_defaults(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                    known: Words) -> dict[str, tuple[str, str]]:
    """Switch -> (where its default is set, the value): a set() of a constant if() reads as on or off
    (rules/workloads/optional.yaml `switches.on_values`, `off_values`; not a CMake variable, `reserved_prefixes`)
    at the top of a file include()d by path (cmakelists' `switch_value` facts with the role `top`), where nothing
    else of the project's CMake files sets the variable (another file, a branch, another variable's value: then which
    value a branch reads depends on the order or the configuration) and the loaded files agree on its value."""
    loaded = included_files(facts, kinds)
    values: dict[str, set[str]] = {}
    first: dict[str, str] = {}
    elsewhere: set[str] = set()
    for path, f in of_kind(facts, "switch_value"):
        if path not in loaded or f.role != "top" or f.text.startswith("${"):
            elsewhere.add(f.name)  # set in a branch, or to another variable's value: not a constant default
        else:
            values.setdefault(f.name, set()).add(f.text)
            first.setdefault(f.name, f"{path}:{f.line} set({f.name} {f.text}), include()d by {loaded[path]},")
    return {name: (first[name], value.pop()) for name, value in values.items()
            if len(value) == 1 and name not in elsewhere and not name.startswith(known.reserved)
            and value <= known.on | known.off}
