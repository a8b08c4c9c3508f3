"""NVIDIA parts a user chooses at run time, beside peers that run elsewhere (rules/workloads/alternatives.yaml):
- a file or folder named after NVIDIA's implementation of a role (an NVENC encoder, DLSS, an NVML monitor, a TensorRT
  demo) beside a sibling named after another vendor's or a portable one (QSV, AMF, XeSS, ADL, ONNX);
- a build script or container file with an NVIDIA word in its name beside a sibling of the same kind without one:
  one of several ways to build or deploy;
- the NVIDIA provider of an ONNX Runtime providers list that names a portable provider after it (the runtime falls
  back to the next provider);
- a requirements file for development (requirements-dev.txt), not for running the project;
- a back-end package of its own (a .NET project, a crate, a Python distribution) named for CUDA beside a sibling package
  named for a portable platform (`X.Backends.CUDA` beside `X.Backends.CPU`): the back end the user installs or picks.
Each is an optional part with its own class and the evidence that makes it one (workloads/parts.py)."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from migrate.model import Fact, Finding
from migrate.rulebase import datafile
from migrate.rulebase.load import default_rules_dir
from migrate.workloads.fact_index import of_kind
from migrate.workloads.modules import ModuleIndex
from migrate.workloads.optional_imports import imported_files
from migrate.workloads.optional_words import DataError, optional_root

SECTIONS = ("vendor_roles", "build_variants", "execution_providers", "development_requirements", "backend_packages",
            "vendor_twins", "standalone_backends", "run_time_libraries", "language_twins")
WORD = re.compile(r"[a-z]+")
TOKEN = re.compile(r"[a-z0-9]+")
RULES = "rules/workloads/alternatives.yaml"


@dataclass(frozen=True, slots=True)
class Role:
    """One role (video encoder): the words naming NVIDIA's implementation, and the words naming its peers."""

    name: str
    nvidia: frozenset[str]
    peers: frozenset[str]
    # folders only, each side: a word that names no vendor by itself (`gpu`) names NVIDIA's deployment only as a folder
    # beside folders of its own peers (not AMD's words: Eigen's arch/GPU beside arch/HIP is code both share), and not
    # where the name also holds a peer's word or an AMD one (`migraphx_gpu`, `hip_gpu`)
    folders_only: bool = False


@dataclass(frozen=True, slots=True)
class RunTimeLibrary:
    """An NVIDIA library a program may open at run time: its file names, the headers a build against it includes, and
    the rules whose findings are its API."""

    name: str
    files: frozenset[str]
    headers: frozenset[str]
    rules: frozenset[str]


@dataclass(frozen=True, slots=True)
class Alternatives:
    """The data of rules/workloads/alternatives.yaml."""

    roles: tuple[Role, ...]
    variant_words: frozenset[str]
    variant_kinds: frozenset[str]
    nvidia_providers: frozenset[str]
    portable_providers: frozenset[str]
    development_words: frozenset[str]
    amd_words: frozenset[str] = frozenset()  # words naming AMD's implementation of any role (amd, rocm, hip)
    backend_nvidia: frozenset[str] = frozenset()  # words naming a CUDA back-end package (cuda)
    backend_portable: frozenset[str] = frozenset()  # words naming a portable back-end package (cpu, opencl, metal)
    manifests: tuple[str, ...] = ()  # a package's manifest: a file name or a name ending (Cargo.toml, .csproj)
    python_manifests: tuple[str, ...] = ()  # a Python package's marker file (__init__.py)
    twin_nvidia: frozenset[str] = frozenset()  # words naming the NVIDIA variant of an install/build file (nvidia, cuda)
    twin_kinds: frozenset[str] = frozenset()  # the kinds of file a vendor twin is (requirements, dockerfile, shell)
    not_vendor: frozenset[str] = frozenset()  # whole tokens that are no vendor's name (amd64: a CPU architecture)
    build_files: frozenset[str] = frozenset()  # the build files of a program built on its own (Makefile)
    enclosing_builds: frozenset[str] = frozenset()  # kinds of build file that make sibling folders one build
    enclosing_names: frozenset[str] = frozenset()  # ... and names of such files of another kind (setup.py: python)
    define_kinds: frozenset[str] = frozenset()  # build files whose NVIDIA variant's `-DX` is an opt-in (makefile)
    run_time_libraries: tuple[RunTimeLibrary, ...] = ()  # NVIDIA libraries opened by name (dlopen) where present
    language_nvidia: frozenset[str] = frozenset()  # a file name's ending after its stem naming a CUDA flavor (cu)
    language_portable: frozenset[str] = frozenset()  # ... naming a portable one (triton.py, pytorch.py)


