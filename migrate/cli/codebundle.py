"""The package's own modules a command imports, served from one file beside the start table
(cli/startcache.py) instead of one search and one bytecode file each: a lint of one file imports ~100
of them, and the import system's search of their folders, the spec it builds and the read and check of
each `.pyc` cost ~13 M instructions of an edited-file lint's ~260 M.

What is served, and when, keeps an import's result what the path search would have given:

- Only submodules of the package (`migrate.` names) that the path search found before as source files
  (`SourceFileLoader`, a `.py` origin) in the one folder their parent package names (`__path__`), and
  only while that parent's `__path__` is still that one folder and the folder's finder is the standard
  `FileFinder`. A name outside the package is never served: its search runs over sys.path, which this
  file does not track.
- Each folder the search read (the parent's folder; a package's own folder too) has the stat stamp
  recorded when the module was stored: the same stamp means the same entries, so the search would
  find the same file (a package directory first, then an extension module, then the source). Each
  source file has its stamp too (size, mtime, ctime, inode, device: stricter than a `.pyc`'s seconds
  and size). Any difference, or a stamp within filestamp.RACY_NS of the run that stored it, and the
  module is imported as before (and stored again by `save`).
- The code is compiled from the source's bytes when stored, as importlib compiles a source file
  (`compile(source, path, "exec", dont_inherit=True)`), not taken from a `.pyc`; the spec is the one
  FileFinder builds (`spec_from_file_location`), its loader a SourceFileLoader whose `get_code` hands
  out the stored code (source, resources and reloading work as from the standard loader).
- The finder sits just before the path finder in sys.meta_path: finders placed before it (an
  editable install's, a test's) are asked first, as before.

The file is keyed by the interpreter as the start table is (startcache.interpreter) and written only
where Python writes bytecode. The code objects a run stored are one marshal payload, a group: the names
and constants its modules share are read once (marshal's references), which is most of the saving (~7 M
of ~13 M, against ~1 M with each module marshalled on its own). A later run that imported modules the
bundle lacked (a lint of another kind of file) adds a group of its own, and a group is unmarshalled only
when one of its modules is imported; a run that unmarshalled a group holding modules it did not import splits
it (what it imported, the rest). So a lint of a .cu file, after lints of Python files, unmarshals what it
imports only (one payload of everything cost it ~13 M more). Past MAX_BYTES the bundle starts again with
this run's group. It has the trust of the bytecode beside it and, like a `.pyc`, no checksum of its own:
whoever can write it can run code, as with the `.pyc` files."""
from __future__ import annotations

import marshal
import os
import sys

from migrate.rulebase import filestamp

TYPE_CHECKING = False  # typing is not imported on lint's way in
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import CodeType, ModuleType
    from typing import Any

FORMAT = 1
PACKAGE = "migrate."  # the names served: the package's own submodules
Stamp = tuple[int, int, int, int, int]
MAX_BYTES = 4_000_000  # past this, the bundle starts again with this run's group
HEAD = 8  # bytes: the length of the marshalled head (key, entries, group sizes) that the groups follow
# name -> (origin, is a package, parent's __path__, [(folder, its stamp)], the source's stamp, its group)
Entry = tuple[str, bool, list[str], list[tuple[str, Stamp]], Stamp, int]


class _Bundle:
    current: _Bundle | None = None

    def __init__(self, path: str, key: tuple[object, ...], entries: dict[str, Entry], groups: list[memoryview]) -> None:
        self.path, self.key, self.entries, self.groups = path, key, entries, groups
        self.loaded: dict[int, dict[str, CodeType]] = {}  # a group's code objects, once one of them was asked for
        self.served: set[str] = set()
        self.before = frozenset(sys.modules)  # imported before the bundle was installed: never served, never stored
        self.folders: dict[str, bool] = {}  # a folder -> whether its stamp is the one recorded (asked once a process)


def bundle_path(command: str) -> str | None:
    """The bundle's file: this module's bytecode file with `.marshal` for `.pyc` for a lint (startcache.LINT),
    `.<command>.marshal` for another command's (None where Python keeps no bytecode), as startcache's tables."""
    cached = globals().get("__cached__")
    if not isinstance(cached, str) or not cached.endswith(".pyc"):
        return None
    return cached[:-len(".pyc")] + (".marshal" if command == "lint" else f".{command}.marshal")


