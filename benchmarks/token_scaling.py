"""Which extractors grow faster than their input: each token of tests/fuzzing.py's soup for a file kind, and each pair
of them, repeated to ~25 KB and to four times that; the CPU time of `extract` on both, and the pairs whose 100 KB run
takes over half a second (a linear reader takes ~4x the 25 KB time, a quadratic one ~16x). Session 25 found six readers
this way (docs/decisions/2026-12-06-s25-parse-cpu-time.md and the commits it names).

    python benchmarks/token_scaling.py cmake,makefile,shell --seconds 200
"""
from __future__ import annotations

import argparse
import itertools
import random
import sys
import time

from migrate.extract import extract
from tests.fuzzing import TOKENS

PUNCTUATION = ["\n", " ", "#", "\"", "'", "(", ")", "[", "]", "{", "}", ",", ":", ";", "=", "\\", "$", "${", "$("]


def cpu(kind: str, text: str) -> tuple[float, str | None]:
    started = time.process_time()
    extraction = extract(kind, text.encode("utf-8", "surrogatepass"))
    return time.process_time() - started, extraction.error


def sweep(kind: str, seconds: float) -> None:
    pool = TOKENS[kind] + PUNCTUATION
    combos: list[tuple[str, ...]] = [(a,) for a in pool] + list(itertools.product(pool, pool))
    random.Random(1).shuffle(combos)
    started, tried, slow = time.time(), 0, 0
    for combo in combos:
        unit = "".join(combo)
        n = max(1, 25_000 // max(1, len(unit)))
        small, _ = cpu(kind, unit * n)
        tried += 1
        if small > 0.05:
            large, error = cpu(kind, unit * (4 * n))
            if large > 0.5:
                slow += 1
                print(f"{kind} {combo!r}: 25 KB {small:.2f} s, 100 KB {large:.2f} s (x{large / small:.1f}) {error or ''}",
                      flush=True)
        if time.time() - started > seconds:
            break
    print(f"{kind}: {tried} of {len(combos)} inputs tried, {slow} slow", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kinds", help="file kinds, comma-separated (tests/fuzzing.py's TOKENS keys)")
    parser.add_argument("--seconds", type=float, default=300.0, help="time per kind")
    args = parser.parse_args()
    sys.setrecursionlimit(10_000)
    for kind in args.kinds.split(","):
        sweep(kind, args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
