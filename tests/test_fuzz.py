"""Bounded fuzzing (hypothesis): every extractor on token soups of its own file kind, and a scan of
one fuzzed file rendered in every format. No input may make an extractor raise (the guard would
turn it into a skipped file saying "extractor error"), put a fact at an impossible place, or make
the scan or a renderer fail. A few hundred examples within a time budget; scripts/fuzz.py runs
the same inputs for as long as it is given."""
from __future__ import annotations

import random
import time

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is in the test extra")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from tests import fuzzing  # noqa: E402

BUDGET_SECONDS = 30.0  # per test: a slow machine runs fewer examples, never longer
EXAMPLES = 300
started: dict[str, float] = {}


def within_budget(name: str) -> bool:
    first = started.setdefault(name, time.monotonic())
    return time.monotonic() - first < BUDGET_SECONDS


def inputs() -> st.SearchStrategy[tuple[str, bytes]]:
    def build(kind: str, seed: int, size: int, raw: bytes) -> tuple[str, bytes]:
        rng = random.Random(seed)
        data = fuzzing.encode(kind, fuzzing.soup(rng, kind, size), rng)
        return kind, data + raw if seed % 5 == 0 else data

    return st.builds(build, st.sampled_from(fuzzing.KINDS), st.integers(0, 2**32), st.integers(0, 300),
                     st.binary(max_size=64))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(inputs())
def test_extractors_never_fail(item: tuple[str, bytes]) -> None:
    if not within_budget("extractors"):
        return
    kind, data = item
    assert fuzzing.fuzz_extract(kind, data) == []


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(item=inputs())
def test_one_file_scan_renders_every_format(item: tuple[str, bytes], tmp_path_factory: pytest.TempPathFactory,
                                            rulebase) -> None:
    if not within_budget("scan"):
        return
    kind, data = item
    problems = fuzzing.fuzz_scan(kind, data, tmp_path_factory.mktemp("fuzz"), rulebase)
    assert problems == []


def test_the_soups_cover_every_kind() -> None:
    assert set(fuzzing.TOKENS) == set(fuzzing.KINDS)
    assert all(fuzzing.admissible(kind, fuzzing.encode(kind, "x\n")) is not None for kind in fuzzing.KINDS)


def test_the_check_sees_an_extractor_bug() -> None:
    from migrate.model import Extraction, Fact

    bug = Extraction(facts=(), lines=1, error="extractor error (KeyError: 'x')")
    assert fuzzing.check_extraction("cuda", b"", bug) == ["cuda: extractor error (KeyError: 'x')"]
    misplaced = Extraction(facts=(Fact(kind="identifier", name="x", line=3, column=1, end_line=3, end_column=2),),
                           lines=1)
    assert fuzzing.check_extraction("cuda", b"x", misplaced)

