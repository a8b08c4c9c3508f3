"""Code that needs a GPU package the project's install does not bring (rules/workloads/installs.yaml): in a project
that declares its dependencies and names none of the package's distributions, an import of the package inside a
function or a branch, or at the top of a module of a package that the project never imports at load time, runs only
where the user installed the package: a back end the user opts into, an optional part with its own class. A package
that a module the project loads (or runs) imports at its top level is needed by every run, declared or not."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from migrate.model import Fact
from migrate.rulebase import datafile
from migrate.rulebase.load import default_rules_dir
from migrate.workloads.modules import ModuleIndex
from migrate.workloads.optional_imports import imported_files
from migrate.workloads.optional_words import DataError

RULES = "rules/workloads/installs.yaml"
MANIFEST_KINDS = frozenset({"pyproject", "setupcfg", "requirements"})  # and setup.py (kind python)
RUN_DIRECTLY = frozenset({"__init__.py", "__main__.py", "setup.py"})  # imported or run whenever the package is
Scope = tuple[int, int, str]  # first line, last line (0, 0: the whole file), evidence


@dataclass(frozen=True, slots=True)
class Package:
    """One package: the module names it installs and the names of its distributions."""

    name: str
    modules: frozenset[str]
    distributions: frozenset[str]
    pattern: re.Pattern[str] | None

    def installed_by(self, requirement: str) -> bool:
        return requirement in self.distributions or bool(self.pattern and self.pattern.match(requirement))


def read_installs(directory: Path | None = None) -> tuple[Path, object] | None:
    """rules/workloads/installs.yaml of a rules directory: its path and parsed data, None where the directory has no
    such file. The one reader of the file: load (its packages) and extra_installs.requirements (its requires)."""
    path = (directory or default_rules_dir()) / "workloads" / "installs.yaml"
    if not path.is_file():
        return None
    return path, datafile.read(path)


@lru_cache(maxsize=4)
def load(directory: Path | None = None) -> tuple[Package, ...]:
    read = read_installs(directory)
    if read is None:  # a rules directory without the file: no such parts
        return ()
    path, data = read
    entries = data.get("packages") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise DataError(f"{path}: packages: a list")
    out = []
    for entry in entries:
        if not (isinstance(entry, dict) and str(entry.get("source", "")).startswith("https://")
                and isinstance(entry.get("modules"), list) and isinstance(entry.get("distributions"), list)):
            raise DataError(f"{path}: each package needs modules, distributions and a source URL")
        pattern = entry.get("pattern")
        out.append(Package(str(entry["package"]), frozenset(map(str, entry["modules"])),
                           frozenset(map(str, entry["distributions"])), re.compile(pattern) if pattern else None))
    return tuple(out)


def undeclared_scopes(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str],
                      packages: Sequence[Package] | None = None) -> dict[str, tuple[Scope, ...]]:
    """Python file -> the scopes (a function or branch, or the whole file as (0, 0)) that import a package the
    project's declared dependencies do not bring, where no module the project loads imports it at its top level."""
    manifests = sorted(p for p, items in facts.items() if is_manifest(p, kinds)
                       and any(f.kind == "requirement" and f.guard != "optional" for f in items))
    if not manifests:  # a project that declares nothing says nothing of what its install brings
        return {}
    required = {f.name for items in facts.values() for f in items if f.kind == "requirement" and f.guard != "optional"}
    known = load() if packages is None else packages
    missing = {m: p for p in known if not any(p.installed_by(r) for r in required) for m in p.modules}
    imports = {path: [f for f in items if f.kind == "python_import" and f.guard != "optional"
                      and f.name.split(".")[0] in missing] for path, items in facts.items()}
    if not any(imports.values()):
        return {}
    loaded = _loaded_at_import(facts)
    files = set(facts) | set(kinds)
    needed = {missing[f.name.split(".")[0]].name for path, found in imports.items() for f in found
              if not f.role and _reached(path, loaded, files, facts)}
    said = f"the project's dependencies ({', '.join(manifests[:2])}) name none of its distributions ({RULES})"
    out: dict[str, tuple[Scope, ...]] = {}
    for path, found in imports.items():
        kept = [f for f in found if missing[f.name.split(".")[0]].name not in needed]
        if any(not f.role for f in kept):
            f = next(f for f in kept if not f.role)
            out[path] = ((0, 0, f"{path}:{f.line} imports {f.name} at its top level and no module of the project "
                                f"imports {path} at load time; {said}"),)
        elif kept:
            out[path] = tuple(dict.fromkeys((first, last, f"{path}:{f.line} imports {f.name} only in the function "
                                             f"or branch of lines {first}-{last}; {said}")
                                            for f in kept for first, last in [_lines(f.role)]))
    return out


def is_manifest(path: str, kinds: Mapping[str, str]) -> bool:
    """Whether a file declares the project's dependencies (pyproject.toml, setup.cfg, a requirements file, setup.py)."""
    return kinds.get(path, "") in MANIFEST_KINDS or posixpath.basename(path) == "setup.py"


def _lines(role: str) -> tuple[int, int]:
    first, _, last = role.removeprefix("local:").partition("-")
    return int(first), int(last)


def _loaded_at_import(facts: Mapping[str, Sequence[Fact]]) -> frozenset[str]:
    """The project's modules another file imports at its top level, outside an optional scope."""
    index = ModuleIndex(p for p in facts if p.endswith(".py"))
    return frozenset(target for path, items in facts.items() for f in items
                     if f.kind == "python_import" and not f.role and f.guard != "optional"
                     for target in imported_files(index, path, f))


def _reached(path: str, loaded: frozenset[str], files: set[str], facts: Mapping[str, Sequence[Fact]]) -> bool:
    """Whether a run reaches the top of a file: another module imports it at load time, or it is run directly (a
    script or notebook outside a package, a package's __init__ or __main__, a program with command-line options)."""
    folder = posixpath.dirname(path)
    in_package = path.endswith(".py") and posixpath.join(folder, "__init__.py").lstrip("/") in files
    return (path in loaded or not in_package or posixpath.basename(path) in RUN_DIRECTLY
            or any(f.kind == "cli_option" for f in facts.get(path, ())))
