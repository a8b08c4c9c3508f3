"""Go go.mod (migrate/extract/text/gomod.py): a module the main module requires directly is a `go:<path>` requirement;
NVIDIA's NVML/DCGM bindings and container toolkit make the Go program migration-required (HIP7023), beside an
`nvidia/cuda` image that alone would be a deployment part; an indirect requirement gives nothing."""
from __future__ import annotations

import shutil
from pathlib import Path

from migrate.extract import extract
from tests.test_optional_parts import scanned

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "HIP7023"
MAIN = 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("exporter")\n}\n'
IMAGE = "FROM nvcr.io/nvidia/cuda:13.2.1-base-ubuntu22.04\nCOPY exporter /usr/bin/exporter\n"


def _requirements(text: str) -> list[tuple[str, int, int]]:
    facts = extract("go_module", text.encode()).facts
    return [(f.name, f.line, f.column) for f in facts if f.kind == "requirement"]


def test_block_and_single_line_requirements() -> None:
    text = ("module x\n\ngo 1.22\n\nrequire github.com/NVIDIA/go-nvml v0.13.0-1\n\nrequire (\n"
            "\tgithub.com/a/b v1.0.0\n\tgithub.com/c/d v1.0.0 // indirect\n\t\"github.com/e/f\" v2.0.0+incompatible\n)\n\n"
            "replace (\n\tgithub.com/g/h v1.0.0 => ../h\n)\n")
    assert _requirements(text) == [("go:github.com/NVIDIA/go-nvml", 5, 9), ("go:github.com/a/b", 8, 2),
                                    ("go:github.com/e/f", 10, 2)]


def _tree(tmp_path: Path, fixture: str) -> Path:
    shutil.copy(FIXTURES / fixture / "go.mod", tmp_path / "go.mod")
    (tmp_path / "main.go").write_text(MAIN, encoding="utf-8")
    (tmp_path / "Dockerfile").write_text(IMAGE, encoding="utf-8")
    return tmp_path


def test_nvml_and_dcgm_bindings_make_the_program_a_port(tmp_path: Path, rulebase) -> None:
    data = scanned(_tree(tmp_path, "exporter"), rulebase)
    found = [(f["path"], f["line"], f["symbol"]) for f in data["findings"] if f["rule"] == "HIP7023"]
    assert found == [("go.mod", 8, "go:github.com/NVIDIA/go-dcgm"), ("go.mod", 10, "go:github.com/NVIDIA/go-nvml")]
    assert data["summary"]["class"] == "migration-required"


def test_an_indirect_binding_leaves_the_image_a_deployment_part(tmp_path: Path, rulebase) -> None:
    """Near miss: the same tree whose go.mod names go-nvml only as a dependency's dependency (`// indirect`)."""
    root = _tree(tmp_path, "exporter")
    (root / "go.mod").write_text("module example.com/x\n\ngo 1.26\n\nrequire (\n"
                                 "\tgithub.com/NVIDIA/go-nvml v0.13.0-1 // indirect\n)\n", encoding="utf-8")
    data = scanned(root, rulebase)
    assert not [f for f in data["findings"] if f["rule"] == "HIP7023"]
    assert data["summary"]["class"] != "migration-required"
