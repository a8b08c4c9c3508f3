"""A Cargo build script that compiles C++/CUDA sources only under a feature off by default
(extract/text/cargo_build.py, workloads/cargo_features.py): the sources are an optional part, the switch
`cargo feature <name> of <Cargo.toml>`. Fixture cut from reco-project/video-stitcher's crates/reco-detect (its
README); the near misses turn the feature on by default, compile the file outside the gate too, negate the gate, or
have a dependent crate of the workspace ask for the feature by default."""
from __future__ import annotations

import shutil
from pathlib import Path

from migrate.extract.text.cargo_build import extract
from tests.test_default_build_reach import edited, statuses
from tests.test_optional_parts import CASES, optional_parts, report, scanned

CASE = "cargo_build_script_feature"
WRAPPER = "csrc/tensorrt_wrapper.cpp"
SWITCH = "build switch cargo feature tensorrt-native of Cargo.toml"


def test_a_source_only_a_non_default_feature_compiles_is_optional(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    part = optional_parts(data)[SWITCH]
    assert part["class"] == "incompatible"  # TensorRT
    assert part["evidence"][0] == ("build.rs:9 compiles csrc/tensorrt_wrapper.cpp only with feature `tensorrt-native`; "
                                   "Cargo.toml:8 default = [ort]: the default build does not turn it on")
    assert statuses(data, WRAPPER) == {"optional"}


def test_the_feature_on_by_default_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "Cargo.toml", 'default = ["ort"]', 'default = ["ort", "tensorrt-native"]')
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert statuses(data, WRAPPER) == {""}


def test_a_file_also_compiled_outside_the_gate_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "build.rs", '    if std::env::var("CARGO_FEATURE_NCNN").is_ok() {',
                  '    cc::Build::new().file("csrc/tensorrt_wrapper.cpp").compile("w");\n'
                  '    if std::env::var("CARGO_FEATURE_NCNN").is_ok() {')
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert statuses(data, WRAPPER) == {""}


def test_a_negated_gate_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "build.rs", 'if std::env::var("CARGO_FEATURE_TENSORRT_NATIVE").is_ok() {',
                  'if std::env::var("CARGO_FEATURE_TENSORRT_NATIVE").is_err() {')
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "incompatible"
    assert statuses(data, WRAPPER) == {""}


def test_a_workspace_member_asking_for_the_feature_by_default_is_required(tmp_path: Path, rulebase) -> None:
    tree = tmp_path / "ws"
    shutil.copytree(CASES / CASE, tree / "crates" / "reco-detect")
    (tree / "Cargo.toml").write_text('[workspace]\nmembers = ["crates/reco-detect", "crates/reco-cli"]\n'
                                     'default-members = ["crates/reco-cli"]\n')
    (tree / "crates" / "reco-cli").mkdir()
    (tree / "crates" / "reco-cli" / "Cargo.toml").write_text(
        '[package]\nname = "reco-cli"\nversion = "0.1.0"\n\n[features]\ndefault = ["native"]\n'
        'native = ["reco-detect/tensorrt-native"]\n\n[dependencies]\nreco-detect = { path = "../reco-detect" }\n')
    data = scanned(tree, rulebase)
    assert statuses(data, "crates/reco-detect/" + WRAPPER) == {""}
    (tree / "crates" / "reco-cli" / "Cargo.toml").write_text(
        (tree / "crates" / "reco-cli" / "Cargo.toml").read_text().replace('default = ["native"]', "default = []"))
    data = scanned(tree, rulebase)
    assert statuses(data, "crates/reco-detect/" + WRAPPER) == {"optional"}


def test_gates_read_from_build_scripts() -> None:
    """cfg attributes and macros, CARGO_FEATURE_ variables, any(); not else branches, negations, comments or strings
    (the shapes of LaurentMazare/glim's, architehc/nanochat-rs-ternary's and TabbyML/tabby's build.rs)."""
    source = b'''fn main() {
    #[cfg(feature = "cuda")]
    {
        let cuda_file = "cuda/sigmoid.cu"; // "not/a.cu" in a comment
        let b = bindgen_cuda::Builder::default().kernel_paths_glob("cuda-kernels/**/*.cu");
    }
    if cfg!(any(feature = "rocm", feature = "hip")) { build("hip/k.hip"); } else { build("cpu/k.cpp"); }
    if !cfg!(feature = "binary") { return; }
    let brace = '{';
    let s = "}";
    /* nested /* comment */ "x/c.cu" */
    cc::Build::new().file(r#"csrc/plain.c"#).compile("plain");
    println!("cargo:rerun-if-changed=csrc/k.cu");
}
'''
    got = {f.name: f.text for f in extract(source).facts}
    assert got == {"cuda/sigmoid.cu": "cuda", "cuda-kernels/**/*.cu": "cuda", "hip/k.hip": "rocm|hip",
                   "cpu/k.cpp": "", "csrc/plain.c": ""}


def test_a_heads_features_are_read_from_its_strings_not_its_comments() -> None:
    """A statement head's feature names come from its string literals (raw ones too) with its comments and
    character literals blanked: a feature named in a comment or after a `'"'` gates nothing."""
    source = b'''fn main() {
    if /* cfg!(feature = "old") */ env::var("CARGO_FEATURE_CUDA").is_ok() && Path::new(r#"x{y"#).exists() {
        build("a/k.cu");
    }
    if cfg!(feature = "rocm") && c == '"' { build("b/k.hip"); }
}
'''
    got = {f.name: f.text for f in extract(source).facts}
    assert got == {"a/k.cu": "CUDA", "b/k.hip": "rocm"}
