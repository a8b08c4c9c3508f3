"""discover: walk the targets, honour .gitignore, skip vendored trees, give every file a kind.

The tree is the boundary: a symbolic link is followed only when what it points at lies
inside the scanned root (a directory once), and only regular files are ever opened.
Inside a git checkout git itself decides what is ignored (`git ls-files --cached --others
--exclude-standard`): a tracked file that matches .gitignore is scanned, negations behave as in git.
Below a nested repository, a submodule or a tracked symlink to a directory, and wherever git is
missing or fails (a note says so), the .gitignore files are matched with pathspec instead."""
from __future__ import annotations

import errno
import fnmatch
import itertools
import os
import re
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from migrate.model import Skipped, SourceFile
from migrate.scan.readfile import read_regular
from migrate.scan.vendored import (
    MARKER_BYTES,
    header_copy,
    library_copy,
    module_copy,
    own_build_scripts,
    release_archive,
    script_parent,
    vendored_folder,
)

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:  # pathspec (and git, in _listing) only when a folder is walked or a pattern given:
    import pathspec  # lint of named files, the pre-commit case, needs neither

# A `build/` folder is the project's own build system (autotools' Makefile.in and configure.ac under build/linux,
# MSVC projects under build/msvc) unless a build tool has written into it: its build files are read (the other
# files are not), so a HIP build kept there is seen. What the tools write at the top of their build folder:
# https://cmake.org/cmake/help/latest/manual/cmake.1.html (CMakeCache.txt, CMakeFiles/),
# https://mesonbuild.com/Running-Meson.html (build.ninja, meson-private/),
# https://www.gnu.org/software/autoconf/manual/autoconf.html#config_002estatus-Invocation (config.status),
# https://setuptools.pypa.io/en/latest/deprecated/distutils/builtdist.html (lib.*, temp.*, bdist.* folders).
SOURCE_BUILD_FOLDERS = frozenset({"build"})
BUILD_OUTPUT_MARKERS = frozenset({"CMakeCache.txt", "CMakeFiles", "build.ninja", ".ninja_log", "meson-private",
                                  "config.status", "config.log", "compile_commands.json"})
