"""pixi features in a pyproject.toml (migrate/extract/text/pyproject.py `_default_features`): a feature's dependencies
are installed by the default environment only where `[tool.pixi.environments]` composes it there; any other feature's
(`dev`, `lint`, a `cuda` feature selected with `--environment`) are optional, as a dependency group's are."""
from __future__ import annotations

from pathlib import Path

from migrate.extract import extract

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "HIP7003" / "pixi-dev" / "pyproject.toml"


def _guards(text: str) -> dict[str, str | None]:
    return {f.name: f.guard for f in extract("pyproject", text.encode()).facts if f.kind == "requirement"}


def test_a_dev_feature_is_optional() -> None:
    guards = _guards(FIXTURE.read_text(encoding="utf-8"))
    assert guards["nvidia-ml-py"] == "optional" and guards["pytest"] == "optional" and guards["ruff"] == "optional"
    assert guards["pip"] is None and guards["torch"] is None


def test_a_feature_the_default_environment_composes_is_required() -> None:
    """Near miss: the same manifest whose default environment names the feature (a table's `features`, or a list)."""
    text = FIXTURE.read_text(encoding="utf-8")
    for default in ('default = { features = ["dev"], solve-group = "default" }', 'default = ["dev"]'):
        guards = _guards(text.replace('default = { solve-group = "default" }', default))
        assert guards["nvidia-ml-py"] is None and guards["ruff"] == "optional"
