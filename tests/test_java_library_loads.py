"""Java bindings that load a native library by name (migrate/extract/text/java.py): a closed NVIDIA SDK's library
(Reflex's NvLowLatencyVk, NVAPI) is HIP6050, incompatible; a CUDA library HIP6033. The names are the list Python's
ctypes loads are read with (rules/names/libraries.yaml); a `.java` file that loads no library is not read at all."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from migrate.extract.names import name_list
from migrate.scan.discover import file_kind
from tests.test_optional_parts import scanned

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rules"


def _tree(tmp_path: Path, fixture: str) -> Path:
    folder = tmp_path / "src" / "main" / "java"
    folder.mkdir(parents=True)
    shutil.copy(FIXTURES / fixture, folder / "Binding.java")
    (folder / "Plain.java").write_text("class Plain { int x = 1; }\n", encoding="utf-8")
    return tmp_path


def test_a_jna_binding_of_nvidia_reflex_is_incompatible(tmp_path: Path, rulebase) -> None:
    data = scanned(_tree(tmp_path, "HIP6050/bad.java"), rulebase)
    assert [(f["rule"], f["line"], f["symbol"]) for f in data["findings"]] == [
        ("HIP6050", 10, "NvLowLatencyVk"), ("HIP6050", 17, "nvapi64")]
    assert data["summary"]["class"] == "incompatible"
    assert data["summary"]["files_scanned"] == 1  # Plain.java loads nothing: not read


def test_the_projects_own_jni_library_is_no_tie(tmp_path: Path, rulebase) -> None:
    data = scanned(_tree(tmp_path, "HIP6050/good.java"), rulebase)
    assert data["findings"] == []
    assert data["summary"]["class"] == "native"


def test_a_java_file_is_read_only_when_it_loads_a_library(tmp_path: Path) -> None:
    loads, plain = tmp_path / "A.java", tmp_path / "B.java"
    loads.write_text('class A { static { System.loadLibrary("x"); } }\n', encoding="utf-8")
    plain.write_text("class B {}\n", encoding="utf-8")
    assert (file_kind(loads), file_kind(plain)) == ("java", None)


def test_a_quote_in_a_character_literal_opens_no_string() -> None:
    """`'"'` is a character literal: the comment after it stays a comment, and its load is not read."""
    from migrate.extract.text import java

    source = (b'class A {\n  char q = \'"\'; // System.loadLibrary("cudart")\n'
              b'  void f() { System.loadLibrary("cublas"); }\n}\n')
    assert [(f.line, f.text) for f in java.extract(source).facts] == [(3, "cublas")]


@pytest.mark.parametrize("loader", sorted(name_list("libraries", "java_loaders")))
def test_every_java_loader_of_the_list_is_sniffed_and_read(tmp_path: Path, loader: str) -> None:
    """The loaders are one list (rules/names/libraries.yaml `java_loaders`): discovery's sniff and the reader's pattern
    are both built from it, so a name of the list is a `.java` file read and a load found, qualified by its package or
    not. Near miss: the same call on a class whose name only ends like the loader's (`MyNative.load`) is neither."""
    from migrate.extract.text import java

    packages = sorted(name_list("libraries", "java_loader_packages"))
    for n, prefix in enumerate(["", *(p + "." for p in packages)]):
        loads = tmp_path / f"L{n}.java"
        loads.write_text(f'class L {{ void f() {{ {prefix}{loader}("cublas"); }} }}\n', encoding="utf-8")
        assert file_kind(loads) == "java"
        assert [(f.name, f.text) for f in java.extract(loads.read_bytes()).facts] == [("cuda-library-load", "cublas")]
    lookalike = tmp_path / "M.java"
    lookalike.write_text(f'class M {{ void f() {{ My{loader}("cublas"); }} }}\n', encoding="utf-8")
    assert file_kind(lookalike) is None and not java.extract(lookalike.read_bytes()).facts