BUILD_OUTPUT_GLOBS = ("lib.*", "temp.*", "bdist.*", "*.o", "*.obj", "*.so", "*.a")
BUILD_FILE_KINDS = frozenset({"makefile", "cmake"})
SOURCE_BUILD_FOLDER_WALK = 64  # folders looked into for a build file before a `build/` folder is taken as output
SUFFIX_KINDS = {
    ".cu": "cuda", ".cuh": "cuda",
    ".c": "cpp", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".h": "cpp", ".hpp": "cpp",
    ".hh": "cpp", ".hxx": "cpp", ".inl": "cpp", ".ipp": "cpp", ".tpp": "cpp", ".hip": "hip",
    ".py": "python", ".ipynb": "notebook", ".cmake": "cmake", ".mk": "makefile", ".mak": "makefile",
    ".vcxproj": "vsproject", ".vcproj": "vsproject",
    # .NET project files (MSBuild SDK projects: https://learn.microsoft.com/en-us/dotnet/core/project-sdk/overview):
    # the NuGet packages they reference and where a .NET package is (extract/text/dotnet.py)
    ".csproj": "dotnet", ".fsproj": "dotnet", ".vbproj": "dotnet",
    # autoconf macro files (a project's m4/ or config/ folder, acinclude.m4): their AC_DEFUN bodies are configure code
    # (extract/text/autoconf.py reads them as it reads configure.ac)
    ".m4": "m4",
    # Julia sources: CUDA.jl kernel launches (extract/text/julia.py)
    ".jl": "julia",
    # Fortran sources: CUDA Fortran (extract/text/fortran.py); the suffix tells the source form (Fortran 2018, 6.3;
    # gfortran's and nvfortran's conventions: .f/.for/.ftn fixed form, .f90 and later free form, .cuf CUDA Fortran in
    # free form; an upper-case suffix only asks for the preprocessor)
    ".f90": "fortran", ".f95": "fortran", ".f03": "fortran", ".f08": "fortran", ".cuf": "fortran",
    ".f": "fortran_fixed", ".for": "fortran_fixed", ".ftn": "fortran_fixed", ".f77": "fortran_fixed",
    ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".sbatch": "shell", ".slurm": "shell",
    # prebuilt libraries and programs: their own headers are read (extract/binary.py), never their code
    ".so": "binary", ".dll": "binary", ".exe": "binary", ".pyd": "binary", ".dylib": "binary",
    ".mexa64": "binary", ".mexw64": "binary", ".mexmaci64": "binary",
}
NAME_KINDS = {
    "cmakelists.txt": "cmake", "makefile": "makefile", "gnumakefile": "makefile",
    "pyproject.toml": "pyproject", "pipfile": "pyproject", "setup.cfg": "setupcfg", ".gitlab-ci.yml": "manifest",
    ".gitmodules": "gitmodules", "cargo.toml": "cargo", "pom.xml": "maven", "configure.ac": "autoconf",
    "configure.in": "autoconf",
    # a Go module's manifest (https://go.dev/ref/mod#go-mod-file): the modules it requires (extract/text/gomod.py);
    # workloads/reach.py sees a Go module at the top by its name
    "go.mod": "go_module",
    # NuGet's package list of a .NET Framework project (https://learn.microsoft.com/en-us/nuget/reference/packages-config;
    # extract/text/dotnet.py)
    "packages.config": "dotnet",
    # a Cargo package's build script (https://doc.rust-lang.org/cargo/reference/build-scripts.html): the C/C++/CUDA
    # files it compiles and the features it compiles them under (extract/text/cargo_build.py)
    "build.rs": "cargo_build",
    # a Julia project file (https://pkgdocs.julialang.org/v1/toml-files/): its [deps] and [weakdeps]
    "project.toml": "julia_project",
    # the configuration a static documentation site's generator reads at the site's root: the folder holding it is the
    # site, its pages, tutorials and their example files the material it shows (workloads/doc_sites.py). Docusaurus
    # (https://docusaurus.io/docs/configuration: docusaurus.config.js/.ts at the site's root), Hugo
    # (https://gohugo.io/getting-started/configuration/: hugo.toml/.yaml/.json), mdBook
    # (https://rust-lang.github.io/mdBook/format/configuration/index.html: book.toml), Antora
    # (https://docs.antora.org/antora/latest/playbook/: antora-playbook.yml). Not mkdocs.yml: Python packages keep it
    # beside their code at the top (microsoft/AirSim, NeptuneHub/AudioMuse-AI), where it builds their docs/ only.
    "docusaurus.config.js": "doc_site", "docusaurus.config.ts": "doc_site", "docusaurus.config.mjs": "doc_site",
    "docusaurus.config.cjs": "doc_site", "hugo.toml": "doc_site", "hugo.yaml": "doc_site", "hugo.json": "doc_site",
    "book.toml": "doc_site", "antora-playbook.yml": "doc_site",
}
NAME_GLOBS = (
    ("dockerfile*", "dockerfile"), ("*.dockerfile", "dockerfile"), ("containerfile*", "dockerfile"),
    ("*.containerfile", "dockerfile"), ("makefile.*", "makefile"),
    ("*requirements*.txt", "requirements"), ("*requirements*.in", "requirements"), ("constraints*.txt", "requirements"),
    ("*.so.[0-9]*", "binary"), ("docker-compose*.y*ml", "manifest"), ("compose*.y*ml", "manifest"),
    ("environment*.y*ml", "conda"), ("*[-_]environment*.y*ml", "conda"), ("conda*.y*ml", "conda"),
)
REQUIREMENTS_DIRS = frozenset({"requirements", "reqs"})
SNIFF_BYTES = 64 * 1024
ELF_MAGIC = b"\x7fELF"  # a program or library without a suffix (https://refspecs.linuxfoundation.org/elf/gabi4+/ch4.eheader.html)
IGNORE_FILE_BYTES = 1 << 20  # a .gitignore larger than this is read only this far
PATTERN_CHARS = 1024  # longer ignore patterns are dropped (their regexes can backtrack for minutes)
PATTERN_WILDCARDS = 32
STARS = re.compile(r"\*{3,}")
K8S = re.compile(rb"^(apiVersion|kind):", re.MULTILINE)
CGO = re.compile(rb"^[ \t]*(?://)?[ \t]*#cgo[ \t]", re.MULTILINE)  # a cgo directive (https://pkg.go.dev/cmd/cgo)
# a Java file that names a call loading a native library, through JNA or JNI (rules/names/libraries.yaml
# `java_loaders`, the list extract/text/java.py reads the loads with): _java_native_load, built when a first .java
# file is sniffed, so a run with none reads no list
SHEBANG = re.compile(rb"^#!.*\b(?:(ba|z|da)?sh|python3?)\b")
# Whether any of NAME_GLOBS matches (fnmatch's own regexes, one alternation): most names match
# none, and a failed search costs one regex instead of one fnmatch per glob.
ANY_NAME_GLOB = re.compile("|".join(fnmatch.translate(pattern) for pattern, _ in NAME_GLOBS))


