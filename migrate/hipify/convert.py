"""convert: copy a tree, run hipify-perl over its CUDA/C++ files, write a diff and the hand work left.

The source tree is read, never written (unless `in_place`, which the command line
confirms first). hipify-perl runs through `migrate.hipify.tool` in default mode, one process
per share of the files (never `-inplace` on the tree: it shells out to `cp` with the file's
name; the tool module converts copies under names of its own), and we write its output. The
to-do list is the rule base's scan of the converted tree, keeping what is not valid HIP as
written, plus hipify's rewrites that disagree with the rule base."""
from __future__ import annotations

import difflib
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from migrate.hipify import tool as hipify
from migrate.hipify import writes
from migrate.hipify.compare import compare_file, needs_hand_work, rule_kinds
from migrate.hipify.todo import REVIEW_KINDS, Review, render_todo
from migrate.model import Finding, Target
from migrate.rulebase.load import RuleBase
from migrate.scan import pipeline as scan
from migrate.scan.discover import discover, file_kind
from migrate.scan.match import RuleIndex
from migrate.settings import Settings

DIFF_NAME = "rocm-migrate.diff"
TODO_NAME = "rocm-migrate-todo.md"
HIPIFY_KINDS = frozenset({"cuda", "cpp"})  # what hipify-perl is run on (.hip files are already HIP)
NOT_COPIED = frozenset({".git", ".hg", ".svn"})


class ConvertError(Exception):
    """A refusal or a bad argument; str() is one line."""


@dataclass(frozen=True, slots=True)
class ConvertResult:
    destination: Path
    files: tuple[str, ...]  # CUDA/C++ files given to hipify-perl
    changed: tuple[str, ...]  # those it rewrote
    failed: tuple[tuple[str, str], ...]  # (file, error) where hipify-perl failed
    todo: tuple[Finding, ...]  # hand work left, located in the converted tree
    review: tuple[Review, ...]  # hipify rewrites that disagree with the rule base
    diff_path: Path
    todo_path: Path
    tool: hipify.Tool
    seconds: float


def check_paths(source: Path, out: Path | None, *, force: bool = False, in_place: bool = False) -> Path:
    """The directory to write, or ConvertError: DIR inside PATH (or PATH inside DIR), a
    non-empty DIR without force, --in-place together with --out."""
    if not source.is_dir():
        raise ConvertError(f"{source}: not a directory (convert takes the root of a source tree)")
    src = source.resolve()
    if in_place:
        if out is not None:
            raise ConvertError("--in-place and --out exclude each other")
        if (src / DIFF_NAME).exists():  # hipify-perl would add its include again, and the diff would be lost
            raise ConvertError(f"{source} was already converted in place ({DIFF_NAME} exists): "
                               f"revert it with `patch -p1 -R < {DIFF_NAME}` first")
        return src
    if out is None:
        raise ConvertError("give --out DIR for the converted copy (or --in-place to convert PATH itself)")
    dest = out.resolve()
    if dest == src or src in dest.parents:
        raise ConvertError(f"{out} is inside {source}: choose an output directory outside the source tree")
    if dest in src.parents:
        raise ConvertError(f"{source} is inside {out}: choose an output directory that does not contain the source")
    if dest.exists() and not dest.is_dir():
        raise ConvertError(f"{out} exists and is not a directory")
    if out.is_symlink():
        raise ConvertError(f"{out} is a symbolic link: give the folder itself")
    if dest.is_dir() and any(dest.iterdir()) and not force:
        raise ConvertError(f"{out} is not empty (use --force to write into it anyway)")
    if dest.is_dir() and (link := writes.first_link(dest)) is not None:
        raise ConvertError(f"{out} holds a symbolic link ({link.relative_to(dest).as_posix()}): convert does not "
                           "write into a folder with links; choose an empty one")
    return dest