def install(command: str, key: tuple[object, ...]) -> None:
    """Serve the package's modules from `command`'s bundle (written by `save` under `key`) from now on."""
    path = bundle_path(command)
    if _Bundle.current is not None or path is None:
        return
    from importlib import machinery

    bundle = _Bundle(path, key, *_read(path, key))
    _Bundle.current = bundle
    finder = _Finder(bundle, machinery.FileFinder, machinery.PathFinder)
    meta = sys.meta_path
    meta.insert(meta.index(machinery.PathFinder) if machinery.PathFinder in meta else len(meta), finder)


def _read(path: str, key: tuple[object, ...]) -> tuple[dict[str, Entry], list[memoryview]]:
    """The bundle's entries and its groups' bytes (unmarshalled when asked for); none where it is not this key's."""
    try:
        with open(path, "rb") as handle:
            data = memoryview(handle.read())
        size = int.from_bytes(data[:HEAD], "little")
        head = marshal.loads(data[HEAD:HEAD + size])
        if type(head) is tuple and len(head) == 3 and head[0] == key and type(head[1]) is dict and type(head[2]) is list:
            groups, start = [], HEAD + size
            for length in head[2]:
                groups.append(data[start:start + length])
                start += length
            if start == len(data):
                return head[1], groups
    except (OSError, ValueError, EOFError, TypeError, MemoryError):
        pass
    return {}, []


def _code(bundle: _Bundle, name: str, group: int) -> CodeType | None:
    """The module's stored code, its group unmarshalled on first use; None where the group holds no such code."""
    codes = bundle.loaded.get(group)
    if codes is None:
        try:
            codes = marshal.loads(bundle.groups[group])
        except (IndexError, ValueError, EOFError, TypeError):
            codes = {}
        bundle.loaded[group] = codes = codes if type(codes) is dict else {}
    code = codes.get(name)
    return code if type(code) is type(_code.__code__) else None  # a code object (types.CodeType, types not imported)


def _stamp(path: str) -> Stamp | None:
    try:
        return filestamp.stamp_of(os.stat(path))
    except OSError:
        return None


class _Finder:
    """A meta-path finder for the bundle's modules (see the module's docstring for when it serves one)."""

    def __init__(self, bundle: _Bundle, file_finder: type, path_finder: Any) -> None:
        self.bundle, self.file_finder, self.path_finder = bundle, file_finder, path_finder

    def _folder_finder(self, folder: str) -> object:
        """The folder's finder, as the path search gets it: from sys.path_importer_cache, else from the path hooks
        (PathFinder's own lookup, which the search of the folder's first module would have made)."""
        finder = sys.path_importer_cache.get(folder)
        if finder is None and folder not in sys.path_importer_cache:
            lookup = getattr(self.path_finder, "_path_importer_cache", None)
            finder = lookup(folder) if callable(lookup) else None
        return finder

    def find_spec(self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None) -> ModuleSpec | None:
        entry = self.bundle.entries.get(name)
        if type(entry) is not tuple or len(entry) != 6 or target is not None or path is None:
            return None
        origin, package, parent_path, folders, stamp, group = entry
        if list(path) != parent_path or type(self._folder_finder(parent_path[0])) is not self.file_finder:
            return None
        known = self.bundle.folders
        for folder, folder_stamp in folders:
            same = known.get(folder)
            if same is None:
                same = known[folder] = _stamp(folder) == folder_stamp
            if not same:
                return None
        if _stamp(origin) != stamp:
            return None
        code = _code(self.bundle, name, group)
        if code is None:
            return None
        from importlib.util import spec_from_file_location

        self.bundle.served.add(name)
        return spec_from_file_location(name, origin, loader=_loader_class()(name, origin, code),
                                       submodule_search_locations=[os.path.dirname(origin)] if package else None)


_LOADER: list[type] = []


def _loader_class() -> type:
    """SourceFileLoader with the stored code (made once: importlib.machinery is imported by `install`)."""
    if not _LOADER:
        from importlib.machinery import SourceFileLoader

        class BundleLoader(SourceFileLoader):
            """A SourceFileLoader whose module code comes from the bundle (anything else from the file)."""

            def __init__(self, fullname: str, path: str, code: CodeType) -> None:
                super().__init__(fullname, path)
                self._code: CodeType | None = code

            def get_code(self, fullname: str) -> Any:
                code, self._code = self._code, None  # once: a reload reads the file as the standard loader does
                if code is None or fullname != self.name:
                    return super().get_code(fullname)
                return code  # what SourceFileLoader's get_code would compile from the source

        _LOADER.append(BundleLoader)
    return _LOADER[0]


