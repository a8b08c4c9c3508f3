"""Measure the hand work of a real port from its history: the tree before the port (base) against
the tree after it (port), both through hipify-perl, for ports.yaml -> measurements.yaml.

Not part of the package and not run by the tests (it needs the fetched repositories and
hipify-perl). For one entry of ports.yaml:

* every C/C++/CUDA file the port changed or added: both sides go through hipify-perl, then
  tokens are compared (comments dropped, whitespace ignored) with CUDA/HIP/GPU prefixes of
  identifiers folded (`cudaMalloc`, `hipMalloc` and a compat header's `gpuMalloc` are one
  token: a rename is what hipify or a compat header does automatically). A site is a run of
  differing tokens (measure.py's `diff_sites`); its hand lines are max(base lines, port lines).
  A file the port added counts each of its lines that is not an identity after folding
  (`#define gpuMalloc cudaMalloc`), method `added`. A renamed file (`x.cu` -> `x.hip`) is
  compared with its origin.
* Python files: the same on Python tokens (comments dropped).
* Build files (CMakeLists.txt, *.cmake, Makefile, *.mk, setup.py, pyproject.toml, meson.build):
  changed or added lines beyond blank lines and comments, kept apart (`build_files`).
* Documentation, CI, containers and vendored folders are not counted.

Hand lines are charged to the findings `rocm-migrate scan --no-hipify` reports on the base tree
at the lines a site touches (measure.py's `attribute`, at most 3 lines per finding).

    python benchmarks/effort_calibration/ports.py --set s9 --no-scan [NAME ...]  # a held-out set's own
        # manifest (ports-s9.yaml); --no-scan measures hand lines without scanning the base (nothing is
        # estimated on a held-out set before it is scored; the hand lines do not depend on the scan)
    python benchmarks/effort_calibration/ports.py NAME [NAME ...]   # prints measurement records
    python benchmarks/effort_calibration/ports.py --rescan [NAME ...]  # refresh the base scan facts
    python benchmarks/effort_calibration/ports.py --facts DIR [NAME ...]  # the same from evaluate.py's kept reports
"""
from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import attribute, line_map, tokens

HERE = Path(__file__).resolve().parent
MIRRORS = Path(os.environ.get("MIRRORS", "/work/.mirror"))
HIPIFY = os.environ.get("HIPIFY_PERL", "/work/shared/reference/hipify-perl-2026/hipify-perl")
WORK = Path(os.environ.get("PORTS_WORK", "/tmp/cache-30/ports"))
C_EXT = {".cu", ".cuh", ".h", ".hpp", ".hh", ".cpp", ".cc", ".cxx", ".c", ".hip", ".inl", ".cuinc", ".tcc", ".ipp"}
BUILD = re.compile(r"(^|/)(CMakeLists\.txt|[^/]*\.cmake|(?i:makefile)[^/]*|GNUmakefile|[^/]*\.mk|setup\.py|pyproject\.toml|"
                   r"meson\.build|setup\.cfg|build\.py|[^/]*\.bzl|BUILD(\.bazel)?|Android\.bp|SConstruct|"
                   r"requirements[^/]*\.txt)$")
SKIP = re.compile(r"(^|/)(\.github|\.gitlab|\.circleci|docs?|third_party|thirdparty|3rdparty|external|extern|vendor|"
                  r"submodules?|ext|ci|\.ci|docker|dockerfiles?)/|\.(md|rst|txt|yml|yaml|json|cfg|ini|sh|bat|ps1|svg|png|"
                  r"jpg|ipynb|toml|in)$|(^|/)Dockerfile[^/]*$|(^|/)(LICENSE|NOTICE|AUTHORS|CHANGELOG)[^/]*$")
FOLD = re.compile(r"^(cuda|hip|gpu|CUDA|HIP|GPU|Cuda|Hip|Gpu|cu|CU|nv|NV)(?=[A-Z_]|blas|rand|fft|sparse|solver|dnn|b\b|"
                  r"Blas|Rand|Fft|Sparse|Solver|Dnn|_|$)")
