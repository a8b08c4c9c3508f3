"""The project around the linted files, as a scan of it sees it: its ROCm path, the files its HIP build
leaves out and its optional parts (workloads/parts.py), so that `lint --fail-on` and `scan` give every
finding the same class. The project's files are read as a scan reads them (analyse.analyse_all, cached
by content), and an unchanged tree is not read again: the stat cache gives its digests."""
from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from migrate.model import Finding, SourceFile, evolve
from migrate.rulebase.load import RuleBase
from migrate.settings import Settings
from migrate.vocabulary import BUILD_FILE_KINDS

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from migrate.scan.analyse import Outcome
    from migrate.scan.cache import Cache
    from migrate.scan.discover import Discovery
    from migrate.scan.statcache import Digests
    from migrate.workloads.parts import ProjectParts, Words  # imported when a project is read: a file linted alone never is

PARTS_FORMAT = "5"


def root_of(targets: Sequence[Path], lint_root: Path, *, declared: bool = False) -> Path | None:
    """The project around the targets, never above the lint root (the working directory, or the configuration
    file's folder: `declared`): the nearest folder with `.git` that holds them all; else the lint root where it
    holds them and is declared or has a build file at its top; else the highest folder below it with a build
    file at its top (a working directory of many unpacked projects is never read whole); None when the targets
    are outside the lint root or no folder qualifies: they are linted alone."""
    paths = [t.resolve() for t in targets]
    if not paths:
        return None
    top = lint_root.resolve()
    start = paths[0] if paths[0].is_dir() else paths[0].parent
    inside = start == top or top in start.parents  # else only a checkout can hold them: no folder is listed
    built: Path | None = None
    for folder in (start, *start.parents):
        holds = all(p == folder or folder in p.parents for p in paths)
        if holds and (folder / ".git").exists():
            return folder
        has_build = holds and inside and _has_build_file(folder)
        if folder == top:
            return folder if holds and (declared or has_build) else built
        built = folder if has_build else built
    return None


def _has_build_file(folder: Path) -> bool:
    """A build file at the folder's top, by the names the scan reads builds from (discover's name kinds,
    the build scripts the ported-path evidence knows)."""
    from migrate.scan.discover import NAME_KINDS
    from migrate.workloads.ported import BUILD_SCRIPTS

    try:
        names = os.listdir(folder)
    except OSError:
        return False
    return any(NAME_KINDS.get(name.lower()) in BUILD_FILE_KINDS or name in BUILD_SCRIPTS for name in names)


def parts_of(root: Path, settings: Settings, rules: RuleBase) -> ProjectParts:
    """The project's parts, from every file a scan of `root` reads; kept in the cache under the
    project's content (every file's digest), the rules, the targets and the code that decides them.
    Where the cache is there, what the read writes (the stat row, the rows of the files analysed, the parts) is
    committed once: each commit syncs the disk (~10-40 ms on this project's machine), and a lint of an edited file
    made three. A first lint (no cache file yet) writes as a scan does."""
    from migrate.scan.cache import Cache
    from migrate.scan.discover import discover
    from migrate.scan.statcache import Digests

    found = discover([root], include_vendored=settings.include_vendored, exclude=settings.exclude)
    cache = Cache(settings.cache_dir)
    digests = Digests(cache, f"{found.root}\0{settings.max_file_size}", started=found.started_ns)
    if not cache.exists():
        return _parts(found, cache, digests, settings, rules)
    cache.hold_writes()
    try:
        return _parts(found, cache, digests, settings, rules)
    finally:
        cache.write_held()


