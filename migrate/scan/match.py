"""match: facts x rules -> findings."""
from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from migrate.model import (
    Candidate,
    Extraction,
    Fact,
    FileResult,
    Finding,
    Target,
    build_candidate,
    build_finding,
    class_rank,
    evolve,
    evolver,
)
from migrate.rulebase import alternatives, datafile, targets
from migrate.rulebase.load import (
    Entry,
    LazyPattern,
    Rule,
    RuleBase,
    as_tuple,
    default_rules_dir,
    version_tuple,
)
from migrate.scan import crossref, own_headers
from migrate.scan.layout import (
    BACKENDS_FILE,
    left_in_backend_files,
    other_model_source,
    other_vendor_alias,
    other_vendor_source,
    vendor_runtime_name,
)
from migrate.vocabulary import OWN_RECORD

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any

MAX_FINDINGS_PER_FILE = 10_000  # real files have hundreds at most; past this a file is reported as capped
# Facts on either side of a HIP guard are already handled by the authors; "off": a branch no build compiles.
GUARDED = frozenset({"hip", "cuda", "off"})
# What another vendor's source (layout.other_vendor_source) writes in its own dialect: names, kernels and launches
VENDOR_DIALECT_KINDS = frozenset({"identifier", "construct"})
# Constructs that name a 32-bit lane-mask type of the file (own_masks)
MASK_TYPE_CONSTRUCTS = frozenset({"mask-type-32", "ballot-returned-32bit"})
# Facts in an optional Python scope (an ImportError fallback, an env-var opt-in) become optional findings.
OPTIONAL = "optional"


class RuleIndex:
    """Rules applicable to one target, indexed by fact kind and name for fast lookup."""

    def __init__(self, rulebase: RuleBase, target: Target) -> None:
        self.target = target
        self.archs = targets.load().resolve(target.arch, target.rocm)
        self.routes = alternatives.load(rulebase.directory, rulebase.version)
        self.rulebase = rulebase
        self._memo: dict[tuple[str, str, str], list[tuple[Rule, Entry | None, str]]] = {}
        # kind -> the rule files' name tables of the kind, each with the position of the file's first rule: read
        # as compiled.json holds them (load.name_table), not entered into one index (11k names at each lint start)
        self._named: dict[str, list[tuple[int, Mapping[str, int | list[int]]]]] = {}
        tables = rulebase.name_tables()
        for start, table in tables:
            for kind, names in table.items():
                self._named.setdefault(kind, []).append((start, names))
        # the position after each file's last rule
        starts = [start for start, _ in tables]
        self._ends = dict(zip(starts, [*starts[1:], len(rulebase)][:len(starts)], strict=True))
        self._prefix: dict[str, list[tuple[str, int]]] = {}
        # kind -> (pattern text, the pattern, position): searched before the rule is built
        self._regex: dict[str, list[tuple[str, LazyPattern, int]]] = {}
        self._on = in_force = rulebase.in_force(target.rocm, self.archs)
        ids = rulebase.ids
        self.in_force = frozenset(ids[i] for i, on in enumerate(in_force) if on)  # the ids of the rules in force
        for position, (kind, spec) in enumerate(rulebase.matchers()):
            if in_force[position] and ("prefix" in spec or "regex" in spec):
                self._add(position, kind, spec)
        # the patterns of the in-force rules' `file_has`/`file_lacks`: what they find is read as facts (_file_has)
        self.conditions = tuple(dict.fromkeys(pattern for on, patterns in zip(in_force, rulebase.file_conditions(),
                                                                              strict=True) if on for pattern in patterns))

    def _add(self, position: int, kind: str, spec: Mapping[str, Any]) -> None:
        for prefix in as_tuple(spec.get("prefix")):
            self._prefix.setdefault(kind, []).append((prefix, position))
        if "regex" in spec:
            self._regex.setdefault(kind, []).append((spec["regex"], LazyPattern(spec["regex"]), position))

    def _named_hits(self, kind: str, name: str) -> list[tuple[int, bool]]:
        """The positions of the rules in force listing `name` among a kind's names, in rule order (True: in its map)."""
        found: list[tuple[int, bool]] = []
        on = self._on
        for start, names in self._named.get(kind, ()):
            hits = names.get(name)
            if hits is not None:
                for hit in (hits,) if isinstance(hits, int) else hits:
                    position = start + (hit >> 1)
                    if on[position]:
                        found.append((position, bool(hit & 1)))
        return found

    def names(self, kind: str) -> set[str]:
        """The names of a kind that a rule in force lists (exact or in its map)."""
        found: set[str] = set()
        on = self._on
        for start, names in self._named.get(kind, ()):
            if all(on[start:self._ends[start]]):  # every rule of the file in force: all its names
                found.update(names)
                continue
            for name, hits in names.items():
                if any(on[start + (hit >> 1)] for hit in ((hits,) if isinstance(hits, int) else hits)):
                    found.add(name)
        return found

    def lookup(self, fact: Fact) -> list[tuple[Rule, Entry | None, str]]:
        """Rules matching a fact, each with its map entry and the matched symbol.

        A Python attribute chain with no rule of its own is tried again without its last
        link, so `torch.version.cuda.split` is found as `torch.version.cuda`."""
        memo_key = (fact.kind, fact.name, fact.role)
        if memo_key in self._memo:
            return self._memo[memo_key]
        hits = self._lookup(fact)
        name = fact.name
        while not hits and fact.kind == "python_attr" and "." in name:
            name = name.rsplit(".", 1)[0]
            hits = self._lookup(replace(fact, name=name, role="message" if fact.role == "message" else "value"))
        self._memo[memo_key] = hits
        return hits

    def _lookup(self, fact: Fact) -> list[tuple[Rule, Entry | None, str]]:
        named = self._named_hits(fact.kind, fact.name)
        prefixed, patterns = self._prefix.get(fact.kind), self._regex.get(fact.kind)
        if not (named or prefixed or patterns):
            return []
        rule = self.rulebase.rule
        hits = [(rule(p), rule(p).matcher.entries[fact.name] if mapped else None, fact.name) for p, mapped in named or ()]
        hits += [(rule(p), None, fact.name) for prefix, p in prefixed or () if fact.name.startswith(prefix)]
        for _, regex, p in patterns or ():
            found = regex.search(fact.name)
            if found:
                hits.append((rule(p), None, found.group(0) if fact.kind == "asm" else fact.name))
        hits = [h for h in hits if _role_matches(h[0], fact.role)]
        if any(not h[0].fallback for h in hits):
            hits = [h for h in hits if not h[0].fallback]
        return hits


