"""The dependency graph: files linked by includes, imports, extension loads and CMake links,
lifted to workloads so that a workload inherits what the workloads it uses need. What a workload inherits through
an #include alone is what the include brings into its compile: the included file and what that file includes (an
`IncludedPart`), not the other workload's whole class; an import, an extension load or a CMake link carries the
whole workload (decision record 2026-12-07-s31-what-an-include-carries)."""
from __future__ import annotations

import itertools
import posixpath
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from migrate.model import Fact
from migrate.model_report import CHAIN_HEAD, CHAIN_TAIL, ELIDED
from migrate.workloads.assemble import EXTENSION_KINDS, Spec
from migrate.workloads.digraph import DiGraph, PathsTo
from migrate.workloads.fact_index import of_kind, of_kinds
from migrate.workloads.modules import ModuleIndex

PY_SUFFIXES = (".py",)
SYSTEM_HEADERS = frozenset({
    "assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h", "iso646.h", "limits.h",
    "locale.h", "math.h", "setjmp.h", "signal.h", "stdalign.h", "stdarg.h", "stdatomic.h", "stdbool.h",
    "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "stdnoreturn.h", "string.h", "tgmath.h", "threads.h",
    "time.h", "uchar.h", "wchar.h", "wctype.h", "unistd.h", "fcntl.h", "dirent.h", "dlfcn.h", "pthread.h",
    "sched.h", "semaphore.h", "strings.h", "termios.h", "poll.h", "getopt.h", "libgen.h", "malloc.h",
    "memory.h", "io.h", "direct.h", "process.h", "windows.h", "winsock2.h", "sys/types.h", "sys/stat.h",
    "sys/time.h", "sys/mman.h", "sys/socket.h", "sys/wait.h", "sys/ioctl.h", "sys/resource.h", "sys/syscall.h",
    "sys/sysinfo.h", "sys/utsname.h", "netinet/in.h", "arpa/inet.h", "netdb.h", "algorithm", "any", "array",
    "atomic", "bitset", "cassert", "cctype", "cerrno", "cfloat", "chrono", "cinttypes", "climits", "cmath",
    "complex", "condition_variable", "cstdarg", "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "ctime",
    "deque", "exception", "filesystem", "fstream", "functional", "future", "iomanip", "ios", "iosfwd",
    "iostream", "istream", "iterator", "limits", "list", "locale", "map", "memory", "mutex", "new", "numeric",
    "optional", "ostream", "queue", "random", "ratio", "regex", "set", "shared_mutex", "sstream", "stack",
    "stdexcept", "streambuf", "string", "string_view", "system_error", "thread", "tuple", "type_traits",
    "typeinfo", "unordered_map", "unordered_set", "utility", "valarray", "variant", "vector",
})
STDLIB = frozenset(sys.stdlib_module_names)
PACKAGE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
LINKING_KINDS = ("include", "python_import", "python_attr", "extension", "cmake_link")  # the facts `_edge_of` reads
INCLUDED = "{} (included)"  # the inheritance graph's node for an included file: no workload is named so


@dataclass(frozen=True)
class IncludedPart:
    """What an #include of `header` (a file of workload `owner`) brings into the including workload's compile: the
    header and every project file it includes, directly or not (`files`, of whatever workload)."""
    owner: str
    header: str
    files: frozenset[str]


