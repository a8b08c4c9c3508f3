"""What the project's default build reaches, read from a root the tool understands; a part with CUDA ties that
such a root does not reach is optional (docs/decisions/2026-12-06-required-is-what-the-default-reaches.md).

Read today, two roots:
- a CMake project whose top folder holds its only build (a CMakeLists.txt and no setup.py, pyproject.toml,
  Makefile, Cargo.toml or meson.build beside it): CMake configures a folder's CMakeLists.txt only when a configured
  one names it in `add_subdirectory` (https://cmake.org/cmake/help/latest/command/add_subdirectory.html). A folder
  with a CMakeLists.txt of its own that no add_subdirectory reaches (read in every CMakeLists.txt reached and every
  .cmake module, whichever folder includes it, and under any switch) is a build of its own, run only on request.
  Its files are unreached unless a reached build file names them as sources or a file outside it includes them.
  A CMakeLists.txt another one include()s by its path is reached too. Nothing is said where an add_subdirectory or
  such an include() names a folder through another variable, or an ExternalProject/FetchContent/
  `subdirs` command could configure any folder;
- a Cargo workspace (https://doc.rust-lang.org/cargo/reference/workspaces.html). `cargo build` at its
root compiles the default members (`default-members`; without it the root package, or every member of a virtual
manifest), each with its default features, and what they depend on: path and workspace dependencies, an optional
one only where an enabled feature turns it on (`dep:x`, `x`, `x/f`, not `x?/f`), and dev-dependencies never. A
member nothing of that reaches is built only on request (`cargo build -p tract-cuda`, `--features cuda`). Where
the tool cannot tell what the default reaches (no workspace manifest, a member glob naming no crate it sees), it
says nothing: the old readings stand.
- a Go module at the top (a go.mod and no setup.py, pyproject.toml or setup.cfg beside it): `go build ./...` compiles
the module's Go packages (https://go.dev/ref/mod#go-mod-file, https://pkg.go.dev/cmd/go#hdr-Package_lists_and_patterns)
and no Python distribution. A folder below it with a setup.py or pyproject.toml of its own is a Python distribution
installed only on request (`pip install <folder>`), a separate package beside the Go project (llm-d/llm-d-kv-cache's
vLLM connector kv_connectors/llmd_fs_backend, a CUDAExtension). It stays reached where a Python file outside it
(and outside every folder with a build of its own: another distribution, a service with its own Makefile) imports
one of its top-level packages (docs/decisions/2026-12-06-s26-a-python-package-beside-a-go-module.md).
- a Makefile at the top and no other build beside it (no CMakeLists.txt, setup.py, pyproject.toml, Cargo.toml,
meson.build, build.sh or configure): `make` builds its default goal, and runs another folder's Makefile only where a
recipe runs make there (`make -C src`, `cd src && make`; `make_enters` facts, extract/text/make_goals.py). Every
goal's recipe counts, not only the default goal's (a top Makefile of tasks offers `make build` -> `make -C cuda build`),
less calls asking only for cleaning goals (rules/names/build.yaml `make_cleaning_goals`), read again in each Makefile
so reached and in each Makefile a reached one includes by its path. A folder with a Makefile of its own that none of
that reaches, inside a folder that it reaches (not the top's own: a folder beside the top Makefile may be a project of
its own, a CUDA port beside its CPU baseline), is built only by running make there (`make -C src/modules/cuda`), as a
CMake folder no add_subdirectory names. Nothing is said where the top's default goal cannot be read or builds
nothing, or where a reached recipe names the folder through a variable (`make -C $$d`)
(docs/decisions/2026-12-08-s35-a-makefile-folder-the-default-build-never-enters.md)."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from migrate.model import Fact
from migrate.rulebase.name_lists import name_list
from migrate.vocabulary import REMOVE_ITEM
from migrate.workloads import path_globs
from migrate.workloads.build_scopes import MAKE_ORDER, MAKEFILES, build_roots
from migrate.workloads.build_sources import named_files, prefixes
from migrate.workloads.fact_index import of_kind
from migrate.workloads.includes import includers_of
from migrate.workloads.switches import Region, branches_at

MANIFEST = "Cargo.toml"
DEFAULT_FEATURE = "default"
ROUNDS = 64  # features reach crates that enable features: a fixed point well within this many rounds


@dataclass(slots=True)
class Crate:
    """A Rust crate of the project: its folder, its manifest's facts and its features."""

    folder: str
    facts: Sequence[Fact]
    features: dict[str, list[str]] = field(default_factory=dict)
    dependencies: dict[str, Fact] = field(default_factory=dict)
    asks: dict[str, list[str]] = field(default_factory=dict)  # dependency key -> features its entry asks for

    @classmethod
    def read(cls, folder: str, facts: Sequence[Fact]) -> Crate:
        crate = cls(folder, facts)
        for f in facts:
            if f.kind == "cargo_feature" and f.name.endswith("/"):
                crate.asks[f.name[:-1]] = f.text.split("\n")
            elif f.kind == "cargo_feature":
                crate.features[f.name] = [i for i in f.text.split("\n") if i]
            elif f.kind == "cargo_dependency" and "workspace-table" not in f.role.split():
                crate.dependencies[f.name] = f
        return crate

    def enabled(self, asked: set[str]) -> set[str]:
        """The feature items on with these features asked for (a feature names others, items and dependencies)."""
        on: set[str] = set()
        todo = [a for a in asked if a in self.features or a == DEFAULT_FEATURE]
        while todo:
            name = todo.pop()
            if name in on:
                continue
            on.add(name)
            for item in self.features.get(name, ()):
                if item in self.features:
                    todo.append(item)
                else:
                    on.add(item)
        return on

    def needs(self, asked: set[str]) -> dict[str, set[str]]:
        """Dependency key -> the features asked of it, for the dependencies this crate compiles with these on."""
        on = self.enabled(asked)
        out: dict[str, set[str]] = {}
        for key, dep in self.dependencies.items():
            turned_on = key in on or f"dep:{key}" in on or any(i.startswith(f"{key}/") for i in on)
            if "optional" in dep.role.split() and not turned_on:
                continue
            wanted = set(self.asks.get(key, ())) | {i.partition("/")[2] for i in on
                                                    if i.startswith((f"{key}/", f"{key}?/"))}
            if "no-default-features" not in dep.role.split():
                wanted.add(DEFAULT_FEATURE)
            out[key] = wanted
        return out


