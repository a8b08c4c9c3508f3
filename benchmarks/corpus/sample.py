#!/usr/bin/env python3
"""Draw a precision sample from the corpus reports, to be judged by reading the code.

    python benchmarks/corpus/sample.py --reports /tmp/corpus-reports --src /tmp/src/c13 \
        --per-family 20 --seed 1302 --out sample.json

Reads the JSON reports that score.py keeps (`<id>.json`), groups their findings by rule family
(HIP0 headers, HIP1 runtime, HIP2 driver, HIP3 libraries, HIP4 device, HIP5 asm, HIP6 python,
HIP7 dependencies, HIP8 build, HIP9 containers), shuffles each family with the seed and takes
`per-family` findings, at most `per-workload` from one corpus workload, so that no single
repository fills a family. Writes the draw (with the code around each line) as JSON and prints
it for reading; the judgements go into a YAML file beside this script.
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
FAMILIES = {"HIP0": "headers", "HIP1": "runtime", "HIP2": "driver", "HIP3": "libraries", "HIP4": "device",
            "HIP5": "asm", "HIP6": "python", "HIP7": "dependencies", "HIP8": "build", "HIP9": "containers"}


def family(rule: str) -> str:
    return FAMILIES.get(rule[:4], rule[:4])


def context(src: Path, entry: dict, finding: dict, around: int = 3) -> str:
    base = src / entry["repo"].replace("/", "+") / entry["path"]
    try:
        lines = (base / finding["path"]).read_text(errors="replace").split("\n")
    except OSError:
        return "(source not found)"
    lo, hi = max(0, finding["line"] - 1 - around), min(len(lines), finding["line"] + around)
    return "\n".join(f"{'>>' if i + 1 == finding['line'] else '  '}{i + 1:6} {lines[i][:180]}" for i in range(lo, hi))


def draw(reports: Path, corpus: list[dict], per_family: int, per_workload: int, seed: int) -> list[tuple[dict, dict]]:
    pool: dict[str, list[tuple[dict, dict]]] = {}
    for entry in corpus:
        path = reports / f"{entry['id']}.json"
        if not path.exists():
            continue
        for f in json.loads(path.read_text())["findings"]:
            pool.setdefault(family(f["rule"]), []).append((entry, f))
    rng = random.Random(seed)
    picked: list[tuple[dict, dict]] = []
    for fam in sorted(pool):
        items = sorted(pool[fam], key=lambda x: (x[0]["id"], x[1]["path"], x[1]["line"], x[1]["rule"], x[1]["symbol"]))
        rng.shuffle(items)
        seen: dict[str, int] = {}
        taken = 0
        for entry, f in items:
            if seen.get(entry["id"], 0) >= per_workload:
                continue
            seen[entry["id"]] = seen.get(entry["id"], 0) + 1
            picked.append((entry, f))
            taken += 1
            if taken >= per_family:
                break
    return picked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=HERE / "corpus.yaml")
    parser.add_argument("--reports", type=Path, required=True)
    parser.add_argument("--src", type=Path, required=True)
    parser.add_argument("--per-family", type=int, default=20)
    parser.add_argument("--per-workload", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1302)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    corpus = yaml.safe_load(args.corpus.read_text())["workloads"]
    out = []
    for n, (entry, f) in enumerate(draw(args.reports, corpus, args.per_family, args.per_workload, args.seed)):
        prefix = "" if entry["path"] in (".", "") else entry["path"].rstrip("/") + "/"
        item = {"n": n, "family": family(f["rule"]), "workload": entry["id"], "repo": entry["repo"],
                "commit": entry["commit"], "path": prefix + f["path"], "line": f["line"], "rule": f["rule"],
                "symbol": f["symbol"], "rule_class": f.get("rule_class", f["class"]), "class": f["class"],
                "status": f.get("status") or None, "confidence": f["confidence"], "message": f["message"][:240]}
        out.append(item)
        print(f"#{n} [{item['family']}] {entry['id']} {f['rule']} {item['path']}:{f['line']} sym={f['symbol']!r} "
              f"class={item['class']} rule_class={item['rule_class']} conf={f['confidence']} st={item['status']}\n"
              f"   msg: {f['message'][:200]}\n{context(args.src, entry, f)}\n")
    args.out.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
