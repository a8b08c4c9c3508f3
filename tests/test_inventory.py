"""rocm-migrate inventory: merging per-repository reports, and `--scan` on a Dask LocalCluster through
the real CLI (each repository's report equals its solo scan, failures are recorded, resume skips)."""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import jsonschema
import pytest
from migrate.inventory import merge, record, render
from migrate.inventory.html import render as render_html
from migrate.inventory.repolist import RepoListError, read
from tests.conftest import ROOT, run_cli

pytest.importorskip("distributed", reason="Dask distributed is not installed (pip install '.[cluster]')")
SCHEMA = json.loads((ROOT / "docs" / "inventory.schema.json").read_text())
CLASH = ROOT / "fixtures" / "workloads" / "portfolio_clash"
REPOS = {"splatlib": CLASH / "splatlib", "imagemodels": CLASH / "imagemodels", "llmkernels": CLASH / "llmkernels",
         "torch_ext_masks": ROOT / "fixtures" / "workloads" / "torch_ext_masks"}
VOLATILE = ("scanned_at", "name", "url")


def comparable(report: dict) -> dict:
    report = json.loads(json.dumps(report))
    report["summary"]["seconds"] = 0
    report["source"] = {k: v for k, v in report["source"].items() if k not in VOLATILE}
    return report


def solo(path: Path) -> dict:
    result = run_cli("scan", str(path), "-f", "json", "--no-hipify")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def inventory(*args: str) -> subprocess.CompletedProcess:
    return run_cli("inventory", "--workers", "2", "--no-hipify", *args)


