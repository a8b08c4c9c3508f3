"""Measure the hand work of a real CUDA -> HIP port, per rule, for measurements.yaml.

Not part of the package and not run by the tests (it needs the fetched repositories and
hipify-perl); its output is committed and fit.py turns it into the effort constants.

Two methods, both compare token streams (comments dropped, whitespace ignored), so that a
reformatting of one side does not count as work:

* `pair`: a CUDA file and the hand-maintained HIP file of the same commit. The CUDA file
  goes through hipify-perl first; what still differs from the HIP file is hand work.
* `guards`: one file that keeps both paths. The lines of its ROCm-only branches
  (`#ifdef USE_ROCM`, `__HIP_PLATFORM_AMD__` ...) plus their directives are hand work.

A change is a *site*: a run of differing tokens; sites whose CUDA lines lie within two
lines of each other are one site. Its hand lines are max(CUDA lines, HIP lines). Each site
is charged to the findings rocm-migrate reports on the CUDA lines it touches (one line of
slack either side), split evenly; a site with no finding there is `unattributed`.

    python benchmarks/effort_calibration/measure.py pair SCAN.json CUDA_FILE HIP_FILE REL \
        --hipify PATH/hipify-perl
    python benchmarks/effort_calibration/measure.py guards SCAN.json FILE REL

SCAN.json is `rocm-migrate scan TREE --format json --no-hipify` of the CUDA tree; REL is
the file's path in that scan. Prints one YAML record for measurements.yaml.
"""
from __future__ import annotations

import argparse
import difflib
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import yaml

TOKEN = re.compile(r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<word>[A-Za-z_]\w*|\d[\w.]*)
  | (?P<punct>\#\#|::|->|<<|>>|[^\s\w])
""", re.S | re.X)
HIP_GUARD = re.compile(r"USE_ROCM|__HIP_PLATFORM_(AMD|HCC)__|__HIPCC__|__HIP__|HIP_VERSION|GGML_USE_HIP|"
                       r"USE_HIP|BUILD_HIP|__HIP_DEVICE_COMPILE__|HIPBLAS|ROCM_VERSION")
CUDA_TOO = re.compile(r"BUILD_CUDA|__CUDACC__|__NVCC__|CUDA_VERSION")
SLACK = 2
LINES_PER_FINDING = 3  # a finding explains at most this many hand lines of its site; the rest is glue


def tokens(text: str) -> list[tuple[str, int]]:
    """(token, 1-based line) of C/C++ source, comments dropped."""
    text = text.replace("\\\n", " \n")  # a line continuation is whitespace
    out, line, pos = [], 1, 0
    for m in TOKEN.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        if m.lastgroup != "comment":
            out.append((m.group(), line))
    return out


def diff_sites(a: list[tuple[str, int]], b: list[tuple[str, int]]) -> list[tuple[set[int], set[int]]]:
    """(CUDA lines, HIP lines) of each site where the token streams differ."""
    matcher = difflib.SequenceMatcher(None, [t for t, _ in a], [t for t, _ in b], autojunk=False)
    sites: list[tuple[set[int], set[int]]] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        a_lines = {ln for _, ln in a[i1:i2]} or ({a[i1][1]} if i1 < len(a) else {a[-1][1]})
        b_lines = {ln for _, ln in b[j1:j2]}
        if sites and min(a_lines) - max(sites[-1][0]) <= SLACK:
            sites[-1][0].update(a_lines)
            sites[-1][1].update(b_lines)
        else:
            sites.append((set(a_lines), set(b_lines)))
    return sites


def line_map(converted: str, original: str) -> dict[int, int]:
    """Lines of hipify-perl's output -> lines of its input (it may insert an #include)."""
    out: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, converted.splitlines(), original.splitlines(), autojunk=False)
    for _, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(i1, i2):
            out[k + 1] = min(j1 + (k - i1), max(j2 - 1, j1)) + 1
    return out


def _is_hip_guard(cond: str) -> bool:
    """A condition that picks ROCm against CUDA (not `BUILD_CUDA || BUILD_HIP`, true for both)."""
    return bool(HIP_GUARD.search(cond)) and not ("||" in cond and CUDA_TOO.search(cond))


def _rocm_branch(cond: str, negated: bool) -> bool:
    if not _is_hip_guard(cond):
        return False
    negative = re.search(r"!\s*(defined)?\s*\(?\s*(" + HIP_GUARD.pattern + ")", cond)
    return not negated if not negative else negated


