"""assemble: group files into workloads.

Explicit source lists come first (workloads declared in the configuration, PyTorch
extensions, CMake targets, kernel modules that Python loads), then directory-rooted projects (Python distributions, CMake
projects, Makefile projects, notebook folders) take the files below them, deepest root
first; what is left belongs to a workload named after its top folder."""
from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass, field

from migrate.model import Fact, SourceFile
from migrate.rulebase.name_lists import header_suffixes, name_list
from migrate.vocabulary import C_SOURCE_KINDS

HEADER_SUFFIXES = header_suffixes()
EXTENSION_KINDS = frozenset({"torch-extension", "python-extension"})  # a module Python imports, built from sources
PYTHON_PROJECT_FILES = frozenset({"pyproject.toml", "setup.py", "setup.cfg"})


@dataclass
class Spec:
    """A workload as assembled from the facts: its name, root folder, kind and files."""

    name: str
    root: str  # a folder relative to the scan root ("." for the root itself)
    kind: str
    files: list[str] = field(default_factory=list)


def workloads(files: Iterable[SourceFile], facts: Mapping[str, tuple[Fact, ...]], *,
              root_name: str, declared: Mapping[str, list[str]] | None = None) -> list[Spec]:
    """Workload specs covering every file exactly once."""
    files = list(files)
    pool = {f.rel for f in files}
    specs: list[Spec] = []
    for name, globs in (declared or {}).items():
        import pathspec  # here: a scan with no declared workload need not import it (with asyncio, ~23 ms CPU)

        spec_of = pathspec.GitIgnoreSpec.from_lines(globs)
        specs.append(_claim(Spec(name, _common_root(globs), "declared"), pool, {p for p in pool if spec_of.match_file(p)}))
    specs += _explicit(pool, facts)
    specs += _gpu_modules(pool, facts)
    specs += _runtime_compiled(pool, facts)
    specs += _rooted(pool, facts, root_name)
    specs += _leftovers(pool, root_name, {f.rel: f.kind for f in files})
    return _unique([s for s in specs if s.files])


def _claim(spec: Spec, pool: set[str], wanted: Iterable[str]) -> Spec:
    for path in sorted(set(wanted) & pool):
        spec.files.append(path)
        pool.discard(path)
    return spec


def _explicit(pool: set[str], facts: Mapping[str, tuple[Fact, ...]]) -> list[Spec]:
    """PyTorch extensions and CMake targets, from their source lists. Extensions claim first:
    sources that a setup.py builds as a torch extension and a CMakeLists.txt also lists are
    hipified by PyTorch's ROCm build (diff-gaussian-rasterization ships both)."""
    specs: list[Spec] = []
    targets: dict[str, Spec] = {}  # CMake targets by name: one spec however many files declare the name
    ordered = sorted(((rel, fact) for rel, file_facts in facts.items() for fact in file_facts
                      if fact.kind in ("extension", "cmake_target")),
                     key=lambda item: (item[1].kind != "extension", item[0]))
    for rel, fact in ordered:
        base = posixpath.dirname(rel)
        if fact.kind == "extension":
            sources = resolve_sources(fact.text, base, pool)
            root = _common_dir(sources) or base or "."
            spec = Spec(fact.name or posixpath.basename(base or root) or root, root, _extension_kind(fact, facts[rel]))
            headers = _sibling_headers(sources, pool)
            specs.append(_claim(spec, pool, sources + headers + _included_headers(sources + headers, facts, pool)))
        elif fact.kind == "cmake_target":
            sources = resolve_sources(fact.text, base, pool)
            existing = targets.get(fact.name)
            spec = existing or Spec(fact.name, base or ".", "cmake-target")
            _claim(spec, pool, sources)
            if existing is None:
                specs.append(spec)
                targets[fact.name] = spec
    return specs


def _extension_kind(fact: Fact, file_facts: tuple[Fact, ...]) -> str:
    """A PyTorch extension where torch builds it: loaded by `load()`, or declared in a file that uses torch's
    builders. A plain setuptools Extension in a file that names none of them is built by the project's own
    build_ext (nvcc run by hand, no hipify): a Python extension, ported like any CUDA source."""
    builders = name_list("python", "torch_extension_builders")
    torch = fact.role == "jit" or any(f.kind == "python_attr" and ".".join(f.name.split(".")[:4]) in builders
                                      for f in file_facts)
    return "torch-extension" if torch else "python-extension"


# Python loaders of compiled kernel modules that have a ROCm build (code objects from hipcc --genco).
MODULE_LOADERS = frozenset({"cupy.RawModule", "cupy.cuda.function.Module", "cupy.cuda.Module"})
MODULE_SOURCES = (".cu",)


