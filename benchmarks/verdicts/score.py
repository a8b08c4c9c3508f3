#!/usr/bin/env python3
"""Score rocm-migrate's classes against the held-out verdict benchmark (verdicts.yaml).

    python benchmarks/verdicts/score.py --split dev --src /work/repos --out /tmp/v [--prepare] [--only ID ...]
        [--batch NAME]

Each workload is a scan of `<src>/<owner>+<name>/<path>` through the real CLI (the scan and the
choice of the predicted class are benchmarks/corpus/score.py's: the named tool workload when the
entry has `workload`, otherwise the report's summary class). Prints one row per workload, the
class exact-match rate, the exact-or-defensible rate (an answer is defensible when it is one of the
entry's `defensible` classes, fixed in verdicts.yaml before any scan), the confusion matrix (rows:
label, columns: predicted) and, for every wrong verdict, the findings that decided it.
`--batch NAME` keeps the entries of one labelling batch (`batch` field; unset is `original`); the
default is `original`, so a later batch that nobody may tune on is scored only when named (`all`: every batch).
`--prepare` first unpacks missing checkouts from the fetched snapshots in `--mirror`
(`<mirror>/<owner>+<name>/repo`) at the listed commit, skipping blobs the snapshot lacks.
Reports are kept (and reused) in `--out`; delete it to rescan after a tool change.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("corpus_score", HERE.parent / "corpus" / "score.py")
assert _spec and _spec.loader
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)
CLASSES, SHORT = corpus.CLASSES, corpus.SHORT


SPLIT_SALT = "verdicts-59"  # fixed before any scan; see README.md, "The split"
ORIGINAL_BATCH = "original"  # entries without a `batch` field; see README.md, "The fresh batch"
ALL_BATCHES = "all"
# Batches labelled whole as a test set (every entry `split: test`) before any tool output; see README.md,
# "The held-out batch". Membership fixes the split field only: b (since session 10) and c (since session 11) have
# been read and tuned on, d is session 11's held-out batch (docs/decisions/2026-12-04-batch-c-tuned-on-batch-d-held-out.md);
# g is session 14's held-out batch (labelled by helper labg, README "The held-out batch of session 14");
# h is session 15's held-out batch (labelled by helper labh, README "The held-out batch of session 15");
# i is session 16's held-out batch (labelled by helper labi, README "The held-out batch of session 16");
# j is session 17's held-out batch (labelled by helper labj, README "The held-out batch of session 17");
# k is session 18's held-out batch (labelled by helper labk, README "The held-out batch of session 18");
# l is session 19's held-out batch (labelled by helper labl, README "The held-out batch of session 19");
# m is session 20's held-out batch (labelled by helper labm, README "The held-out batch of session 20");
# n is session 21's held-out batch (labelled by helper labn, README "The held-out batch of session 21");
# o is session 22's held-out batch (labelled by helper labo, README "The held-out batch of session 22");
# p is session 23's held-out batch (labelled by helper labp, README "The held-out batch of session 23");
# q is session 24's held-out batch (labelled by helper labq, README "The held-out batch of session 24").
# r is session 25's held-out batch (labelled by helper labr, README "The held-out batch of session 25").
# s is session 26's held-out batch (labelled by helper labs, README "The held-out batch of session 26").
# t is session 27's held-out batch (labelled by helper labt, README "The held-out batch of session 27").
# u is session 28's held-out batch (labelled by helper labu, README "The held-out batch of session 28").
# v is session 29's held-out batch (labelled by helper labv, README "The held-out batch of session 29").
# w is session 29's second held-out batch (labelled by helper labw, README "The held-out batch of session 29, second part").
# x is session 30's held-out batch of scientific and engineering computing (labelled by helper labx) and y its batch
# of applications and systems (helper laby); README "The held-out batch of session 30" (one section each).
# z is session 31's held-out batch of machine learning, AI and data (labelled by helper labz, README "The held-out
# batch of session 31").
# aa is session 31's held-out batch of graphics, media and HPC infrastructure (labelled by helper labaa, README
# "The held-out batch of session 31 (`batch: fresh-2026-12-07aa`, helper labaa)").
# ab is session 32's held-out batch of science, engineering and finance (labelled by helper labab, README "The
# held-out batch of session 32 (`batch: fresh-2026-12-07ab`, helper labab)").
# ac is session 32's held-out batch of machine learning and systems (labelled by helper labac, README "The held-out
# batch of session 32 (`batch: fresh-2026-12-07ac`, helper labac)").
# ae is session 33's held-out batch of machine learning and computing systems (labelled by helper labae, README "The
# held-out batch of session 33 (`batch: fresh-2026-12-07ae`, helper labae)").
# af is session 34's held-out batch of science and engineering computing (labelled by helper labaf, README "The
# held-out batch of session 34 (`batch: fresh-2026-12-07af`, helper labaf)").
# ag is session 34's held-out batch of AI and software (labelled by helper labag, README "The held-out batch of
# session 34 (`batch: fresh-2026-12-07ag`, helper labag)").
TEST_ONLY_BATCHES = frozenset(
    {"fresh-2026-12-04b", "fresh-2026-12-04c", "fresh-2026-12-04d", "fresh-2026-12-04e", "fresh-2026-12-05f",
     "fresh-2026-12-05g", "fresh-2026-12-05h", "fresh-2026-12-05i", "fresh-2026-12-05j",
     "fresh-2026-12-05k", "fresh-2026-12-06l", "fresh-2026-12-06m",
     "fresh-2026-12-06n", "fresh-2026-12-06o", "fresh-2026-12-06p",
     "fresh-2026-12-06q", "fresh-2026-12-06r", "fresh-2026-12-06s",
     "fresh-2026-12-07t", "fresh-2026-12-07u", "fresh-2026-12-07v",
     "fresh-2026-12-07w", "fresh-2026-12-07x", "fresh-2026-12-07y",
     "fresh-2026-12-07z", "fresh-2026-12-07aa", "fresh-2026-12-07ab", "fresh-2026-12-07ac",
     "fresh-2026-12-07ad", "fresh-2026-12-07ae", "fresh-2026-12-07af", "fresh-2026-12-07ag",
     "fresh-2026-12-07ah", "fresh-2026-12-07ai"}
)


def side(repo: str) -> str:
    """dev or test, by a hash of the repository name: all workloads of a repository on one side."""
    digest = hashlib.sha256(f"{SPLIT_SALT}:{repo.lower()}".encode()).hexdigest()
    return "test" if int(digest[:8], 16) % 2 else "dev"


def batch_of(entry: dict) -> str:
    return str(entry.get("batch", ORIGINAL_BATCH))


def expected_split(entry: dict) -> str:
    """test for a batch held out whole, otherwise the repository's side by the split rule."""
    return "test" if batch_of(entry) in TEST_ONLY_BATCHES else side(entry["repo"])