class IdentifierNames:
    """Whether any of the indexes could match an identifier fact of a name: a name no rule lists,
    no rule's prefix starts and no rule's pattern finds gives no candidate (`RuleIndex._lookup`),
    so the scan's extractors need not build its facts (`extract(..., names=...)`); another vendor's
    runtime names are kept too: they tell that vendor's sources (layout.other_vendor_source), and so
    are the names a rule's `file_has`/`file_lacks` pattern finds: the rule's condition reads them
    (`_file_has`), in a scan as in lint and the rule fixtures, which build every fact."""

    MEMO = 200_000  # distinct names remembered per process

    def __init__(self, by_target: Sequence[RuleIndex]) -> None:
        self._set(frozenset(name for index in by_target for name in index.names("identifier")),
                  tuple(p for index in by_target for p, _ in index._prefix.get("identifier", ())),
                  list(dict.fromkeys(pattern for index in by_target
                                     for pattern in (*(p for p, _, _ in index._regex.get("identifier", ())),
                                                     *index.conditions))))

    def _set(self, names: frozenset[str], prefixes: tuple[str, ...], patterns: list[str]) -> None:
        self._names = names
        self._prefixes = prefixes
        self._source = patterns  # the patterns' texts, in order: what `row` keeps
        self._patterns = _one_pattern(patterns)
        self._memo: dict[str, bool] = {}

    def row(self) -> list[list[str]]:
        """What the answers depend on besides `vendor_runtime_name`: the names (sorted), the prefixes and the
        patterns' texts, as `from_row` reads them (analyse keeps them in the cache under the result version:
        the names of ~11k rules' maps cost ~30 M instructions to gather from the indexes)."""
        return [sorted(self._names), list(self._prefixes), list(self._source)]

    @classmethod
    def from_row(cls, row: object) -> IdentifierNames:
        """The names a `row` holds; ValueError for a value of another shape."""
        if type(row) is not list or len(row) != 3 or not all(
                type(part) is list and all(type(v) is str for v in part) for part in row):
            raise ValueError("not a row of identifier names")
        made = cls.__new__(cls)
        made._set(frozenset(row[0]), tuple(row[1]), row[2])
        return made

    def __call__(self, name: str) -> bool:
        known = self._memo.get(name)
        if known is None:
            known = name in self._names or name.startswith(self._prefixes) \
                or any(p.search(name) for p in self._patterns) or vendor_runtime_name(name)
            if len(self._memo) >= self.MEMO:
                self._memo.clear()
            self._memo[name] = known
        return known


