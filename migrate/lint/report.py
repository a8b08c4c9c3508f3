"""lint's outputs, each a pure function of a LintResult: text, JSON, statistics, SARIF."""
from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import replace
from pathlib import Path

from migrate import __version__, jsonio, schemas
from migrate.lint.run import LintResult
from migrate.model import SCHEMA_VERSION, Finding, Target
from migrate.rulebase.load import RuleBase
from migrate.safetext import json_escaped, terminal

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any

FORMATS = ("text", "json", "sarif")


class FormatUnavailable(Exception):
    """The output format's renderer is not installed."""


def location(finding: Finding) -> str:
    """`path:line:col`, or ruff's `path:cell N:line:col` for a notebook cell."""
    cell = f"cell {finding.cell}:" if finding.cell else ""
    return f"{finding.path}:{cell}{finding.line}:{finding.column}"


def text(result: LintResult) -> str:
    return "".join(terminal(f"{location(f)}: {f.rule} {f.message}") + "\n" for f in result.findings)


def counts(result: LintResult, rules: RuleBase) -> list[dict[str, Any]]:
    tally = Counter(f.rule for f in result.findings)
    names = dict(zip(rules.ids, rules.names, strict=True))
    return [{"rule": rule, "name": names.get(rule, ""), "count": n}
            for rule, n in sorted(tally.items(), key=lambda item: (-item[1], item[0]))]


def statistics(result: LintResult, rules: RuleBase) -> str:
    rows = counts(result, rules)
    width = max((len(row["rule"]) for row in rows), default=0)  # rule ids run from 7 to 9 characters
    return "".join(f"{row['count']:>6}  {row['rule']:<{width}}  {row['name']}\n" for row in rows)


def json_text(result: LintResult, rules: RuleBase, *, fail_on: str, statistics_only: bool = False) -> str:
    if statistics_only:
        return json.dumps(counts(result, rules), indent=2) + "\n"
    document = {
        "$schema": schemas.schema_id(schemas.LINT),
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "rocm-migrate", "version": __version__, "rules_version": rules.version},
        "summary": {"files": result.files, "lines": result.lines, "findings": len(result.findings),
                    "failing": len(result.failing(fail_on)), "fail_on": fail_on,
                    "suppressed": result.suppressed, "baselined": result.baselined},
        "findings": [f.to_json(f"F{i}") for i, f in enumerate(result.findings, start=1)],
        "skipped": [s.to_json() for s in result.skipped],
    }
    return json_escaped(jsonio.dumps_indented(document)) + "\n"


def sarif(result: LintResult, rules: RuleBase, *, target: Target, root: str) -> str:
    """Through the scan's SARIF renderer, given a report with the lint findings and no workloads."""
    try:
        from migrate.render import sarif_report
    except ModuleNotFoundError as exc:
        if exc.name != "migrate.render.sarif_report":
            raise
        raise FormatUnavailable("sarif output not available") from None
    from migrate import vcs
    from migrate.model_report import Report  # here: text and JSON output never build a report

    moved = [(f, _from_top(f.path, root)) for f in result.findings]
    findings = tuple(replace(f, path=top_path or f.path) for f, top_path in moved)
    # %SRCROOT% is the checkout top when the paths were made relative to one: where the linted files are,
    # not where lint runs from
    in_checkout = any(top_path is not None for _, top_path in moved) or vcs.checkout_top(Path(root)) is not None
    report = Report(tool_version=__version__, rules_version=rules.version, target=target, root=root,
                    files_scanned=result.files, lines=result.lines, seconds=0.0, workloads=(),
                    findings=findings, skipped=result.skipped, rules=rules.infos({f.rule for f in findings}),
                    repository_prefix="" if in_checkout else None)
    return sarif_report.render(report)


def _from_top(path: str, root: str) -> str | None:
    """A lint path (as given: relative to the working folder, or absolute) relative to the top of the
    checkout that holds the file, which code scanning resolves %SRCROOT% to; None outside one."""
    from migrate import vcs

    absolute = Path(os.path.abspath(os.path.join(root, path)))
    top = vcs.checkout_top(absolute.parent)
    return None if top is None else absolute.relative_to(top).as_posix()
