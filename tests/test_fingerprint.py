"""A finding's fingerprint folds its line's whitespace away: every character `re`'s `\\s` matches, no other
(the fold is `str.split`, which costs a render of cuda-samples' 17k findings a third of what `re.sub` did)."""
from __future__ import annotations

import hashlib
import re
import sys

from migrate.model import Finding

SPACES = re.compile(r"\s+")  # the fold as it was written first: fingerprints in users' baselines were made so


def _finding(line: str) -> Finding:
    return Finding(rule="HIP1201", path="a/b.cu", line=3, column=5, end_line=3, end_column=15, symbol="cudaMalloc",
                   message="m", hip="hipMalloc", hipify="yes", confidence="high", migration_class="minor-adaptation",
                   source_line=line)


def _by_regex(line: str) -> str:
    raw = "\0".join(("HIP1201", "a/b.cu", "cudaMalloc", SPACES.sub("", line)))
    return hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def test_the_fold_takes_what_the_regex_took() -> None:
    spaces = "".join(chr(c) for c in range(sys.maxunicode + 1) if re.fullmatch(r"\s", chr(c)))
    assert spaces == "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())
    for line in ("  cudaMalloc(&p, n);", f"a{spaces}b", "x\u00a0y\u2028z\x1c", "", spaces, "\udcff cuda\tMalloc"):
        assert _finding(line).fingerprint == _by_regex(line)


def test_a_line_that_differs_in_more_than_whitespace_differs() -> None:
    assert _finding("cudaMalloc(&p, n);").fingerprint == _finding(" cudaMalloc( &p,\tn ) ;").fingerprint
    assert _finding("cudaMalloc(&p, n);").fingerprint != _finding("cudaMalloc(&q, n);").fingerprint
