"""Inline suppression: `rocm-migrate: ignore[RULE,...]` read from real comment tokens.

A suppression in a comment that follows code covers the lines the comment touches; a comment
that stands alone on its line also covers the line after it. Rules are given by id or name.
A marker without rules suppresses nothing and is reported (HIP0901); a rule in a suppression
that matched no finding is reported too (HIP0902), like ruff's unused-noqa."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from migrate.model import Finding
from migrate.rulebase.load import Rule, RuleBase

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from migrate.extract.comments import Comment

MARKER = re.compile(r"(?<![\w-])rocm-migrate:[ \t]*ignore\b(\[[^\]\n]*\])?")
BARE, UNUSED = "HIP0901", "HIP0902"


@dataclass(frozen=True, slots=True, kw_only=True)
class Suppression:
    """One inline suppression marker: where it is, the rules it names, the lines it covers."""

    line: int
    column: int
    end_column: int
    cell: int | None
    codes: tuple[str, ...]  # as written; () for a bare marker
    covers: tuple[int, ...]  # the lines whose findings it suppresses
    source_line: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """A file's findings after its suppression comments: those kept, those about the comments, the count hidden."""

    kept: tuple[Finding, ...]
    meta: tuple[Finding, ...]  # HIP0901/HIP0902 findings
    suppressed: int


def parse(kind: str, source: bytes) -> list[Suppression]:
    """Every suppression marker in the comments of one file of the given kind."""
    if b"rocm-migrate" not in source:  # most files: their comments are not even read
        return []
    from migrate.extract import comments as found_comments

    return [s for comment in found_comments.of(kind, source) for s in _markers(comment)]


def _markers(comment: Comment) -> Iterable[Suppression]:
    for m in MARKER.finditer(comment.text):
        before = comment.text[:m.start()]
        line = comment.line + before.count("\n")
        column = (len(before) - before.rfind("\n") - 1) if "\n" in before else comment.column - 1 + len(before)
        covers = range(comment.line, comment.end_line + 1 + comment.standalone)
        codes = tuple(c for c in re.split(r"[\s,]+", (m.group(1) or "[]")[1:-1]) if c)
        yield Suppression(line=line, column=column + 1, end_column=column + 1 + len(m.group(0)), cell=comment.cell,
                          codes=codes, covers=tuple(covers), source_line=comment.line_text(line))


def apply(rel: str, findings: list[Finding], suppressions: list[Suppression], rules: RuleBase,
          active: Callable[[str], bool]) -> Outcome:
    """Drop suppressed findings; report bare markers and rules that suppressed nothing.

    `active(rule_id)` tells whether a rule was on for this file: a suppression of a rule that
    was not checked (deselected, or not for this target) is not reported as unused."""
    wanted = [(s, {code: _rule_id(code, rules) for code in s.codes}) for s in suppressions]
    by_line: dict[tuple[int, int], list[tuple[Suppression, dict[str, str | None]]]] = {}
    for item in wanted:
        for line in item[0].covers:
            by_line.setdefault((item[0].cell or 0, line), []).append(item)
    used: set[tuple[Suppression, str]] = set()
    kept = []
    for finding in findings:
        hits = [(s, code) for s, codes in by_line.get((finding.cell or 0, finding.line), ())
                for code, rule_id in codes.items() if rule_id == finding.rule]
        used.update(hits)
        if not hits:
            kept.append(finding)
    meta = [m for s, codes in wanted for m in _meta(rel, s, codes, used, rules, active)]
    return Outcome(kept=tuple(kept), meta=tuple(meta), suppressed=len(findings) - len(kept))


def _meta(rel: str, s: Suppression, codes: dict[str, str | None], used: set[tuple[Suppression, str]],
          rules: RuleBase, active: Callable[[str], bool]) -> Iterable[Finding]:
    if not codes:
        if active(BARE) and (rule := rules.get(BARE)):
            yield _finding(rel, s, rule, "rocm-migrate: ignore", "")
        return
    if UNUSED in codes.values() or not active(UNUSED) or (rule := rules.get(UNUSED)) is None:
        return
    for code, rule_id in codes.items():
        if rule_id is None:
            yield _finding(rel, s, rule, code, f"; {code!r} is not a rule id or name")
        elif (s, code) not in used and active(rule_id):
            yield _finding(rel, s, rule, code, "")


def _rule_id(code: str, rules: RuleBase) -> str | None:
    rule = rules.get(code) or rules.get(code.upper())
    return rule.id if rule else None


def _finding(rel: str, s: Suppression, rule: Rule, symbol: str, extra: str) -> Finding:
    message = (rule.message or "{symbol}: " + rule.title).format(symbol=symbol, hip=rule.hip or "", value="")
    return Finding(rule=rule.id, path=rel, line=s.line, column=s.column, end_line=s.line, end_column=s.end_column,
                   symbol=symbol, message=message + extra, hip=rule.hip, hipify=rule.hipify,
                   confidence=rule.confidence, migration_class=rule.migration_class,
                   source_line=s.source_line, cell=s.cell)
