"""Fuzz the extractors and one-file scans for a while and count what breaks.

    python scripts/fuzz.py [--seconds 600] [--seed 1] [--scan-every 20] [--keep DIR]
    python scripts/fuzz.py --replay DIR/slow-1-cuda.bin [...]

Inputs are the token soups of tests/fuzzing.py (the ones the CI test draws from), larger and
more varied: up to 4,000 tokens, deep bracket and #if nests, mixed in raw bytes. Every input
goes through `migrate.extract.extract` (an exception the guard catches counts as a crash); one
in `--scan-every` is scanned as a one-file repository and rendered in every format. The last
lines give the counts and the slowest inputs (time of extraction and of the scan); the exit code
is 1 when anything broke. With --keep, the first input of each kind of failure and the slowest
inputs are written there, named <what>-<n>-<kind>.bin; --replay runs such files again."""
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


SLOWEST = 5


def run_one(kind: str, data: bytes, rules: object, scan: bool) -> tuple[list[str], float, float]:
    """Problems of one input, seconds of its extraction and of its one-file scan (0 if none)."""
    begun = time.monotonic()
    problems = fuzzing.fuzz_extract(kind, data)
    extracted = time.monotonic()
    if scan:
        with tempfile.TemporaryDirectory() as folder:
            problems += fuzzing.fuzz_scan(kind, data, Path(folder), rules)  # type: ignore[arg-type]
    return problems, extracted - begun, time.monotonic() - extracted if scan else 0.0


def replay(paths: list[Path], rules: object) -> int:
    broken = 0
    for path in paths:
        kind = path.stem.rsplit("-", 1)[-1]
        problems, extract_s, scan_s = run_one(kind, path.read_bytes(), rules, scan=True)
        broken += bool(problems)
        print(f"{path}: {kind}, {path.stat().st_size} bytes, extract {extract_s:.2f} s, scan {scan_s:.2f} s"
              + "".join(f"\n    {p}" for p in problems))
    return 1 if broken else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scan-every", type=int, default=20)
    parser.add_argument("--keep", type=Path, help="write failing and the slowest inputs here")
    parser.add_argument("--replay", type=Path, nargs="+", help="run kept inputs again (kind from the name)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # SyntaxWarnings of fuzzed Python are expected
    from migrate.rulebase.load import load_rules

    rules = load_rules()
    if args.replay:
        return replay(args.replay, rules)
    rng = random.Random(args.seed)
    counts: collections.Counter[str] = collections.Counter()
    failures: collections.Counter[str] = collections.Counter()
    slowest: list[tuple[float, float, float, int, str, bytes]] = []  # (total, extract, scan, input, kind, data)
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        kind = rng.choice(fuzzing.KINDS)
        data = generate(rng, kind)
        if fuzzing.admissible(kind, data) is None:
            counts["not admissible (what readfile skips)"] += 1
            continue
        number = counts["inputs"]
        scan = number % args.scan_every == 0
        problems, extract_s, scan_s = run_one(kind, data, rules, scan)
        counts[f"extract {kind}"] += 1
        counts["one-file scans"] += scan
        counts["inputs"] += 1
        slowest = sorted([*slowest, (extract_s + scan_s, extract_s, scan_s, number, kind, data)], reverse=True)[:SLOWEST]
        for problem in problems:
            key = problem[:160]
            if not failures[key] and args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                (args.keep / f"fail-{len(failures) + 1}-{kind}.bin").write_bytes(data)
            failures[key] += 1
    for name, count in sorted(counts.items()):
        print(f"{count:8}  {name}")
    for rank, (total, extract_s, scan_s, number, kind, data) in enumerate(slowest, start=1):
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            (args.keep / f"slow-{rank}-{kind}.bin").write_bytes(data)
        print(f"slowest input {rank}: {total:.2f} s (extract {extract_s:.2f} s, scan {scan_s:.2f} s; "
              f"input {number}, {kind}, {len(data)} bytes)")
    print(f"{sum(failures.values())} failures of {len(failures)} kinds in {counts['inputs']} inputs")
    for problem, count in failures.most_common():
        print(f"{count:8}  {problem}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
