"""Fuzz the extractors and one-file scans for a while and count what breaks.

    python scripts/fuzz.py [--seconds 600] [--seed 1] [--scan-every 20]

Inputs are the token soups of tests/fuzzing.py (the ones the CI test draws from), larger and
more varied: up to 4,000 tokens, deep bracket and #if nests, mixed in raw bytes. Every input
goes through `migrate.extract.extract` (an exception the guard catches counts as a crash); one
in `--scan-every` is scanned as a one-file repository and rendered in every format. The last
lines give the counts; the exit code is 1 when anything broke (the first input of each kind of
failure is written to --keep)."""
from __future__ import annotations

import argparse
import collections
import random
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests import fuzzing  # noqa: E402

NESTS = {"cuda": ("#if HIP_X\n", "#endif\n"), "python": ("(", ")"), "notebook": ("[", "]"), "pyproject": ("x = [", "]"),
         "cmake": ("if(A)\n", "endif()\n"), "dockerfile": ("RUN a \\\n", ""), "shell": ("$(", ")")}


def generate(rng: random.Random, kind: str) -> bytes:
    roll = rng.random()
    if roll < 0.1 and kind in NESTS:  # deep nesting
        opening, closing = NESTS[kind]
        depth = rng.choice((50, 500, 3000))
        text = opening * depth + fuzzing.soup(rng, kind, 20) + closing * depth
    else:
        text = fuzzing.soup(rng, kind, rng.choice((10, 100, 1000, 4000)))
    data = fuzzing.encode(kind, text, rng)
    if roll > 0.9:
        data += bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scan-every", type=int, default=20)
    parser.add_argument("--keep", type=Path, default=Path("fuzz-failures"))
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # SyntaxWarnings of fuzzed Python are expected
    from migrate.rulebase.load import load_rules

    rules = load_rules()
    rng = random.Random(args.seed)
    counts: collections.Counter[str] = collections.Counter()
    failures: collections.Counter[str] = collections.Counter()
    slowest = (0.0, "")
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        kind = rng.choice(fuzzing.KINDS)
        data = generate(rng, kind)
        if fuzzing.admissible(kind, data) is None:
            counts["not admissible (what readfile skips)"] += 1
            continue
        begun = time.monotonic()
        problems = fuzzing.fuzz_extract(kind, data)
        counts[f"extract {kind}"] += 1
        if counts["inputs"] % args.scan_every == 0:
            with tempfile.TemporaryDirectory() as folder:
                problems += fuzzing.fuzz_scan(kind, data, Path(folder), rules)
            counts["one-file scans"] += 1
        counts["inputs"] += 1
        slowest = max(slowest, (time.monotonic() - begun, f"{kind}, {len(data)} bytes"))
        for problem in problems:
            key = problem[:160]
            if not failures[key]:
                args.keep.mkdir(exist_ok=True)
                (args.keep / f"{len(failures):03}-{kind}").write_bytes(data)
            failures[key] += 1
    for name, count in sorted(counts.items()):
        print(f"{count:8}  {name}")
    print(f"slowest input: {slowest[0]:.2f} s ({slowest[1]})")
    print(f"{sum(failures.values())} failures of {len(failures)} kinds in {counts['inputs']} inputs")
    for problem, count in failures.most_common():
        print(f"{count:8}  {problem}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