PY_COMMENT = re.compile(r"#[^\n]*")
# A file a build tool wrote (automake's Makefile.in, aclocal.m4, autoconf's configure, a Bison parser, a file marked
# DO NOT EDIT) or an editor's backup (`Makefile.am~`) is not hand work, whoever committed it (s11). A hipify tool's
# output is not among them: hand edits follow it, and the twin comparison counts them.
GENERATED = re.compile(r"generated (automatically )?by (automake|aclocal|GNU Autoconf|autoconf|libtool)|"
                       r"made by GNU Bison|DO NOT EDIT", re.I)
BACKUP = re.compile(r"~$")


def not_hand_written(path: str, text: str) -> bool:
    """An editor's backup, or a file whose first lines say a tool generated it."""
    return bool(BACKUP.search(path)) or bool(GENERATED.search("\n".join(text.splitlines()[:5])))


def fold(token: str) -> str:
    """One name for a CUDA identifier, its HIP twin and a compat header's neutral alias."""
    return FOLD.sub("~", token)


def hipify(text: str) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".cu", delete=False) as handle:
        handle.write(text)
    try:
        run = subprocess.run(["perl", HIPIFY, "-quiet-warnings", handle.name], capture_output=True, text=True,
                             check=False)
        return run.stdout if run.returncode == 0 and run.stdout else text
    finally:
        os.unlink(handle.name)


def line_sites(a: list[tuple[str, int]], b: list[tuple[str, int]]) -> list[tuple[set[int], set[int]]]:
    """measure.diff_sites on lines of folded tokens (a line is its token string): the same sites
    for whole-line edits, and fast on files of thousands of lines."""
    def lines(toks: list[tuple[str, int]]) -> list[tuple[int, str]]:
        out: dict[int, list[str]] = {}
        for t, ln in toks:
            out.setdefault(ln, []).append(t)
        return [(ln, " ".join(ts)) for ln, ts in sorted(out.items())]
    la, lb = lines(a), lines(b)
    matcher = difflib.SequenceMatcher(None, [s for _, s in la], [s for _, s in lb], autojunk=False)
    sites: list[tuple[set[int], set[int]]] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        a_lines = {ln for ln, _ in la[i1:i2]} or ({la[i1][0]} if i1 < len(la) else {la[-1][0] if la else 1})
        b_lines = {ln for ln, _ in lb[j1:j2]}
        if sites and min(a_lines) - max(sites[-1][0]) <= 2:
            sites[-1][0].update(a_lines)
            sites[-1][1].update(b_lines)
        else:
            sites.append((set(a_lines), set(b_lines)))
    return sites


def folded_tokens(text: str, python: bool) -> list[tuple[str, int]]:
    if python:
        text = "\n".join(PY_COMMENT.sub("", line) if not line.lstrip().startswith(("'", '"')) else line
                         for line in text.splitlines())
    return [(fold(t), ln) for t, ln in tokens(text)]


IDENTITY = re.compile(r"^\s*#\s*(define|undef)\s+(\S+)(\s+(\S+))?\s*$|^\s*(using|typedef)\s+(\S+)\s*=?\s*(\S+)\s*;\s*$")


def added_lines(text: str, python: bool) -> int:
    """Lines of a new file that are code and not an identity once folded (a compat header's
    `#define gpuMalloc cudaMalloc`)."""
    count = 0
    in_block = False
    for raw in (hipify(text) if not python else text).splitlines():
        line = raw.strip()
        if in_block:
            in_block = "*/" not in line
            continue
        if line.startswith("/*"):
            in_block = "*/" not in line
            continue
        if not line or line.startswith("//") or (python and line.startswith("#")):
            continue
        m = IDENTITY.match(line)
        if m and not python:
            a, b = (m.group(2), m.group(4)) if m.group(1) else (m.group(6), m.group(7))
            if b is None or fold(a.split("(")[0]) == fold(b.split("(")[0]) or m.group(1) == "undef":
                continue
        count += 1
    return count