class DependencyGraph:
    """Workload-level digraph; each edge keeps the first file-level reason that created it."""

    def __init__(self, specs: Iterable[Spec], facts: Mapping[str, tuple[Fact, ...]],
                 optional_files: frozenset[str] = frozenset()) -> None:
        self.specs = {s.name: s for s in specs}
        self._paths: dict[str, PathsTo[str]] = {}  # the shortest paths to each target a chain was asked for
        self._optional_files = optional_files  # files only optional code reaches (workloads/parts.py)
        self._optional_use = False  # whether the fact being linked sits in optional code
        self._only_optional: dict[str, bool] = {}  # workload -> every use of it so far from optional code
        self.owner = {path: s.name for s in self.specs.values() for path in s.files}
        self.graph: DiGraph[str] = DiGraph(self.specs)
        self._files = sorted(self.owner)
        self._by_basename: dict[str, list[str]] = {}
        for path in self._files:
            self._by_basename.setdefault(posixpath.basename(path), []).append(path)
        self._ending: dict[str, list[str]] = {}  # an #include's name -> the files whose path ends in it (`_include`)
        self._modules = ModuleIndex(p for p in self._files if p.endswith(PY_SUFFIXES))
        self._external = STDLIB | declared_packages(facts)
        extensions = {s.name: s for s in self.specs.values() if s.kind in EXTENSION_KINDS}
        targets = {s.name for s in self.specs.values() if s.kind.startswith("cmake")}
        self._facts = facts
        self._includes: dict[str, list[str]] = {}  # file -> the project files its #includes name
        self._linked: set[tuple[str, str]] = set()  # workload pairs an import, extension load or CMake link links
        self._included: dict[tuple[str, str], dict[str, str]] = {}  # pair -> included file -> the first step
        self._inheritance: DiGraph[str] | None = None
        self._declaring: dict[str, str] | None = None  # CMake target -> the workload whose file declares it
        self._parts: dict[str, IncludedPart] = {}
        for rel, fact in of_kinds(facts, *LINKING_KINDS):  # in the facts' order: an edge keeps its first reason
            if rel in self.owner:
                self._edge_of(rel, fact, extensions, targets)

    def _edge_of(self, rel: str, fact: Fact, extensions: dict[str, Any], targets: set[str]) -> None:
        """The edge one fact of LINKING_KINDS makes, if any."""
        self._optional_use = fact.guard == "optional" or rel in self._optional_files
        if fact.kind == "include":
            if fact.text.startswith("<") and fact.name in SYSTEM_HEADERS:
                return  # <unistd.h> is the system's, even where the project has a file of that name
            if (header := self._include(rel, fact.name)) is not None:
                self._includes.setdefault(rel, []).append(header)
                self._link(rel, header, f"includes {fact.name}", included=True)
        elif fact.kind == "python_import":
            module = fact.name
            if module.split(".")[0] in extensions:
                self._link_workload(rel, module.split(".")[0], f"imports {module}")
            else:
                self._link(rel, self._import(rel, module), f"imports {module}")
        elif fact.kind == "python_attr" and fact.name.startswith("torch.ops."):
            namespace = fact.name.split(".")[2] if fact.name.count(".") >= 2 else ""
            if namespace in extensions:
                self._link_workload(rel, namespace, f"calls {'.'.join(fact.name.split('.')[:4])}")
        elif fact.kind == "extension" and (name := fact.name if fact.name in extensions else next(
                (f.name for f in self._facts.get(rel, ()) if f.kind == "extension" and f.text == fact.text
                 and f.name in extensions), None)) is not None:  # a second load of the same sources: the first's workload
            self._link_workload(rel, name, f"{'loads' if fact.role == 'jit' else 'builds'} {fact.name}")
        elif fact.kind == "cmake_link" and fact.name in targets:
            for lib in fact.text.split("\n"):
                if lib in targets and lib != fact.name:
                    self._linked.add((fact.name, lib))
                    self.graph.add_edge(fact.name, lib, f"{rel}: {fact.name} links {lib}")
                elif (declared := self._declared_in(lib)) is not None:
                    # a library target that is no workload of its own (ApraPipes' `aprapipes`, declared in the
                    # project's CMakeLists.txt): an #include of the declaring workload's header carries it whole
                    self._linked.add((fact.name, declared))

    def _declared_in(self, target: str) -> str | None:
        """The workload owning the file that declares a CMake target (add_library, add_executable), if any."""
        if self._declaring is None:
            self._declaring = {}
            for rel, fact in of_kind(self._facts, "cmake_target"):
                if rel in self.owner:
                    self._declaring.setdefault(fact.name, self.owner[rel])
        return self._declaring.get(target)

    def _link(self, rel: str, target: str | None, step: str, *, included: bool = False) -> None:
        if target is not None and target in self.owner:
            self._link_workload(rel, self.owner[target], step, target if included else None)

    def _link_workload(self, rel: str, workload: str, step: str, included: str | None = None) -> None:
        source = self.owner[rel]
        if source == workload:
            return
        if not self.graph.has_edge(source, workload):
            self.graph.add_edge(source, workload, f"{rel} {step}")
        if included is None:
            self._linked.add((source, workload))
        else:
            self._included.setdefault((source, workload), {}).setdefault(included, f"{rel} {step}")
        self._only_optional[workload] = self._only_optional.get(workload, True) and self._optional_use

    def only_optionally_used(self, workload: str) -> bool:
        """Whether every use of a workload by another comes from optional code (and there is one)."""
        return self._only_optional.get(workload, False)

    def _include(self, rel: str, header: str) -> str | None:
        """A repo file for an #include: next to the includer, else the closest file ending in it."""
        local = posixpath.normpath(posixpath.join(posixpath.dirname(rel), header))
        if local in self.owner:
            return local
        matches = self._ending.get(header)
        if matches is None:  # the same for every includer: looked for once per name
            matches = self._ending[header] = [p for p in self._by_basename.get(posixpath.basename(header), ())
                                              if p == header or p.endswith("/" + header)]
        return max(matches, key=lambda p: len(posixpath.commonprefix([p, rel])), default=None)

    def _import(self, rel: str, module: str) -> str | None:
        module, candidates = self._modules.candidates(rel, module)
        roots = {"", "src", posixpath.dirname(rel)}
        depth = module.count(".") + 1
        if module.split(".")[0] in self._external:  # stdlib or a dependency: only a module at an import root
            candidates = [c for c in candidates if _base(c, depth) in roots]  # shadows it, never one deep inside
        # a module inside a package (its folder above the name has __init__.py) is not importable by the short
        # name (Python 3 has no implicit relative import): curobo/_src/util/warp.py is not `import warp`
        candidates = [c for c in candidates if _base(c, depth) in roots or f"{_base(c, depth)}/__init__.py" not in self.owner]
        return min(candidates, key=len, default=None)

    def own_module(self, rel: str, module: str) -> bool:
        """Whether `module`, imported by `rel`, is a module of the project itself (nvitop's
        `from nvitop.api import ...` inside nvitop), not the installed package of that name."""
        return self._import(rel, module) is not None

    def inheritance(self) -> DiGraph[str]:
        """The graph a class is inherited along: the workload graph, where an edge made by #includes alone leads
        instead to one node per included file (INCLUDED), whose part (`included_parts`) is a leaf."""
        if self._inheritance is None:
            graph: DiGraph[str] = DiGraph(self.specs)
            for source, targets in self.graph.succ.items():
                for target, step in targets.items():
                    included = self._included.get((source, target))
                    if included is None or (source, target) in self._linked:
                        graph.add_edge(source, target, step)
                        continue
                    for header, why in included.items():
                        node = INCLUDED.format(header)
                        if node not in self._parts:
                            self._parts[node] = IncludedPart(target, header, self._closure(header))
                        graph.add_edge(source, node, why)
            self._inheritance = graph
        return self._inheritance

    def included_parts(self) -> dict[str, IncludedPart]:
        """The inheritance graph's included-file nodes and what each brings."""
        self.inheritance()
        return self._parts

    def _closure(self, header: str) -> frozenset[str]:
        seen, todo = {header}, [header]
        while todo:
            for nested in self._includes.get(todo.pop(), ()):
                if nested not in seen:
                    seen.add(nested)
                    todo.append(nested)
        return frozenset(seen)

    def worst_dependencies(self, rank: Callable[[str], int], counted: Callable[[str], bool]) -> dict[str, str | None]:
        """Each workload's counted dependency (direct or not, a workload or an included part) of highest `rank`,
        the first by name among equals: `max(sorted(d for d in descendants(w) if counted(d)), key=rank)` in the
        inheritance graph, for every workload in linear time."""
        return self.inheritance().least_descendants(lambda w: (-rank(w), w), counted)

    def direct(self, workload: str) -> list[str]:
        return sorted(self.graph.successors(workload))

    def chain(self, source: str, target: str) -> tuple[str, ...]:
        """Steps from one workload to another on a shortest path: ("train.py imports attnlib.layers", ...); of a
        path longer than CHAIN_HEAD + CHAIN_TAIL + 1 steps, both ends and the number of steps between them."""
        if (paths := self._paths.get(target)) is None:
            paths = self._paths[target] = self.inheritance().paths_to(target, CHAIN_TAIL)
        if paths.depth.get(source, 0) <= CHAIN_HEAD + CHAIN_TAIL + 1:
            return self._steps(paths.walk(source))
        head, tail = paths.walk(source, CHAIN_HEAD), paths.walk(paths.anchor(source))
        return (*self._steps(head), ELIDED.format(paths.depth[source] - CHAIN_HEAD - CHAIN_TAIL), *self._steps(tail))

    def _steps(self, path: list[str]) -> tuple[str, ...]:
        return tuple(self.inheritance().step(a, b) for a, b in itertools.pairwise(path))


def declared_packages(facts: Mapping[str, tuple[Fact, ...]]) -> frozenset[str]:
    """Import names of the packages the project depends on (requirement names, `-` as `_`)."""
    return frozenset(f.name.lower().replace("-", "_").replace(".", "_") for _, f in of_kind(facts, "requirement")
                     if PACKAGE.match(f.name))


def _base(path: str, depth: int) -> str:
    """The folder a module file is imported from: src/pkg/mod.py for pkg.mod -> src."""
    parts = path[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return "/".join(parts[:-depth])
