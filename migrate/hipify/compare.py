"""Judge hipify-perl against the rule base, one file at a time (pure functions).

Input: a file's rule-base findings, its text, and hipify-perl's parsed examine result
for it. Output: for each finding whether hipify converts it (measured: its symbol is
among the names hipify rewrote in that file, and it is a whole word of code on the
finding's line), findings for hipify warnings the rule base did not report (they reuse
the rule id the rule base has for the name), the disagreements between the two, and the
numbers for hipify coverage. Only C/C++/CUDA text is lexed for comments and strings."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from migrate.hipify.lexer import CODE, COMMENT, STRING, Masked, mask, plain, where, word, words
from migrate.hipify.parse import FileExamine, HipifyWarning
from migrate.model import Extraction, Fact, Finding, HipifyState
from migrate.model_report import Workload
from migrate.rulebase.load import Rule
from migrate.scan.match import RuleIndex, match_file

FALSE_ALARM = "false-alarm"  # the warned name is not a whole word of code on that line
CONVERTED_IN_COMMENT = "converted-in-comment"
CONVERTED_IN_STRING = "converted-in-string"
SILENT_MISS = "silent-miss"  # a finding hipify neither converts nor warns about
NOT_CONVERTED = "not-converted"  # the rule base expects a conversion; hipify warns and leaves it
DISPUTED = "disputed-conversion"  # hipify rewrites a name the rule base says is not portable as renamed
DIFFERENT = "converted-differently"  # hipify writes another HIP name than the rule base's mapping
RULES_DIFFER = "rule-base-disagrees"  # hipify warns; the rule base knows the name (as portable) and reports nothing
UNKNOWN = "unknown-name"  # hipify warns about a name no rule knows (often a user's cuda* identifier)
KINDS = (FALSE_ALARM, CONVERTED_IN_COMMENT, CONVERTED_IN_STRING, SILENT_MISS, NOT_CONVERTED, DISPUTED,
         DIFFERENT, RULES_DIFFER, UNKNOWN)
NAMED_KINDS = frozenset({"identifier", "include"})  # fact kinds hipify can rewrite by name
UNCOUNTED = {"cub": "hipcub"}  # transformCubNamespace: always applied, never in the by-names list
PLAIN_NAME = re.compile(r"^[\w/.:<>]+$")


@dataclass(frozen=True, slots=True)
class Verdict:
    finding: Finding
    converted: bool  # measured: hipify rewrites the symbol on the finding's line
    hip_name: str | None  # what hipify writes instead
    hipify: HipifyState  # the merged value for Finding.hipify
    basis: str  # "measured", or "rule" for a construct that is valid HIP as written (nothing to rewrite)
    warnings: tuple[HipifyWarning, ...] = ()  # hipify's warnings about this symbol on this line


@dataclass(frozen=True, slots=True)
class Disagreement:
    kind: str  # one of KINDS
    path: str
    line: int
    symbol: str
    hipify: str  # hipify's side: its warning(s) or its rewrite
    rules: str  # the rule base's side: the finding, or why there is none
    rule: str | None = None  # the finding's rule id, when there is one


@dataclass(frozen=True, slots=True)
class FileComparison:
    path: str
    verdicts: tuple[Verdict, ...]
    new_findings: tuple[Finding, ...]  # source: hipify-perl (reusing the rule base's rule ids)
    disagreements: tuple[Disagreement, ...]

    @property
    def references(self) -> int:
        """CUDA references hipify would have to rewrite: findings (old and new), less valid-HIP constructs."""
        return sum(1 for v in self.verdicts if v.basis == "measured") + len(self.new_findings)

    @property
    def converted(self) -> int:
        return sum(1 for v in self.verdicts if v.basis == "measured" and v.converted)


@dataclass(frozen=True, slots=True)
class Coverage:
    references: int
    converted: int

    @property
    def ratio(self) -> float | None:
        return self.converted / self.references if self.references else None


def rule_kinds(rules: Iterable[Rule]) -> dict[str, str]:
    """Rule id -> the fact kind it matches (`identifier`, `include`, `construct`, ...)."""
    return {rule.id: rule.matcher.kind for rule in rules}


def compare_file(path: str, text: str, findings: Sequence[Finding], examined: FileExamine, *,
                 kinds: Mapping[str, str], index: RuleIndex | None = None, extraction: Extraction | None = None,
                 comments_converted: bool = True, c_like: bool = True) -> FileComparison:
    """Compare one file. `kinds` is rule_kinds(rulebase.rules); `index` (the scan's RuleIndex)
    lets hipify warnings the rule base did not report become findings; `extraction` (the
    file's facts) tells code the extractor saw from code it did not; `comments_converted`
    is False for hipify-perl builds that mask comments (Tool.masks_comments)."""
    masked = mask(text) if c_like else plain(text)
    lines = {part: masked.lines(part) for part in (CODE, COMMENT, STRING)}
    renamed = examined.renamed()
    rewrite = _rewriter(renamed)
    verdicts = [_verdict(f, rewrite, examined, kinds) for f in findings]
    out: list[Disagreement] = []
    for v in verdicts:
        out.extend(_finding_disagreement(path, v, examined))
    claimed = {(f.line, f.symbol) for f in findings}  # those warnings were judged with the finding
    new: list[Finding] = []
    for w in examined.warnings:
        _judge_warning(path, w, lines, text, claimed, index, extraction, new, out)
    out.extend(_converted_outside_code(path, masked, renamed, comments_converted))
    return FileComparison(path=path, verdicts=tuple(verdicts), new_findings=tuple(_dedupe(new)),
                          disagreements=tuple(_merge(out)))


def coverage(comparisons: Iterable[FileComparison]) -> Coverage:
    items = list(comparisons)
    return Coverage(references=sum(c.references for c in items), converted=sum(c.converted for c in items))


def coverage_by_workload(comparisons: Mapping[str, FileComparison], workloads: Iterable[Workload]) -> dict[str, Coverage]:
    """Workload name -> hipify coverage over its files that hipify examined."""
    return {w.name: coverage(comparisons[f] for f in w.files if f in comparisons) for w in workloads}


def _verdict(f: Finding, rewrite: Callable[[str], str], examined: FileExamine, kinds: Mapping[str, str]) -> Verdict:
    named = kinds.get(f.rule, "identifier") in NAMED_KINDS
    warned = tuple(w for w in examined.warnings_on(f.line) if f.symbol in w.names)
    written = rewrite(f.symbol) if named and not any(w.kind == "leftover" for w in warned) else f.symbol
    if written != f.symbol:
        return Verdict(f, True, written, "yes" if f.hipify == "yes" else "partial", "measured", warned)
    if f.hipify == "yes" and (not named or _unchanged(f)):
        return Verdict(f, False, None, "yes", "rule", warned)
    return Verdict(f, False, None, "no", "measured", warned)


def needs_hand_work(finding: Finding, kind: str) -> bool:
    """For a finding in hipify-perl's output: True unless it is valid HIP as written (a kernel,
    a launch, a Thrust header). A name the rule base says hipify converts is still there, so
    this hipify-perl did not convert it."""
    return not (finding.hipify == "yes" and (kind not in NAMED_KINDS or _unchanged(finding)))


def _unchanged(f: Finding) -> bool:
    """The HIP side keeps the CUDA spelling (`thrust/` headers, the `thrust::` namespace)."""
    first = (f.hip or "").split(" ")[0]
    return bool(first) and (f.symbol.startswith(first) or first in (f.symbol, f.symbol + "::"))


def _rewriter(renamed: Mapping[str, str]) -> Callable[[str], str]:
    """What hipify-perl writes for a symbol: its whole-word renames applied inside the symbol
    (so `curand.h` becomes `hiprand.h` by the generic `curand => hiprand` rule), plus the
    `cub::` -> `hipcub::` rewrite that hipify-perl makes without counting it."""
    pattern = words(frozenset(renamed))

    def rewrite(symbol: str) -> str:
        if symbol in renamed:
            return renamed[symbol]
        if symbol in UNCOUNTED:
            return UNCOUNTED[symbol]
        return pattern.sub(lambda m: renamed[m.group(0)], symbol) if pattern else symbol
    return rewrite


def _rewrites(symbol: str, hip_name: str | None) -> str:
    return f"rewrites {symbol} to {hip_name}" if hip_name else f"deletes {symbol}"


def _finding_disagreement(path: str, v: Verdict, examined: FileExamine) -> list[Disagreement]:
    f = v.finding
    side = f"{f.rule}: {f.message} (rule base: hipify {f.hipify})"
    if v.converted and f.hipify == "no":
        return [Disagreement(DISPUTED, path, f.line, f.symbol, _rewrites(f.symbol, v.hip_name), side, f.rule)]
    if v.converted and f.hip and PLAIN_NAME.match(f.hip) and f.hip != v.hip_name:
        return [Disagreement(DIFFERENT, path, f.line, f.symbol, _rewrites(f.symbol, v.hip_name),
                             f"{f.rule}: maps it to {f.hip}", f.rule)]
    if v.converted or v.basis == "rule" or not examined.warned:
        return []
    if not examined.warnings_on(f.line):
        return [Disagreement(SILENT_MISS, path, f.line, f.symbol, "no conversion and no warning", side, f.rule)]
    if f.hipify in ("yes", "partial") and v.warnings:
        return [Disagreement(NOT_CONVERTED, path, f.line, f.symbol, "; ".join(w.raw for w in v.warnings), side, f.rule)]
    return []


def _judge_warning(path: str, w: HipifyWarning, lines: Mapping[str, list[str]], text: str,
                   claimed: set[tuple[int, str]], index: RuleIndex | None, extraction: Extraction | None,
                   new: list[Finding], out: list[Disagreement]) -> None:
    row = {part: (lines[part][w.line - 1] if 0 < w.line <= len(lines[part]) else "") for part in lines}
    if w.kind == "launch":
        if "<<<" not in row[CODE]:
            out.append(Disagreement(FALSE_ALARM, path, w.line, "<<<>>>", w.raw, "a launch only in a comment or string"))
        return
    for name in w.names:
        if (w.line, name) in claimed:
            continue
        found = where(name, row)
        if CODE not in found:
            reason = f"only in a {' and '.join(sorted(found))}" if found else "not a whole word on this line"
            out.append(Disagreement(FALSE_ALARM, path, w.line, name, w.raw, reason))
            continue
        facts = [x for x in (extraction.facts if extraction else ()) if x.name == name and x.line == w.line]
        if any(x.guard for x in facts):
            continue  # code on either side of a HIP guard counts as ported
        seen = extraction is not None and not facts  # the extractor read this line and saw no such name
        made = _as_findings(path, name, w, row[CODE], text, index) if seen and index is not None else None
        if made:
            new.extend(made)
        elif index is None or index.lookup(_fact(name, w.line, row[CODE])):
            out.append(Disagreement(RULES_DIFFER, path, w.line, name, w.raw, "reports nothing to port here"))
        else:
            out.append(Disagreement(UNKNOWN, path, w.line, name, w.raw, "no rule knows this name"))


def _as_findings(path: str, name: str, w: HipifyWarning, code_line: str, text: str,
                 index: RuleIndex) -> list[Finding]:
    """A warned name the extractor did not see: the rule base's finding for it, marked as hipify's."""
    source = text.split("\n")[w.line - 1] if w.line >= 1 else ""
    fact = _fact(name, w.line, code_line)
    extraction = Extraction(facts=(fact,), lines=w.line, line_text={(0, w.line): source})
    return [replace(f, message=f"{f.message} (reported by hipify-perl: {w.raw})")
            for f in match_file(path, extraction, index)]


def _fact(name: str, line: int, code_line: str) -> Fact:
    m = word(name).search(code_line)
    found = m.start() if m else 0
    column = found + 1
    role = "call" if code_line[found + len(name):].lstrip().startswith("(") else "value"
    return Fact(kind="identifier", name=name, line=line, column=column, end_line=line,
                end_column=column + len(name), role=role)


def _converted_outside_code(path: str, masked: Masked, renamed: Mapping[str, str],
                            comments_converted: bool) -> list[Disagreement]:
    pattern = words(frozenset(renamed))
    if pattern is None:
        return []
    out = []
    parts = ((CONVERTED_IN_COMMENT, masked.comment, comments_converted), (CONVERTED_IN_STRING, masked.string, True))
    for kind, body, applies in parts:
        if not applies:
            continue
        for m in pattern.finditer(body):
            line = body.count("\n", 0, m.start()) + 1
            out.append(Disagreement(kind, path, line, m.group(0), f"rewrites it to {renamed[m.group(0)]}",
                                    f"nothing to report in a {kind.rsplit('-', 1)[1]}"))
    return out


def _merge(items: list[Disagreement]) -> list[Disagreement]:
    """One disagreement per (kind, line, symbol): several warnings about one name are joined."""
    merged: dict[tuple[str, int, str, str | None], Disagreement] = {}
    for d in items:
        key = (d.kind, d.line, d.symbol, d.rule)
        if key in merged and d.hipify not in merged[key].hipify:
            merged[key] = replace(merged[key], hipify=f"{merged[key].hipify}; {d.hipify}")
        merged.setdefault(key, d)
    return sorted(merged.values(), key=lambda d: (d.line, d.kind, d.symbol))


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: dict[tuple[str, int, int, str], Finding] = {}
    for f in findings:
        seen.setdefault((f.rule, f.line, f.column, f.symbol), f)
    return sorted(seen.values(), key=lambda f: f.sort_key)
