"""A rule's documentation, rendered from its record: for `explain` and for docs/rules/."""
from __future__ import annotations

import re
from collections.abc import Iterable

from migrate.rulebase.alternatives import Lane
from migrate.rulebase.load import Rule

FAMILIES = {
    "0": "headers", "1": "runtime", "2": "driver", "3": "libraries", "4": "device", "5": "asm",
    "6": "python", "7": "dependencies", "8": "build", "9": "containers",
}
MAX_TABLE_ROWS = 2000


def family(rule: Rule) -> str:
    return FAMILIES[rule.id[3]]


def matches(rule: Rule) -> str:
    """One line saying which facts the rule matches."""
    m = rule.matcher
    parts = []
    if m.exact:
        parts.append("exactly " + ", ".join(f"`{n}`" for n in sorted(m.exact)))
    if m.entries:
        parts.append(f"{len(m.entries)} names (table below)")
    if m.prefixes:
        parts.append("names starting with " + ", ".join(f"`{p}`" for p in m.prefixes))
    if m.regex is not None:
        parts.append(f"the pattern `{m.regex.pattern}`")
    where = f" in the role {', '.join(sorted(m.roles))}" if m.roles else ""
    return f"{m.kind.replace('_', ' ')} facts: " + "; ".join(parts) + where


def conditions(rule: Rule) -> list[str]:
    out = []
    if rule.rocm_min or rule.rocm_max:
        out.append(f"ROCm {rule.rocm_min or 'any'} to {rule.rocm_max or 'latest'}")
    if rule.target:
        out.append("targets with " + ", ".join(f"{k} = {v}" for k, v in rule.target))
    if rule.arch:
        out.append("architectures " + ", ".join(rule.arch))
    if rule.exceeds:
        out.append(f"only when the construct's size exceeds the target's {rule.exceeds}")
    if rule.when == "unavailable":
        out.append("only when the target ROCm predates the name (see 'since')")
    if rule.fallback:
        out.append("only when no other rule matched the same fact")
    if rule.covers_file:
        out.append("a finding of it stands for the whole file: the file's findings of a lower class are left out")
    if not rule.in_backend_files:
        out.append("not in a file of the project's own per-back-end family (a cuda/ folder or cuda_ file beside one "
                   "for HIP, SYCL, OpenMP ..., or a folder of its CUTLASS code such as cutlass_extensions/): a port "
                   "adds the HIP twin and leaves that file as it is")
    if rule.known_name:
        out.append("only when the construct names a function an identifier rule knows (a CUDA API, not a "
                   "project helper named like one)")
    if rule.file_has_what:
        out.append(f"only in a file that also shows {rule.file_has_what}")
    if rule.file_lacks_what:
        out.append(f"only in a file that shows no {rule.file_lacks_what}")
    if rule.header_only_what:
        out.append(f"only in a header where {rule.header_only_what}")
    if rule.product_header:
        out.append("a copy of the header in the project's tree is still the product's header, not the project's own")
    if rule.needs_context:
        out.append("a name outside CUDA's spellings only in CUDA context (a .cu/.cuh file, a header, or a file with "
                   f"another CUDA finding): elsewhere it is {rule.needs_context}")
    if rule.mask_elsewhere:
        out.append("only when another file of the project knows a type of the same name as a lane mask "
                   "(by its name, a ballot stored in it or returned through it)")
    return out


def markdown(rule: Rule, example: str | None = None, lane: Lane | None = None) -> str:
    lines = [
        f"# {rule.id} `{rule.name}`: {rule.title}", "",
        "| class | hipify converts it | confidence | effort (h) | status | family |",
        "|---|---|---|---|---|---|",
        f"| {rule.migration_class} | {rule.hipify} | {rule.confidence} | {rule.effort_per_occurrence} per "
        f"occurrence, {rule.effort_first_use} first use | {rule.status} | {family(rule)} |", "",
        "## What it matches", "", matches(rule) + ".", "",
    ]
    if conds := conditions(rule):
        lines += ["Applies to: " + "; ".join(conds) + ".", ""]
    lines += ["## Why it matters on ROCm", "", rule.rationale, ""]
    if example:
        lines += ["## Example", "", "```cuda" if not example.startswith("#!") else "```", example.rstrip(), "```", ""]
    lines += ["## HIP/ROCm equivalent", "", rule.hip or "None: this needs new code or a different design.", ""]
    if rule.matcher.entries:
        lines += _entry_table(rule)
    if lane is not None:
        lines += _lane(lane)
    lines += ["## References", "", f"- {rule.docs}", f"- Rule file: `rules/{rule.file}`", ""]
    return "\n".join(lines)


def _lane(lane: Lane) -> list[str]:
    """A rewrite lane's section (rules/alternatives/rewrites.yaml)."""
    routes = "; ".join(f"[{a.name}]({a.url})" for a in lane.alternatives)
    return ["## Rewrite lane", "",
            f"A kernel with no mechanical port: a *rewrite* component of its workload (lane `{lane.id}`, "
            f"{lane.title}; effort band {lane.band}), migration-required with a named rewrite. "
            f"AMD alternatives: {routes}. Source: {lane.source}", ""]