def build_hand_lines(before: str, after: str) -> int:
    """Changed or added lines of a build file, blank lines and comments left out."""
    def code(text: str) -> list[str]:
        return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    a, b = code(before), code(after)
    hand = 0
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            hand += max(i2 - i1, j2 - j1) if op == "replace" else (j2 - j1)
    return hand


def git(gitdir: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(gitdir), *args], capture_output=True, text=True, check=True).stdout


def show(gitdir: Path, commit: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", str(gitdir), "show", f"{commit}:{path}"], capture_output=True,
                          check=True).stdout.decode("utf-8", "replace")


def in_scope(path: str, paths: list[str]) -> bool:
    return not paths or any(path == p or path.startswith(p.rstrip("/") + "/") for p in paths)


def changes(gitdir: Path, base: str, port: str) -> list[tuple[str, str | None, str]]:
    """(status, base path or None, port path) of every file the port changed or added."""
    out = []
    for row in git(gitdir, "diff", "-M60%", "--name-status", base, port).splitlines():
        parts = row.split("\t")
        status = parts[0][0]
        if status == "D":
            continue
        if status in ("R", "C"):
            out.append((status, parts[1], parts[2]))
        elif status == "A":
            out.append((status, None, parts[1]))
        else:
            out.append((status, parts[1], parts[1]))
    return out


def twin_origin(path: str, base_files: set[str]) -> str | None:
    """A new HIP file kept beside its CUDA original (`x.hip` for `x.cu`, `hip/x.hip.cpp` for
    `cuda/x.cu`): the base file whose path, with hip/rocm read as cuda, suffixes dropped and case ignored, is the same."""
    def key(p: str) -> str:  # every C/C++/CUDA suffix (`.cxx` twins too), as the measured files are chosen
        p = re.sub(r"(\.(" + "|".join(sorted(s[1:] for s in C_EXT)) + r"))+$", "", p)
        return re.sub(r"hip|rocm|amd", "cuda", p, flags=re.I).lower()  # a HIP/ folder beside CUDA/ too (s11)
    wanted = key(path)
    found = sorted(c for c in base_files if c != path and Path(c).suffix in C_EXT and key(c) == wanted)
    return found[0] if found else None


SCANNER = Path(os.environ.get("SCANNER", HERE.parents[1]))  # a fixed copy of rocm-migrate (its findings)


def scan(tree: Path, out: Path) -> dict[str, Any]:
    if not out.exists():
        subprocess.run([sys.executable, "-m", "migrate", "scan", str(tree), "--format", "json", "-o", str(out),
                        "--no-hipify", "-q"], check=True, cwd=SCANNER, env={**os.environ, "PYTHONPATH": str(SCANNER)})
    return yaml.safe_load(out.read_text()) if out.exists() else {"findings": []}


def backend_twins(tree: Path) -> dict[str, int]:
    """C/C++/CUDA files of the base in a per-back-end layout (migrate.scan.layout.backend_files: a `cuda` folder
    or `x_cuda` file beside another back end's), outside optional folders, with their lines: a port
    writes a HIP twin of each (not of those whose HIP twin is in the tree, layout.hip_twinned)."""
    from migrate.scan.layout import backend_files, hip_twinned
    from migrate.workloads.parts import optional_root
    paths = [str(p.relative_to(tree)) for p in tree.rglob("*") if p.is_file()]
    there = hip_twinned(p for p in paths if Path(p).suffix in C_EXT)  # their HIP member is in the tree already
    return {p: len((tree / p).read_bytes().splitlines()) for p in sorted(backend_files(paths) - there)
            if Path(p).suffix in C_EXT and optional_root(p) is None}