# What makes patterns mean something else when joined by `|`: group references and inline flags.
_NOT_JOINABLE = re.compile(r"\\[1-9]|\(\?P[=<]|\(\?\(|\(\?[aiLmsux]")


def _one_pattern(patterns: list[str]) -> tuple[re.Pattern[str], ...]:
    """The patterns as one alternation (one search instead of one per pattern) where that finds
    the same names, the others (a `(?i)` flag, a group reference) each compiled on its own."""
    joinable = [p for p in patterns if not _NOT_JOINABLE.search(p)]
    if len(joinable) > 1:
        try:
            joined = re.compile("|".join(f"(?:{p})" for p in joinable))
        except re.error:
            pass
        else:
            return (joined, *_each([p for p in patterns if _NOT_JOINABLE.search(p)]))
    return _each(patterns)


def _each(patterns: list[str]) -> tuple[re.Pattern[str], ...]:
    compiled = []
    for p in patterns:
        try:
            compiled.append(re.compile(p))
        except re.error:  # only a tampered rule cache holds one: it matches nothing (load.LazyPattern)
            continue
    return tuple(compiled)


# A definition or alias of a name is not a use of the API, unless a rule asks for it; nor is a CUDA runtime pin
# that a conda environment installs for PyTorch (conda-pytorch-cuda-runtime asks for those), nor a requirement of
# a file a resolver or `pip freeze` wrote (extract/text/deps.py: the record of one resolution, read by the stack).
NOT_USES = frozenset({"definition", "alias", "framework_runtime", "locked"})


def _role_matches(rule: Rule, role: str) -> bool:
    roles = rule.matcher.roles
    return role in roles if roles else role not in NOT_USES


def defined_names(extractions: Iterable[Extraction]) -> frozenset[str]:
    """Macros the project defines itself, repo-wide (the union of `own_defined` over its files)."""
    return frozenset(name for e in extractions for name in own_defined(e.facts))


def own_portable(facts: Iterable[Fact]) -> tuple[str, ...]:
    """Namespaces a HIP-guarded alias in this file points at ROCm (`namespace cub = hipcub;`); the
    scan takes the union over the repository."""
    return tuple(sorted({f.name for f in facts if f.kind == "namespace_alias" and f.guard == "hip"
                         and f.text.startswith(("hip", "roc"))}))


def own_masks(facts: Iterable[Fact]) -> tuple[str, ...]:
    """Names this file knows as 32-bit lane-mask types (lane-mask-type-32bit by name or use, ballot-returned-32bit's aliases;
    the latter's construct also names ballot wrappers, which no alias shares): a `mask_elsewhere`
    rule reports an alias of the same name in another file. The scan takes the union."""
    return tuple(sorted({f.text for f in facts if f.kind == "construct" and f.name in MASK_TYPE_CONSTRUCTS
                         and f.guard is None}))


def own_defined(facts: Iterable[Fact]) -> tuple[str, ...]:
    """Macros this file defines (`#define ncclCheck(x) ...`, or `#define cudaMalloc hipMalloc` in a
    compatibility header): using them is not using CUDA; the scan takes the union over the repository.
    Functions it defines or declares count only under a name outside CUDA's API spellings
    (rules/layout/backends.yaml `own_function_names`): a project's `saturate` or `umax` (LLVM's APInt,
    half.hpp's `mulhi`) is its own, a `mock::cudaMallocHost` must not hide the real one."""
    shadows = _own_function_names()
    return tuple(sorted({f.name for f in facts if (f.kind == "defined" and f.text != OWN_RECORD
                                                    and not other_vendor_alias(f)) or (
        (f.kind == "function_defined" or (f.kind == "function_reference" and f.role == "declaration"))
        and shadows.match(f.name))}))