def load(path: Path, split: str, only: list[str] | None, batch: str = ORIGINAL_BATCH) -> list[dict]:
    """The entries of one split and batch, after checking that ids are unique and every entry's split follows the
    rule."""
    entries = yaml.safe_load(path.read_text())["workloads"]
    twice = sorted(key for key, n in Counter(e["id"] for e in entries).items() if n > 1)
    if twice:  # an id names a row and its report file (--out/<id>.json): two entries would share both
        raise SystemExit(f"duplicate workload ids in {path}: {', '.join(twice)}")
    wrong = [e["id"] for e in entries if e["split"] != expected_split(e)]
    if wrong:
        raise SystemExit(f"split field disagrees with the split rule for: {', '.join(wrong)}")
    if batch != ALL_BATCHES and batch not in {batch_of(e) for e in entries}:
        raise SystemExit(f"no entry of batch {batch!r} in {path}")
    return [e for e in entries if (split == "all" or e["split"] == split) and (not only or e["id"] in only)
            and batch in (ALL_BATCHES, batch_of(e))]


def git_dir(mirror: Path, repo: str) -> Path:
    root = mirror / repo.replace("/", "+") / "repo"
    return root / ".git" if (root / ".git").is_dir() else root


def unpack(mirror: Path, repo: str, commit: str, dest: Path) -> str:
    """Write the blobs of `commit` under dest (never executes anything from the snapshot)."""
    gd = git_dir(mirror, repo)
    if not gd.is_dir():
        return f"no snapshot at {gd} (fetch github:{repo} first)"
    listing = subprocess.run(["git", "--git-dir", str(gd), "ls-tree", "-r", "-z", commit],
                             capture_output=True, check=False)
    if listing.returncode:
        return f"commit {commit} not in {gd}"
    blobs = []
    for entry in listing.stdout.split(b"\0"):
        if not entry:
            continue
        meta, name = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode != b"120000":
            blobs.append((sha.decode(), name.decode("utf-8", "surrogateescape")))
    cat = subprocess.Popen(["git", "--git-dir", str(gd), "cat-file", "--batch"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert cat.stdin and cat.stdout
    missing = 0
    for sha, name in blobs:
        cat.stdin.write(sha.encode() + b"\n")
        cat.stdin.flush()
        header = cat.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            missing += 1
            continue
        data = cat.stdout.read(int(header[2]))
        cat.stdout.read(1)
        target = dest / name
        if dest.resolve() not in target.resolve().parents:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    cat.stdin.close()
    cat.wait()
    return f"unpacked {len(blobs) - missing} files ({missing} absent from the snapshot)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=HERE / "verdicts.yaml")
    parser.add_argument("--split", choices=("dev", "test", "all"), required=True)
    parser.add_argument("--src", type=Path, default=Path("/work/repos"), help="folder of <owner>+<name>/ checkouts")
    parser.add_argument("--out", type=Path, required=True, help="keep (and reuse) the JSON reports here")
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--prepare", action="store_true", help="unpack missing checkouts from --mirror first")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--batch", default=ORIGINAL_BATCH,
                        help=f"the labelling batch to score (unset `batch` is {ORIGINAL_BATCH!r}, the default;"
                             f" {ALL_BATCHES!r} scores every batch)")
    parser.add_argument("--json", type=Path, default=None, help="also write the per-workload rows as JSON")
    parser.add_argument("--missing", action="store_true",
                        help="only list the repositories with neither a checkout nor a snapshot (to fetch)")
    args = parser.parse_args()
    entries = load(args.data, args.split, args.only, args.batch)
    if args.missing:
        for repo in sorted({e["repo"] for e in entries}):
            if not (args.src / repo.replace("/", "+")).is_dir() and not git_dir(args.mirror, repo).is_dir():
                print(f"github:{repo}")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    confusion = {a: dict.fromkeys(CLASSES, 0) for a in CLASSES}
    rows, details = [], []
    for entry in entries:
        folder = args.src / entry["repo"].replace("/", "+")
        if not folder.is_dir() and args.prepare:
            folder.mkdir(parents=True)
            print(f"# {entry['repo']}: {unpack(args.mirror, entry['repo'], entry['commit'], folder)}", file=sys.stderr)
        if not folder.is_dir():
            print(f"MISSING {entry['id']:30} {folder}")
            continue
        report = corpus.scan(folder / entry["path"], args.out / f"{entry['id']}.json")
        cls, carriers = corpus.predicted(entry, report)
        exact = cls == entry["label"]
        defensible = exact or cls in entry.get("defensible", [])
        confusion[entry["label"]][cls] += 1
        mark = "ok " if exact else ("def" if defensible else "ERR")
        rows.append({"id": entry["id"], "split": entry["split"], "batch": batch_of(entry),
                     "label": entry["label"], "predicted": cls,
                     "exact": exact, "defensible": defensible, "involves": entry.get("involves", "none"),
                     "findings": report["summary"]["findings"]})
        print(f"{mark} {entry['id']:30} {entry['split']:4} label {SHORT[entry['label']]} got {SHORT[cls]}"
              f"  findings {report['summary']['findings']:6}  {entry.get('involves', 'none')}")
        if not exact:
            details.append([f"{entry['id']} ({SHORT[entry['label']]} -> {SHORT[cls]}):",
                            *corpus.reasons(report, carriers)])
    scored = len(rows)
    if not scored:
        return 2
    exact_n = sum(r["exact"] for r in rows)
    defensible_n = sum(r["defensible"] for r in rows)
    print(f"\nclass exact: {exact_n}/{scored} = {100 * exact_n / scored:.1f} %")
    print(f"exact or defensible: {defensible_n}/{scored} = {100 * defensible_n / scored:.1f} %")
    for split in sorted({r["split"] for r in rows}) if args.split == "all" else []:
        part = [r for r in rows if r["split"] == split]
        print(f"  {split}: exact {sum(r['exact'] for r in part)}/{len(part)},"
              f" exact or defensible {sum(r['defensible'] for r in part)}/{len(part)}")
    print("confusion (rows: label, columns: predicted)")
    print(" " * 20 + "".join(f"{SHORT[c]:>6}" for c in CLASSES))
    for label in CLASSES:
        print(f"{label:20}" + "".join(f"{confusion[label][c]:>6}" for c in CLASSES))
    if details:
        print("\nwrong verdicts and the findings that decided them")
        for block in details:
            print("\n".join(block))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "confusion": confusion}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
