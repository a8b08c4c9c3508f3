"""A Cargo dependency entry that turns on a crate's CUDA back end itself (`candle-core = { features = ["cuda"] }`)
is a `cargo:<crate>[<feature>]` requirement (migrate/extract/text/cargo.py); Candle and mistral.rs have no ROCm back
end, so rules/dependencies.yaml HIP7005 grades it incompatible. Fixture cut from FishySoftware/semantic-explorer; the
near misses: another back end's feature (metal, mkl), an optional dependency, a feature only a non-default feature of
the package's `[features]` turns on (optional; one `default` turns on, directly or through another, is required)."""
from __future__ import annotations

from pathlib import Path

from tests.test_optional_parts import scanned

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "HIP7005" / "cargo" / "Cargo.toml"


def _scan(tmp_path: Path, rulebase, *edits: tuple[str, str]) -> dict:
    text = FIXTURE.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    (tmp_path / "Cargo.toml").write_text(text, encoding="utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text("fn main() {}\n", encoding="utf-8")
    return scanned(tmp_path, rulebase)


def _hip7005(data: dict) -> list[tuple[int, str, str]]:
    return [(f["line"], f["symbol"], f["status"]) for f in data["findings"] if f["rule"] == "HIP7005"]


def test_cuda_features_of_candle_and_mistralrs_are_incompatible(tmp_path: Path, rulebase) -> None:
    data = _scan(tmp_path, rulebase)
    assert _hip7005(data) == [(13, "cargo:candle-transformers[flash-attn]", ""),  # `default` turns `gpu` on
                              (19, "cargo:candle-core[cuda]", ""), (19, "cargo:candle-core[cudnn]", ""),
                              (23, "cargo:mistralrs[cuda]", ""), (23, "cargo:mistralrs[cudnn]", ""),
                              (23, "cargo:mistralrs[flash-attn]", "")]
    assert data["summary"]["class"] == "incompatible"


def test_an_optional_dependency_is_optional(tmp_path: Path, rulebase) -> None:
    data = _scan(tmp_path, rulebase, ('tag = "v0.7.0", features', 'tag = "v0.7.0", optional = true, features'))
    assert {status for line, _, status in _hip7005(data) if line == 23} == {"optional"}


def test_a_feature_only_a_non_default_feature_turns_on_is_optional(tmp_path: Path, rulebase) -> None:
    data = _scan(tmp_path, rulebase, (', features = ["cuda", "cudnn"] }', " }"),
                 ('metal = ["candle-nn/metal"]', 'cuda = ["candle-core/cuda"]'), ('default = ["gpu"]', "default = []"))
    assert [(line, symbol, status) for line, symbol, status in _hip7005(data) if "candle" in symbol] == [
        (11, "cargo:candle-core[cuda]", "optional"), (13, "cargo:candle-transformers[flash-attn]", "optional")]


def test_a_feature_the_default_feature_turns_on_through_another_is_required(tmp_path: Path, rulebase) -> None:
    data = _scan(tmp_path, rulebase, ('default = ["gpu"]', 'default = ["server"]\nserver = ["gpu"]'))
    assert (14, "cargo:candle-transformers[flash-attn]", "") in _hip7005(data)