@functools.lru_cache(maxsize=1)
def _own_function_names() -> re.Pattern[str]:
    return re.compile(str(datafile.read(default_rules_dir() / BACKENDS_FILE)["own_function_names"]))


def candidates(rel: str, extraction: Extraction, index: RuleIndex) -> list[Candidate]:
    """Every finding the file's facts give, in fact order; `select` applies the repo-wide part."""
    out: list[tuple[Candidate, Rule]] = []
    other_model = other_model_source(extraction.facts)
    vendor = other_vendor_source(extraction.facts)  # another vendor's dialect: its kernels and calls are its own
    has: dict[str, bool] = {}  # a rule's `file_has` pattern -> whether this file has it (read once per file)
    records = frozenset(f.name for f in extraction.facts if f.kind == "defined" and f.text == OWN_RECORD)
    for fact in extraction.facts:
        if fact.guard in GUARDED or (other_model and fact.kind == "identifier" and fact.guard is None):
            continue
        if records and fact.kind == "identifier" and fact.name in records:
            continue
        if vendor and fact.kind in VENDOR_DIALECT_KINDS and fact.guard is None:
            continue
        hits = index.lookup(fact)
        if not hits:
            continue
        namespace = fact.name if fact.role == "namespace" else None
        defined_as = _defined_as(fact)
        for rule, entry, symbol in hits:
            if rule.when == "unavailable" and not _unavailable(entry, index.target):
                continue
            if not _value_matches(rule, entry, fact):
                continue
            limit = _limit(rule, index)
            if limit is not None and (fact.value is None or fact.value <= limit):
                continue
            if rule.known_name and not _known_identifier(fact.text, index):
                continue
            if rule.file_has is not None:
                if rule.file_has not in has:
                    has[rule.file_has] = _file_has(rule.file_has, extraction)
                if not has[rule.file_has]:
                    continue
            if rule.file_lacks is not None:
                if rule.file_lacks not in has:
                    has[rule.file_lacks] = _file_has(rule.file_lacks, extraction)
                if has[rule.file_lacks]:
                    continue
            if fact.kind == "construct" and fact.text:
                symbol = fact.text
            header_only = rule.header_only_when is not None and _names(extraction, rule.header_only_when, symbol)
            out.append((build_candidate((_finding(rel, fact, rule, entry, symbol, extraction, index),
                                         defined_as, namespace, symbol if rule.mask_elsewhere else None, False,
                                         header_only)), rule))
    return _uncovered(_context(out))


# Files whose names alone put them in CUDA context: CUDA sources and headers (a header's translation unit is
# whoever includes it, which one file does not tell)
CONTEXT_SUFFIXES = (".cu", ".cuh", *crossref.HEADERS)


def _context(found: list[tuple[Candidate, Rule]]) -> list[tuple[Candidate, Rule]]:
    """The candidates, those of `needs_context` rules whose symbol is a plain name (one a project could define:
    backends.yaml `own_function_names`; for a construct rule every symbol, a project constant) marked
    `needs_context` when the file has no other finding of a certain kind (a CUDA include, a CUDA-spelled name, a
    kernel; low-confidence hints do not count). Whether the file is a source is `in_context`'s to say: a cached
    result is shared by files of equal content under any name."""
    if not any(rule.needs_context for _, rule in found):
        return found
    plain = _own_function_names()
    certain = [not (rule.needs_context and (rule.matcher.kind != "identifier" or plain.match(c.finding.symbol)))
               for c, rule in found]
    if any(sure and rule.confidence != "low" for sure, (_, rule) in zip(certain, found, strict=True)):
        return found
    return [(pair[0] if sure else replace(pair[0], needs_context=True), pair[1])
            for sure, pair in zip(certain, found, strict=True)]


def in_context(path: str) -> bool:
    """Whether a file's name alone puts it in CUDA context: a .cu/.cuh file or a header (a header's translation
    unit is whoever includes it, which one file does not tell). Elsewhere a `needs_context` candidate is dropped:
    `saturate` in a renderer's C++, a Vulkan `memoryBarrier` variable, a C file's `warp_size = 32` are the project's
    own names there (docs/decisions/2026-12-06-plain-names-need-cuda-context.md)."""
    return path.lower().endswith(CONTEXT_SUFFIXES)


