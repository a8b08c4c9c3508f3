"""An NVIDIA library a C program opens by name at run time (dlopen) and uses only where present, declaring the types it
needs itself: its API's findings are an optional part (extract/c/cuda_cpp.py `loaded_library` facts,
workloads/alternatives.loaded_where_present, rules/workloads/alternatives.yaml run_time_libraries). Fixture cut from
openwall/john 3c2e19c0 src/gpu_sensors.h and src/gpu_common.c (its README); each near miss keeps NVML required."""
from __future__ import annotations

from pathlib import Path

from migrate.extract.c.cuda_cpp import extract, library_loaders
from migrate.extract.names import name_list
from tests.test_default_build_reach import edited, statuses
from tests.test_optional_parts import optional_parts, report, scanned

CASE = "nvml_loaded_at_run_time"
FILES = ("src/gpu_common.c", "src/gpu_sensors.h", "src/john.c")


def test_the_libraries_a_file_opens_by_name_are_facts() -> None:
    source = (b'void probe(void) {\n'
              b'  if (!(lib = dlopen("libnvidia-ml.so", RTLD_LAZY)))\n    return;\n'
              b'  HMODULE h = LoadLibraryW(L"nvml.dll");\n'
              b'  void *p = dlopen(name, RTLD_NOW);\n'  # not a literal: nothing said
              b'  open("libnvidia-ml.so", 0);\n}\n')  # no loader
    assert [(f.name, f.line) for f in extract(source).facts if f.kind == "loaded_library"] == [
        ("libnvidia-ml.so", 2), ("nvml.dll", 4)]


def test_nvml_opened_at_run_time_with_its_own_declarations_is_optional(rulebase) -> None:
    data = report(CASE, rulebase)
    assert data["summary"]["class"] == "native"
    parts = optional_parts(data)
    assert sorted(parts) == [f"{path} (chosen at run time)" for path in FILES]
    part = parts["src/gpu_common.c (chosen at run time)"]
    assert part["class"] == "migration-required"
    assert part["evidence"] == ["src/gpu_common.c:15 opens libnvidia-ml.so at run time and no file includes nvml.h: NVML "
                                "is used only where the library is present (rules/workloads/alternatives.yaml "
                                "run_time_libraries)"]
    assert all(statuses(data, path) == {"optional"} for path in FILES)


def test_a_build_against_nvidias_header_is_required(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "src/gpu_sensors.h", "/* NVIDIA stuff (see nvml.h) */\n", "#include <nvml.h>\n")
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "src/gpu_common.c") == {""}


def test_another_library_opened_at_run_time_is_no_sign(tmp_path: Path, rulebase) -> None:
    tree = edited(CASE, tmp_path, "src/gpu_common.c", '"libnvidia-ml.so"', '"libOpenCL.so"')
    data = scanned(tree, rulebase)
    assert data["summary"]["class"] == "migration-required"
    assert statuses(data, "src/gpu_common.c") == {""}


def test_every_c_loader_of_the_list_gives_the_fact() -> None:
    """The C loaders are a list (rules/names/libraries.yaml `c_loaders`) and the text's pre-check is made from it:
    every name opens a library; a function whose name only contains a loader's (`my_dlopen_wrapper`) is none."""
    loaders, needles = library_loaders()
    assert loaders == name_list("libraries", "c_loaders") and needles == (b"LoadLibrary", b"dlopen")
    for loader in sorted(loaders):
        source = f'void f(void) {{ void *h = {loader}("libcudart.so", 0); my_{loader}_wrapper("libcublas.so"); }}\n'
        assert [f.name for f in extract(source.encode()).facts if f.kind == "loaded_library"] == ["libcudart.so"]