@dataclass(frozen=True, slots=True, kw_only=True)
class Discovery:
    """The files found under a root, those skipped, notes, and when the walk started."""

    root: Path
    files: tuple[SourceFile, ...]
    skipped: tuple[Skipped, ...]
    notes: tuple[str, ...] = ()
    started_ns: int = 0  # time.time_ns() before any file was stat'ed (what the stat cache's racy rule needs)


def discover(targets: list[Path], *, include_vendored: bool = False, exclude: tuple[str, ...] = ()) -> Discovery:
    """Every scannable file under the targets, with paths relative to their common root."""
    started_ns = time.time_ns()
    # A named file keeps its own name: a link is judged like one met in a walk (refused when it
    # points outside the folder it is in), never replaced by what it points at.
    resolved = [t.resolve() if t.is_dir() else t.absolute().parent.resolve() / t.name for t in targets]
    root = Path(os.path.commonpath([t if t.is_dir() else t.parent for t in resolved]))
    notes: list[str] = []
    walker = _Walker(root, include_vendored, bounded_spec(exclude, "--exclude", notes) if exclude else None, notes)
    for target in resolved:
        if target.is_dir():
            walker.walk(target)
        else:
            walker.file(target, explicit=True, link=target.is_symlink())
    files = sorted(walker.files.values(), key=lambda f: f.rel)
    return Discovery(root=root, files=tuple(files), skipped=tuple(sorted(walker.skipped, key=lambda s: s.path)),
                     notes=tuple(walker.notes), started_ns=started_ns)


def bounded_spec(lines: list[str] | tuple[str, ...], origin: str, notes: list[str]) -> pathspec.GitIgnoreSpec:
    """A gitignore spec of `bounded_lines`."""
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(bounded_lines(lines, origin, notes))


def bounded_lines(lines: list[str] | tuple[str, ...], origin: str, notes: list[str]) -> list[str]:
    """Gitignore lines without the patterns whose regexes could backtrack for minutes:
    runs of three or more `*` mean `*` to git (or `**` between slashes) and are folded;
    a pattern still longer than PATTERN_CHARS or with more than PATTERN_WILDCARDS
    wildcards is dropped with a note."""
    kept = []
    for number, line in enumerate(lines, start=1):
        line = STARS.sub(_fold_stars, line)
        if len(line) > PATTERN_CHARS or line.count("*") + line.count("?") > PATTERN_WILDCARDS:
            notes.append(f"{origin}: pattern {number} ignored: longer than {PATTERN_CHARS} characters or more "
                         f"than {PATTERN_WILDCARDS} wildcards")
            continue
        kept.append(line)
    return kept


class _Spec:
    """A .gitignore's patterns, compiled when first matched: inside a git checkout git answers
    first, and most scans never need them (nor the pathspec import)."""

    __slots__ = ("_spec", "lines")

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self._spec: pathspec.GitIgnoreSpec | None = None

    def match_file(self, rel: str) -> bool:
        if self._spec is None:
            import pathspec

            self._spec = pathspec.GitIgnoreSpec.from_lines(self.lines)
        return bool(self._spec.match_file(rel))


def _fold_stars(m: re.Match[str]) -> str:
    text, start, end = m.string, m.start(), m.end()
    delimited = (start == 0 or text[start - 1] == "/") and (end == len(text) or text[end] == "/")
    return "**" if delimited else "*"