def _names(extraction: Extraction, construct: str, symbol: str) -> bool:
    """Whether an unguarded `construct` fact of the file names `symbol` (a rule's `header_only_when`)."""
    return any(f.kind == "construct" and f.name == construct and f.text == symbol and f.guard not in GUARDED
               for f in extraction.facts)


# Fact kinds a rule's `file_has` reads: what the code calls, defines, spells in asm or builds
EVIDENCE_KINDS = frozenset({"identifier", "asm", "construct", "function_reference", "function_defined", "python_attr"})


def _file_has(pattern: str, extraction: Extraction) -> bool:
    """Whether an unguarded fact of the file names what `pattern` finds (a rule's `file_has`)."""
    found = _pattern(pattern)
    return any(f.kind in EVIDENCE_KINDS and f.guard not in GUARDED and found.search(f.name) for f in extraction.facts)


@functools.lru_cache(maxsize=64)
def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _known_identifier(name: str, index: RuleIndex) -> bool:
    """Whether an identifier rule of the index matches `name` as a call (a CUDA API the rule base knows)."""
    probe = Fact(kind="identifier", name=name, line=1, column=1, end_line=1, end_column=1, role="call")
    return bool(index.lookup(probe))


def _defined_as(fact: Fact) -> str | None:
    """The project name a fact may turn out to be: a call qualified by a namespace (the namespace, as
    the C extractor records the project's own: `namespace amgx`), or the identifier itself."""
    if fact.kind != "identifier" or fact.role == "definition":
        return None
    if fact.role == "call" and fact.text:
        return "namespace " + fact.text.split("::")[0].strip()
    return fact.name


def _uncovered(found: list[tuple[Candidate, Rule]]) -> list[Candidate]:
    """A required finding of a `covers_file` rule (a kernel written in an NVIDIA-only DSL) makes the
    file new development as a whole: the file's findings of a lower class are part of that rewrite."""
    covering = [class_rank(c.finding.migration_class) for c, rule in found
                if rule.covers_file and c.finding.status != OPTIONAL]
    if not covering:
        return [c for c, _ in found]
    top = max(covering)
    return [c for c, rule in found if rule.covers_file or class_rank(c.finding.migration_class) >= top]


def select(found: Iterable[Candidate], *, portable: frozenset[str] = frozenset(),
           defined: frozenset[str] = frozenset(), masks: frozenset[str] = frozenset()) -> list[Finding]:
    """The findings of one file's candidates once the project's own names, portable namespaces
    and lane-mask types are known: one per rule, line and symbol, in sort order."""
    findings: dict[tuple[str, int, int | None, str], Finding] = {}
    for c in found:
        if (c.namespace is not None and c.namespace in portable) or (c.defined_as is not None and c.defined_as in defined):
            continue
        if c.defined_as is not None and c.defined_as.startswith("namespace ") and c.finding.symbol in defined \
                and _own_function_names().match(c.finding.symbol):  # `math::saturate(x)`: the project's own saturate
            continue
        if c.needs_mask is not None and c.needs_mask not in masks:
            continue
        if c.needs_context and not in_context(c.finding.path):
            continue
        if c.header_only and not c.finding.path.lower().endswith(crossref.HEADERS):
            continue
        f = c.finding
        findings.setdefault((f.rule, f.line, f.cell, f.symbol), f)  # one per issue per line
        if len(findings) >= MAX_FINDINGS_PER_FILE:  # bounded work downstream; the scan notes it
            break
    return sorted(findings.values(), key=lambda f: f.sort_key)


def match_file(rel: str, extraction: Extraction, index: RuleIndex, *,
               portable: frozenset[str] = frozenset(), defined: frozenset[str] = frozenset()) -> list[Finding]:
    """Turn one file's facts into findings; guarded facts and the project's own names never do."""
    return select(candidates(rel, extraction, index), portable=portable, defined=defined)


def indexes(rules: RuleBase, *, rocm: str, archs: Sequence[str]) -> tuple[RuleIndex, ...]:
    return tuple(index_for(rules, rocm, arch) for arch in archs)


_BUILT: dict[tuple[int, str, str, str], tuple[RuleBase, RuleIndex]] = {}


