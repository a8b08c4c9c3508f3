"""The verdict benchmark's own scripts (benchmarks/verdicts/): what their figures rest on."""
from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

import pytest

VERDICTS = Path(__file__).resolve().parent.parent / "benchmarks" / "verdicts"


def _module(name: str):
    spec = importlib.util.spec_from_file_location(f"verdicts_{name}", VERDICTS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _recheck(tmp_path: Path, capsys: pytest.CaptureFixture[str], row_status: str | None, now: str) -> str:
    """`--recheck` of one judged row against a report where the finding's status is `now`."""
    row = {"repo": "o/p", "commit": "c", "path": "a.cu", "line": "3", "rule": "HIP1001",
           "class": "migration-required", "confidence": "high", "class_moving": "yes", "verdict": "wrong",
           "reason": "r"}
    if row_status is not None:
        row["status"] = row_status
    with (tmp_path / "judged.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(row))
        writer.writeheader()
        writer.writerow(row)
    finding = {"id": "f1", "path": "a.cu", "line": 3, "rule": "HIP1001", "class": "migration-required",
               "workload": "w", "status": now}
    report = {"findings": [finding], "workloads": [{"name": "w", "class": "migration-required", "reasons": ["f1"]}]}
    (tmp_path / "o+p.json").write_text(json.dumps(report))
    _module("precision_unseen").recheck(tmp_path / "judged.csv", tmp_path)
    return capsys.readouterr().out.split()[0]


def test_recheck_reports_a_status_change_as_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Sample 7's recheck on the landed code: 12 findings went required -> optional with class and
    class-moving unchanged; they must come out `changed` (to be judged again), not `same`."""
    assert _recheck(tmp_path, capsys, "-", "optional") == "changed"
    assert _recheck(tmp_path, capsys, "optional", "optional") == "same"  # near miss: the same status
    assert _recheck(tmp_path, capsys, "-", "") == "same"  # a report's empty status is the CSV's `-`
    assert _recheck(tmp_path, capsys, None, "optional") == "same"  # an older CSV without the column


def test_every_verdict_entrys_split_follows_the_split_rule() -> None:
    """score.py refuses to score when a `split` field disagrees with the rule (a held-out batch whole
    as test, otherwise the repository's hash side); every committed entry must pass."""
    score = _module("score")
    entries = score.load(VERDICTS / "verdicts.yaml", "all", None, score.ALL_BATCHES)
    assert len(entries) > 300
    batches = {score.batch_of(e) for e in entries}
    assert batches >= score.TEST_ONLY_BATCHES  # a batch named held out that has no entry is a typo
    assert all(e["split"] == "test" for e in entries if score.batch_of(e) in score.TEST_ONLY_BATCHES)
    assert {e["split"] for e in entries if score.batch_of(e) == score.ORIGINAL_BATCH} == {"dev", "test"}


def _entries(*ids: str) -> str:
    return "workloads:\n" + "".join(
        f"- id: {i}\n  repo: o/{i}\n  commit: c\n  path: .\n  label: native\n  split: {_module('score').side(f'o/{i}')}\n"
        for i in ids)


def test_score_refuses_a_duplicate_workload_id(tmp_path: Path) -> None:
    """An id names a scored row and its kept report (--out/<id>.json): two entries of one id (verdicts.yaml had
    `nerfacc` twice) would overwrite each other's report, so score.py exits non-zero naming the id."""
    import subprocess
    import sys

    data = tmp_path / "verdicts.yaml"
    data.write_text(_entries("nerfacc", "other", "nerfacc"))
    run = subprocess.run([sys.executable, str(VERDICTS / "score.py"), "--data", str(data), "--split", "all",
                          "--batch", "all", "--src", str(tmp_path / "src"), "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, check=False)
    assert run.returncode != 0
    assert "duplicate workload ids" in run.stderr and "nerfacc" in run.stderr and "other" not in run.stderr
    data.write_text(_entries("nerfacc", "other", "nerfacc-fork"))  # near miss: one id the prefix of another
    assert [e["id"] for e in _module("score").load(data, "all", None, "all")] == ["nerfacc", "other", "nerfacc-fork"]