def code_generators(tree: Path) -> dict[str, int]:
    """The base's code generators as the scan finds them (migrate.scan.layout.code_generators over the files
    discovery keeps: vendored folders left out) outside optional folders (tests, examples), with their lines
    of CUDA device code in string literals (s13)."""
    from migrate.scan.discover import discover
    from migrate.scan.layout import code_generators as found_generators
    from migrate.workloads.parts import optional_root
    return {p: n for p, n in sorted(found_generators(discover([tree]).files).items()) if optional_root(p) is None}


def scan_facts(report: dict[str, Any], tree: Path) -> dict[str, Any]:
    """What the estimate reads of the base: findings per rule (required parts, not already ported),
    the build files with build findings, the C/C++/CUDA files they are in (those of a per-back-end layout
    apart, with the lines of that layout's files), and the estimate the scan gave then."""
    optional = {w["name"] for w in report.get("workloads", []) if w.get("optional")}
    counted = [f for f in report.get("findings", []) if not f.get("status") and f.get("workload") not in optional]
    rules: dict[str, int] = {}
    for f in counted:
        rules[f["rule"]] = rules.get(f["rule"], 0) + 1
    twins = backend_twins(tree)  # a build switch's back end too: the rate of its twins is the same
    c_files = sorted({f["path"] for f in counted if Path(f["path"]).suffix in C_EXT and f["path"] not in twins})
    from migrate.workloads.estimate import KERNEL_STEM

    kernels = {(str(Path(f["path"]).parent), KERNEL_STEM.sub("", f["symbol"]) or f["symbol"]) for f in counted
               if f["rule"] == "HIP4002"}
    from migrate.rulebase import families

    family_of = families.load().of  # the build family as workloads/costs.py reads it (rules/effort/families.yaml)
    build_files = {f["path"] for f in counted if (family := family_of(f["rule"])) is not None and family.name == "build"}
    return {"rules": dict(sorted(rules.items())), "c_files_with_findings": len(c_files), "kernel_groups": len(kernels),
            "build_files_with_findings": len(build_files),
            "backend_files": sorted(twins), "backend_lines": sum(twins.values()),
            "generators": code_generators(tree),
            "ported_findings": sum(1 for f in report.get("findings", []) if f.get("status") == "ported"),
            "optional_findings": sum(1 for f in report.get("findings", []) if f.get("workload") in optional),
            "rocm_path": any(w.get("rocm_path") for w in report.get("workloads", []) if not w.get("optional")),
            "optional_parts": optional_part_facts(report),
            "estimate_then": report.get("summary", {}).get("effort_hours")}


