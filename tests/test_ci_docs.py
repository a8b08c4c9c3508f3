"""docs/ci.md's GitHub Actions workflow is real: its scan step runs here on the demo repository
and writes SARIF that validates and the Markdown summary the comment step posts."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from tests.conftest import ROOT, SHARED

DOC = ROOT / "docs" / "ci.md"
NEEDS_NETWORK = ("Install rocm-migrate", "Comment the summary on the pull request")


def _workflow() -> dict:
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(), flags=re.S)
    return yaml.safe_load(blocks[0])


def test_the_workflow_uploads_what_the_scan_writes() -> None:
    steps = _workflow()["jobs"]["scan"]["steps"]
    scan = next(s for s in steps if s.get("name") == "Scan")
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif"))
    comment = next(s for s in steps if s.get("name") == NEEDS_NETWORK[1])
    assert f"--sarif-output {upload['with']['sarif_file']}" in scan["run"]
    assert "--markdown-output summary.md" in scan["run"] and "--body-file summary.md" in comment["run"]
    assert upload["if"] == "always()"


def test_the_workflow_runs_here(tmp_path: Path) -> None:
    if not (SHARED / "reference" / "sarif-schema-2.1.0.json").is_file():
        pytest.skip("../shared/reference/sarif-schema-2.1.0.json is not beside the checkout")
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "fixtures" / "repos" / "demo", repo)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "rocm-migrate").write_text(f"#!/bin/sh\nexec {sys.executable} -m migrate \"$@\"\n")
    (bin_dir / "rocm-migrate").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}
    ran = []
    for step in _workflow()["jobs"]["scan"]["steps"]:
        if "run" not in step or step.get("name") in NEEDS_NETWORK:
            continue
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True,
                              timeout=600, check=False)
        assert done.returncode == 0, done.stderr
        ran.append(step["name"])
    assert ran == ["Scan"]
    sarif = json.loads((repo / "rocm-migrate.sarif").read_text())
    jsonschema.validate(sarif, json.loads((SHARED / "reference" / "sarif-schema-2.1.0.json").read_text()))
    assert sarif["runs"][0]["results"]
    assert (repo / "summary.md").read_text().startswith("#")