def _entry_table(rule: Rule) -> list[str]:
    rows = ["| CUDA | ROCm | since | notes |", "|---|---|---|---|"]
    for name, entry in sorted(rule.matcher.entries.items())[:MAX_TABLE_ROWS]:
        notes = "; ".join(filter(None, [
            f"deprecated in CUDA {entry.deprecated}" if entry.deprecated else "",
            f"removed in CUDA {entry.removed}" if entry.removed else "", entry.note or ""]))
        rows.append(f"| `{name}` | {f'`{entry.hip}`' if entry.hip else '—'} | {entry.since or ''} | {notes} |")
    return [*rows, ""]


def terminal(rule: Rule) -> str:
    """The `explain` text: the record, compact."""
    lines = [
        f"{rule.id} ({rule.name}): {rule.title}",
        f"  class:      {rule.migration_class}",
        f"  HIP/ROCm:   {rule.hip or '(none)'}",
        f"  hipify:     {rule.hipify}",
        f"  confidence: {rule.confidence}; status: {rule.status}; family: {family(rule)}",
        f"  effort:     {rule.effort_per_occurrence} h per occurrence, {rule.effort_first_use} h first use",
        f"  matches:    {matches(rule)}",
    ]
    if conds := conditions(rule):
        lines.append(f"  applies:    {'; '.join(conds)}")
    lines += [f"  docs:       {rule.docs}", "", rule.rationale]
    if rule.matcher.entries:
        lines.append("")
        shown = sorted(rule.matcher.entries.items())[:20]
        lines += [f"  {name} -> {entry.hip or '(none)'}" + (f"  (since {entry.since})" if entry.since else "")
                  for name, entry in shown]
        if len(rule.matcher.entries) > len(shown):
            lines.append(f"  ... and {len(rule.matcher.entries) - len(shown)} more (docs/rules/{rule.id}.md)")
    return "\n".join(lines)


def vocabulary_tables() -> dict[str, str]:
    """The Markdown tables docs/rules-format.md shows of migrate/vocabulary.py, by marker name."""
    from migrate import vocabulary as v

    def table(head: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> str:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return "\n".join([*lines, *("| " + " | ".join(row) + " |" for row in rows)])

    return {
        "kinds": table(("kind", "produced from", "name"), ((f"`{k}`", src, name) for k, (src, name) in v.FACT_KINDS.items())),
        "roles": table(("role", "meaning"), ((f"`{k}`", text) for k, text in v.ROLES.items())),
        "c-constructs": table(("construct", "what it is"), ((f"`{k}`", text) for k, text in v.C_CONSTRUCTS.items())),
        "python-constructs": table(("construct", "what it is"), ((f"`{k}`", text) for k, text in v.PYTHON_CONSTRUCTS.items())),
        "binary-constructs": table(("construct", "what it is"), ((f"`{k}`", text) for k, text in v.BINARY_CONSTRUCTS.items())),
        "julia-constructs": table(("construct", "what it is"), ((f"`{k}`", text) for k, text in v.JULIA_CONSTRUCTS.items())),
        "fortran-constructs": table(("construct", "what it is"),
                                    ((f"`{k}`", text) for k, text in v.FORTRAN_CONSTRUCTS.items())),
        "lint-constructs": table(("construct", "what it is"), ((f"`{k}`", text) for k, text in v.LINT_CONSTRUCTS.items())),
    }


def fill_markers(text: str, tables: dict[str, str]) -> str:
    """Replace each `<!-- vocabulary:NAME -->...<!-- /vocabulary -->` block with its table."""
    def block(m: re.Match[str]) -> str:
        return f"<!-- vocabulary:{m.group(1)} -->\n{tables[m.group(1)]}\n<!-- /vocabulary -->"

    return re.sub(r"<!-- vocabulary:([a-z-]+) -->.*?<!-- /vocabulary -->", block, text, flags=re.S)


def name_lists(areas: dict[str, dict[str, dict[str, object]]]) -> str:
    """docs/rules/names.md: every name list of rules/names/<area>.yaml with what it means and its source."""
    out = ["# Name lists the extractors read", "",
           "Generated by `scripts/generate_docs.py` from `rules/names/*.yaml`: do not edit. Each list is data the",
           "extractors (`migrate/extract/`) read through `migrate/extract/names.py`; an edit to a list changes the",
           "extractors' version, so cached facts are made again.", ""]
    for area, lists in sorted(areas.items()):
        out += [f"## {area} (`rules/names/{area}.yaml`)", ""]
        for key, entry in lists.items():
            if "names" in entry:
                shown = ", ".join(f"`{n}`" for n in entry["names"])  # type: ignore[attr-defined]
            else:
                shown = "; ".join(f"`{k}` guards " + ", ".join(f"`{p}`" for p in v)
                                  for k, v in entry["guards"].items())  # type: ignore[attr-defined]
            means = str(entry["means"])
            out += [f"### `{key}`", "", f"{means[:1].upper()}{means[1:]}.", "", f"Names: {shown}", "",
                    f"Source: {entry['source']}", ""]
    return "\n".join(out)