def optional_part_facts(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The optional parts of required workloads that hold GPU code (C/C++/CUDA files with findings: a build switch's
    CUDA back end, a tests/ folder), each as the estimate prices it apart from the headline: its findings per rule and
    the C/C++/CUDA files they are in, and its files (the report's `optional_parts[].files`, since s19). fit.py compares
    a port with a part when the base's required code has no CUDA and the port changed the part's files (s19)."""
    out = []
    for workload in report.get("workloads", []):
        if workload.get("optional"):
            continue
        for part in workload.get("optional_parts", ()):
            files = set(part.get("files", ()))
            found = [f for f in report.get("findings", []) if f.get("workload") == workload["name"]
                     and f.get("status") == "optional" and f["path"] in files]
            c_files = sorted({f["path"] for f in found if Path(f["path"]).suffix in C_EXT})
            if not c_files:
                continue  # no GPU code (CI workflows, a Dockerfile): the assumed CI step covers it
            rules: dict[str, int] = {}
            for f in found:
                rules[f["rule"]] = rules.get(f["rule"], 0) + 1
            out.append({"workload": workload["name"], "root": part["root"], "rules": dict(sorted(rules.items())),
                        "c_files_with_findings": len(c_files), "files": sorted(files),
                        "estimate_then": part.get("effort_hours")})
    return out


def unpack(gitdir: Path, commit: str, paths: list[str], tree: Path) -> None:
    """The tree at a commit; a mirror may leave its largest files out (data, not code): those are skipped."""
    archive = subprocess.run(["git", "--git-dir", str(gitdir), "archive", commit, *paths], capture_output=True,
                             check=False)
    if archive.returncode == 0:
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        return
    for row in git(gitdir, "ls-tree", "-r", commit, *paths).splitlines():
        meta, path = row.split("\t", 1)
        mode, kind, blob = meta.split()
        if kind != "blob" or mode == "120000":
            continue
        data = subprocess.run(["git", "--git-dir", str(gitdir), "cat-file", "blob", blob], capture_output=True,
                              check=False)
        if data.returncode == 0:
            (tree / path).parent.mkdir(parents=True, exist_ok=True)
            (tree / path).write_bytes(data.stdout)


def base_tree(entry: dict[str, Any]) -> Path:
    """The tree before the port, unpacked once under PORTS_WORK."""
    tree = WORK / entry["name"] / "base"
    if not tree.exists():
        tree.mkdir(parents=True)
        unpack(MIRRORS / entry["repo"].replace("/", "+") / "repo", entry["base"], entry.get("paths", []), tree)
    return tree


def measure(entry: dict[str, Any], *, scanned: bool = True) -> dict[str, Any]:
    gitdir = MIRRORS / entry["repo"].replace("/", "+") / "repo"
    base, port, paths = entry["base"], entry["port"], entry.get("paths", [])
    work = WORK / entry["name"]
    tree = base_tree(entry)
    report = scan(tree, work / "base.json") if scanned else {"findings": []}
    findings: dict[str, list[dict[str, Any]]] = {}
    for f in report.get("findings", []):
        findings.setdefault(f["path"], []).append(f)
    base_files = set(git(gitdir, "ls-tree", "-r", "--name-only", base).splitlines())
    files, build_files = [], []
    for status, before, after in changes(gitdir, base, port):
        if not in_scope(after, paths):
            continue
        suffix = Path(after).suffix
        python = suffix == ".py"
        build = bool(BUILD.search(after))
        if not build and (SKIP.search(after) or not (python or suffix in C_EXT)):
            continue
        new = show(gitdir, port, after)
        if not_hand_written(after, new):
            continue
        if build:
            old = show(gitdir, base, before) if before else ""
            hand = build_hand_lines(old, new)
            if hand:
                build_files.append({"path": after, "method": "build-diff", "hand_lines": hand})
            continue
        if before is None and not python:
            before = twin_origin(after, base_files)
        if before is None:
            files.append({"path": after, "method": "added", "lines": 0, "sites": 1,
                          "hand_lines": added_lines(new, python), "rules": {}})
            files[-1]["rules"] = {"unattributed": [0, float(files[-1]["hand_lines"]), 1]}
            continue
        old = show(gitdir, base, before)
        if status == "A" and not python:  # a twin: compared with its origin, or counted as new if cheaper
            fresh = added_lines(new, python)
        converted = old if python else hipify(old)
        back = line_map(converted, old) if not python else {}
        sites = [({back.get(ln, ln) for ln in a}, b) for a, b in
                 line_sites(folded_tokens(converted, python), folded_tokens(new if python else hipify(new), python))]
        if not sites:
            continue
        charged = attribute(sites, findings.get(before, []))
        if status == "A" and not python and fresh < charged["hand_lines"]:
            files.append({"path": after, "method": "added", "lines": 0, "sites": 1, "hand_lines": fresh,
                          "rules": {"unattributed": [0, float(fresh), 1]}})
            continue
        files.append({"path": before if before == after else f"{before} -> {after}",
                      "method": "diff-py" if python else ("twin" if status == "A" else "diff"),
                      "lines": len(old.splitlines()), "sites": charged["sites"], "hand_lines": charged["hand_lines"],
                      "rules": {r: [v["occurrences"], v["hand_lines"], v["sites"]] for r, v in charged["rules"].items()}})
    return {**{k: entry[k] for k in ("name", "repo", "shape", "base", "port")}, "paths": paths,
            "what": entry.get("what", ""), "split": entry["split"],
            **({"scan": scan_facts(report, tree)} if scanned else {}),
            "build_files": build_files, "files": files}


def measure_set(argv: list[str]) -> int:
    """`--set NAME [--no-scan] [--rescan] [PORT ...]`: ports.py on a held-out set's own manifest, ports-NAME.yaml."""
    at = argv.index("--set")
    manifest_file = HERE / f"ports-{argv[at + 1]}.yaml"
    rest = argv[:at] + argv[at + 2:]
    if rest[:1] == ["--rescan"]:
        rescan(set(rest[1:]), manifest_file=manifest_file)
        return 0
    scanned = "--no-scan" not in rest
    wanted = {a for a in rest if a != "--no-scan"}
    for entry in yaml.safe_load(manifest_file.read_text())["ports"]:
        done = WORK / f"{entry['name']}.yaml"
        if (not wanted and not done.exists()) or entry["name"] in wanted:
            record = measure(entry, scanned=scanned)
            done.write_text(yaml.safe_dump([record], sort_keys=False, width=120))
            print(entry["name"], sum(f["hand_lines"] for f in record["files"]),
                  sum(b["hand_lines"] for b in record["build_files"]), flush=True)
    return 0


def rescan(names: set[str], *, manifest_file: Path = HERE / "ports.yaml") -> None:
    """Refresh the `scan` facts (and the split) of measured records from their base trees with the scanner
    at SCANNER: the hand lines stay, what the estimate reads of the base follows the scanner."""
    manifest = {e["name"]: e for e in yaml.safe_load(manifest_file.read_text())["ports"]}
    for name in sorted(names or manifest):
        done = WORK / f"{name}.yaml"
        if not done.exists():
            continue
        record = yaml.safe_load(done.read_text())[0]
        tree, out = WORK / name / "base", WORK / name / "base.json"
        out.unlink(missing_ok=True)
        record["scan"] = scan_facts(scan(tree, out), tree)
        record["split"] = manifest[name]["split"]
        done.write_text(yaml.safe_dump([record], sort_keys=False, width=120))
        print(name, "rescanned", flush=True)


def refresh_facts(reports: Path, names: set[str]) -> None:
    """Refresh the `scan` facts of measurements.yaml's ports from the base reports evaluate.py kept
    (EVALUATE_REPORTS): the hand lines stay, what the estimate reads of the base follows that scanner."""
    path = HERE / "measurements.yaml"
    text = path.read_text()
    head = text[:text.index("\nports:")]
    data = yaml.safe_load(text)
    for record in data["ports"]:
        report = reports / f"{record['name']}.json"
        if (names and record["name"] not in names) or not report.exists():
            continue
        record["scan"] = scan_facts(json.loads(report.read_text()), WORK / record["name"] / "base")
    body = yaml.safe_dump({"ports": data["ports"]}, sort_keys=False, width=120, default_flow_style=None)
    path.write_text(head + "\n" + body)


def main(argv: list[str]) -> int:
    if "--set" in argv:
        return measure_set(argv)
    if argv[:1] == ["--rescan"]:
        rescan(set(argv[1:]))
        return 0
    if argv[:1] == ["--facts"]:
        refresh_facts(Path(argv[1]), set(argv[2:]))
        return 0
    manifest = yaml.safe_load((HERE / "ports.yaml").read_text())
    wanted = set(argv)
    for entry in manifest["ports"]:
        done = WORK / f"{entry['name']}.yaml"
        if (not wanted and not done.exists()) or entry["name"] in wanted:
            record = measure(entry)
            (WORK / f"{entry['name']}.yaml").write_text(yaml.safe_dump([record], sort_keys=False, width=120))
            print(entry["name"], sum(f["hand_lines"] for f in record["files"]),
                  sum(b["hand_lines"] for b in record["build_files"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