def index_for(rules: RuleBase, rocm: str, arch: str) -> RuleIndex:
    """The rule index of one target, built once per rule base (indexing 11k names is not free)."""
    key = (id(rules), rules.version, rocm, arch)
    if key not in _BUILT or _BUILT[key][0] is not rules:
        _BUILT[key] = (rules, RuleIndex(rules, Target(rocm=rocm, arch=(arch,))))
    return _BUILT[key][1]


def match_targets(files: Sequence[tuple[str, Extraction]], rules: RuleBase, *, rocm: str,
                  archs: Sequence[str], tree: Iterable[str] = ()) -> list[Finding]:
    """Findings of every file for every target architecture, merged: each finding lists the
    targets it applies to. Portable aliases and the project's own names count repo-wide, so
    scan and lint read the same files the same way. `tree` names more paths of the scanned tree than
    the files given (the siblings `backend_files` looks for)."""
    by_target = indexes(rules, rocm=rocm, archs=archs)
    return merge_targets([FileResult(lines=0, portable=own_portable(e.facts), defined=own_defined(e.facts),
                                     masks=own_masks(e.facts),
                                     found=tuple(tuple(candidates(rel, e, index)) for index in by_target),
                                     facts=tuple(f for f in e.facts if f.kind in crossref.KINDS),
                                     line_text=e.line_text)
                          for rel, e in files], archs,
                         left_in_backend_files(rules, [*(rel for rel, _ in files), *tree]),
                         paths=[rel for rel, _ in files], indexes=by_target)


def merge_targets(results: Sequence[FileResult], archs: Sequence[str],
                  leave: Callable[[Finding], bool] | None = None, *, paths: Sequence[str] = (),
                  indexes: Sequence[RuleIndex] = ()) -> list[Finding]:
    """`match_targets` from each file's candidates (FileResult.found, one list per target); `leave`
    drops the findings the project's layout answers (`left_in_backend_files`). With the files' `paths`
    and the targets' `indexes`, the findings of the cross-file join (`crossref`) are added."""
    portable = frozenset(name for r in results for name in r.portable)
    defined = frozenset(name for r in results for name in r.defined)
    masks = frozenset(name for r in results for name in r.masks)
    merged: dict[tuple[str, str, int | None, int, int, str], Finding] = {}
    found_for: dict[tuple[str, str, int | None, int, int, str], list[str]] = {}
    joined = crossref.uses([(path, r.facts) for path, r in zip(paths, results, strict=True)]) if indexes else []
    line_text = {path: r.line_text for path, r in zip(paths, results, strict=True)} if joined else {}
    chosen = [[select(r.found[position], portable=portable, defined=defined, masks=masks) for r in results]
              for position in range(len(archs))]
    product = indexes[0].rulebase.product_headers() if indexes else frozenset()
    own = _own_header_includes(paths, results, chosen, product)
    for position, arch in enumerate(archs):
        cross = _cross_findings(joined, indexes[position], line_text) if joined else []
        for found in [*chosen[position], cross]:
            for finding in found:
                mine = (finding.path, finding.line, finding.symbol) in own and finding.rule not in product
                if (leave is not None and leave(finding)) or mine:
                    continue
                key = (finding.rule, finding.path, finding.cell, finding.line, finding.column, finding.symbol)
                merged.setdefault(key, finding)
                found_for.setdefault(key, []).append(arch)
    with_targets = evolver("targets")
    return [with_targets(f, tuple(found_for[k])) for k, f in merged.items()]


def _own_header_includes(paths: Sequence[str], results: Sequence[FileResult],
                         chosen: Sequence[Sequence[Sequence[Finding]]],
                         product: frozenset[str] = frozenset()) -> frozenset[own_headers.Site]:
    """The include lines whose findings name a project's own header (scan/own_headers.py): a file that gives
    no finding for any target is quiet. A finding of a `product` rule (an NVIDIA product's header, which projects
    copy into their tree) is never the project's own header."""
    if not paths:
        return frozenset()
    quiet = [path for n, path in enumerate(paths) if not any(per_file[n] for per_file in chosen)]
    flagged = [(f.path, f.line, f.symbol) for per_file in chosen for found in per_file for f in found
               if f.rule not in product]
    return own_headers.own_includes([(path, r.facts) for path, r in zip(paths, results, strict=True)], quiet, flagged)


