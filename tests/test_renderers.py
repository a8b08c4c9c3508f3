"""Every renderer against one shared report: golden files, schema validation, hostile input."""
from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from migrate.model import class_rank
from migrate.render import FORMATS, renderer
from migrate.rulebase.load import load_rules
from migrate.scan import pipeline as scan
from migrate.settings import Settings
from tests.conftest import ROOT, SHARED
from tests.report_fixture import demo_report

GOLDEN = Path(__file__).parent / "golden" / "report"
SARIF_SCHEMA = SHARED / "reference" / "sarif-schema-2.1.0.json"
SUFFIX = {"terminal": "txt", "json": "json", "html": "html", "markdown": "md", "sarif": "sarif", "csv": "csv"}


@pytest.mark.parametrize("name", FORMATS)
def test_renderer_golden(name: str, update_golden: bool) -> None:
    text = renderer(name)(demo_report())
    golden = GOLDEN / f"demo.{SUFFIX[name]}"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert text == golden.read_text()


def test_renderers_are_pure() -> None:
    report = demo_report()
    assert all(renderer(name)(report) == renderer(name)(report) for name in FORMATS)


def test_json_validates_against_the_contract() -> None:
    schema = json.loads((ROOT / "docs" / "report.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(json.loads(renderer("json")(demo_report())))


@pytest.mark.skipif(not SARIF_SCHEMA.exists(), reason=f"SARIF schema not found at {SARIF_SCHEMA}")
def test_sarif_validates_against_the_official_schema() -> None:
    sarif = json.loads(renderer("sarif")(demo_report()))
    jsonschema.Draft7Validator(json.loads(SARIF_SCHEMA.read_text())).validate(sarif)
    run = sarif["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in run["results"])
    assert {r["level"] for r in run["results"]} <= {"error", "warning", "note"}
    fingerprints = [r["partialFingerprints"]["rocmMigrate/v1"] for r in run["results"]]
    assert all(fingerprints) and len(set(fingerprints)) == len(fingerprints)
    text = json.dumps(sarif)
    assert demo_report().root not in text and "file://" not in text
    assert {loc["physicalLocation"]["artifactLocation"]["uriBaseId"]
            for r in run["results"] for loc in r["locations"]} == {"%SRCROOT%"}


def test_sarif_keeps_equal_lines_apart_filters_by_class_and_caps_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text("void f() {\n  cudaFree(p);\n  cudaFree(p);\n}\n")
    (tmp_path / "tool.py").write_text("import pynvml\n")
    report = scan.run([tmp_path], Settings(jobs=1), load_rules())
    from migrate.render import sarif_report

    results = sarif_report.to_sarif(report)["runs"][0]["results"]
    frees = [r["partialFingerprints"]["rocmMigrate/v1"] for r in results if "cudaFree" in r["message"]["text"]]
    assert len(frees) == 2 and frees[0].split(":")[0] == frees[1].split(":")[0] and frees[0] != frees[1]
    only = sarif_report.to_sarif(report, min_class="migration-required")["runs"][0]
    assert only["results"] and {r["level"] for r in only["results"]} == {"warning"}
    capped = sarif_report.to_sarif(report, limit=1)["runs"][0]
    notes = [n["message"]["text"] for n in capped["invocations"][0]["toolExecutionNotifications"]]
    assert len(capped["results"]) == 1 and any("left out" in n for n in notes)
    assert capped["properties"]["qualified"] == len(results) > 1


def test_csv_has_one_row_per_finding() -> None:
    rows = list(csv.DictReader(io.StringIO(renderer("csv")(demo_report()))))
    assert len(rows) == len(demo_report().findings)
    assert rows[0].keys() >= {"id", "rule", "class", "path", "line", "column", "symbol", "hip", "message"}


HOSTILE = '<script>alert("x")</script>\'"</textarea>'


@pytest.fixture
def hostile_report(tmp_path: Path):
    folder = tmp_path / "evil<script>alert(1)<" / "x"
    folder.mkdir(parents=True)
    (folder / "k<textarea>'\"q.cu").write_text(f'// {HOSTILE}\nvoid f() {{ cudaMalloc(&p, 4); }} /* {HOSTILE} */\n')
    (tmp_path / "pwn.py").write_text(f'import pynvml  # {HOSTILE}\n')
    report = scan.run([tmp_path], Settings(jobs=1), load_rules())
    # a hostile message and symbol too, as a malicious rule file could write them
    finding = replace(report.findings[0], message=HOSTILE, symbol=HOSTILE)
    return replace(report, findings=(finding, *report.findings[1:]))


def test_hostile_input_is_escaped_in_html(hostile_report) -> None:
    html = renderer("html")(hostile_report)
    assert "<script>alert" not in html and "</textarea>" not in html and "<textarea" not in html
    assert html.count("<script") == 2  # the findings data and the table code, nothing else
    assert "&lt;script&gt;alert" in html


def test_hostile_input_is_escaped_in_markdown_and_sarif(hostile_report) -> None:
    markdown = renderer("markdown")(hostile_report)
    assert "<script>" not in markdown and "</textarea>" not in markdown
    sarif = json.loads(renderer("sarif")(hostile_report))
    messages = [r["message"]["text"] for r in sarif["runs"][0]["results"]]
    assert HOSTILE in messages  # SARIF carries it as JSON data, properly encoded


def test_graph_edge_labels_lie_in_the_gaps_and_clear_every_node() -> None:
    """Labels of edges that skip a column (train.py uses c, c uses b, b uses a; train.py uses a too)
    are drawn beside what is used, where no node is, and inside the drawing."""
    from migrate.render.graph_layout import EDGE_CHAR_W, layout

    base = demo_report().workloads[0]
    chain = {"app": ("mid", "low"), "mid": ("low",), "low": ()}
    why = {"mid": "app/train.py imports midlevel.layers.attention_with_a_long_name",
           "low": "mid/ops.cpp includes low/kernels_with_a_long_header_name.cuh"}
    workloads = tuple(replace(base, name=name, root=name, depends_on=deps, depends_why=tuple(why[d] for d in deps))
                      for name, deps in chain.items())
    drawn = layout(replace(demo_report(), workloads=workloads))
    boxes = [(n["x"], n["y"], n["x"] + drawn["node_w"], n["y"] + drawn["node_h"]) for n in drawn["nodes"]]
    labels = [e for e in drawn["edges"] if e["label"]]
    assert len(labels) == 2  # a fan-in with the same text says it once
    for edge in labels:
        half = len(edge["label"]) * EDGE_CHAR_W / 2
        left, right, top, bottom = edge["mx"] - half, edge["mx"] + half, edge["my"] - 10, edge["my"] + 2
        assert left >= 0 and right <= drawn["width"], edge
        assert not any(left < x2 and x1 < right and top < y2 and y1 < bottom for x1, y1, x2, y2 in boxes), edge


def test_a_project_with_nothing_to_port_says_no_porting_work(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("import torch\n\nx = torch.ones(3).to('cuda')\nprint(x.sum())\n")
    report = scan.run([tmp_path], Settings(jobs=1), load_rules())
    assert report.hand_effort.likely == 0.0
    for name in ("terminal", "markdown", "html"):
        text = renderer(name)(report)
        assert "no porting work" in text.lower(), name
        assert "by hand" not in text and "0.0–0.0" not in text, name
    effort = json.loads(renderer("json")(report))["effort"]
    assert effort["hand_work_hours"]["likely"] == 0 and effort["optional_hours"]["likely"] == 0


def test_a_class_or_workload_with_no_hours_gets_no_zero_bar_in_html() -> None:
    """The demo has porting work and a workload with none: the class chart draws only classes with hours, and
    a workload with no hours says "No porting work" instead of a breakdown of 0.0 h (issue 30: one figure, no zeros)."""
    report = demo_report()
    assert report.hand_effort.likely > 0
    assert any(not w.effort.high for w in report.workloads)
    html = renderer("html")(report)
    assert "0.0–0.0" not in html and "likely 0.0 h" not in html
    assert "No porting work." in html


def test_a_required_folder_with_no_hours_gets_no_zero_bar_in_html() -> None:
    """llm.c's `dev` folder (native, no hours) was drawn as a bar of "0.0–0.0 h, likely 0.0 h" in the folder chart: a
    folder with no hours has no bar, as a class with none has no bar (issue 30: one figure, no zeros)."""
    report = demo_report()
    (idle, *_) = [w for w in report.workloads if not w.effort.high]
    report = replace(report, workloads=(*report.workloads, replace(idle, name="dev-idle", root="dev-idle",
                                                                   optional=False)))
    html = renderer("html")(report)
    folders = html[html.index('<figure id="chart-folder"'):]
    folders = folders[:folders.index("</figure>")]
    assert "dev-idle" not in folders and "likely 0.0 h" not in folders and "native" in folders


def test_the_automatic_share_is_one_figure_across_renderers() -> None:
    report = demo_report()
    share = report.plan["automatic_share"]
    assert share is not None
    shown = f"{share:.0%}"
    assert f"hipify converts {shown}" in renderer("terminal")(report)
    assert f"hipify converts {shown.replace('%', ' %')}" in renderer("markdown")(report) or \
        f"hipify converts {shown}" in renderer("markdown")(report)
    assert json.loads(renderer("json")(report))["plan"]["automatic_share"] == share


def test_top_rules_rank_by_hand_work_with_mechanical_renames_last() -> None:
    from migrate.render.summary import blockers

    report = demo_report()
    optional = {w.name for w in report.workloads if w.optional}
    required_rules = {f.rule for f in report.findings if f.status != "optional" and f.workload not in optional}
    every = [f.rule for f, _ in blockers(report, 50)]
    ranked = [r for r in every if r in required_rules]
    assert every[:len(ranked)] == ranked  # rules found only in optional parts come after the required code's
    mechanical = [r for r in ranked if next(f for f in report.findings if f.rule == r).hipify == "yes"]
    assert mechanical and ranked[-len(mechanical):] == mechanical  # renames hipify converts come last
    hand = [r for r in ranked if r not in mechanical]
    hours = [report.rule_hours.get(r, 0.0) for r in hand]
    assert hours == sorted(hours, reverse=True)  # the rest by expected hand hours (one class in the demo)
    assert every.index("HIP1100") > every.index("HIP4013")  # cudaMalloc after the warp-size arithmetic


def test_unicode_text_replaces_only_lone_surrogates() -> None:
    from migrate.safetext import unicode_text

    assert unicode_text("d\udcff/k.cu") == "d\ufffd/k.cu"
    assert unicode_text("é \ud800") == "é \ufffd"
    same = "é ∑ 𝔸 plain"
    assert unicode_text(same) is same and unicode_text("ascii") == "ascii"


def test_a_mechanical_change_hipify_does_not_make_ranks_last_with_required_counts_in_every_renderer(
        tmp_path: Path) -> None:
    """llm.c's "Top rules" was led by `__stcs` ×37 (HIP4036, whose rationale calls it a mechanical change), counted
    over its scratch folder too; it now ranks after the warp reduction, with the required code's count everywhere."""
    kernel = ("#include <cuda_runtime.h>\n"
              "__device__ float warp_sum(float v) {\n"
              "  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);\n  return v;\n}\n"
              "__global__ void k(float* out, const float* in) {\n"
              "  float v = warp_sum(in[threadIdx.x]);\n"
              + "".join(f"  __stcs(out + {i}, v);\n" for i in range(6)) + "}\n")
    scratch = "__global__ void s(float* o) {\n" + "".join(f"  __stcs(o + {i}, 1.0f);\n" for i in range(9)) + "}\n"
    (tmp_path / "Makefile").write_text("all:\n\tnvcc -O3 train.cu -o train\n")
    (tmp_path / "train.cu").write_text(kernel)
    (tmp_path / "dev" / "cuda").mkdir(parents=True)
    (tmp_path / "dev" / "cuda" / "Makefile").write_text("all:\n\tnvcc -O3 scratch.cu -o scratch\n")
    (tmp_path / "dev" / "cuda" / "scratch.cu").write_text(scratch)
    report = scan.run([tmp_path], Settings(jobs=1), load_rules())
    from migrate.render.summary import ranked_rules

    rows = {f.rule: (f, count) for f, count in ranked_rules(report, list(report.findings))}
    order = [f.rule for f, _ in ranked_rules(report, list(report.findings))]
    assert {"HIP4036", "HIP4010"} <= set(order) and order.index("HIP4010") < order.index("HIP4036")
    stcs, count = rows["HIP4036"]
    assert count == 6 and stcs.path == "train.cu"  # the required code's six, not the scratch folder's nine too
    assert next(r for r in report.rules if r.id == "HIP4036").mechanical
    terminal = renderer("terminal")(report, width=200)
    table = terminal[terminal.index("Top rules"):]
    assert table.index("HIP4010") < table.index("HIP4036")
    assert re.search(r"HIP4036 +│ migration-required +│ +6 │", table)
    markdown = renderer("markdown")(report)
    blockers = markdown[markdown.index("Top blockers"):]
    assert blockers.index("HIP4010") < blockers.index("HIP4036")
    assert re.search(r"HIP4036[^\n]*\| 6 \|", blockers), blockers[:800]
    html = renderer("html")(report)
    findings = html[html.index('id="findings-data"'):]  # the findings table's rows, in the order shown
    assert findings.index("HIP4010") < findings.index("HIP4036")
    data = html[html.index('id="findings-data">') + len('id="findings-data">'):]
    rows = json.loads(data[:data.index("</script>")])
    mechanical = {r.id for r in report.rules if r.mechanical}
    shown = [(-class_rank(row[2]), row[8] == "yes" or row[1] in mechanical) for row in rows]
    assert shown == sorted(shown) and {True, False} <= {m for _, m in shown}  # mechanical rows last in each class
    step = next(s for s in report.plan["steps"] if any(h["rule"] == "HIP4036" for h in s["hand_work"]))
    planned = [h["rule"] for h in step["hand_work"]]
    assert planned.index("HIP4010") < planned.index("HIP4036")


def test_json_escaped_text_that_is_plain_ascii_is_the_substitutions_answer() -> None:
    from migrate.safetext import JSON_UNSAFE, _json_code, json_escaped

    every_ascii = "".join(map(chr, range(128)))
    for text in (every_ascii, "x\x7f", "plain", "é\u202e", "a\x9fb", "\U000e0041"):
        assert json_escaped(text) == JSON_UNSAFE.sub(_json_code, text)
    assert json_escaped(every_ascii) != every_ascii  # DEL is escaped: the shortcut does not skip it


def test_html_effort_charts_add_up_to_the_headline_and_leave_optional_workloads_apart() -> None:
    """The folder, kind and class charts show the headline's hours (required workloads and project costs): a scratch
    folder (llm.c's dev/cuda, cut to fixtures/workloads/optional/llmc_dev) is costed apart in its own table, not
    the chart's largest row (issue 30)."""
    from migrate.render import html_report

    report = scan.run([ROOT / "fixtures" / "workloads" / "optional" / "llmc_dev"], Settings(jobs=1), load_rules())
    assert any(w.optional for w in report.workloads) and report.optional_effort.likely > 0
    for rows in (html_report._by_folder(report), html_report._by_kind(report), html_report._by_class(report)):
        assert sum(e.likely for _, e in rows) == pytest.approx(report.effort.likely), rows
        assert not any(name == "dev" for name, _ in rows)


def test_the_plan_puts_optional_workloads_last_in_a_milestone_apart_from_the_headline() -> None:
    """llm.c's scratch folder (dev/cuda, cut to fixtures/workloads/optional/llmc_dev) was in the plan's second milestone
    beside the required code, so that the milestones added up to more than the headline (issue 30, s15): optional
    workloads come last, in a milestone of their own marked optional, and the others add up to the headline."""
    report = scan.run([ROOT / "fixtures" / "workloads" / "optional" / "llmc_dev"], Settings(jobs=1), load_rules())
    plan = report.plan
    optional = {w.name for w in report.workloads if w.optional}
    apart = [m for m in plan["milestones"] if m.get("optional")]
    assert optional and len(apart) == 1 and apart[0] is plan["milestones"][-1]
    assert apart[0]["title"].startswith("Optional workloads, apart from the headline")
    in_apart = {s["workload"] for s in plan["steps"] if s["order"] in apart[0]["steps"]}
    assert in_apart == {s["workload"] for s in plan["steps"]} & optional
    required = [m for m in plan["milestones"] if not m.get("optional")]
    assert sum(m["effort_hours"]["likely"] for m in required) == pytest.approx(report.effort.likely, abs=0.05)
    assert max(s["order"] for s in plan["steps"] if s["workload"] not in optional) < min(apart[0]["steps"])
