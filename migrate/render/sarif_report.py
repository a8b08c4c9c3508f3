"""SARIF 2.1.0 for GitHub code scanning: rules from the rule base, levels from classes,
fingerprints that survive line shifts and stay distinct for equal lines, paths relative to
%SRCROOT% (never the scanning machine's), and at most as many results as code scanning takes."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from migrate import jsonio
from migrate.model import Finding, RuleInfo, class_rank
from migrate.model_report import Report
from migrate.render.escape import md as _md
from migrate.safetext import visible_data

LEVELS = {"incompatible": "error", "migration-required": "warning", "minor-adaptation": "note", "native": "none"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/rocm-migrate/rocm-migrate"
BASE = "%SRCROOT%"
MIN_CLASS = "minor-adaptation"  # native findings need no change: no result
MAX_RESULTS = 5000  # GitHub code scanning keeps at most this many results of a run


RESULTS_STAND_IN = "\0rocm-migrate: the results go here\0"
RESULT_INDENT = " " * 8  # results are items of runs[0].results: four levels deep


def render(report: Report, *, min_class: str = MIN_CLASS, limit: int = MAX_RESULTS) -> str:
    return "".join(chunks(report, min_class=min_class, limit=limit))


def chunks(report: Report, *, min_class: str = MIN_CLASS, limit: int = MAX_RESULTS) -> Iterator[str]:
    """The SARIF text in pieces, the results one at a time; the pieces join to exactly
    json.dumps(to_sarif(...), indent=2, ensure_ascii=False) + "\n"."""
    whole = visible_data(to_sarif(report, min_class=min_class, limit=limit, results=False))
    head, *rest = jsonio.dumps_indented(whole).split(jsonio.dumps_indented(visible_data(RESULTS_STAND_IN)))
    if len(rest) != 1:  # the stand-in also appears elsewhere: no shortcut
        yield jsonio.dumps_indented(visible_data(to_sarif(report, min_class=min_class, limit=limit))) + "\n"
        return
    yield head
    first = True
    for result in _results(report, min_class, limit):  # texts shown visibly; URIs are percent-encoded
        text = jsonio.dumps_indented(visible_data(result)).replace("\n", "\n" + RESULT_INDENT)
        yield ("[\n" if first else ",\n") + RESULT_INDENT + text
        first = False
    yield "[]" if first else "\n      ]"
    yield rest[0] + "\n"


def selected(report: Report, min_class: str, limit: int) -> tuple[list[Finding], int]:
    """The findings of at least `min_class`, worst first when over `limit`; and how many qualified."""
    wanted = [f for f in report.findings if class_rank(f.cls) >= class_rank(min_class)]
    kept = sorted(wanted, key=lambda f: (-class_rank(f.cls), f.sort_key))[:limit]
    return sorted(kept, key=lambda f: f.sort_key), len(wanted)


def _results(report: Report, min_class: str, limit: int) -> Iterator[dict[str, Any]]:
    findings, _ = selected(report, min_class, limit)
    index = {rule.id: i for i, rule in enumerate(report.rules)}
    seen: Counter[str] = Counter()
    prefix = report.repository_prefix or ""
    for finding in findings:
        seen[finding.fingerprint] += 1
        yield _result(finding, index, seen[finding.fingerprint], prefix=prefix)


def to_sarif(report: Report, *, min_class: str = MIN_CLASS, limit: int = MAX_RESULTS,
             results: bool = True) -> dict[str, Any]:
    """The SARIF log; without `results`, a stand-in string in place of the results (for `chunks`)."""
    findings, qualified = selected(report, min_class, limit)
    notes = [f"only findings of class {min_class} or worse"] if min_class != "native" else []
    if qualified > len(findings):
        notes.append(f"{qualified - len(findings)} of {qualified} results left out (at most {limit}, worst class "
                     f"first); the JSON report has them all")
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "rocm-migrate", "version": report.tool_version, "informationUri": INFORMATION_URI,
                "rules": [_rule(rule) for rule in report.rules],
                "properties": {"rulesVersion": report.rules_version},
            }},
            "originalUriBaseIds": {BASE: {"description": {"text": _base_text(report)}}},
            "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": [
                {"level": "note", "message": {"text": note}} for note in notes]}],
            "results": list(_results(report, min_class, limit)) if results else RESULTS_STAND_IN,
            "properties": {"target": {"rocm": report.target.rocm, "arch": list(report.target.arch)},
                           "class": report.migration_class, "results": len(findings), "qualified": qualified,
                           "minimumClass": min_class},
        }],
    }


def _base_text(report: Report) -> str:
    if report.repository_prefix is None:
        return "The scanned folder."
    return "The top of the git checkout" + (f" (the scan covered {report.repository_prefix}/)."
                                           if report.repository_prefix else ".")


def uri(path: str) -> str:
    """A relative path as a URI reference: every byte outside RFC 3986's unreserved set and '/'
    is percent-encoded (spaces, '%', '#', '?', control characters, undecodable bytes)."""
    return quote(path.encode("utf-8", "surrogateescape"), safe="/")


def _rule(rule: RuleInfo) -> dict[str, Any]:
    hip = rule.hip or "none: new code or a different design"
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": f"{rule.rationale}\nHIP/ROCm equivalent: {hip}\nhipify converts it: {rule.hipify}",
                 "markdown": f"{_md(rule.rationale)}\n\n**HIP/ROCm equivalent:** {_md(hip)}\n\n"
                             f"**hipify converts it:** {rule.hipify}\n\n[Documentation]({rule.docs})"},
        "helpUri": rule.docs,
        "defaultConfiguration": {"level": LEVELS[rule.migration_class]},
        "properties": {"class": rule.migration_class, "precision": rule.confidence,
                       "tags": ["portability", "rocm", rule.migration_class]},
    }


def _result(finding: Finding, index: dict[str, int], occurrence: int, *, prefix: str) -> dict[str, Any]:
    """`occurrence` numbers the findings that share a fingerprint (equal lines in one file); `prefix`
    is the scanned folder below the checkout's top, so that code scanning finds the file."""
    region = {"startLine": finding.line, "startColumn": finding.column,
              "endLine": finding.end_line, "endColumn": max(finding.end_column, finding.column)}
    properties: dict[str, object] = {
        "class": finding.cls, "rule_class": finding.migration_class, "status": finding.status,
        "symbol": finding.symbol, "hip": finding.hip,
        "hipify": finding.hipify, "workload": finding.workload, "targets": list(finding.targets)}
    if finding.cell is not None:
        properties["notebookCell"] = finding.cell
    if finding.compiler:  # `check`: hip-clang confirmed it ("confirmed") or it is a miss of the rule base
        properties["compiler"] = finding.compiler
        properties["tags"] = [f"compiler-{finding.compiler}"]
    result: dict[str, object] = {
        "ruleId": finding.rule,
        "level": LEVELS[finding.cls],
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(f"{prefix}/{finding.path}" if prefix
                                                                            else finding.path), "uriBaseId": BASE},
                                            "region": region}}],
        "partialFingerprints": {"rocmMigrate/v1": f"{finding.fingerprint}:{occurrence}"},
        "properties": properties,
    }
    if finding.rule in index:
        result["ruleIndex"] = index[finding.rule]
    return result


