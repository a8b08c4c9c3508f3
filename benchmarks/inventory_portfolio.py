"""Generate a portfolio of N repositories from a few real checkouts, for `inventory --scan`.

Each generated repository is a variant of one source: its build and dependency files plus a seeded
random share of its other files, each source file marked with a comment naming the variant (so no
two variants share extraction-cache entries), committed to its own git repository (so resume has a
commit to compare). Writes the repositories and a list file for `inventory --scan`.

    python benchmarks/inventory_portfolio.py /tmp/src/llm.c /tmp/src/gsplat /tmp/src/pytorch-image-models \
        --count 500 --out /tmp/portfolio
    rocm-migrate inventory --scan /tmp/portfolio/repos.txt --out /tmp/portfolio-inventory --no-cache
"""
from __future__ import annotations

import argparse
import random
import subprocess
from pathlib import Path

KEEP = {"makefile", "cmakelists.txt", "setup.py", "setup.cfg", "pyproject.toml", "requirements.txt", "dockerfile"}
MARK = {".py": "# variant {n}\n", ".cu": "// variant {n}\n", ".cuh": "// variant {n}\n", ".c": "// variant {n}\n",
        ".cc": "// variant {n}\n", ".cpp": "// variant {n}\n", ".h": "// variant {n}\n", ".hpp": "// variant {n}\n"}


def tracked(source: Path) -> list[Path]:
    out = subprocess.run(["git", "-C", str(source), "ls-files"], capture_output=True, text=True, check=True).stdout
    return [Path(line) for line in out.splitlines() if (source / line).is_file()]


def variant(source: Path, files: list[Path], dest: Path, n: int, share: float) -> None:
    rng = random.Random(n)
    chosen = [f for f in files if f.name.lower() in KEEP or rng.random() < share]
    for rel in chosen:
        data = (source / rel).read_bytes()
        mark = MARK.get(rel.suffix.lower())
        if mark:
            data = data + b"\n" + mark.format(n=n).encode()
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    git = ["git", "-C", str(dest), "-c", "user.email=bench@example.com", "-c", "user.name=bench"]
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", f"variant {n} of {source.name}"], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sources", nargs="+", type=Path, help="git checkouts to draw from")
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--min-share", type=float, default=0.03, help="smallest share of non-build files kept")
    parser.add_argument("--max-share", type=float, default=0.20)
    args = parser.parse_args()
    pools = [(s.resolve(), tracked(s)) for s in args.sources]
    lines = []
    for n in range(args.count):
        source, files = pools[n % len(pools)]
        share = random.Random(-n).uniform(args.min_share, args.max_share)
        name = f"{source.name}-v{n:04d}"
        variant(source, files, args.out / name, n, share)
        lines.append(f"{name} gen/{name}\n")
    (args.out / "repos.txt").write_text("".join(lines))
    print(f"{args.count} repositories in {args.out}; list: {args.out / 'repos.txt'}")


if __name__ == "__main__":
    main()