@lru_cache(maxsize=4)
def load(directory: Path | None = None) -> Alternatives:
    path = (directory or default_rules_dir()) / "workloads" / "alternatives.yaml"
    if not path.is_file():  # a rules directory without the file: no such parts
        return Alternatives((), frozenset(), frozenset(), frozenset(), frozenset(), frozenset())
    data = datafile.read(path)
    if not isinstance(data, dict) or any(not str((data.get(s) or {}).get("source", "")).startswith("https://")
                                         for s in SECTIONS):
        raise DataError(f"{path}: each of {', '.join(SECTIONS)} needs a source URL")

    def names(value: object, where: str) -> frozenset[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise DataError(f"{path}: {where}: a list of names")
        return frozenset(value)

    roles_data = data["vendor_roles"]
    common = frozenset(n.lower() for n in names(roles_data.get("any_peers", []), "vendor_roles.any_peers"))
    roles = tuple(Role(str(r["role"]), frozenset(n.lower() for n in names(r["nvidia"], "vendor_roles.nvidia")),
                       frozenset(n.lower() for n in names(r["peers"], "vendor_roles.peers"))
                       | (common if r.get("folders_only") is not True else frozenset()),
                       folders_only=r.get("folders_only") is True)
                  for r in roles_data["roles"])
    return Alternatives(
        roles=roles,
        variant_words=frozenset(n.lower() for n in names(data["build_variants"]["words"], "build_variants.words")),
        variant_kinds=names(data["build_variants"]["kinds"], "build_variants.kinds"),
        define_kinds=names(data["build_variants"].get("define_kinds", []), "build_variants.define_kinds"),
        nvidia_providers=names(data["execution_providers"]["nvidia"], "execution_providers.nvidia"),
        portable_providers=names(data["execution_providers"]["portable"], "execution_providers.portable"),
        development_words=frozenset(n.lower() for n in names(data["development_requirements"]["words"],
                                                              "development_requirements.words")),
        amd_words=common,
        backend_nvidia=frozenset(n.lower() for n in names(data["backend_packages"]["nvidia"], "backend_packages.nvidia")),
        backend_portable=frozenset(n.lower() for n in names(data["backend_packages"]["portable"],
                                                            "backend_packages.portable")),
        manifests=tuple(sorted(names(data["backend_packages"]["manifests"], "backend_packages.manifests"))),
        python_manifests=tuple(sorted(names(data["backend_packages"]["python_manifests"],
                                            "backend_packages.python_manifests"))),
        twin_nvidia=frozenset(n.lower() for n in names(data["vendor_twins"]["nvidia"], "vendor_twins.nvidia")),
        twin_kinds=names(data["vendor_twins"]["kinds"], "vendor_twins.kinds"),
        not_vendor=frozenset(n.lower() for n in names(data["vendor_twins"]["not_vendor"], "vendor_twins.not_vendor")),
        build_files=frozenset(n.lower() for n in names(data["standalone_backends"]["build_files"],
                                                       "standalone_backends.build_files")),
        enclosing_builds=names(data["standalone_backends"]["enclosing_kinds"], "standalone_backends.enclosing_kinds"),
        enclosing_names=names(data["standalone_backends"]["enclosing_names"], "standalone_backends.enclosing_names"),
        run_time_libraries=tuple(
            RunTimeLibrary(str(lib["name"]), names(lib["files"], "run_time_libraries.files"),
                           names(lib["headers"], "run_time_libraries.headers"),
                           names(lib["rules"], "run_time_libraries.rules"))
            for lib in data["run_time_libraries"]["libraries"]),
        language_nvidia=frozenset(n.lower() for n in names(data["language_twins"]["nvidia"], "language_twins.nvidia")),
        language_portable=frozenset(n.lower() for n in names(data["language_twins"]["portable"],
                                                             "language_twins.portable")))


def words_of(name: str) -> frozenset[str]:
    """The words of a file or folder name: lower case, split at every character that is not a letter."""
    return frozenset(WORD.findall(name.lower()))


def run_time_alternatives(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str], findings: Iterable[Finding],
                          data: Alternatives | None = None) -> dict[str, str]:
    """Optional parts chosen at run time: a file path, a folder (ending in `/`) or a `path:line` -> the evidence."""
    data = data or load()
    paths = sorted(set(facts) | set(kinds))
    out = _vendor_peers(paths, data) | backend_packages(paths, data) | standalone_backends(kinds, data)
    imported = _imported_unguarded(facts)
    out = {part: why for part, why in out.items()  # a Python module required code imports is no run-time choice
           if not any(_inside(target, part) and not _inside(importer, part) for importer, target in imported)}
    out.update(_called_backends(backend_packages(paths, data, data.python_manifests), facts, findings))
    out.update(_build_variants(paths, kinds, data))
    out.update(_folder_variants(paths, kinds, data))
    out.update(_development_requirements(kinds, data))
    out.update(vendor_twins(facts, kinds, data))
    out.update(language_twins(paths, data))
    out.update(_fallback_providers(findings, data, _chosen_providers(facts, data)))
    out.update(loaded_where_present(facts, findings, data))
    return out


