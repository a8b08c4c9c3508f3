"""SARIF 2.1.0 for GitHub code scanning: rules from the rule base, levels from classes,
fingerprints that survive line shifts."""
from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from migrate.model import Finding, Report, RuleInfo
from migrate.render.escape import md as _md

LEVELS = {"incompatible": "error", "migration-required": "warning", "minor-adaptation": "note", "native": "none"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/rocm-migrate/rocm-migrate"


def render(report: Report) -> str:
    return json.dumps(to_sarif(report), indent=2, ensure_ascii=False) + "\n"


def to_sarif(report: Report) -> dict[str, Any]:
    index = {rule.id: i for i, rule in enumerate(report.rules)}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "rocm-migrate", "version": report.tool_version, "informationUri": INFORMATION_URI,
                "rules": [_rule(rule) for rule in report.rules],
                "properties": {"rulesVersion": report.rules_version},
            }},
            "originalUriBaseIds": {"SRCROOT": {"description": {"text": "The root of the scanned tree."}}},
            "results": [_result(f, index) for f in report.findings],
            "properties": {"target": {"rocm": report.target.rocm, "arch": list(report.target.arch)},
                           "class": report.migration_class},
        }],
    }


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


def _result(finding: Finding, index: dict[str, int]) -> dict[str, Any]:
    region = {"startLine": finding.line, "startColumn": finding.column,
              "endLine": finding.end_line, "endColumn": max(finding.end_column, finding.column)}
    properties: dict[str, object] = {
        "class": finding.cls, "rule_class": finding.migration_class, "status": finding.status,
        "symbol": finding.symbol, "hip": finding.hip,
        "hipify": finding.hipify, "workload": finding.workload, "targets": list(finding.targets)}
    if finding.cell is not None:
        properties["notebookCell"] = finding.cell
    result: dict[str, object] = {
        "ruleId": finding.rule,
        "level": LEVELS[finding.cls],
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(finding.path), "uriBaseId": "SRCROOT"},
                                            "region": region}}],
        "partialFingerprints": {"rocmMigrate/v1": finding.fingerprint},
        "properties": properties,
    }
    if finding.rule in index:
        result["ruleIndex"] = index[finding.rule]
    return result