def _parts(found: Discovery, cache: Cache, digests: Digests, settings: Settings,
           rules: RuleBase) -> ProjectParts:
    """The parts stored under the project's key, else decided from every file's analysis (parts_of)."""
    import hashlib

    from migrate import jsonio
    from migrate.scan.analyse import analyse_all, result_version
    from migrate.workloads import parts

    key = hashlib.sha256(f"project-parts\0{PARTS_FORMAT}\0{result_version(rules, settings)}\0{_code_key()}\0"
                         f"{jsonio.dumps(settings.workloads).decode()}".encode())  # declared workloads decide build kinds
    for file in found.files:
        digest, reason = digests.digest(file, settings.max_file_size)
        key.update(f"{file.rel}\0{file.kind}\0{digest}\0{reason}\0".encode("utf-8", "surrogateescape"))
    digests.save()
    known = parts.words(rules.directory)
    stored = cache.get_rows([key.hexdigest()]).get(key.hexdigest()) if cache.exists() else None
    if stored is not None:
        try:
            return parts.from_json(jsonio.loads(stored), known)
        except (ValueError, KeyError, TypeError):
            pass  # another shape: decided again below
    outcomes = analyse_all(found.files, settings, rules, known=digests.known, cache=cache)
    project = _decide(outcomes, found.files, settings, rules, known=known, root_name=found.root.name or "root")
    cache.put_rows([(key.hexdigest(), jsonio.dumps(parts.to_json(project)))])
    return project


def _decide(outcomes: Sequence[Outcome], files: Sequence[SourceFile], settings: Settings, rules: RuleBase, *,
            known: Words, root_name: str) -> ProjectParts:
    from migrate.scan.layout import left_in_backend_files
    from migrate.scan.match import indexes, merge_targets
    from migrate.workloads import assemble, fact_index, parts
    from migrate.workloads.classify import hipified_by_build

    scanned = [(o.file, o.result) for o in outcomes if o.ok and o.result is not None]
    findings = merge_targets([r for _, r in scanned], settings.arch,
                             left_in_backend_files(rules, [f.rel for f in files]),
                             paths=[f.rel for f, _ in scanned],
                             indexes=indexes(rules, rocm=settings.rocm, archs=settings.arch))
    facts = fact_index.indexed((f.rel, r.facts) for f, r in scanned)  # each kind's facts listed once
    specs = assemble.workloads([f for f, _ in scanned], facts, root_name=root_name, declared=settings.workloads)
    return parts.build(facts, {f.rel: f.kind for f, _ in scanned}, findings, known,
                       build_kinds=hipified_by_build((s.kind, s.files) for s in specs))


@lru_cache(maxsize=1)
def _code_key() -> str:
    """The code that decides the parts from the facts and findings."""
    import hashlib

    from migrate.workloads import (
        assemble,
        build_sources,
        classify,
        includes,
        left_out,
        modules,
        optional_imports,
        optional_words,
        parts,
        ported,
        switches,
        unbuilt,
    )

    digest = hashlib.sha256()
    for module in (parts, ported, modules, assemble, classify, optional_words, build_sources, switches, includes,
                   unbuilt, left_out, optional_imports):
        digest.update(Path(module.__file__).read_bytes())  # type: ignore[arg-type]
    return digest.hexdigest()


def with_status(findings: Sequence[Finding], project: ProjectParts, root: Path, cwd: Path) -> list[Finding]:
    """Lint's findings (paths relative to `cwd`) with the status a scan of `root` gives them."""
    out = []
    for f in findings:
        rel = _in_project(f.path, root, cwd)
        out.append(f if rel is None else evolve(project.apply(evolve(f, path=rel)), path=f.path))
    return out


def build_kinds(findings: Sequence[Finding], project: ProjectParts, root: Path, cwd: Path) -> dict[str, str]:
    """Lint's paths -> the kind of the scan's workload whose build hipifies the file (a torch extension's sources
    and the headers they include: PyTorch's ROCm build hipifies them), as `project.build_kinds` has them."""
    out = {}
    for path in {f.path for f in findings}:
        rel = _in_project(path, root, cwd)
        if rel is not None and rel in project.build_kinds:
            out[path] = project.build_kinds[rel]
    return out


def _in_project(path: str, root: Path, cwd: Path) -> str | None:
    """A lint path (relative to `cwd`) relative to the project root, or None outside it."""
    try:
        return (cwd / path).resolve().relative_to(root).as_posix()
    except ValueError:
        return None