def file_kind(path: Path, *, sniff: bool = True) -> str | None:
    """The kind of a file by its name, else (when `sniff`) by its first bytes."""
    name = path.name.lower()
    if name in NAME_KINDS:
        return NAME_KINDS[name]
    if ANY_NAME_GLOB.match(os.path.normcase(name)):
        for pattern, kind in NAME_GLOBS:
            if fnmatch.fnmatch(name, pattern):
                return kind
    suffix = path.suffix.lower()
    if suffix in (".yml", ".yaml") and path.parent.name == "workflows" and path.parent.parent.name == ".github":
        return "manifest"  # CI workflows: container images and GPU runners
    if suffix in (".txt", ".in") and path.parent.name.lower() in REQUIREMENTS_DIRS:
        return "requirements"  # requirements/base.txt, requirements/cuda.in
    if suffix in (".go", ".java"):  # only a Go file that uses cgo, a Java file that loads one, binds a native library
        return _sniff(path) if sniff else None
    suffix_kind = SUFFIX_KINDS.get(suffix)
    if suffix_kind or suffix not in ("", ".yaml", ".yml"):
        return suffix_kind
    return _sniff(path) if sniff else None


def _sniff(path: Path) -> str | None:
    try:
        head = read_regular(path, SNIFF_BYTES)
    except OSError:
        return None
    if path.suffix.lower() in (".yaml", ".yml"):
        return "manifest" if K8S.search(head) or b"nvidia.com/" in head else None
    if path.suffix.lower() == ".go":
        return "go" if CGO.search(head) else None
    if path.suffix.lower() == ".java":
        return "java" if _java_native_load().search(head) else None
    m = SHEBANG.match(head)
    if m:
        return "python" if b"python" in m.group(0) else "shell"
    return "binary" if head.startswith(ELF_MAGIC) else None


@cache
def _java_native_load() -> re.Pattern[bytes]:
    """Any name of `java_loaders` not preceded by a word character (a name that starts another, `Native.load` of
    `Native.loadLibrary`, finds both)."""
    from migrate.rulebase import name_lists  # imported by lint before discover: read here, not at import

    return re.compile(rb"(?<!\w)(?:" + name_lists.alternatives("libraries", "java_loaders").encode() + rb")")