def _cross_findings(joined: Sequence[crossref.Use], index: RuleIndex,
                    line_text: dict[str, dict[tuple[int, int], str]]) -> list[Finding]:
    """The findings of the cross-file join's construct facts for one target, their detail appended."""
    out = []
    for use in joined:
        context = Extraction(facts=(), lines=0, line_text=line_text.get(use.path, {}))
        for rule, entry, _ in index.lookup(use.fact):
            finding = _finding(use.path, use.fact, rule, entry, use.fact.text, context, index)
            out.append(evolve(finding, message=f"{finding.message} ({use.detail})"))
    return out


def _value_matches(rule: Rule, entry: Entry | None, fact: Fact) -> bool:
    """A flag rule (or map entry) with `value:` applies only when the flag's value matches it:
    `-arch sm_80` is nvcc's, `-arch x86_64` is not."""
    pattern = entry.value if entry is not None and entry.value is not None else rule.matcher.value
    if pattern is None:
        return True
    return bool(pattern.search(flag_value(fact)))


def flag_value(fact: Fact) -> str:
    """`-arch=sm_80` -> `sm_80`; `-x cu` -> `cu`."""
    return fact.text[len(fact.name):].lstrip("= \t") if fact.text.startswith(fact.name) else ""


def _limit(rule: Rule, index: RuleIndex) -> int | None:
    """The smallest value of the rule's `exceeds` property among the selected architectures."""
    if rule.exceeds is None:
        return None
    return min(int(getattr(arch, rule.exceeds)) for arch in rule.matching_archs(index.archs))


def _unavailable(entry: Entry | None, target: Target) -> bool:
    return bool(entry and entry.since and _release(entry.since) > _release(target.rocm))


# version_tuple of a release, read once per process: a scan asks for each entry's `since` and the target's
# twice per finding (cuda-samples: 37k times, for a few dozen distinct releases)
_release = functools.lru_cache(maxsize=1024)(version_tuple)


def _finding(rel: str, fact: Fact, rule: Rule, entry: Entry | None, symbol: str,
             extraction: Extraction, index: RuleIndex) -> Finding:
    target = index.target
    hip = entry.hip if entry and entry.hip is not None else rule.hip
    hipify = (entry.hipify if entry and entry.hipify else None) or rule.hipify
    message = _message(rule, symbol, hip, entry, fact.value)
    if entry is not None and _unavailable(entry, target):
        message += f" ({hip} needs ROCm {entry.since}; the target is ROCm {target.rocm})"
        hipify = "no"
    cls, confidence = rule.migration_class, rule.confidence
    route = index.routes.get(symbol)
    if route is not None:  # a documented ROCm route (or a known redesign) decides the class
        cls, confidence, hip = route.migration_class, "high", route.hip
        message += f"; ROCm route: {route.hip} ({route.source})" if route.hip else f"; no ROCm route ({route.source})"
    # Finding's fields in order (build_finding: the dataclass's __init__ cost twice as much), the rest at their defaults:
    # workload, targets, source, precise, status, effective_class, compiler
    return build_finding((rule.id, rel, fact.line, fact.column, fact.end_line, fact.end_column, symbol, message, hip,
                          hipify, confidence, cls, extraction.line_text.get((fact.cell or 0, fact.line), ""), fact.cell,
                          "", (), "rules", None, "optional" if fact.guard == OPTIONAL else "", "", ""))


def _message(rule: Rule, symbol: str, hip: str | None, entry: Entry | None, value: int | None = None) -> str:
    if rule.message:
        return rule.message.format(symbol=symbol, hip=hip or "", value=value if value is not None else "")
    text = f"{symbol}: {rule.title}"
    if hip:
        text += f"; HIP/ROCm: {hip}"
    if entry and entry.removed:
        text += f"; removed in CUDA {entry.removed}"
    elif entry and entry.deprecated:
        text += f"; deprecated since CUDA {entry.deprecated}"
    if entry and entry.note:
        text += f"; {entry.note}"
    return text


def capped_notes(findings: Iterable[Finding]) -> list[str]:
    """One note per file whose findings reached MAX_FINDINGS_PER_FILE (match_file stopped there)."""
    per_file = Counter(f.path for f in findings if f.source == "rules")
    return [f"{path}: more than {MAX_FINDINGS_PER_FILE} findings; only the first {MAX_FINDINGS_PER_FILE} per target "
            "are reported" for path, count in sorted(per_file.items()) if count >= MAX_FINDINGS_PER_FILE]