CMAKE_ROOT = "CMakeLists.txt"
# build files beside a top CMakeLists.txt that may configure any of its folders themselves (`cmake -S sub`)
OTHER_ROOTS = frozenset({"setup.py", "pyproject.toml", "Makefile", "makefile", "GNUmakefile", "Cargo.toml",
                         "meson.build", "build.sh", "configure"})
# folder variables an include() of another folder's CMakeLists.txt starts from
DIRECTORY_VARIABLE = re.compile(
    r"^\$\{(?:CMAKE_CURRENT_LIST_DIR|CMAKE_CURRENT_SOURCE_DIR|PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR)\}/?")
# commands that may configure a folder of the project no add_subdirectory names
OPAQUE_COMMANDS = frozenset({"externalproject_add", "fetchcontent_declare", "fetchcontent_populate", "subdirs",
                             "add_subdirectories"})


def unreached(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """File -> (its part's folder/, evidence), for each file of a part the project's default build does not reach."""
    made = _make_unreached(facts, kinds)
    folders = {**_cmake_unreached(facts, kinds), **_cargo_unreached(facts), **_python_beside_go(facts, kinds), **made}
    if not folders:
        return {}
    # a Makefile's folder owns its files only for the make reading: CMake never runs a Makefile below a folder no
    # add_subdirectory reaches, so its files stay that folder's
    owners = {**dict.fromkeys(_cmake_folders(kinds), ""), **dict.fromkeys(_make_folders(kinds) if made else (), ""),
              **dict.fromkeys((posixpath.dirname(p) for p in kinds if posixpath.basename(p) == MANIFEST), "")}
    out: dict[str, str] = {}
    for path in kinds:
        owner = next((p for p in prefixes(posixpath.dirname(path) + "/") if p in folders or p.rstrip("/") in owners),
                     None) if "/" in path else None
        if owner is not None and owner in folders:
            out[path] = owner
    out |= _included_only_by_unreached(facts, kinds, out)
    return {path: (owner, folders[owner]) for path, owner in _keep_needed(out, facts, kinds).items()}


GO_ROOT = "go.mod"
PYTHON_ROOTS = frozenset({"setup.py", "pyproject.toml", "setup.cfg"})  # a Python distribution's build files
PYTHON_DISTRIBUTION = frozenset({"setup.py", "pyproject.toml"})  # ... one of which a folder's own install needs


def _python_beside_go(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> dict[str, str]:
    """Folder/ -> evidence, for each Python distribution below a Go module at the top whose packages no Python file
    outside every folder with a build of its own imports."""
    if GO_ROOT not in kinds or any(p in kinds for p in PYTHON_ROOTS):
        return {}
    found = sorted({posixpath.dirname(p) for p in kinds if "/" in p and posixpath.basename(p) in PYTHON_DISTRIBUTION})
    tops = [f for f in found if not any(f.startswith(o + "/") for o in found if o != f)]
    packages: dict[str, set[str]] = {t: set() for t in tops}  # folder -> the top-level modules it installs
    for path in kinds:
        if path.endswith(".py") and (top := next((t for t in tops if path.startswith(t + "/")), None)) is not None \
                and path[len(top) + 1:] not in PYTHON_DISTRIBUTION:  # its setup.py installs no module `setup`
            inner = path[len(top) + 1:].removeprefix("src/")
            packages[top].add(inner.split("/", 1)[0].removesuffix(".py"))
    imported: dict[str, set[str]] = {}  # top-level module -> the files importing it
    built = [r for r in build_roots(facts) if r]  # folders with a build of their own (a Makefile, a setup.py ...)
    for path, items in facts.items():
        if any(path.startswith(t + "/") for t in (*tops, *built)):
            continue  # a distribution's own files, or those of another part built on its own beside the Go module
        for f in items:
            if f.kind == "python_import" and f.name and not f.name.startswith("."):
                imported.setdefault(f.name.split(".", 1)[0], set()).add(path)
    out = {}
    for top in tops:
        if any(imported.get(m) for m in packages[top]):
            continue  # the project's own Python outside every such folder uses its package
        build = next(posixpath.join(top, n) for n in sorted(PYTHON_DISTRIBUTION) if posixpath.join(top, n) in kinds)
        out[f"{top}/"] = (f"{GO_ROOT}: the top is a Go module, whose build compiles Go packages only; {build} makes "
                          f"{top} a Python distribution of its own, installed only by `pip install {top}`, and no "
                          "Python file outside the folders with a build of their own imports its packages")
    return out


# `make_enters` facts (extract/text/make_goals.py): the Makefile's own folder, a rule the default goal reaches, a
# folder a variable names
OWN_FOLDER, DEFAULT_ROLE, UNKNOWN_FOLDER = ".", "default", "*"
MAKE_ROOT_OTHERS = OTHER_ROOTS - MAKEFILES | {CMAKE_ROOT}  # builds beside a top Makefile that may build any folder


def _make_folders(kinds: Mapping[str, str]) -> list[str]:
    return [posixpath.dirname(p) for p in kinds if posixpath.basename(p) in MAKEFILES]


def _make_unreached(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> dict[str, str]:
    """Folder/ -> evidence, for each folder with a Makefile of its own that the top Makefile's default build never
    runs make in (module docstring); nothing where the tool cannot tell."""
    tops = [m for m in MAKE_ORDER if m in kinds]  # make reads the first
    if not tops or any(p in kinds for p in MAKE_ROOT_OTHERS):
        return {}
    makefiles: dict[str, list[str]] = {}  # folder -> its Makefiles
    for path in kinds:
        if posixpath.basename(path) in MAKEFILES:
            makefiles.setdefault(posixpath.dirname(path), []).append(path)
    if not any(f.kind == "make_enters" and f.name == OWN_FOLDER and f.role == DEFAULT_ROLE
               for f in facts.get(tops[0], ())):
        return {}  # the top Makefile's default goal cannot be read, or compiles nothing
    cleaning = name_list("build", "make_cleaning_goals")
    reached: set[str] = set()
    pending = [""]
    while pending:
        folder = pending.pop()
        if folder in reached:
            continue
        reached.add(folder)
        for path in makefiles.get(folder, ()):
            for f in facts.get(path, ()):  # `include gpu/Makefile`: that folder's rules are this make's own
                if f.kind == "make_include" and posixpath.basename(f.name) in MAKEFILES:
                    if "$" in f.name:
                        return {}
                    included = posixpath.normpath(posixpath.join(folder, posixpath.dirname(f.name)))
                    pending.append("" if included == "." else included)
            for f in (f for f in facts.get(path, ()) if f.kind == "make_enters"):  # any goal's recipe, not only
                # the default's: a top Makefile that runs tasks (`build:` / `make -C cuda build` beside a default
                # `jupyter:`) offers that folder's build as one of its goals
                if f.name == OWN_FOLDER or (f.text and all(g in cleaning for g in f.text.split())):
                    continue
                if f.name == UNKNOWN_FOLDER:
                    return {}
                entered = posixpath.normpath(posixpath.join(folder, f.name))
                if entered.startswith("../") or entered == "..":
                    return {}
                pending.append("" if entered == "." else entered)
    top = tops[0]
    out = {}
    components = {f"{f}/" for f in reached if f}  # folders below the top whose Makefile the default build runs
    for folder in sorted(set(makefiles) - reached):
        if not any(above in components for above in list(prefixes(folder))[1:]):
            continue  # a folder beside the top Makefile may be a project of its own (a CUDA port beside its CPU
            # baseline, paul1106/SMD-CUDA cuda/): only a part of a component the build enters is read as left out
        out[f"{folder}/"] = (f"{folder}/{makefiles[folder][0].rpartition('/')[2]}: a build of its own; no recipe of "
                             f"the top {top} or of a Makefile it runs runs make in {folder} (but to clean it), nor in "
                             "a folder above it below the top")
    return out


def _included_only_by_unreached(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                                out: Mapping[str, str]) -> dict[str, str]:
    """Make fragments outside the unreached folders that only Makefiles inside them include (`include
    $(BASEDIR)/makefile.common.gpu`, matched by file name) -> the part of their first includer: make reads a fragment
    only for a Makefile that includes it."""
    includers: dict[str, list[str]] = {}
    for path, f in of_kind(facts, "make_include"):
        if "$" in posixpath.basename(f.name):
            return {}  # `include $(CONFIG)`: any file may be the one
        includers.setdefault(posixpath.basename(f.name), []).append(path)
    found: dict[str, str] = {}
    for path in kinds:
        users = includers.get(posixpath.basename(path), [])
        if path not in out and users and all(u in out for u in users):
            found[path] = out[sorted(users)[0]]
    return found


def _cmake_folders(kinds: Mapping[str, str]) -> list[str]:
    return [posixpath.dirname(p) for p in kinds if posixpath.basename(p) == CMAKE_ROOT]


def _cmake_unreached(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> dict[str, str]:
    """Folder/ -> evidence, for each folder with a CMakeLists.txt that the top one does not reach."""
    reached = cmake_reached(facts, kinds)
    if reached is None:
        return {}
    out = {}
    for folder in sorted(set(_cmake_folders(kinds)) - reached):  # a folder below one unreached is its own too
        out[f"{folder}/"] = (f"{folder}/{CMAKE_ROOT}: a build of its own; no add_subdirectory of the top "
                                 f"{CMAKE_ROOT} (nor of a folder it reaches, nor of a .cmake module) names {folder}")
    return out


def cmake_reached(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> set[str] | None:
    """The folders ("" the top) whose CMakeLists.txt the top one's configure reads, in a project whose only build
    is that CMake project (the module docstring's conditions); None where the tool cannot tell."""
    if CMAKE_ROOT not in kinds or any(p in kinds for p in OTHER_ROOTS):
        return None
    cmake = {p: facts.get(p, ()) for p in kinds if p.endswith((CMAKE_ROOT, ".cmake"))}
    if any(f.kind == "cmake" and f.name.lower() in OPAQUE_COMMANDS for items in cmake.values() for f in items) \
            or any(f.kind == "cmake_subdirectory" and ("${" in f.name or "$" in f.name)
                   for items in cmake.values() for f in items):
        return None
    folders = set(_cmake_folders(kinds))
    tails = [f.name for p, items in cmake.items() if p.endswith(".cmake") for f in items
             if f.kind == "cmake_subdirectory"]
    for f in (f for items in cmake.values() for f in items if f.kind == "cmake" and f.name.lower() == "include"
              and f.text.endswith(CMAKE_ROOT)):  # include(${CMAKE_CURRENT_LIST_DIR}/backend/cudnn/CMakeLists.txt)
        folder = DIRECTORY_VARIABLE.sub("", f.text)[:-len(CMAKE_ROOT)].strip("/")
        if "$" in folder:
            return None
        tails.append(folder)
    return subdirectories_reached(cmake, folders, tails)


def subdirectories_reached(cmake: Mapping[str, Sequence[Fact]], folders: set[str], tails: Sequence[str] = ()) -> set[str]:
    """The folders of `folders` (those with a CMakeLists.txt) that add_subdirectory chains from the top one reach,
    with those named by `tails` (a module's add_subdirectory, an include() of a CMakeLists.txt) and what they reach."""
    reached, todo = {""}, [""]
    for name in tails:  # a module may be included from any folder: it reaches the folders of that name anywhere
        tail = posixpath.normpath(name).lstrip("./")
        reached |= {d for d in folders if d == tail or d.endswith(f"/{tail}")}
    todo += sorted(reached - {""})
    while todo:
        folder = todo.pop()
        for f in cmake.get(posixpath.join(folder, CMAKE_ROOT), ()):
            if f.kind != "cmake_subdirectory":
                continue
            target = posixpath.normpath(posixpath.join(folder, f.name))
            if target in folders and target not in reached:
                reached.add(target)
                todo.append(target)
    return reached


def _keep_needed(out: dict[str, str], facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> dict[str, str]:
    """Drops the files a reached build file names as sources, and those a file outside the unreached parts includes."""
    files = frozenset(kinds)
    for path, items in facts.items():
        if path in out or not (path.endswith((CMAKE_ROOT, ".cmake")) or posixpath.basename(path) in MAKEFILES):
            continue
        for f in items:
            if f.kind == "build_source":
                for named in named_files(path, f, files):
                    out.pop(named, None)
    includers = includers_of(facts)
    changed = True
    while changed:
        changed = False
        for path in sorted(out):
            if any(p not in out for p in includers.get(posixpath.basename(path), ())):
                del out[path]
                changed = True
    return out


def _cargo_unreached(facts: Mapping[str, Sequence[Fact]]) -> dict[str, str]:
    """Folder/ -> evidence, for each Cargo workspace member the workspace's default build does not reach."""
    out: dict[str, str] = {}
    manifests = {posixpath.dirname(p): items for p, items in facts.items() if posixpath.basename(p) == MANIFEST}
    for root, items in sorted(manifests.items()):
        members = [f for f in items if f.kind == "cargo_member"]
        if members:
            out.update(_workspace(root, items, members, manifests))
    return out


def _workspace(root: str, items: Sequence[Fact], members: Sequence[Fact],
               manifests: Mapping[str, Sequence[Fact]]) -> dict[str, str]:
    folders = {f: _expand(root, f, manifests) for f in members}
    if any(not found for f, found in folders.items() if f.text != "exclude"):
        return {}  # a member the scan does not see: it could be anything, the reach is not known
    every, defaults, said = _default_members(root, items, folders)
    table = {f.name: f for f in items if f.kind == "cargo_dependency" and "workspace-table" in f.role.split()}
    reached = set(_asked(defaults, manifests, table, root))
    manifest = posixpath.join(root, MANIFEST)
    out = {}
    for member in sorted(every - reached - {""}):
        line = next((f.line for f, found in folders.items() if member in found), 1)
        out[f"{member}/"] = (
            f"{manifest}:{line}: `cargo build` at the workspace root compiles {said} with their default features; "
            f"nothing they depend on by default reaches {posixpath.join(member, MANIFEST)}")
    return out


def _default_members(root: str, items: Sequence[Fact],
                     folders: Mapping[Fact, set[str]]) -> tuple[set[str], set[str], str]:
    """A workspace's members (less those it excludes), the ones `cargo build` at its root compiles, and how that set
    was chosen."""
    excluded = {p for f, found in folders.items() if f.text == "exclude" for p in found}
    every = {p for f, found in folders.items() if f.text != "exclude" for p in found} - excluded
    if any(f.text in ("default", "only-default") for f in folders):
        return every, {p for f, found in folders.items() if f.text in ("default", "only-default") for p in found}, \
            "its default-members"
    if any(f.kind == "cargo_package" for f in items):
        return every, {root}, "its root package"
    return every, every, "every member"


def _expand(root: str, member: Fact, manifests: Mapping[str, Sequence[Fact]]) -> set[str]:
    pattern = posixpath.normpath(posixpath.join(root, member.name)) if member.name else root
    pattern = "" if pattern == "." else pattern
    if not any(c in pattern for c in "*?["):
        return {pattern} if pattern in manifests else set()
    return {folder for folder in manifests if path_globs.matches(folder, pattern)}


def default_features(facts: Mapping[str, Sequence[Fact]]) -> dict[str, set[str]]:
    """Crate folder -> the features `cargo build` at its workspace root asks of it (with those of the crates that
    depend on it, as _asked follows them); a crate of no workspace, or one its workspace's default build does not
    reach, is asked for its `default` feature alone (a plain `cargo build` in its own folder)."""
    manifests = {posixpath.dirname(p): items for p, items in facts.items() if posixpath.basename(p) == MANIFEST}
    out: dict[str, set[str]] = {}
    for root, items in sorted(manifests.items()):
        members = [f for f in items if f.kind == "cargo_member"]
        if not members:
            continue
        _, defaults, _ = _default_members(root, items, {f: _expand(root, f, manifests) for f in members})
        table = {f.name: f for f in items if f.kind == "cargo_dependency" and "workspace-table" in f.role.split()}
        for folder, asked in _asked(defaults, manifests, table, root).items():
            out.setdefault(folder, set()).update(asked)
    return {folder: out.get(folder) or {DEFAULT_FEATURE} for folder in manifests}


def _asked(defaults: set[str], manifests: Mapping[str, Sequence[Fact]], table: Mapping[str, Fact],
           root: str) -> dict[str, set[str]]:
    """The crate folders compiled from the default members, with the features each is asked for."""
    crates = {folder: Crate.read(folder, items) for folder, items in manifests.items()}
    asked: dict[str, set[str]] = {d: {DEFAULT_FEATURE} for d in defaults}
    for _ in range(ROUNDS):
        grown = False
        for folder, features in list(asked.items()):
            for key, wanted in crates[folder].needs(features).items():
                target = _target(crates[folder], key, table, root)
                if target is None or target not in crates:
                    continue
                before = asked.get(target)
                if before is None or not wanted <= before:
                    asked[target] = (before or set()) | wanted
                    grown = True
        if not grown:
            break
    return asked


def _target(crate: Crate, key: str, table: Mapping[str, Fact], root: str) -> str | None:
    dep = crate.dependencies[key]
    source = dep.text
    if source == "workspace" and key in table:
        source, base = table[key].text, root
    else:
        base = crate.folder
    if not source.startswith("path="):
        return None
    folder = posixpath.normpath(posixpath.join(base, source[len("path="):]))
    return "" if folder == "." else folder


def filtered_out(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                 regions: Mapping[str, tuple[Region, ...]] | None = None) -> dict[str, Region]:
    """Source -> the branch that keeps it: a source a CMake file names only through a glob into a list that the branch
    a build takes while X is off drops it from (`build_filter`: GraPaSim's `if(NOT CUDA) list(FILTER MY_SRC EXCLUDE
    REGEX ".*\\.cu")` after `file(GLOB_RECURSE MY_SRC "*.cpp" "*.cu")`; vearch's `if(NOT BUILD_WITH_GPU) list(FILTER
    ALL_SOURCES EXCLUDE REGEX "${CMAKE_CURRENT_SOURCE_DIR}/index/impl/gpu/.*")`; Graphitti's `if(ENABLE_CUDA) ...
    else() list(REMOVE_ITEM Core_Source "${CMAKE_CURRENT_SOURCE_DIR}/Simulator/Core/GPUModel.cpp")`) is compiled
    only when X is on, as if an `if(X)` listed it. A source a build file names otherwise keeps its reading, unless
    that naming sits in a branch of X itself (`regions`)."""
    files = frozenset(kinds)
    others: dict[str, set[str]] = {}  # source -> the switches of the branches around its other namings ("": none)
    out: dict[str, Region] = {}
    for path, items in facts.items():
        filters = [f for f in items if f.kind == "build_filter"]
        cuts = {f.line for f in filters}  # list(REMOVE_ITEM) names its items too: no naming that builds them
        for f in items:
            if f.kind != "build_source" or f.line in cuts:
                continue
            named = named_files(path, f, files)
            variable = f.text.split()[-1] if f.text.startswith("GLOB") else ""
            for cut in (c for c in filters if variable and c.text.split()[0] == variable):
                drops = _drops(path, cut)
                for source in named:
                    if drops(source):
                        switch = cut.text.split()[1]
                        how = f"REMOVE_ITEM {variable} {cut.name}" if cut.text.endswith(REMOVE_ITEM) else \
                            f"FILTER {variable} EXCLUDE REGEX {cut.name}"
                        out.setdefault(source, Region(path, cut.line, cut.line, switch,
                                                      f"if(NOT {switch}) list({how})"))
            if not any(variable and c.text.split()[0] == variable for c in filters):
                under = {r.switch for r in branches_at((regions or {}).get(path, ()), f.line)} or {""}
                for source in named:
                    others.setdefault(source, set()).add(next(iter(under)) if len(under) == 1 else "")
    return {p: r for p, r in out.items() if others.get(p, set()) <= {r.switch}}


# CMake's variables for the folder of the CMakeLists.txt being read: a glob gives absolute paths, and a filter written
# against them starts with one (https://cmake.org/cmake/help/latest/variable/CMAKE_CURRENT_SOURCE_DIR.html)
FOLDER_VARIABLES = ("${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/")


def _drops(path: str, cut: Fact) -> Callable[[str], bool]:
    """Whether a `build_filter` of the CMake file `path` drops a source (a path relative to the project's root)."""
    folder = posixpath.dirname(path)
    text = cut.name
    start = next((v for v in FOLDER_VARIABLES if text.startswith(v)), None)
    if cut.text.endswith(REMOVE_ITEM):  # an item matches a glob's absolute path only with the folder spelled out
        item = posixpath.normpath(posixpath.join(folder, text[len(start):])) if start else None
        return lambda source: source == item
    if start is not None:
        text = "^" + (re.escape(folder + "/") if folder else "") + text[len(start):]
    pattern = _regex(text)
    return (lambda source: False) if pattern is None else (lambda source: bool(pattern.search(source)))


def _regex(text: str) -> re.Pattern[str] | None:
    try:
        return re.compile(text)
    except re.error:
        return None
