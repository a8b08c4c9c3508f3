"""Path globs of build files (workloads/path_globs.py): `*`, `?` and `[...]` stay inside one path segment, only a
`**` segment crosses folders. Read by CMake's file(GLOB) sources, Cargo's workspace members and a build script's
globbed sources; each with a near miss one folder deeper."""
from __future__ import annotations

import pytest
from migrate.extract.text import cargo
from migrate.model import Fact
from migrate.workloads import reach
from migrate.workloads.build_sources import named_files
from migrate.workloads.path_globs import matches


@pytest.mark.parametrize(("path", "pattern", "expected"), [
    ("src/a.cu", "src/*.cu", True),
    ("src/sub/a.cu", "src/*.cu", False),  # near miss: `*` does not cross a folder
    ("src/a/kernels/k.cu", "src/*/kernels/*.cu", True),
    ("src/a/b/kernels/k.cu", "src/*/kernels/*.cu", False),
    ("src/a.cu", "src/**/*.cu", True),  # `**/` matches no folder too
    ("src/a/b/c.cu", "src/**/*.cu", True),
    ("srcx/a.cu", "src/**/*.cu", False),
    ("crates/a", "crates/*", True),
    ("crates/a/b", "crates/*", False),
    ("k1.cu", "k[0-9].cu", True),
    ("kx.cu", "k[!0-9].cu", True),
    ("k/.cu", "k?.cu", False),
    ("a.cu", "a.cu", True),
    ("a+b.cu", "a+b.cu", True),
])
def test_a_glob_star_stays_in_its_folder(path: str, pattern: str, expected: bool) -> None:
    assert matches(path, pattern) is expected


def test_a_cmake_glob_with_a_folder_wildcard_names_that_depth_only() -> None:
    """`file(GLOB K src/*/kernels/*.cu)`: CMake globs one segment per `*`; GLOB_RECURSE adds what is below."""
    files = frozenset({"src/a/kernels/k.cu", "src/a/b/kernels/deep.cu", "src/a/kernels/sub/s.cu"})
    glob = Fact(kind="build_source", name="src/*/kernels/*.cu", line=1, column=1, end_line=1, end_column=1,
                text="GLOB K")
    assert named_files("CMakeLists.txt", glob, files) == ["src/a/kernels/k.cu"]
    recurse = Fact(kind="build_source", name="src/a/kernels/*.cu", line=1, column=1, end_line=1, end_column=1,
                   text="GLOB_RECURSE K")
    assert named_files("CMakeLists.txt", recurse, files) == ["src/a/kernels/k.cu", "src/a/kernels/sub/s.cu"]


def test_a_workspace_member_glob_names_the_crates_one_folder_down() -> None:
    """`members = ["crates/*"]`: a package below a member's folder (an example crate of its own, a crate inside the
    default member) is no member, so the default build (default-members: the cli) leaves out crates/gpu/ alone; with
    fnmatch's `*` the nested ones were members the default build does not reach, and the CUDA file of the one inside
    crates/cli/ was read as left out."""
    manifests = {
        "Cargo.toml": b'[workspace]\nmembers = ["crates/*"]\ndefault-members = ["crates/cli"]\n',
        "crates/cli/Cargo.toml": b'[package]\nname = "cli"\nversion = "0.1.0"\n',
        "crates/gpu/Cargo.toml": b'[package]\nname = "gpu"\nversion = "0.1.0"\n',
        "crates/gpu/examples/demo/Cargo.toml": b'[package]\nname = "demo"\nversion = "0.1.0"\n',
        "crates/cli/sub/Cargo.toml": b'[package]\nname = "sub"\nversion = "0.1.0"\n',
    }
    facts: dict[str, list[Fact]] = {path: cargo.extract(text).facts for path, text in manifests.items()}
    facts["crates/cli/sub/k.cu"] = []
    kinds = {path: "cargo" if path.endswith(".toml") else "cuda" for path in facts}
    assert {path: folder for path, (folder, _) in reach.unreached(facts, kinds).items()} == {
        "crates/gpu/Cargo.toml": "crates/gpu/"}


def test_a_build_scripts_glob_gates_the_files_at_its_depth() -> None:
    """A build script compiling `kernels/*.cu` only under a feature off by default gates kernels/a.cu, not
    kernels/old/b.cu (near miss: one folder deeper, which the glob crate does not list); `kernels/**/*.cu` gates both."""
    from migrate.extract.text import cargo_build
    from migrate.workloads.cargo_features import feature_gated
    from migrate.workloads.optional_words import words

    def gated(glob: str) -> list[str]:
        script = ('fn main() {\n    #[cfg(feature = "cuda")]\n    {\n'
                  f'        let b = bindgen_cuda::Builder::default().kernel_paths_glob("{glob}");\n    }}\n}}\n')
        facts: dict[str, list[Fact]] = {
            "Cargo.toml": cargo.extract(b'[package]\nname = "k"\nversion = "0.1.0"\n\n[features]\ndefault = []\n'
                                        b'cuda = []\n').facts,
            "build.rs": cargo_build.extract(script.encode()).facts, "kernels/a.cu": [], "kernels/old/b.cu": []}
        return sorted(feature_gated(facts, words())[0])

    assert gated("kernels/*.cu") == ["kernels/a.cu"]
    assert gated("kernels/**/*.cu") == ["kernels/a.cu", "kernels/old/b.cu"]