class _Walker:
    def __init__(self, root: Path, include_vendored: bool, exclude: pathspec.GitIgnoreSpec | None,
                 notes: list[str]) -> None:
        self.root = root
        self.include_vendored = include_vendored
        self.exclude = exclude
        self.notes = notes
        self.git_root = _git_root(root)
        self._root_prefix = _prefix(root)
        self._git_prefix = _prefix(self.git_root) if self.git_root is not None else ""
        self.files: dict[str, SourceFile] = {}
        self.skipped: list[Skipped] = []
        self._seen_dirs: set[Path] = set()
        self._build_files_only: set[Path] = set()  # source build folders (SOURCE_BUILD_FOLDERS) and below
        self.listing: _GitListing | None = None
        self._tops: set[Path] = set()  # the folders named to the scan: never taken for a library's copy
        self._listed = False  # git is asked when a folder is first walked (named files need no listing)

    def rel(self, path: Path) -> str:
        """The path relative to the root, '/'-separated (the root itself: its name)."""
        return path.name if path == self.root else _relative(path, self.root, self._root_prefix)

    def walk(self, top: Path) -> None:
        if not self._listed and self.git_root is not None:
            self.listing = _listing(self.git_root, self.notes)
        self._listed = True
        self._tops.add(top)
        specs = self._ancestor_specs(top)
        self._walk_dir(top, specs)

    def _walk_dir(self, directory: Path, specs: list[tuple[Path, _Spec]],
                  real: Path | None = None) -> None:
        """Every folder below `directory`, depth first in name order, without recursion (a tree
        a thousand folders deep is input like any other). `real` is the directory's real path
        when the caller knows it (a folder, not a link, inside a folder whose real path is known)."""
        stack: list[Iterator[tuple[Path, list[tuple[Path, _Spec]], Path | None]]] = [iter([(directory, specs, real)])]
        while stack:
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
                continue
            folders = self._enter(*step)
            if folders:
                stack.append(iter(folders))

    def _enter(self, directory: Path, specs: list[tuple[Path, _Spec]],
               real: Path | None) -> list[tuple[Path, list[tuple[Path, _Spec]], Path | None]]:
        """One folder: its files are taken, its subfolders returned in order to be walked."""
        try:
            real = real or Path(os.path.realpath(directory, strict=True))
        except OSError as exc:
            reason = "symlink loop" if exc.errno == errno.ELOOP else f"unreadable directory: {exc.strerror}"
            self.skipped.append(Skipped(path=self.rel(directory), reason=reason))
            return []
        if not _inside(real, self.root):
            self.skipped.append(Skipped(path=self.rel(directory) + "/", reason="symlink to outside the scanned tree"))
            return []
        if real in self._seen_dirs:
            self.skipped.append(Skipped(path=self.rel(directory), reason="symlink loop (directory already scanned)"))
            return []
        self._seen_dirs.add(real)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            self._gitignore(directory)  # its notes (too long, patterns dropped), as when it was read first
            self.skipped.append(Skipped(path=self.rel(directory), reason=f"unreadable directory: {exc.strerror}"))
            return []
        names = {e.name for e in entries}
        if not self.include_vendored and directory not in self._tops and self._library_copy(directory, names):
            return []
        copied = frozenset() if self.include_vendored or directory in self._tops else self._header_copy(directory, names)
        specs = specs + self._gitignore(directory, names)
        folders: list[tuple[Path, list[tuple[Path, _Spec]], Path | None]] = []
        for entry in entries:
            path = Path(entry.path)
            is_dir = _is_dir(entry)
            if self._ignored(path, is_dir, specs):
                continue
            if is_dir:
                if directory in self._build_files_only:
                    self._build_files_only.add(path)
                elif not self.include_vendored and entry.name.casefold() in SOURCE_BUILD_FOLDERS \
                        and not _is_link(entry) \
                        and _source_build_folder(path):  # a link is not looked into before _enter checks where it goes
                    self._build_files_only.add(path)
                    self.skipped.append(Skipped(path=self.rel(path) + "/", reason="the project's build folder: only its "
                                                "build files are read (use --include-vendored)"))
                elif not self.include_vendored and vendored_folder(entry.name) \
                        and not (not _is_link(entry) and _scripts_only(path, directory.name)):
                    if entry.name not in (".git", "__pycache__"):
                        self.skipped.append(Skipped(path=self.rel(path) + "/",
                                                    reason="vendored or build directory (use --include-vendored)"))
                    continue
                elif not self.include_vendored and not _is_link(entry) \
                        and (archive := release_archive(entry.name, names)) is not None and _own_build(path):
                    self.skipped.append(Skipped(path=self.rel(path) + "/", reason=f"unpacked from {archive} beside it, "
                                                "with a build of its own: another project's release kept in this one "
                                                "(use --include-vendored)"))
                    continue
                folders.append((path, specs, None if _is_link(entry) else real / entry.name))
            elif entry.name in copied:
                continue
            elif self.include_vendored or not self._module_copy(path, link=_is_link(entry)):
                self.file(path, explicit=False, link=_is_link(entry), build_files_only=directory in self._build_files_only)
        return folders

    def _module_copy(self, path: Path, *, link: bool) -> bool:
        """Whether the file is a copy of one of CMake's own modules (scan.vendored.module_copy); it is then listed as
        skipped. A link is left to `file`, which checks where it goes."""
        rel = self.rel(path)
        copy = None if link else module_copy(rel, lambda: read_regular(path, MARKER_BYTES))
        if copy is not None:
            self.skipped.append(Skipped(path=rel, reason=f"a copy of {copy.library}: CMake's code, not the "
                                        "project's (use --include-vendored)"))
        return copy is not None

    def _library_copy(self, directory: Path, names: set[str]) -> bool:
        """Whether the folder is a copy of a library (scan.vendored.library_copy); it is then listed as skipped."""
        rel = self.rel(directory)
        copy = library_copy(rel, names, lambda name: read_regular(directory / name, MARKER_BYTES))
        if copy is not None:
            self.skipped.append(Skipped(path=rel + "/", reason=f"a copy of {copy.library}: the library's code, not "
                                        "the project's (use --include-vendored)"))
        return copy is not None

    def _header_copy(self, directory: Path, names: set[str]) -> frozenset[str]:
        """The names of the folder's files that are a library's public headers copied as loose files
        (scan.vendored.header_copy); each is listed as skipped. The folder's other files are walked."""
        found = header_copy(names, lambda name: read_regular(directory / name, MARKER_BYTES),
                            lambda rel: os.path.isfile(directory / rel))
        if found is None:
            return frozenset()
        copy, headers = found
        prefix = "" if directory == self.root else self.rel(directory) + "/"
        for name in sorted(headers):
            self.skipped.append(Skipped(path=prefix + name, reason=f"a copy of {copy.library}: the library's code, "
                                        "not the project's (use --include-vendored)"))
        return headers

    def file(self, path: Path, *, explicit: bool, link: bool = False, build_files_only: bool = False) -> None:
        rel = self.rel(path)
        if build_files_only and file_kind(path, sniff=False) not in BUILD_FILE_KINDS:
            return
        if link:
            try:
                real = Path(os.path.realpath(path, strict=True))
            except OSError as exc:
                reason = "symlink loop" if exc.errno == errno.ELOOP else \
                    "broken symlink" if exc.errno == errno.ENOENT else f"unreadable: {exc.strerror}"
                self.skipped.append(Skipped(path=rel, reason=reason))
                return
            if not _inside(real, self.root):
                self.skipped.append(Skipped(path=rel, reason="symlink to outside the scanned tree"))
                return
        try:
            info = path.stat()
        except OSError as exc:
            self.skipped.append(Skipped(path=rel, reason=f"unreadable: {exc.strerror}"))
            return
        regular = stat.S_ISREG(info.st_mode)
        kind = file_kind(path, sniff=regular)
        if kind is None:
            if explicit:
                self.skipped.append(Skipped(path=rel, reason="not a file kind rocm-migrate scans"))
            return
        if not regular:
            self.skipped.append(Skipped(path=rel, reason="not a regular file"))
            return
        self.files[rel] = SourceFile(path=path, rel=rel, kind=kind, size=info.st_size,
                                     stamp=(info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev))

    def _ignored(self, path: Path, is_dir: bool, specs: list[tuple[Path, _Spec]]) -> bool:
        rel_root = self.rel(path) + ("/" if is_dir else "")
        if self.exclude is not None and self.exclude.match_file(rel_root):
            return True
        if self.listing is not None and self.git_root is not None:
            verdict = self.listing.ignored(_relative(path, self.git_root, self._git_prefix), is_dir)
            if verdict is not None:
                return verdict
        for base, spec in specs:
            try:  # path.relative_to(base).as_posix() by the text below the base: no path object built per entry
                rel = _relative(path, base, _prefix(base)) + ("/" if is_dir else "")
            except ValueError:
                continue
            if spec.match_file(rel):
                return True
        return False

    def _gitignore(self, directory: Path, names: set[str] | None = None) -> list[tuple[Path, _Spec]]:
        """The ignore files of a folder (`names`: what the folder holds, when it was listed)."""
        if self.git_root is None:
            return []
        found = []
        for name in (".gitignore",) + ((".git/info/exclude",) if directory == self.git_root else ()):
            if names is not None and name.split("/")[0] not in names:
                continue  # not there: what reading it would have found
            path = directory / name
            try:
                if path.is_symlink() and not _inside(Path(os.path.realpath(path)), self.git_root):
                    raise OSError(errno.EXDEV, "a symbolic link to outside the checkout")
                data = read_regular(path, IGNORE_FILE_BYTES + 1)
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError as exc:
                self.notes.append(f"{self.rel(path) if _inside(path, self.root) else path}: not read "
                                  f"({exc.strerror or 'not a regular file'})")
                continue
            if len(data) > IGNORE_FILE_BYTES:
                self.notes.append(f"{self.rel(path)}: only the first {IGNORE_FILE_BYTES} bytes were read")
            lines = data[:IGNORE_FILE_BYTES].decode("utf-8", errors="replace").splitlines()
            found.append((directory, _Spec(bounded_lines(lines, self.rel(path) if _inside(path, self.root)
                                                         else str(path), self.notes))))
        return found

    def _ancestor_specs(self, top: Path) -> list[tuple[Path, _Spec]]:
        if self.git_root is None or top == self.git_root:
            return []
        specs = []
        for parent in reversed(top.parents):
            if parent == self.git_root or self.git_root in parent.parents:
                specs += self._gitignore(parent)
        return specs