def test_scan_on_a_local_cluster_equals_each_solo_scan_and_records_a_failure(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(REPOS["llmkernels"], broken)
    # a configuration the scan refuses: that repository's error, the others go on
    (broken / ".rocm-migrate.toml").write_text('fail-on = "nonsense"\n')
    listing = tmp_path / "repos.txt"
    listing.write_text("# fixture repositories\n" + "".join(f"{p} {n}\n" for n, p in REPOS.items())
                       + "broken\n" + "missing-folder\n")
    result = inventory("--scan", str(listing), "--out", str(tmp_path / "out"))
    assert result.returncode == 1, result.stderr  # some repositories failed; the rest completed
    reports = tmp_path / "out" / "repos"
    for name, path in REPOS.items():
        assert comparable(json.loads((reports / f"{name}.json").read_text())) == comparable(solo(path)), name
    failures = {n: json.loads((reports / f"{n}.json").read_text()) for n in ("broken", "missing-folder")}
    assert all(f["status"] == "failed" for f in failures.values())
    assert "key 'fail-on'" in failures["broken"]["error"] and "no such folder" in failures["missing-folder"]["error"]
    log = [json.loads(line) for line in (tmp_path / "out" / "scan-log.jsonl").read_text().splitlines()]
    assert sorted((e["name"], e["status"]) for e in log) == sorted(
        [(n, "ok") for n in REPOS] + [("broken", "failed"), ("missing-folder", "failed")])
    assert "[6/6]" in result.stderr  # progress, one line per repository
    merged = json.loads((tmp_path / "out" / "inventory.json").read_text())
    jsonschema.validate(merged, SCHEMA)
    classes = {r["name"]: r["class"] for r in merged["repos"]}
    assert classes == {"splatlib": "incompatible", "imagemodels": "native", "llmkernels": "migration-required",
                       "torch_ext_masks": "migration-required", "broken": None, "missing-folder": None}
    assert merged["totals"]["failed"] == 2


def git_repo(source: Path, folder: Path) -> Path:
    shutil.copytree(source, folder)
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.email=t@example.com", "-c", "user.name=t",
                                                 "commit", "-q", "-m", "fixture"]):
        subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)
    return folder


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_resume_skips_repositories_whose_report_matches_commit_and_rules(tmp_path: Path) -> None:
    first = git_repo(REPOS["splatlib"], tmp_path / "first")
    second = git_repo(REPOS["imagemodels"], tmp_path / "second")
    listing = tmp_path / "repos.txt"
    listing.write_text(f"{first}\n{second}\n")
    out = tmp_path / "out"
    assert inventory("--scan", str(listing), "--out", str(out)).returncode == 0
    before = {p.name: p.stat().st_mtime_ns for p in (out / "repos").iterdir()}
    (second / "NOTES.md").write_text("a new commit\n")
    for args in (["add", "NOTES.md"], ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "notes"]):
        subprocess.run(["git", *args], cwd=second, check=True, capture_output=True)
    result = inventory("--scan", str(listing), "--out", str(out))
    assert result.returncode == 0, result.stderr
    log = [json.loads(line) for line in (out / "scan-log.jsonl").read_text().splitlines()]
    again = {e["name"]: e for e in log[2:]}
    assert {n: e["status"] for n, e in again.items()} == {"first": "skipped", "second": "ok"}
    assert (out / "repos" / "first.json").stat().st_mtime_ns == before["first.json"]
    assert json.loads((out / "repos" / "second.json").read_text())["source"]["commit"] == again["second"]["commit"]
    assert json.loads((out / "inventory.json").read_text())["totals"]["repos"] == 2


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_urls_are_cloned_on_a_running_scheduler(tmp_path: Path) -> None:
    from distributed import LocalCluster

    origin = git_repo(REPOS["llmkernels"], tmp_path / "origin")
    bare = tmp_path / "llmkernels.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(origin), str(bare)], check=True)
    head = subprocess.run(["git", "-C", str(origin), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    listing = tmp_path / "repos.txt"
    listing.write_text(f"{bare.as_uri()} team/llmkernels\n")
    out = tmp_path / "out"
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        for expected in ("ok", "skipped"):  # the second run asks the remote for its HEAD and skips
            result = inventory("--scan", str(listing), "--out", str(out), "--scheduler", cluster.scheduler_address)
            assert result.returncode == 0, result.stderr
            last = json.loads((out / "scan-log.jsonl").read_text().splitlines()[-1])
            assert (last["status"], last["commit"]) == (expected, head)
    cloned = json.loads((out / "repos" / "team+llmkernels.json").read_text())
    assert cloned["source"]["commit"] == head and cloned["source"]["url"] == bare.as_uri()
    assert comparable(cloned)["workloads"] == comparable(solo(REPOS["llmkernels"]))["workloads"]


def report(name: str, cls: str, rules: list[tuple[str, str]], effort: float = 10.0) -> dict:
    """A small scan report: one workload whose class the given (rule, class) findings decide."""
    findings = [{"rule": r, "class": c, "symbol": f"sym_{r}", "path": "a.cu"} for r, c in rules]
    return {"tool": {"version": "0.1.0", "rules_version": "r1"}, "source": {"commit": "c0ffee", "scanned_at": "t"},
            "summary": {"class": cls, "findings": len(findings), "lines": 100, "files_scanned": 2,
                        "effort_hours": {"low": effort / 2, "likely": effort, "high": effort * 2}},
            "workloads": [{"name": name, "class": cls, "reason_rules": sorted({r for r, _ in rules})}],
            "findings": findings, "hipify": {"used": True, "coverage": {name: {"references": 4, "converted": 3}}}}


def test_merge_totals_owners_and_shared_blockers(tmp_path: Path) -> None:
    records = [record.from_report(report("a", "incompatible", [("HIP5010", "incompatible"), ("HIP1100", "migration-required")]),
                                  name="a", source="a"),
               record.from_report(report("b", "migration-required", [("HIP1100", "migration-required")] * 3),
                                  name="b", source="b"),
               record.from_report(report("c", "native", []), name="c", source="c"),
               record.failed(name="d", source="d", error="boom </script><b>")]
    owners = tmp_path / "owners.csv"
    owners.write_text("repo,team\na,graphics\nb,graphics\nc,ml\n")
    built = merge.build(records, merge.read_owners(owners), {"HIP1100": "CUDA runtime API"})
    assert [b.rule for b in built.repos[0].blockers] == ["HIP5010", "HIP1100"]  # worst class first
    assert built.repos[0].hipify_coverage == 0.75
    assert [(b.rule, b.repos) for b in built.blockers] == [("HIP1100", ("a", "b")), ("HIP5010", ("a",))]
    totals = built.totals()
    assert totals["failed"] == 1 and totals["by_class"]["incompatible"]["repos"] == 1
    assert totals["effort_hours"] == {"low": 15.0, "likely": 30.0, "high": 60.0}
    by_owner = built.by_owner()
    assert {o: t["repos"] for o, t in by_owner.items()} == {"graphics": 2, "ml": 1, "(unassigned)": 1}
    assert by_owner["graphics"]["effort_hours"]["likely"] == 20.0
    data = render.to_json(built)
    jsonschema.validate(data, SCHEMA)
    assert data["blockers"][0] == {"rule": "HIP1100", "title": "CUDA runtime API", "class": "migration-required",
                                   "findings": 4, "repo_count": 2, "repos": ["a", "b"]}
    rows = list(csv.DictReader(io.StringIO(render.render_csv(built))))
    assert [(r["name"], r["owner"], r["class"], r["top_blockers"]) for r in rows] == [
        ("a", "graphics", "incompatible", "HIP5010;HIP1100"), ("b", "graphics", "migration-required", "HIP1100"),
        ("c", "ml", "native", ""), ("d", "", "", "")]
    embedded = render_html(built).split('id="inventory-data">', 1)[1].split("</script>", 1)[0]
    table = json.loads(embedded)  # the error text could not close the script element early
    assert [row[0] for row in table["rows"]] == ["a", "b", "c", "d"] and table["rows"][3][-1] == "boom </script><b>"


def test_a_class_card_with_no_hours_says_no_porting_work() -> None:
    """The class cards of the dashboard: hours where a class has some, "no porting work" where it has none
    (a native repository), never "likely 0.0 h" (issue 30: one figure, no zeros)."""
    records = [record.from_report(report("a", "migration-required", [("HIP1100", "migration-required")]), name="a", source="a"),
               record.from_report(report("c", "native", [], effort=0.0), name="c", source="c")]
    page = render_html(merge.build(records, {}, {}))
    card = page.split('id="count-native"', 1)[1].split("</div></div>", 1)[0]
    assert "no porting work" in card and "0.0 h" not in card
    assert "likely 10.0 h" in page.split('id="count-migration-required"', 1)[1].split("</div></div>", 1)[0]


def test_reports_made_elsewhere_are_merged_from_files_and_folders(tmp_path: Path) -> None:
    folder = tmp_path / "ci-artifacts"
    folder.mkdir()
    (folder / "org+one.json").write_text(json.dumps(report("one", "minor-adaptation", [("HIP9001", "minor-adaptation")])))
    single = tmp_path / "two.json"
    single.write_text(json.dumps(report("two", "native", [])))
    result = run_cli("inventory", str(folder), str(single), "--out", str(tmp_path / "inv"))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and "2 repositories (1 native, 1 minor-adaptation" in result.stderr  # said on stderr
    quiet = run_cli("inventory", str(folder), str(single), "--out", str(tmp_path / "quiet"), "-q")
    assert quiet.returncode == 0 and quiet.stdout == quiet.stderr == "" and (tmp_path / "quiet" / "inventory.json").is_file()
    merged = json.loads((tmp_path / "inv" / "inventory.json").read_text())
    assert [(r["name"], r["class"]) for r in merged["repos"]] == [("org+one", "minor-adaptation"), ("two", "native")]
    (folder / "bad.json").write_text("{not json")
    result = run_cli("inventory", str(folder), "--out", str(tmp_path / "inv"))
    assert result.returncode == 2 and "bad.json" in result.stderr and "Traceback" not in result.stderr


def test_repository_list(tmp_path: Path) -> None:
    listing = tmp_path / "list.txt"
    listing.write_text("# comment\nhttps://github.com/karpathy/llm.c.git\ngit@github.com:org/tool.git tool-fork\n"
                       "local/repo  # a folder next to the list\n\n")
    specs = read(listing)
    assert [(s.name, s.slug, s.is_url) for s in specs] == [("karpathy/llm.c", "karpathy+llm.c", True),
                                                           ("tool-fork", "tool-fork", True), ("repo", "repo", False)]
    assert specs[2].source == str(tmp_path / "local" / "repo")
    listing.write_text("a/repo\nb/repo\n")
    with pytest.raises(RepoListError, match="line 1"):
        read(listing)


def test_optional_workloads_and_ported_findings_do_not_block() -> None:
    data = report("app", "migration-required", [("HIP1100", "migration-required"), ("HIP4010", "migration-required")])
    data["workloads"].append({"name": "tests", "class": "incompatible", "optional": True, "reason_rules": ["HIP5010"]})
    data["findings"].append({"rule": "HIP5010", "class": "incompatible", "symbol": "mma", "path": "tests/t.cu"})
    data["findings"][1]["status"] = "ported"  # HIP4010 sits under a ROCm path already
    assert [b.rule for b in record.blockers(data)] == ["HIP1100"]


def test_stack_verdict_is_the_worst_target_class() -> None:
    data = report("app", "native", [])
    assert record.from_report(data, name="app", source="app").stack is None
    data["stack"] = {"targets": [{"class": "native", "problems": []},
                                 {"class": "minor-adaptation", "problems": ["HIP7101", "HIP7102"]}]}
    assert record.from_report(data, name="app", source="app").stack == "minor-adaptation (2 problems)"


def test_one_repositorys_bad_name_or_runaway_scan_is_that_repositorys_error(tmp_path: Path) -> None:
    """A `\\xff` file name once ended the whole run (exit 3, no inventory); a repository that scans for
    too long is ended at --repo-timeout and recorded as failed; the others complete."""
    bad_name, good, slow = tmp_path / "badname", tmp_path / "good", tmp_path / "slow"
    for folder in (bad_name, good, slow):
        folder.mkdir()
    (Path(os.fsdecode(os.fsencode(bad_name) + b"/k\xff.cu"))).write_text("void f() { cudaMalloc(0, 4); }\n")
    (good / "a.cu").write_text("void f() { cudaFree(0); }\n")
    for i in range(16):  # about a minute of scanning on the 2-core machine (8 files took 28.6 s): far past the timeout
        (slow / f"k{i}.cu").write_text("void f(){" + "cudaFree(0);" * 330_000 + "}\n")
    listing = tmp_path / "repos.txt"
    listing.write_text(f"{bad_name}\n{good}\n{slow}\n")
    started = time.monotonic()
    result = run_cli("inventory", "--workers", "1", "--no-hipify", "--no-cache", "--repo-timeout", "10",
                     "--scan", str(listing), "--out", str(tmp_path / "out"))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert time.monotonic() - started < 180
    merged = json.loads((tmp_path / "out" / "inventory.json").read_text())
    status = {r["name"]: r["class"] for r in merged["repos"]}
    assert status == {"badname": "migration-required", "good": "migration-required", "slow": None}
    failure = json.loads((tmp_path / "out" / "repos" / "slow.json").read_text())
    assert failure["status"] == "failed" and "time limit" in failure["error"]
    assert (tmp_path / "out" / "inventory.csv").is_file()
    report = (tmp_path / "out" / "repos" / "badname.json").read_text(encoding="utf-8")
    assert "k\ufffd.cu" in report