def _gpu_modules(pool: set[str], facts: Mapping[str, tuple[Fact, ...]]) -> list[Spec]:
    """CUDA files built into kernel modules that Python loads (cusignal's cpp/src/*.cu, built with
    nvcc --fatbin and read by cupy.RawModule(path=...)): a string names the module, the .cu of the
    same stem is its source. Only in a project that loads modules with CuPy."""
    stems = {f.name for fs in facts.values() for f in fs if f.kind == "kernel_binary"}
    if not (stems and any(f.kind == "python_attr" and f.name in MODULE_LOADERS for fs in facts.values() for f in fs)):
        return []
    specs = []
    for path in sorted(pool):
        stem, suffix = posixpath.splitext(posixpath.basename(path))
        if suffix in MODULE_SOURCES and stem in stems:
            specs.append(_claim(Spec(stem, posixpath.dirname(path) or ".", "gpu-module"), pool, [path]))
    return specs


def _runtime_compiled(pool: set[str], facts: Mapping[str, tuple[Fact, ...]]) -> list[Spec]:
    """CUDA files a Python module reads into a run-time compiler (tike's `cupy.RawModule(code=files(pkg)
    .joinpath("usfft.cu").read_text())`): compiled by CuPy's hipRTC path on ROCm as it is, like a literal.
    The file of that name in the loader's folder, else the only one of that name in the project."""
    specs = []
    for rel in sorted(facts):
        for fact in facts[rel]:
            if fact.kind != "runtime_source":
                continue
            here = posixpath.normpath(posixpath.join(posixpath.dirname(rel), fact.name))
            named = [p for p in pool if posixpath.basename(p) == posixpath.basename(fact.name)]
            path = here if here in pool else (named[0] if len(named) == 1 else None)
            if path is not None:
                stem = posixpath.splitext(posixpath.basename(path))[0]
                specs.append(_claim(Spec(stem, posixpath.dirname(path) or ".", "runtime-compiled"), pool, [path]))
    return specs


def resolve_sources(text: str, base: str, pool: Set[str]) -> list[str]:
    """The pool's files an extension's source list (`extension` fact text) names, from the loader's folder `base`."""
    out = []
    for item in filter(None, text.split("\n")):
        if item.startswith("glob:"):
            pattern = posixpath.normpath(posixpath.join(base, item[5:]))
            flat = pattern.replace("**/", "")  # glob(..., recursive=True): `**/` matches no folder too
            # a leading `*/` is a folder the program computes (f"{current_path}/cuda/x.cu"), most often the
            # loader's own (`os.path.dirname(__file__)`: ChatRWKV's rwkv/model.py)
            here = posixpath.normpath(posixpath.join(base, item[7:])) if item[5:].startswith("*/") else pattern
            out += [p for p in pool if fnmatch.fnmatch(p, pattern) or fnmatch.fnmatch(p, flat) or p == here]
            continue
        for candidate in (*(posixpath.join(folder, item) for folder in _upward(base)), item):
            path = posixpath.normpath(candidate)
            if path in pool or path in out:
                out.append(path)
                break
    return out


def _upward(base: str) -> list[str]:
    """The loading file's folder, then its parents: `load(sources=["cuda/x.cu"])` is relative to the folder
    the program runs in, often the parent of the module's own (RWKV's train_temp/ for train_temp/src/model.py)."""
    folders = [base]
    while base:
        base = posixpath.dirname(base)
        folders.append(base)
    return folders


INCLUDE_DEPTH = 3  # headers an extension's sources include, this many levels down


def _included_headers(files: list[str], facts: Mapping[str, tuple[Fact, ...]], pool: set[str]) -> list[str]:
    """Project headers an extension's files include (kernels_bf16/x.h, an include directory's lietorch_gpu.h,
    cubvh's `#include <gpu/bvh.cuh>` through include_dirs): PyTorch's hipify converts what the extension's sources
    include, quoted or in angle brackets, where it finds the header in the extension's include directories
    (torch/utils/hipify/hipify_python.py, preprocessor: RE_QUOTE_HEADER and RE_ANGLE_HEADER through mk_repl), so
    they are the extension's. A quoted name is resolved beside the includer, else (and an angle-bracket name
    always) to the one pool path ending in it."""
    by_name: dict[str, list[str]] = {}
    for path in pool:
        if path.endswith(HEADER_SUFFIXES):
            by_name.setdefault(posixpath.basename(path), []).append(path)
    found: list[str] = []
    todo = list(files)
    for _ in range(INCLUDE_DEPTH):
        more = []
        for rel in todo:
            for fact in facts.get(rel, ()):
                if fact.kind != "include":
                    continue
                local = posixpath.normpath(posixpath.join(posixpath.dirname(rel), fact.name))
                matches = [p for p in by_name.get(posixpath.basename(fact.name), ()) if p.endswith("/" + fact.name)
                           or p == fact.name]
                beside = local in pool and not fact.text.startswith("<")
                header = local if beside else (matches[0] if len(matches) == 1 else None)
                if header is not None and header not in found and header not in files:
                    found.append(header)
                    more.append(header)
        todo = more
    return found