def language_twins(paths: Sequence[str], data: Alternatives) -> dict[str, str]:
    """Files of one stem in one folder, one per language (`starter.cu`, `starter.cute.py` beside `starter.triton.py`,
    `starter.pytorch.py`): the name's ending after the stem's first dot names the flavor (language_twins). Where a
    portable flavor is among them, each CUDA flavor is an optional part: the same program, written once per language,
    of which the user picks one."""
    groups: dict[tuple[str, str], dict[str, str]] = {}  # (folder, stem) -> flavor -> path
    for path in paths:
        folder, name = posixpath.split(path)
        stem, dot, flavor = name.partition(".")
        if dot and stem:
            groups.setdefault((folder, stem), {})[flavor.lower()] = path
    out: dict[str, str] = {}
    for (_, stem), flavors in groups.items():
        portable = sorted(f for f in flavors if f in data.language_portable)
        if not portable:
            continue
        for flavor, path in sorted(flavors.items()):
            if flavor in data.language_nvidia:
                out[path] = (f"{path}: the .{flavor} flavor of {stem} beside {', '.join(f'{stem}.{p}' for p in portable[:3])}"
                             f" in the same folder: one program written once per language, the user picks one "
                             f"({RULES} language_twins)")
    return out


def loaded_where_present(facts: Mapping[str, Sequence[Fact]], findings: Iterable[Finding],
                         data: Alternatives | None = None) -> dict[str, str]:
    """`path:line` of each finding of an NVIDIA library's API (run_time_libraries) -> the evidence, where a file opens
    that library by name at run time (dlopen) and no file includes its header: the program uses it where present. A
    file whose every finding is of that API is keyed whole."""
    data = data or load()
    found = list(findings)
    included = {posixpath.basename(f.name) for _, f in of_kind(facts, "include")}
    out: dict[str, str] = {}
    for lib in data.run_time_libraries:
        if included & lib.headers:
            continue
        opened = sorted((path, f.line, f.name) for path, f in of_kind(facts, "loaded_library")
                        if posixpath.basename(f.name) in lib.files)
        if not opened:
            continue
        path, line, name = opened[0]
        why = (f"{path}:{line} opens {name} at run time and no file includes {', '.join(sorted(lib.headers))}: "
               f"{lib.name} is used only where the library is present ({RULES} run_time_libraries)")
        others = {f.path for f in found if f.rule not in lib.rules}  # a file with other findings: line by line
        for f in found:
            if f.rule in lib.rules:
                out[f.path if f.path not in others else f"{f.path}:{f.line}"] = why
    return out