class _GitListing:
    """What `git ls-files` listed: files, the folders that hold them, and opaque entries (nested
    repositories, submodules, symlinks to folders) below which git lists nothing."""

    def __init__(self, git_root: Path, paths: list[str]) -> None:
        self.git_root = git_root
        self.listed = {p.rstrip("/") for p in paths}
        self.opaque = {p.rstrip("/") for p in paths if p.endswith("/")}
        self.dirs = {parent for p in self.listed for parent in _parents(p)}

    def ignored(self, rel: str, is_dir: bool) -> bool | None:
        """True or False as git decides; None below an opaque entry (the caller matches .gitignore)."""
        if self.opaque and any(parent in self.opaque for parent in _parents(rel)):
            return None
        if is_dir:
            if rel in self.listed:
                self.opaque.add(rel)  # a submodule or a tracked symlink to a folder: git lists nothing below
                return False
            return rel not in self.dirs
        return rel not in self.listed


def _listing(git_root: Path, notes: list[str]) -> _GitListing | None:
    from migrate import vcs

    notes.extend(vcs.checkout_notes(git_root))
    try:
        return _GitListing(git_root, vcs.listed_files(git_root))
    except vcs.GitError as exc:
        notes.append(f"{exc}; .gitignore files matched without git, which can differ from git "
                     "(negations across folders, tracked files that match .gitignore)")
        return None