def _sibling_headers(sources: list[str], pool: set[str]) -> list[str]:
    folders = {posixpath.dirname(s) for s in sources}
    return [p for p in pool if posixpath.dirname(p) in folders and p.endswith(HEADER_SUFFIXES)]


def _rooted(pool: set[str], facts: Mapping[str, tuple[Fact, ...]], root_name: str) -> list[Spec]:
    roots: dict[str, Spec] = {}
    for rel in sorted(pool | set(facts)):
        folder, name = posixpath.dirname(rel) or ".", posixpath.basename(rel)
        label = root_name if folder == "." else posixpath.basename(folder)
        file_facts = facts.get(rel, ())
        if name in PYTHON_PROJECT_FILES and folder not in roots:
            dist = next((f.name for f in file_facts if f.kind == "distribution"), label)
            roots[folder] = Spec(dist, folder, "python")
        elif name == "CMakeLists.txt" and any(f.kind == "cmake_project" for f in file_facts):
            project = next(f.name for f in file_facts if f.kind == "cmake_project")
            roots.setdefault(folder, Spec(project, folder, "cmake"))
        elif name in ("Makefile", "makefile", "GNUmakefile"):
            roots.setdefault(folder, Spec(label, folder, "make"))
        elif name.endswith(".ipynb"):
            roots.setdefault(folder, Spec(label, folder, "notebooks"))
    for path in sorted(pool):
        owner = _deepest_root(path, roots)
        if owner is not None:
            owner.files.append(path)
            pool.discard(path)
    return list(roots.values())


def _deepest_root(path: str, roots: Mapping[str, Spec]) -> Spec | None:
    """The spec of the deepest folder above `path` that is a root (keyed by folder, as dirname gives it), else
    the root's ("."): each folder above looked up, where every root was tried in turn (~200 roots x ~1,000
    files in cuda-samples). Two roots cannot both hold a path at one depth (the folder there is one)."""
    folder = path
    while (cut := folder.rfind("/")) > 0:
        folder = folder[:cut]
        if (owner := roots.get(folder)) is not None:
            return owner
    return roots.get(".")


DEPLOYMENT_KINDS = frozenset({"dockerfile", "manifest", "shell"})
# autoconf macro files (m4/ beside configure.ac, AC_CONFIG_MACRO_DIR): configure code of the project at the root, no
# part of their own
CONFIGURE_KINDS = frozenset({"m4"})
ROOT_KINDS = DEPLOYMENT_KINDS | CONFIGURE_KINDS  # a top folder holding only these joins the root's group


def _leftovers(pool: set[str], root_name: str, kinds: Mapping[str, str]) -> list[Spec]:
    """Files of no workload, by top folder; a folder of deployment files or configure macros only joins the root's
    group if it has one."""
    groups: dict[str, Spec] = {}
    for path in sorted(pool):
        top = path.split("/", 1)[0] if "/" in path else "."
        groups.setdefault(top, Spec(root_name if top == "." else top, top, "directory")).files.append(path)
    if "." in groups:
        for top, spec in list(groups.items()):
            if top != "." and all(kinds.get(p) in ROOT_KINDS for p in spec.files):
                groups["."].files += spec.files
                del groups[top]
    for spec in groups.values():
        found = {kinds.get(p) for p in spec.files}
        if found & {"python", "notebook"} and not found & C_SOURCE_KINDS:
            spec.kind = "python"
    root = groups.get(".")
    if root is not None and root.kind == "python":  # a Python project without packaging metadata is one workload
        for top, spec in list(groups.items()):
            if top != "." and spec.kind == "python":
                root.files += spec.files
                del groups[top]
    pool.clear()
    return list(groups.values())


def _unique(specs: list[Spec]) -> list[Spec]:
    """Merge a CMake project into its same-named target; otherwise make names unique."""
    by_name: dict[str, Spec] = {}
    out = []
    for spec in specs:
        other = by_name.get(spec.name)
        if other is not None and {other.kind, spec.kind} == {"cmake", "cmake-target"}:
            other.files = sorted(other.files + spec.files)
            other.kind = "cmake-target"
            continue
        if other is not None:
            spec.name = f"{spec.name} ({spec.root})"
        by_name[spec.name] = spec
        out.append(spec)
    return out


def _common_dir(paths: list[str]) -> str:
    return posixpath.commonpath([posixpath.dirname(p) for p in paths]) if paths else ""


def _common_root(globs: list[str]) -> str:
    fixed = [g.split("*", 1)[0].rstrip("/") for g in globs]
    return posixpath.commonpath(fixed) if fixed and all(fixed) else "."
