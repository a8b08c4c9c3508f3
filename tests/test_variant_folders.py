"""Build variants one folder apart and benchmark suites named for what they measure
(fixtures/workloads/optional/image_folder_variants*, cut from huggingface/peft): an NVIDIA image in docker/peft-gpu/
beside docker/peft-cpu/ is one of two images, and method_comparison/text_generation_benchmark/ is a benchmark suite;
both are optional parts. Alone (no CPU sibling; the same code in the package's src/) they stay required."""
from __future__ import annotations

import pytest
from migrate.workloads.optional_words import optional_root
from tests.test_optional_parts import report, statuses_of


def test_an_nvidia_image_beside_a_plain_one_in_a_sibling_folder_is_optional(rulebase) -> None:
    data = report("image_folder_variants", rulebase)
    assert statuses_of(data, "docker/peft-gpu/Dockerfile") == {"optional"}
    assert statuses_of(data, "method_comparison/text_generation_benchmark/utils.py") == {"optional"}
    assert data["summary"]["class"] == "native"


def test_the_same_image_and_code_alone_are_required(rulebase) -> None:
    data = report("image_folder_variants_near", rulebase)
    assert statuses_of(data, "docker/peft-gpu/Dockerfile") == {""}
    assert statuses_of(data, "src/peft/utils.py") == {""}
    assert data["summary"]["class"] == "minor-adaptation"


@pytest.mark.parametrize(("path", "root"), [
    ("method_comparison/text_generation_benchmark/utils.py", "method_comparison/text_generation_benchmark"),
    ("projects/arctic_moe/weekly-benchmark/run.sh", "projects/arctic_moe/weekly-benchmark"),
    ("src/benchmarker/timer.py", None),  # a word that only starts like one
    ("benchmarking/gat/seastar/train.py", "benchmarking"),  # the word itself, as `testing` (bfGraph/STGraph ac8c1372)
    ("src/benchmark_utils/timer.py", None),  # the word first: not a suffix (bench_ is a prefix of its own)
])
def test_a_folder_named_for_a_benchmark_at_its_end_is_optional(path: str, root: str | None) -> None:
    assert optional_root(path) == root