def build_variants(kinds: Mapping[str, str], data: Alternatives | None = None) -> dict[str, str]:
    """Scripts and container files for an NVIDIA build beside plain ones (`rebuild_and_run_cuda.sh` beside
    `rebuild_and_run.sh`) -> the evidence: the plain one is the default build, the variant an opt-in."""
    data = data or load()
    return _build_variants(sorted(kinds), kinds, data) | _folder_variants(sorted(kinds), kinds, data)


def covering(parts: Mapping[str, str], path: str, line: int) -> str | None:
    """The key of `parts` a finding at path:line belongs to: the line, the file, or a folder holding it."""
    for key in (f"{path}:{line}", path):
        if key in parts:
            return key
    folder = posixpath.dirname(path)
    while folder:
        if f"{folder}/" in parts:
            return f"{folder}/"
        folder = posixpath.dirname(folder)
    return None


def _children(paths: Sequence[str]) -> dict[str, dict[str, bool]]:
    """Folder -> its entries (files and folders) -> whether the entry is a folder."""
    out: dict[str, dict[str, bool]] = {}
    for path in paths:
        parts = path.split("/")
        for i, part in enumerate(parts):
            parent = "/".join(parts[:i])
            is_folder = i < len(parts) - 1
            entries = out.setdefault(parent, {})
            entries[part] = entries.get(part, False) or is_folder
    return out