def resolve_guards(text: str) -> tuple[str, list[tuple[set[int], set[int]]]]:
    """The CUDA-only variant of a file that keeps both paths, and its sites: (lines of the CUDA
    branch in the variant, or the line where the guard stood; the ROCm branch and directives)."""
    kept: list[str] = []
    stack: list[dict] = []
    sites: list[tuple[set[int], set[int]]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        directive = re.match(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)", raw)
        word, cond = directive.groups() if directive else ("", "")
        if word in ("if", "ifdef", "ifndef"):
            hip = _is_hip_guard(cond)
            stack.append({"hip": hip, "rocm": hip and _rocm_branch(cond, word == "ifndef"),
                          "cuda": set(), "hand": {number}, "anchor": len(kept) + 1})
            if hip:
                continue
        elif stack and stack[-1]["hip"] and word in ("elif", "else"):
            top = stack[-1]
            top["hand"].add(number)
            top["rocm"] = (not top["rocm"]) if word == "else" else _rocm_branch(cond, False)
            continue
        elif stack and word == "endif":
            top = stack.pop()
            if top["hip"]:
                top["hand"].add(number)
                sites.append((top["cuda"] or {top["anchor"]}, top["hand"]))
                continue
        hip_frames = [f for f in stack if f["hip"]]
        if any(f["rocm"] for f in hip_frames):
            if raw.strip():
                hip_frames[-1]["hand"].add(number)
            continue
        kept.append(raw)
        for frame in hip_frames:
            frame["cuda"].add(len(kept))
    return "\n".join(kept) + "\n", sites


def cmake_hand_lines(text: str) -> int:
    """Lines of a CMake file that exist for the ROCm build: branches whose condition names HIP or
    ROCm, and other lines that name them."""
    depth_hip: list[bool] = []
    count = 0
    for raw in text.splitlines():
        line = raw.strip().lower()
        word = re.match(r"(if|elseif|else|endif)\s*\(", line)
        mentions = bool(re.search(r"hip|rocm|amdgpu", line))
        if word and word.group(1) == "if":
            depth_hip.append(mentions)
        elif word and word.group(1) in ("elseif", "else") and depth_hip:
            depth_hip[-1] = mentions
        elif word and depth_hip:
            depth_hip.pop()
        if line and not line.startswith("#") and (mentions or any(depth_hip)):
            count += 1
    return count


def setup_py_hand_lines(text: str) -> int:
    """Lines of a setup.py that exist for the ROCm build: bodies of ifs on HIP/ROCm, and other
    lines that name them."""
    import ast
    lines: set[int] = set()
    rocm = re.compile(r"hip|rocm", re.I)
    source = text.splitlines()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.If) and rocm.search(ast.get_source_segment(text, node.test) or ""):
            lines.update(range(node.body[0].lineno, (node.body[-1].end_lineno or node.lineno) + 1))
    lines.update(n for n, line in enumerate(source, start=1) if rocm.search(line))
    return sum(1 for n in lines if source[n - 1].strip() and not source[n - 1].strip().startswith("#"))


def attribute(sites: list[tuple[set[int], set[int]]], findings: list[dict], *, guards: bool = False) -> dict:
    """Hand lines and sites per rule. A guard's hand lines are its ROCm side only (the CUDA side
    is the original code, kept as it was)."""
    by_line: dict[int, list[str]] = defaultdict(list)
    for f in findings:
        by_line[f["line"]].append(f["rule"])
    lines: dict[str, float] = defaultdict(float)
    touched: Counter[str] = Counter()
    for a_lines, b_lines in sites:
        hand = len(b_lines) if guards else max(len(a_lines), len(b_lines))
        near = [r for ln in range(min(a_lines) - 1, max(a_lines) + 2) for r in by_line.get(ln, [])]
        charged = min(hand, LINES_PER_FINDING * len(near))
        for rule in near:
            lines[rule] += charged / len(near)
        if hand > charged:
            lines["unattributed"] += hand - charged
        for rule in set(near) | ({"unattributed"} if hand > charged else set()):
            touched[rule] += 1
    counts = Counter(f["rule"] for f in findings)
    rules = sorted(set(counts) | set(lines))
    return {
        "sites": len(sites),
        "hand_lines": sum(len(b) if guards else max(len(a), len(b)) for a, b in sites),
        "rules": {r: {"occurrences": counts.get(r, 0), "hand_lines": round(lines.get(r, 0.0), 2),
                      "sites": touched.get(r, 0)} for r in rules},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("method", choices=("pair", "guards", "cuda-variant", "cmake", "setup-py"))
    parser.add_argument("scan")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--hipify", default="hipify-perl")
    args = parser.parse_args(argv)
    if args.method == "cuda-variant":  # write the CUDA-only variant of each file (to scan it)
        for name in args.files:
            Path(name).write_text(resolve_guards(Path(name).read_text(errors="replace"))[0])
        return
    if args.method in ("cmake", "setup-py"):  # hand lines of a build file, charged to the project
        path, rel = args.files
        count = (cmake_hand_lines if args.method == "cmake" else setup_py_hand_lines)(Path(path).read_text())
        record = {"path": rel, "method": args.method, "hand_lines": count}
        yaml.safe_dump([record], sys.stdout, sort_keys=False)
        return
    report = yaml.safe_load(Path(args.scan).read_text())
    if args.method == "pair":
        cuda, hip, rel = args.files
        converted = subprocess.run(["perl", args.hipify, cuda], capture_output=True, text=True, check=True).stdout
        back = line_map(converted, Path(cuda).read_text(errors="replace"))
        sites = [({back.get(ln, ln) for ln in a}, b) for a, b in
                 diff_sites(tokens(converted), tokens(Path(hip).read_text(errors="replace")))]
    else:
        path, rel = args.files
        sites = resolve_guards(Path(path).read_text(errors="replace"))[1]
    findings = [f for f in report["findings"] if f["path"] == rel]
    record = {"path": rel, "method": args.method, "lines": len(Path(args.files[0]).read_text(errors="replace").splitlines()),
              **attribute(sites, findings, guards=args.method == "guards")}
    yaml.safe_dump([record], sys.stdout, sort_keys=False)


if __name__ == "__main__":
    main()