def _parents(rel: str) -> list[str]:
    """'a/b/c' -> ['a', 'a/b']."""
    parts = rel.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def _git_root(path: Path) -> Path | None:
    for candidate in (path, *path.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _prefix(folder: Path) -> str:
    """The text every path below the folder starts with."""
    text = str(folder)
    return text if text.endswith(os.sep) else text + os.sep


def _relative(path: Path, folder: Path, prefix: str) -> str:
    """`path.relative_to(folder).as_posix()`; `prefix` is `_prefix(folder)`: below it, the path's
    text past it, without building paths."""
    text = str(path)
    if os.sep == "/" and len(text) > len(prefix) and text.startswith(prefix):
        return text[len(prefix):]
    return path.relative_to(folder).as_posix()


def _inside(path: Path, root: Path) -> bool:
    """Whether the path is the root or below it (as paths, lexically)."""
    if os.sep == "/":
        text = str(path)
        return text == str(root) or text.startswith(_prefix(root))
    return path == root or root in path.parents


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


def _source_build_folder(path: Path) -> bool:
    """Whether a `build/` folder holds the project's own build files, not what a build tool wrote: none of the
    tools' markers at its top, and a build file somewhere below (a Makefile.in, a CMake module)."""
    try:
        names = [e.name for e in os.scandir(path)]
    except OSError:
        return False
    if any(n in BUILD_OUTPUT_MARKERS or any(fnmatch.fnmatch(n, g) for g in BUILD_OUTPUT_GLOBS) for n in names):
        return False
    for _, _, files in itertools.islice(os.walk(path), SOURCE_BUILD_FOLDER_WALK):
        if any(file_kind(Path(f), sniff=False) in BUILD_FILE_KINDS for f in files):
            return True
    return False


def _own_build(path: Path) -> bool:
    """Whether a folder holds a build file (a CMakeLists.txt, a Makefile) at its top, or at the top of its only
    entry where that is a folder (an archive's own top folder): a project of its own (scan.vendored.release_archive)."""
    for _ in range(2):
        try:
            entries = list(os.scandir(path))
        except OSError:
            return False
        if any(file_kind(Path(e.name), sniff=False) in BUILD_FILE_KINDS and not e.name.endswith(".cmake")
               and e.is_file(follow_symlinks=False) for e in entries):
            return True
        if len(entries) != 1 or not _is_dir(entries[0]) or _is_link(entries[0]):
            return False
        path = Path(entries[0].path)
    return False


def _scripts_only(path: Path, parent: str) -> bool:
    """Whether the vendored-named folder at `path` is the project's own build scripts (scan.vendored.own_build_scripts):
    at most SOURCE_BUILD_FOLDER_WALK files, looked at by name only; walked only in a folder that may hold them."""
    if not script_parent(parent):
        return False
    files: list[str] = []
    try:
        for _, _dirs, names in os.walk(path):
            files += names
            if len(files) > SOURCE_BUILD_FOLDER_WALK:
                return False
    except OSError:
        return False
    return own_build_scripts(parent, files)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