def _stem(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name


def _vendor_peers(paths: Sequence[str], data: Alternatives) -> dict[str, str]:
    out: dict[str, str] = {}
    for parent, entries in _children(paths).items():
        named = {name: words_of(_stem(name) if not folder else name) for name, folder in entries.items()}
        for role in data.roles:
            peers = sorted(n for n, w in named.items() if w & role.peers and not w & role.nvidia
                           and (entries[n] or not role.folders_only))
            if not peers:
                continue
            for name in sorted(n for n, w in named.items() if w & role.nvidia
                               and (not role.folders_only or (entries[n] and not w & (role.peers | data.amd_words)))):
                key = f"{parent}/{name}" if parent else name
                key += "/" if entries[name] else ""
                out.setdefault(key, f"{key}: NVIDIA's {role.name} ({', '.join(sorted(named[name] & role.nvidia))}) "
                                    f"beside {', '.join(peers[:3])} in the same folder: one {role.name} among peers "
                                    f"the user or the machine picks at run time ({RULES} vendor_roles)")
    return out


def backend_packages(paths: Sequence[str], data: Alternatives,
                     manifests: Sequence[str] | None = None) -> dict[str, str]:
    """Folders holding a package manifest of their own (`backend_packages.manifests`, or those given) whose name holds
    an NVIDIA word, beside a sibling package whose name holds a portable platform's word in its place
    (src/Backends/X.Backends.CUDA beside X.Backends.CPU, each with its .csproj) -> the evidence: the folder, ending in
    `/`."""
    manifests = tuple(data.manifests if manifests is None else manifests)
    packages: dict[str, set[str]] = {}  # folder -> the names of the package folders in it
    for path in paths:
        folder, name = posixpath.split(path)
        if folder and (name in manifests or name.endswith(tuple(m for m in manifests if m.startswith(".")))):
            parent, package = posixpath.split(folder)
            packages.setdefault(parent, set()).add(package)
    return {key: (f"{key}: a {said} back-end package beside {peers}, packages of their own in the same folder: the "
                  f"back end the user installs or picks at run time ({RULES} backend_packages)")
            for key, said, peers in _portable_peers(packages, data)}


def _called_backends(parts: Mapping[str, str], facts: Mapping[str, Sequence[Fact]],
                     findings: Iterable[Finding]) -> dict[str, str]:
    """Of the Python back-end packages (a cuda/ package beside cpu/, each with its __init__.py), those whose every
    finding sits in Python code that runs only when called (a function's or a method's body: `deferred_body` facts):
    importing the package binds its functions and loads no CUDA library, so required code may import it; the CUDA
    back end runs only when the user picks its device (candle-org/candle's _backends/cuda/runtime.py binds libcudart
    through ctypes inside _load_cudart(), beside _backends/cpu/ and _backends/mps/). Not one that compiles anything
    (a .cu file in it) or that loads CUDA at import."""
    own: dict[str, list[Finding]] = {part: [] for part in parts}
    for finding in findings:
        for part, found in own.items():
            if _inside(finding.path, part):
                found.append(finding)
    return {part: f"{parts[part].split(':', 1)[0]}: a CUDA back-end Python package beside portable ones, whose CUDA "
                  f"code runs only when called (in function bodies): the back end picked at run time "
                  f"({RULES} backend_packages)"
            for part, found in own.items() if found and all(_when_called(f, facts) for f in found)}


def _when_called(finding: Finding, facts: Mapping[str, Sequence[Fact]]) -> bool:
    return finding.path.endswith(".py") and any(
        f.kind == "deferred_body" and f.line <= finding.line <= f.end_line for f in facts.get(finding.path, ()))


def _portable_peers(siblings: Mapping[str, set[str]], data: Alternatives) -> Iterator[tuple[str, str, str]]:
    """Of each folder's sibling folders (parent -> names), those whose name holds an NVIDIA back-end word beside one
    whose name holds a portable platform's word in its place: (the folder, ending in `/`; its NVIDIA words; the first
    three such peers), as the evidence writes them."""
    for parent, names in siblings.items():
        for name in sorted(names):
            said = words_of(name)
            if not said & data.backend_nvidia:
                continue
            stem = said - data.backend_nvidia
            peers = sorted(n for n in names if (w := words_of(n)) & data.backend_portable
                           and not w & data.backend_nvidia and w - data.backend_portable == stem)
            if peers:
                yield (f"{parent}/{name}/" if parent else f"{name}/", ", ".join(sorted(said & data.backend_nvidia)),
                       ", ".join(peers[:3]))


def vendor_twins(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                 data: Alternatives) -> dict[str, str]:
    """Install, build or deploy files for NVIDIA (`vendor_twins.kinds`: requirements_NVIDIA.txt, Dockerfile.cuda)
    beside a non-empty file of the same kind whose name is the same but for an AMD word in place of the NVIDIA one
    (requirements_AMD.txt, Dockerfile.rocm) -> the evidence: the project ships the AMD variant already."""
    def vendor_words(path: str) -> frozenset[str]:  # `amd64` is a CPU architecture, no vendor: dropped whole
        name = " ".join(t for t in TOKEN.findall(posixpath.basename(path).lower()) if t not in data.not_vendor)
        return words_of(name)

    out: dict[str, str] = {}
    for (_, kind), files in sorted(_same_folder_and_kind(kinds, kinds, data.twin_kinds).items()):
        named = {p: vendor_words(p) for p in files}
        for path in sorted(files):
            said = named[path] & data.twin_nvidia
            if not said or named[path] & data.amd_words:
                continue
            stem = named[path] - data.twin_nvidia
            twins = sorted(p for p, w in named.items() if w & data.amd_words and not w & data.twin_nvidia
                           and w - data.amd_words == stem and facts.get(p))
            if twins:
                out[path] = (f"{path}: a {kind} file for NVIDIA ({', '.join(sorted(said))}) beside its AMD twin "
                             f"{posixpath.basename(twins[0])}: the project ships the AMD variant already ({RULES} "
                             "vendor_twins)")
    return out


def standalone_backends(kinds: Mapping[str, str], data: Alternatives) -> dict[str, str]:
    """Folders built on their own (a `standalone_backends.build_files` file in each, and no build file of
    `enclosing_kinds` in any folder above them) whose name holds a CUDA word, beside such a sibling whose name holds a
    portable platform's word in its place (QuickMatch's cuda/Makefile beside OpenCL/Makefile) -> the evidence: the
    folder, ending in `/`. Each is a program of its own; the portable one runs without NVIDIA's."""
    enclosing = {posixpath.dirname(p) for p, k in kinds.items()
                 if k in data.enclosing_builds or posixpath.basename(p) in data.enclosing_names}
    built: dict[str, set[str]] = {}  # folder -> the names of its sub-folders built on their own
    for path in kinds:
        folder, name = posixpath.split(path)
        if not folder or name.lower() not in data.build_files:
            continue
        parent, program = posixpath.split(folder)
        above = parent
        while above and above not in enclosing:
            above = posixpath.dirname(above)
        if above not in enclosing:
            built.setdefault(parent, set()).add(program)
    return {key: (f"{key}: a {said} program built on its own beside {peers}, built on its own too, and no build above "
                  f"them that joins them: a back end the user builds and runs instead of the portable one ({RULES} "
                  "standalone_backends)")
            for key, said, peers in _portable_peers(built, data)}


def define_variants(kinds: Mapping[str, str], included: AbstractSet[str] = frozenset(),
                    data: Alternatives | None = None) -> dict[str, str]:
    """Build files of `build_variants.define_kinds` (makefiles) for an NVIDIA build beside plain ones of the same
    folder (`makefile.cuda` beside `makefile.nolibs`, `makefile.extlibs`) -> the evidence: the user picks one
    (`make -f makefile.cuda`, or copies it to `Makefile`), so what only such a variant defines is an opt-in. A file
    another build file includes (`included`) is part of that one, no variant."""
    data = data or load()
    if not data.define_kinds:
        return {}
    paths = sorted(p for p in kinds if p not in included)
    return _build_variants(paths, kinds, data, data.define_kinds)


def nvidia_case_arms(facts: Mapping[str, Sequence[Fact]],
                     data: Alternatives | None = None) -> dict[str, list[tuple[int, int, str]]]:
    """Per shell script, (first line, last line, evidence) of each arm of a `case` on the script's command line
    (`shell_case_arm` facts) whose every pattern holds a `build_variants` word and no AMD word (`gpu-cuda)`, `--cuda)`),
    beside an arm whose pattern does not (`scalar|avx2)`, `cpu)`; not the default `*)`): the NVIDIA build is one the
    user asks for on the command line, the others run without it (milc-qcd/milc_qcd Grid/build.sh `case ${ARCH} in`
    with ARCH=$1: `gpu-cuda)` configures with CXX=nvcc beside scalar, avx2 and avx512 arms)."""
    data = data or load()
    groups: dict[tuple[str, str], list[Fact]] = {}
    for path, f in of_kind(facts, "shell_case_arm"):
        groups.setdefault((path, f.text), []).append(f)

    def nvidia(pattern: str) -> bool:
        alternatives = [words_of(p) for p in pattern.split("|")]
        return all(w & data.variant_words and not w & data.amd_words for w in alternatives)

    out: dict[str, list[tuple[int, int, str]]] = {}
    for (path, head), arms in groups.items():
        plain = [a.name for a in arms if a.name.strip() != "*" and not nvidia(a.name)]
        for arm in (a for a in arms if nvidia(a.name)) if plain else ():
            out.setdefault(path, []).append((arm.line, arm.end_line, (
                f"{path}:{arm.line}-{arm.end_line}: the `{arm.name})` arm of `{head}`, beside "
                f"{', '.join(f'`{p})`' for p in plain[:3])}: taken only when the script's command line asks for the "
                f"NVIDIA build ({RULES} build_variants)")))
    return out


def _build_variants(paths: Sequence[str], kinds: Mapping[str, str], data: Alternatives,
                    wanted: AbstractSet[str] | None = None) -> dict[str, str]:
    out: dict[str, str] = {}
    for (_, kind), files in _same_folder_and_kind(paths, kinds, data.variant_kinds if wanted is None else wanted).items():
        plain = [p for p in files if not words_of(posixpath.basename(p)) & data.variant_words]
        if not plain:
            continue
        for path in files:
            named = words_of(posixpath.basename(path))
            said = named & data.variant_words
            if said and not named & data.amd_words:  # not `zenDNN-gpu-hip.dockerfile`: a GPU image for AMD
                out[path] = (f"{path}: a {kind} file for an NVIDIA build ({', '.join(sorted(said))}) beside "
                             f"{', '.join(posixpath.basename(p) for p in sorted(plain)[:3])}: one of several ways to "
                             f"build or deploy the project ({RULES} build_variants)")
    return out


def _folder_variants(paths: Sequence[str], kinds: Mapping[str, str], data: Alternatives) -> dict[str, str]:
    """The same build variants one folder apart: a script or container file in a folder whose name holds a variant
    word, beside a file of the same name and kind in a sibling folder whose name holds none (huggingface/peft's
    docker/peft-gpu/Dockerfile beside docker/peft-cpu/Dockerfile, each an image of its own)."""
    groups: dict[tuple[str, str, str], list[str]] = {}  # (parent of the folder, file name, kind) -> files
    for path in paths:
        folder = posixpath.dirname(path)
        if folder and (kind := kinds.get(path, "")) in data.variant_kinds:
            groups.setdefault((posixpath.dirname(folder), posixpath.basename(path), kind), []).append(path)
    out: dict[str, str] = {}
    for (_, _, kind), files in groups.items():
        plain = [p for p in files if not words_of(_folder_name(p)) & data.variant_words]
        for path in files if plain else ():
            named = words_of(_folder_name(path))
            if (said := named & data.variant_words) and not named & data.amd_words:
                out[path] = (f"{path}: a {kind} file for an NVIDIA build ({', '.join(sorted(said))}) beside "
                             f"{', '.join(sorted(plain)[:3])}: one of several ways to build or deploy the project "
                             f"({RULES} build_variants)")
    return out


def _folder_name(path: str) -> str:
    return posixpath.basename(posixpath.dirname(path))


def _same_folder_and_kind(paths: Iterable[str], kinds: Mapping[str, str],
                          wanted: AbstractSet[str]) -> dict[tuple[str, str], list[str]]:
    """The `paths` whose kind is one of `wanted`, grouped by (folder, kind), in the order given."""
    out: dict[tuple[str, str], list[str]] = {}
    for path in paths:
        if (kind := kinds.get(path, "")) in wanted:
            out.setdefault((posixpath.dirname(path), kind), []).append(path)
    return out


def _development_requirements(kinds: Mapping[str, str], data: Alternatives) -> dict[str, str]:
    return {path: (f"{path}: requirements for developing the project ({', '.join(sorted(said))}), not for running it "
                   f"({RULES} development_requirements)")
            for path, kind in kinds.items() if kind == "requirements"
            and (said := words_of(_stem(posixpath.basename(path))) & data.development_words)}


def _chosen_providers(facts: Mapping[str, Sequence[Fact]], data: Alternatives) -> dict[str, tuple[str, int]]:
    """Python files that name a portable execution provider in a providers list or a query of the available
    providers -> the first such provider and its line."""
    out: dict[str, tuple[str, int]] = {}
    for path, fact in of_kind(facts, "execution_provider"):
        if fact.name in data.portable_providers:
            out.setdefault(path, (fact.name, fact.line))
    return out


def _fallback_providers(findings: Iterable[Finding], data: Alternatives,
                        chosen: Mapping[str, tuple[str, int]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for f in findings:
        if f.symbol not in data.nvidia_providers or not f.source_line:
            continue
        after = f.source_line[f.source_line.find(f.symbol) + len(f.symbol):] if f.symbol in f.source_line else ""
        portable = [p for p in sorted(data.portable_providers) if p in after]
        if portable:
            out[f"{f.path}:{f.line}"] = (f"{f.path}:{f.line}: {f.symbol} before {portable[0]} in one providers list: "
                                         "ONNX Runtime falls back to the next provider where one is not available "
                                         f"({RULES} execution_providers)")
        elif f.path in chosen:
            other, line = chosen[f.path]
            out[f"{f.path}:{f.line}"] = (f"{f.path}:{f.line}: {f.symbol}, and {other} at line {line}: the file "
                                         "chooses among execution providers at run time, a portable one among them "
                                         f"({RULES} execution_providers)")
    return out


def _inside(path: str, part: str) -> bool:
    return path == part or (part.endswith("/") and path.startswith(part))


def _imported_unguarded(facts: Mapping[str, Sequence[Fact]]) -> frozenset[tuple[str, str]]:
    """(importer, module file) of each import outside an optional scope, from a file outside optional folders."""
    index = ModuleIndex(p for p in facts if p.endswith(".py"))
    found: set[tuple[str, str]] = set()
    for path, f in of_kind(facts, "python_import"):
        if optional_root(path) is not None:  # a test or an example importing the module does not need it
            continue
        if f.guard != "optional":
            found.update((path, target) for target in imported_files(index, path, f))
    return frozenset(found)