def run(source: Path, destination: Path, tool: hipify.Tool, settings: Settings, rules: RuleBase, *,
        in_place: bool = False, progress: Callable[[int, int], None] | None = None) -> ConvertResult:
    """Convert `source` into `destination` (already checked by check_paths)."""
    started = time.perf_counter()
    src = source.resolve()
    found = discover([src], include_vendored=settings.include_vendored, exclude=settings.exclude)
    scanned = {f.rel for f in found.files}
    candidates = [f.rel for f in found.files if f.kind in HIPIFY_KINDS]
    # The scans around the conversion run without hipify-perl: the conversion itself is hipify's
    # measurement, and the review compares it with the rule base's findings.
    scanning = replace(settings, use_hipify=False)
    if not in_place:
        copy_tree(src, destination)
    targets = [rel for rel in candidates if _own_file(destination, rel)]
    own = set(targets)
    linked = [(rel, "reached through a symbolic link: not converted") for rel in candidates if rel not in own]
    linked += [(s.path, "a symbolic link to outside the source tree: not converted") for s in found.skipped
               if s.reason.startswith("symlink") and file_kind(Path(s.path), sniff=False) in HIPIFY_KINDS]
    originals = {rel: (destination / rel).read_bytes() for rel in targets}
    with ThreadPoolExecutor(max_workers=1) as background:  # hipify-perl converts copies while the source is scanned
        converting = background.submit(_hipify_all, tool, destination, targets, settings, progress)
        before = scan.run([src], scanning, rules)
        done, failed = converting.result()
    failed += linked
    changed = sorted(rel for rel, c in done.items() if c.text != originals[rel])
    for rel in changed:
        _write(destination / rel, done[rel].text)
    diff_path = destination / DIFF_NAME
    writes.replace_file(diff_path, unified_diff(originals, {rel: done[rel].text for rel in changed}))
    after = scan.run([destination], scanning, rules)
    kinds = rule_kinds(rules.rules)
    todo = tuple(f for f in after.findings
                 if f.path in scanned and needs_hand_work(f, kinds.get(f.rule, "identifier")))
    index = RuleIndex(rules, Target(rocm=settings.rocm, arch=settings.arch[:1]))
    review = _review(before.findings, originals, done, kinds, index, tool)
    todo_path = destination / TODO_NAME
    result = ConvertResult(destination=destination, files=tuple(targets), changed=tuple(changed),
                           failed=tuple(failed), todo=todo, review=review, diff_path=diff_path,
                           todo_path=todo_path, tool=tool, seconds=round(time.perf_counter() - started, 3))
    writes.replace_file(todo_path, render_todo(result).encode("utf-8", "surrogateescape"))
    return result


def copy_tree(src: Path, dest: Path) -> None:
    """Copy everything but VCS metadata; symbolic links stay links (and are not converted),
    FIFOs and devices are left out (migrate.hipify.writes)."""
    writes.copy_tree(src, dest, skip=NOT_COPIED)


def unified_diff(originals: dict[str, bytes], converted: dict[str, bytes]) -> bytes:
    """One unified diff (`a/` and `b/` prefixes, `patch -p1` applies it) over the changed files."""
    chunks: list[str] = []
    for rel in sorted(converted):
        old = originals[rel].decode("utf-8", "surrogateescape").splitlines(keepends=True)
        new = converted[rel].decode("utf-8", "surrogateescape").splitlines(keepends=True)
        for line in difflib.unified_diff(old, new, f"a/{rel}", f"b/{rel}"):
            chunks.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(chunks).encode("utf-8", "surrogateescape")


def line_map(old: bytes, new: bytes) -> Callable[[int], int]:
    """Map a 1-based line of the original to the converted file (hipify only inserts lines)."""
    a = old.decode("utf-8", "surrogateescape").split("\n")
    b = new.decode("utf-8", "surrogateescape").split("\n")
    mapping: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        for k in range(i2 - i1):
            mapping[i1 + k + 1] = (j1 + min(k, max(j2 - j1 - 1, 0)) + 1) if tag != "delete" else j1 + 1
    return lambda line: mapping.get(line, line)


def _hipify_all(tool: hipify.Tool, root: Path, files: list[str], settings: Settings,
                progress: Callable[[int, int], None] | None) -> tuple[dict[str, hipify.Converted], list[tuple[str, str]]]:
    """One hipify-perl process per share of the files (`jobs` shares), its warning pass only when
    asked for (the 2024 script spends minutes on it and converts the same either way)."""
    return hipify.convert_many(tool, files, cwd=root, jobs=settings.jobs, quiet=not settings.hipify_warnings,
                               progress=progress)


def _own_file(root: Path, rel: str) -> bool:
    """A regular file of the tree itself: no symbolic link on the way (writing it must not reach outside)."""
    path = root
    for part in Path(rel).parts:
        path = path / part
        if path.is_symlink():
            return False
    return path.is_file()


def _write(path: Path, data: bytes) -> None:
    """Replace the file (never write through a symbolic link), keeping its permission bits."""
    writes.replace_file(path, data, path.lstat().st_mode)


def _review(findings: tuple[Finding, ...], originals: dict[str, bytes], done: dict[str, hipify.Converted],
            kinds: dict[str, str], index: RuleIndex, tool: hipify.Tool) -> tuple[Review, ...]:
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    out: list[Review] = []
    for rel, converted in sorted(done.items()):
        text = originals[rel].decode("utf-8", "surrogateescape")
        compared = compare_file(rel, text, by_path.get(rel, []), converted.examine, kinds=kinds, index=index,
                                comments_converted=not tool.masks_comments)
        where = line_map(originals[rel], converted.text)
        out.extend(Review(d, where(d.line)) for d in compared.disagreements if d.kind in REVIEW_KINDS)
    return tuple(out)