def save() -> None:
    """Write the bundle again when this process imported one of the package's modules from its file (a new
    module, or one whose file or folder changed), or unmarshalled a group holding modules it did not import (the
    group is split in two: what this run imported and the rest, so that a run like it unmarshals only its own).
    Any failure leaves the bundle as it was."""
    bundle = _Bundle.current
    if bundle is None or sys.dont_write_bytecode or not os.access(os.path.dirname(bundle.path) or ".", os.W_OK):
        return  # a folder this user cannot write (a read-only install): compile nothing for a bundle never written
    import time
    from importlib.machinery import FileFinder, SourceFileLoader

    started = time.time_ns()
    new: dict[str, tuple[Entry, CodeType]] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith(PACKAGE) or name in bundle.served or name in bundle.before or _current(bundle, name):
            continue
        spec = getattr(module, "__spec__", None)
        if spec is None or type(spec.loader) is not SourceFileLoader:
            continue
        entry = _entry(name, spec, started, FileFinder)
        if entry is not None:
            new[name] = entry
    if not new and all(name in bundle.served for name, stored in bundle.entries.items() if stored[5] in bundle.loaded):
        return  # nothing new, and every module of the groups unmarshalled was served: nothing to split (no stat needed)
    members: dict[int, list[str]] = {}  # group -> the names of its current modules
    for name, stored in bundle.entries.items():
        if name not in new and _current(bundle, name):
            members.setdefault(stored[5], []).append(name)
    served = bundle.served
    split = {group for group, names in members.items()
             if group in bundle.loaded and not all(name in served for name in names)}
    if not new and not split:
        return
    groups: list[bytes] = []
    entries: dict[str, Entry] = {}

    def add(names: list[str], data: bytes, made: dict[str, Entry]) -> None:
        groups.append(data)
        entries.update({name: (*made[name][:5], len(groups) - 1) for name in names})

    for group, names in sorted(members.items()):
        if group in split:
            codes = bundle.loaded[group]
            for part in ([n for n in names if n in served], [n for n in names if n not in served]):
                if part:
                    chosen: Any = {name: codes[name] for name in part}
                    add(part, marshal.dumps(chosen), bundle.entries)
        else:
            add(names, bytes(bundle.groups[group]), bundle.entries)
    if new:
        added: Any = {name: code for name, (_, code) in new.items()}
        made = {name: entry for name, (entry, _) in new.items()}
        if sum(map(len, groups)) > MAX_BYTES:
            groups, entries = [], {}
        add(list(new), marshal.dumps(added), made)
    head: Any = (bundle.key, entries, [len(group) for group in groups])
    raw = marshal.dumps(head)
    filestamp.write_memo(bundle.path, b"".join([len(raw).to_bytes(HEAD, "little"), raw, *groups]))


def _current(bundle: _Bundle, name: str) -> bool:
    """Whether the bundle's entry for `name` still has its file's and folders' stamps, and its code where its group
    was unmarshalled (a group is not unmarshalled here: only what the run imported is)."""
    entry = bundle.entries.get(name)
    if entry is None or _stamp(entry[0]) != entry[4] or not all(_stamp(f) == s for f, s in entry[3]):
        return False
    codes = bundle.loaded.get(entry[5])
    return codes is None or name in codes


def _entry(name: str, spec: Any, started: int, file_finder: type) -> tuple[Entry, CodeType] | None:
    """The module's entry, where the path search (FileFinder) found its source in its parent's one folder, and no
    folder or file it read changed within RACY_NS of `started`."""
    origin = spec.origin
    parent = sys.modules.get(name.rpartition(".")[0])
    parent_path = getattr(parent, "__path__", None)
    if type(origin) is not str or not origin.endswith(".py") or type(parent_path) is not list or len(parent_path) != 1:
        return None
    package = spec.submodule_search_locations is not None
    folder = os.path.dirname(os.path.dirname(origin) if package else origin)
    if folder != parent_path[0] or type(sys.path_importer_cache.get(folder)) is not file_finder:
        return None
    folders = [folder, os.path.dirname(origin)] if package else [folder]
    try:
        with open(origin, "rb") as handle:
            source = handle.read()
        stamps = [filestamp.stamp_of(os.stat(path)) for path in (*folders, origin)]
        code = compile(source, origin, "exec", dont_inherit=True)
    except (OSError, SyntaxError, ValueError):
        return None
    if _stamp(origin) != stamps[-1] or any(max(s[1], s[2]) >= started - filestamp.RACY_NS for s in stamps):
        return None
    return (origin, package, [folder], [(path, stamp) for path, stamp in zip(folders, stamps, strict=False)], stamps[-1],
            -1), code
