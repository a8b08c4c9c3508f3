"""hipify-perl: the parsers on every recorded run, the comparison with the rule base, and convert.

The recorded runs live outside the project, in ../shared/reference/hipify-perl-runs/
(inputs we wrote and hipify-perl's exact outputs, 2024 HIP 6.3 and 2026 HIP 7.14 builds).
Tests that need them skip when they are absent; tests that need a real hipify-perl
(HIPIFY_PERL, $ROCM_PATH/bin, /opt/rocm/bin or PATH) skip when none is found."""
from __future__ import annotations

import hashlib
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from migrate.cli.convert import convert as convert_command
from migrate.extract import extract
from migrate.hipify import tool as hipify
from migrate.hipify.compare import (
    CONVERTED_IN_COMMENT,
    CONVERTED_IN_STRING,
    DIFFERENT,
    FALSE_ALARM,
    NOT_CONVERTED,
    RULES_DIFFER,
    SILENT_MISS,
    UNKNOWN,
    Coverage,
    compare_file,
    coverage,
    coverage_by_workload,
    rule_kinds,
)
from migrate.hipify.convert import ConvertError, check_paths, line_map, unified_diff
from migrate.hipify.lexer import mask
from migrate.hipify.parse import parse_examine, parse_version, parse_warning
from migrate.model import Target
from migrate.model_report import Workload
from migrate.scan.discover import file_kind
from migrate.scan.match import RuleIndex, match_file

RUNS = Path(__file__).resolve().parents[2] / "shared" / "reference" / "hipify-perl-runs"
needs_runs = pytest.mark.skipif(not RUNS.is_dir(), reason=f"recorded hipify-perl runs not found at {RUNS}")
GENERATIONS = ("outputs", "outputs-7.14")


def recorded_streams() -> list[Path]:
    if not RUNS.is_dir():
        return []
    return sorted(p for g in GENERATIONS for p in (RUNS / g).glob("*/*.stderr"))


# --- an independent reading of the recorded text, line by line, to check the parser against ---

def oracle(text: str) -> tuple[Counter, Counter, list[tuple[str, tuple[int, int, int]]]]:
    warnings: Counter = Counter()
    conversions: Counter = Counter()
    blocks: list[tuple[str, tuple[int, int, int]]] = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("  warning: ") or (": warning: " in line and line.startswith("  ")):
            warnings[line.strip()] += 1
        elif line.startswith("[HIPIFY] info: file '"):
            numbers = tuple(int(lines[i + k].rsplit(": ", 1)[1]) for k in (1, 2, 3))
            blocks.append((line.split("'")[1], numbers))  # type: ignore[arg-type]
        elif " => " in line and line.startswith("  "):
            cuda, rest = line.strip().split(" => ")
            hip, count = rest.rsplit(": ", 1)
            conversions[(blocks[-1][0], cuda, hip, int(count))] += 1
    return warnings, conversions, blocks


@needs_runs
@pytest.mark.parametrize("stream", recorded_streams(), ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}")
def test_parser_reproduces_every_recorded_line(stream: Path) -> None:
    text = stream.read_text(encoding="utf-8")
    result = parse_examine(text)
    warnings, conversions, blocks = oracle(text)
    parsed = [*result.files, *([result.total] if result.total else [])]
    assert Counter(w.raw for f in result.files for w in f.warnings) == warnings
    assert Counter((f.path, c.cuda, c.hip, c.count) for f in parsed for c in f.conversions) == conversions
    assert {(f.path, (f.statistics.converted, f.statistics.lines, f.statistics.warnings))
            for f in parsed if f.statistics} == set(blocks)
    assert not [n for n in result.notes if "=>" in n or "warning" in n or "HIPIFY" in n]
    for item in parsed:  # hipify-perl counts every warning line it prints, in the file's block and in GLOBAL
        if item.statistics:
            assert item.statistics.warnings == len(item.warnings), item.path
    assert all(w.kind != "other" for f in result.files for w in f.warnings)


@needs_runs
@pytest.mark.parametrize("generation", GENERATIONS)
def test_global_block_totals_the_files(generation: str) -> None:
    result = parse_examine((RUNS / generation / "multi_file_examine" / "examine_all.stderr").read_text())
    assert result.total is not None and result.total.path == "GLOBAL"
    assert len(result.files) >= 10
    assert result.total.statistics.lines == sum(f.statistics.lines for f in result.files if f.statistics)
    # counts are keyed by the HIP name: per file once per target, summed in GLOBAL
    per_target: Counter = Counter()
    for f in result.files:
        per_target.update({c.hip: c.count for c in f.conversions})
    assert {c.hip: c.count for c in result.total.conversions} == dict(per_target)


@needs_runs
def test_recorded_2024_examine_of_t04() -> None:
    item = parse_examine((RUNS / "outputs/t04_unsupported/examine.stderr").read_text()).get("t04_unsupported.cu")
    assert item.statistics.converted == 10 and item.statistics.lines == 24 and item.statistics.warnings == 27
    kinds = Counter(w.kind for w in item.warnings)
    assert kinds == {"unsupported": 9, "removed": 6, "deprecated": 4, "leftover": 8}
    assert {c.cuda: (c.hip, c.count) for c in item.conversions}["cudaThreadSynchronize"] == ("hipDeviceSynchronize", 1)
    assert item.renamed().get("texture") is None  # `texture => texture: 2` is counted but rewrites nothing
    leftover = next(w for w in item.warnings if w.kind == "leftover" and w.line == 16)
    assert leftover.names == ("cudaDeviceFlushGPUDirectRDMAWrites", "cudaFlushGPUDirectRDMAWritesTargetCurrentDevice")


def test_both_warning_formats_and_every_message() -> None:
    table = parse_warning("  a.cu:16: warning: unsupported ROCm HIP identifier: cudaStreamGetId")
    assert (table.path, table.line, table.kind, table.name, table.scope) == (
        "a.cu", 16, "unsupported", "cudaStreamGetId", "ROCm HIP")
    assert parse_warning("  a.cu:2: warning: unsupported HIP identifier: X").scope == "HIP"
    assert parse_warning("  a.cu:2: warning: unsupported ROC identifier: X").scope == "ROC"
    deprecated = parse_warning("  d/a b.cu:20: warning: deprecated CUDA identifier: cudnnFoo since CUDNN 8.0")
    assert (deprecated.path, deprecated.kind, deprecated.since) == ("d/a b.cu", "deprecated", "CUDNN 8.0")
    removed = parse_warning("  a.cu:4: warning: removed CUDA identifier: texture since CUDA 12.0")
    assert (removed.kind, removed.name, removed.since) == ("removed", "texture", "CUDA 12.0")
    experimental = parse_warning("  a.cu:7: warning: experimental ROCm HIP identifier: cudaGraphExecGetFlags 6.3.0")
    assert (experimental.kind, experimental.name, experimental.since) == ("experimental", "cudaGraphExecGetFlags", "6.3.0")
    device = parse_warning('  a.cu:21: warning: unsupported device function "__shfl_sync":'
                           '   v = __shfl_sync(m, v, 0); // x: warning: y')
    assert (device.kind, device.name, device.text) == (
        "device-function", "__shfl_sync", "  v = __shfl_sync(m, v, 0); // x: warning: y")
    leftover = parse_warning("  warning: a.cu:#21 :   cudaMyOwnHelper(d);  cudaOther(x);")
    assert (leftover.path, leftover.line, leftover.kind, leftover.names) == (
        "a.cu", 21, "leftover", ("cudaMyOwnHelper", "cudaOther"))
    launch = parse_warning("  warning: a.cu:#29 :   saxpy<<<g, b, 0, s>>>(n);")
    assert (launch.kind, launch.name) == ("launch", None)
    assert parse_warning("  a.cu:3: warning: something new: X").kind == "other"
    assert parse_warning("[HIPIFY] info: CONVERTED refs by names:") is None


def test_parser_odd_input() -> None:
    text = ("Unknown option: frobnicate\r\n  a.cu:3: warning: removed CUDA identifier: cudaLaunch since CUDA 10.1\r\n"
            "  warning: a.cu:#3 :   cudaLaunchX(k);\r\n\r\n[HIPIFY] info: file 'a.cu' statistics:\r\n"
            "  CONVERTED refs count: 1\r\n  TOTAL lines of code: 3\r\n  WARNINGS: 2\r\n"
            "[HIPIFY] info: CONVERTED refs by names:\r\n  curandStateSobol32 => rocrand_device::sobol32_engine<false>: 1\r\n"
            "error: could not open b.cu at /opt/rocm/bin/hipify-perl line 14526.\n")
    result = parse_examine(text, ["a.cu", "b.cu", "c.cu"])
    a = result.get("a.cu")
    assert [w.text for w in a.warnings if w.kind == "leftover"] == ["  cudaLaunchX(k);"]
    assert a.conversions[0].hip == "rocrand_device::sobol32_engine<false>"
    assert [f.path for f in result.files] == ["a.cu", "b.cu", "c.cu"] and result.get("c.cu").statistics is None
    assert result.notes == ("Unknown option: frobnicate", "error: could not open b.cu at /opt/rocm/bin/hipify-perl line 14526.")
    assert parse_version("HIP version 6.3.0\n") == "6.3.0" and parse_version("nothing") is None



def test_an_include_hipify_deletes_is_converted(rulebase, index: RuleIndex) -> None:
    """hipify-perl prints a deleted include as `name => : 1` (the 2026 script on device_launch_parameters.h)."""
    text = '#include "device_launch_parameters.h"\n#include <cuda_runtime.h>\n'
    stderr = ("[HIPIFY] info: file 'a.cu' statistics:\n  CONVERTED refs count: 2\n  TOTAL lines of code: 2\n"
              "  WARNINGS: 0\n[HIPIFY] info: CONVERTED refs by names:\n  cuda_runtime.h => hip/hip_runtime.h: 1\n"
              "  device_launch_parameters.h => : 1\n")
    examined = parse_examine(stderr).get("a.cu")
    assert [(c.cuda, c.hip) for c in examined.conversions][1] == ("device_launch_parameters.h", "")
    findings = match_file("a.cu", extract(file_kind(Path("a.cu")), text.encode()), index)
    result = compare_file("a.cu", text, findings, examined, kinds=rule_kinds(rulebase.rules), index=index)
    deleted = [v for v in result.verdicts if v.finding.symbol == "device_launch_parameters.h"]
    assert [(v.converted, v.hipify) for v in deleted] == [(True, "yes")]
    assert (result.converted, result.references) == (2, 2)

# --- locating and running hipify-perl ---

def test_locate_order_and_not_found(tmp_path: Path) -> None:
    tool = tmp_path / "rocm" / "bin" / "hipify-perl"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/usr/bin/perl\n")
    env = {"ROCM_PATH": str(tmp_path / "rocm"), "PATH": ""}
    assert hipify.locate(env=env) == tool
    assert hipify.candidates(env={"HIPIFY_PERL": "/x/h", **env})[0] == Path("/x/h")
    with pytest.raises(hipify.HipifyNotFound) as info:
        hipify.locate(tmp_path / "missing", env=env)  # an explicit path never falls back
    assert "HIPIFY" in str(info.value) and "/opt/rocm/bin/hipify-perl" in str(info.value)


def test_errors_show_command_exit_code_and_both_streams(tmp_path: Path) -> None:
    if not shutil.which("perl"):
        pytest.skip("perl is not installed")
    script = tmp_path / "hipify-perl"
    script.write_text('print "out text\\n"; print STDERR "err text\\n"; exit 3;\n')  # not executable: run by perl
    tool = hipify.Tool(path=script, version=None, interpreter=(shutil.which("perl") or "perl",))
    with pytest.raises(hipify.HipifyFailed) as info:
        hipify.run(tool, ["-examine", "a b.cu"])
    message = str(info.value)
    assert "-examine a b.cu" in message and "exit code 3" in message and "out text" in message and "err text" in message
    slow = tmp_path / "slow"
    slow.write_text("sleep 5;\n")
    with pytest.raises(hipify.HipifyFailed, match=r"timed out after 0\.5 s"):
        hipify.run(hipify.Tool(path=slow, version=None, interpreter=tool.interpreter), [], timeout=0.5)


HIPIFY_2026 = RUNS.parent / "hipify-perl-2026" / "hipify-perl"  # the maintainers' reference copy, beside the clone
REAL = hipify.find() or (hipify.find(HIPIFY_2026) if HIPIFY_2026.exists() else None)
needs_tool = pytest.mark.skipif(REAL is None, reason="no hipify-perl found (set HIPIFY_PERL, install ROCm's HIPIFY "
                                                     f"package: /opt/rocm/bin/hipify-perl, or have {HIPIFY_2026})")


@needs_tool
@needs_runs
def test_real_hipify_reproduces_the_recorded_run(tmp_path: Path) -> None:
    generation = "outputs" if REAL.version == "6.3.0" else "outputs-7.14"
    recorded = parse_examine((RUNS / generation / "multi_file_examine" / "examine_all.stderr").read_text())
    names = [f.path for f in recorded.files]  # the files of the recorded multi-file run
    for name in names:
        shutil.copy(RUNS / "inputs" / name, tmp_path / name)
    got = hipify.examine_many(REAL, names, cwd=tmp_path, jobs=2)
    for name in names:
        expected = recorded.get(name)
        if REAL.version not in ("6.3.0", "7.14.0"):
            assert got[name].statistics is not None or not expected.statistics
            continue
        assert Counter(w.raw for w in got[name].warnings) == Counter(w.raw for w in expected.warnings), name
        assert got[name].conversions == expected.conversions and got[name].statistics == expected.statistics
    converted = hipify.convert_file(REAL, "t01_kernel_launch.cu", cwd=tmp_path)
    assert b"hipMalloc(&dx" in converted.text and converted.examine.statistics is not None


# --- the lexer ---

def test_mask_comments_strings_and_code() -> None:
    text = ('#include "cuda_runtime.h" // cudaMalloc\nint x = 1\'000; char c = \'"\'; auto s = "cudaFree \\" x";\n'
            '/* cudaMemcpy\n still */ cudaStream_t t; auto r = R"d(cudaEvent_t )" )d"; // a \\\ncudaGraph_t\n')
    masked = mask(text)
    code, comment, string = masked.lines("code"), masked.lines("comment"), masked.lines("string")
    assert "cuda_runtime.h" in code[0] and "cudaMalloc" in comment[0]
    assert "1'000" in code[1] and "cudaFree" in string[1] and "cudaFree" not in code[1]
    assert "cudaMemcpy" in comment[2] and "cudaStream_t" in code[3] and "cudaEvent_t" in string[3]
    assert "cudaGraph_t" in comment[4] and "cudaGraph_t" not in code[4]
    assert len(masked.code) == len(masked.comment) == len(masked.string) == len(text)


# --- comparing hipify-perl with the rule base, on the recorded runs ---

@pytest.fixture(scope="module")
def index(rulebase) -> RuleIndex:
    return RuleIndex(rulebase, Target(rocm="7.2", arch=("gfx942",)))


def compared(test: str, generation: str, rulebase, index: RuleIndex, drop: str | None = None, quiet: bool = False):
    path = next((RUNS / "inputs").glob(f"{test}*"))
    extraction = extract(file_kind(path), path.read_bytes())
    if drop:  # pretend the extractor missed a name
        from dataclasses import replace

        extraction = replace(extraction, facts=tuple(f for f in extraction.facts if f.name != drop))
    findings = match_file(path.name, extraction, index)
    examined = parse_examine((RUNS / generation / path.stem / "examine.stderr").read_text()).get(path.name)
    if quiet:  # what a -quiet-warnings run gives: the conversions, no warnings
        from dataclasses import replace

        examined = replace(examined, warnings=(), warned=False)
    return compare_file(path.name, path.read_text(), findings, examined, kinds=rule_kinds(rulebase.rules),
                        index=index, extraction=extraction, comments_converted=generation == "outputs")


def kinds_at(result, kind: str) -> set[tuple[int, str]]:
    return {(d.line, d.symbol) for d in result.disagreements if d.kind == kind}


@needs_runs
def test_false_alarms_substring_warnings(rulebase, index) -> None:
    old = compared("t04", "outputs", rulebase, index)
    assert kinds_at(old, FALSE_ALARM) == {(18, "cudaLaunch"), (19, "cudaLaunch"), (22, "nvrtcGetNVVM"),
                                          (23, "cusparseZgthr"), (23, "cusparseZgthrz")}
    reasons = {(d.line, d.symbol): d.rules for d in old.disagreements if d.kind == FALSE_ALARM}
    assert reasons[(23, "cusparseZgthr")] == "only in a comment"  # a whole word, but after //
    assert reasons[(18, "cudaLaunch")] == "not a whole word on this line"
    assert kinds_at(old, UNKNOWN) == {(21, "cudaMyOwnHelper")}
    assert kinds_at(old, NOT_CONVERTED) >= {(15, "cudaStreamGetId"), (18, "cudaLaunchConfig_t"), (19, "cudaLaunchKernelExC")}
    new = compared("t04", "outputs-7.14", rulebase, index)  # whole-word warnings since 2026
    assert kinds_at(new, FALSE_ALARM) == set()
    verdicts = {v.finding.symbol: v for v in new.verdicts}
    assert verdicts["cudaStreamGetId"].converted and verdicts["cudaStreamGetId"].hip_name == "hipStreamGetId"
    assert not verdicts["cudaGraphConditionalHandle"].converted and verdicts["cudaGraphConditionalHandle"].warnings


@needs_runs
def test_conversions_in_comments_and_strings(rulebase, index) -> None:
    old = compared("t05", "outputs", rulebase, index)
    assert kinds_at(old, CONVERTED_IN_COMMENT) == {(5, "cudaMalloc"), (5, "cudaMallocAsync"),
                                                   (5, "cudaErrorMemoryAllocation"), (6, "cudaFree"), (6, "cudaDeviceReset")}
    strings = {(7, "cudaMemcpy"), (8, "cudaStreamSynchronize"), (8, "cudaStream_t"), (9, "cudaGetLastError"),
               (12, "cudaMalloc"), (12, "cudaErrorMemoryAllocation")}
    assert kinds_at(old, CONVERTED_IN_STRING) == strings
    assert kinds_at(old, UNKNOWN) == {(14, "cudaMalloc_calls"), (15, "cudaMalloc_calls")}
    assert [v.finding.symbol for v in old.verdicts] == ["cuda_runtime.h"]  # nothing else is code
    new = compared("t05", "outputs-7.14", rulebase, index)  # comments masked, strings still rewritten
    assert kinds_at(new, CONVERTED_IN_COMMENT) == set() and kinds_at(new, CONVERTED_IN_STRING) == strings


@needs_runs
@pytest.mark.parametrize("generation", GENERATIONS)
def test_silent_misses_ptx_masks_ballots(generation: str, rulebase, index) -> None:
    result = compared("t07", generation, rulebase, index)
    silent = kinds_at(result, SILENT_MISS)
    assert {(8, "%%laneid"), (14, "add.ftz.f32"), (20, "__shfl_down_sync"), (23, "__ballot_sync"),
            (24, "__activemask"), (25, "& 31"), (27, "tiled_partition")} <= silent
    warned = {(21, "__shfl_down_sync"), (22, "__shfl_sync")}  # the 2024 script warns about these two
    assert (warned <= silent) == (generation == "outputs-7.14")
    assert {v.finding.symbol: v.hipify for v in result.verdicts}["cuda_runtime.h"] == "yes"
    assert (result.converted, result.references) == (2, 13)  # one finding per issue per line


@needs_runs
def test_quiet_run_measures_conversions_but_claims_no_silence(rulebase, index) -> None:
    loud, quiet = compared("t07", "outputs", rulebase, index), compared("t07", "outputs", rulebase, index, quiet=True)
    assert [v.converted for v in quiet.verdicts] == [v.converted for v in loud.verdicts]
    assert (quiet.converted, quiet.references) == (loud.converted, loud.references)
    assert kinds_at(quiet, SILENT_MISS) == set() and kinds_at(quiet, FALSE_ALARM) == set()


@needs_runs
def test_headers_and_renames_that_differ(rulebase, index) -> None:
    old = compared("t09", "outputs", rulebase, index)
    assert {(2, "curand.h"), (6, "cudnn.h"), (17, "__nv_bfloat16")} <= kinds_at(old, DIFFERENT)
    assert (10, "cuda_bf16.h") in kinds_at(old, SILENT_MISS)
    assert {(17, "__float2bfloat16"), (18, "__bfloat162float")} == kinds_at(old, RULES_DIFFER)
    new = compared("t09", "outputs-7.14", rulebase, index)
    assert (10, "cuda_bf16.h") not in kinds_at(new, SILENT_MISS) and (2, "curand.h") not in kinds_at(new, DIFFERENT)
    assert "cub" in {v.finding.symbol for v in new.verdicts if v.converted}  # cub:: -> hipcub::, never counted


@needs_runs
def test_warning_the_extractor_missed_becomes_a_finding(rulebase, index) -> None:
    result = compared("t04", "outputs", rulebase, index, drop="cudaStreamGetId")
    (finding,) = [f for f in result.new_findings if f.symbol == "cudaStreamGetId"]
    assert (finding.rule, finding.line, finding.column) == ("HIP1040", 15, 3)
    assert "reported by hipify-perl" in finding.message and finding.source_line.strip().startswith("cudaStreamGetId")


@needs_runs
def test_coverage_per_workload(rulebase, index) -> None:
    results = {t: compared(t, "outputs", rulebase, index) for t in ("t04", "t07")}
    total = coverage(results.values())
    assert total == Coverage(references=29, converted=9) and round(total.ratio, 2) == 0.31
    workloads = [Workload(name="w", root=".", kind="cmake", files=("t04", "x.py"), verdicts=()),
                 Workload(name="empty", root=".", kind="python", files=("y.py",), verdicts=())]
    by_name = coverage_by_workload(results, workloads)
    assert by_name["w"] == Coverage(references=16, converted=7) and by_name["empty"].ratio is None


# --- convert ---

def tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    src = tmp_path / "proj"
    (src / "kernels").mkdir(parents=True)
    (src / "kernels" / "reduce.cu").write_text(
        "#include <cuda_runtime.h>\n"
        "__global__ void reduce(float* v) {\n"
        "  float x = v[threadIdx.x];\n"
        "  x += __shfl_down_sync(0xffffffff, x, 16);\n"
        "  if ((threadIdx.x & 31) == 0) v[0] = x;\n"
        "}\n"
        "void run(float* d, int n) {\n"
        "  cudaMalloc(&d, n * sizeof(float));  // cudaMalloc in a comment\n"
        "  printf(\"cudaMemcpy failed\\n\");\n"
        "  reduce<<<1, 64>>>(d);\n"
        "}\n")
    (src / "README.md").write_text("docs\n")
    return src


@pytest.mark.parametrize("where", ["inside", "same", "parent"])
def test_convert_refuses_dir_inside_path(project: Path, where: str) -> None:
    out = {"inside": project / "out", "same": project, "parent": project.parent}[where]
    before = tree(project)
    with pytest.raises(ConvertError, match="inside"):
        check_paths(project, out)
    result = CliRunner().invoke(convert_command, [str(project), "--out", str(out), "--hipify", "/nonexistent/hipify-perl"])
    assert result.exit_code == 2 and "inside" in result.output and "Traceback" not in result.output
    assert tree(project) == before


def test_convert_refuses_non_empty_dir_without_force(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    with pytest.raises(ConvertError, match=r"not empty.*--force"):
        check_paths(project, out)
    assert check_paths(project, out, force=True) == out.resolve()
    result = CliRunner().invoke(convert_command, [str(project), "--out", str(out)])
    assert result.exit_code == 2 and "--force" in result.output
    assert check_paths(project, tmp_path / "new") == (tmp_path / "new").resolve()
    with pytest.raises(ConvertError, match="exclude each other"):
        check_paths(project, out, in_place=True)
    assert check_paths(project, None, in_place=True) == project.resolve()
    (project / "rocm-migrate.diff").write_text("")
    with pytest.raises(ConvertError, match="already converted in place"):
        check_paths(project, None, in_place=True)
    with pytest.raises(ConvertError, match="--out"):
        check_paths(project, None)


def test_convert_without_hipify_says_how_to_get_it(project: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(convert_command, [str(project), "--out", str(tmp_path / "out"),
                                                  "--hipify", str(tmp_path / "no-hipify-perl")])
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert "HIPIFY package" in line and "/opt/rocm/bin/hipify-perl" in line
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_convert_in_place_needs_confirmation(project: Path, tmp_path: Path) -> None:
    if not shutil.which("perl"):
        pytest.skip("perl is not installed")
    fake = tmp_path / "hipify-perl"  # answers -version, converts nothing
    fake.write_text('print STDERR "HIP version 6.3.0\\n"; exit 0;\n')
    before = tree(project)
    result = CliRunner().invoke(convert_command, [str(project), "--in-place", "--hipify", str(fake)], input="")
    assert result.exit_code == 2 and "--yes" in result.output and tree(project) == before


def test_diff_and_line_map() -> None:
    old, new = b"a\ncudaMalloc\nc", b"#include \"hip/hip_runtime.h\"\na\nhipMalloc\nc"
    diff = unified_diff({"x.cu": old}, {"x.cu": new}).decode()
    assert diff.startswith("--- a/x.cu\n+++ b/x.cu\n") and "-cudaMalloc\n+hipMalloc\n" in diff
    assert diff.endswith("\\ No newline at end of file\n")
    where = line_map(old, new)
    assert [where(1), where(2), where(3)] == [2, 3, 4]


@needs_tool
def test_convert_with_real_hipify(project: Path, tmp_path: Path) -> None:
    before = tree(project)
    out = tmp_path / "converted"
    result = CliRunner().invoke(convert_command, [str(project), "--out", str(out), "--hipify", str(REAL.path)])
    assert result.exit_code == 0, result.output
    assert tree(project) == before  # the source is never touched
    converted = (out / "kernels" / "reduce.cu").read_text()
    assert "hipMalloc(&d" in converted and "0xffffffff" in converted
    diff = (out / "rocm-migrate.diff").read_text()
    assert "--- a/kernels/reduce.cu" in diff and re.search(r"^\+  hipMalloc\(&d, n \* sizeof\(float\)\);", diff, re.M)
    todo = (out / "rocm-migrate-todo.md").read_text()
    lines = converted.split("\n")
    for rule, needle in (("HIP4010", "0xffffffff"), ("HIP4013", "& 31")):
        found = re.search(rf"line (\d+), column \d+: \*\*{rule}\*\*", todo)
        assert found and needle in lines[int(found.group(1)) - 1], (rule, todo)
    assert "cudaMemcpy" in todo and "Rewritten inside strings" in todo  # the printf string
    assert "HIP1010" not in todo and "cudaMalloc:" not in todo  # converted: not hand work


# --- the scan's hipify pass ---

def fake_hipify(tmp_path: Path, generation: str) -> hipify.Tool:
    """A stand-in that replays the recorded stderr of each file it is given (needs perl)."""
    if not shutil.which("perl"):
        pytest.skip("perl is not installed")
    script = tmp_path / "fake-hipify-perl"
    script.write_text(
        'my $dir = "' + str(RUNS / generation) + '";\n'
        'for my $f (grep { !/^-/ } @ARGV) { (my $s = $f) =~ s/\\.[^.]+$//;\n'
        '  open(my $h, "<", "$dir/$s/examine.stderr") or die "error: could not open $f"; print STDERR <$h>; }\n')
    return hipify.Tool(path=script, version="6.3.0" if generation == "outputs" else "7.14.0",
                       interpreter=(shutil.which("perl") or "perl",))


@needs_runs
def test_scan_pass_measures_and_merges(tmp_path: Path, rulebase, index) -> None:
    from migrate.hipify.scan_pass import merge, run_pass
    from migrate.model import SourceFile

    scanned, findings = [], []
    for name in ("t04_unsupported.cu", "t07_ptx_warp.cu", "t10_torch_ext.py"):
        path = tmp_path / name
        shutil.copy(RUNS / "inputs" / name, path)
        kind = file_kind(path)
        extraction = extract(kind, path.read_bytes())
        scanned.append((SourceFile(path=path, rel=name, kind=kind, size=path.stat().st_size), extraction))
        findings += match_file(name, extraction, index)
    result = run_pass(fake_hipify(tmp_path, "outputs"), tmp_path, scanned, findings, rulebase, rocm="7.2", arch="gfx942")
    assert result.error is None and set(result.comparisons) == {"t04_unsupported.cu", "t07_ptx_warp.cu"}
    assert "examined 2 files" in result.note()
    merged = merge(findings, result, ["gfx942"])
    by_place = {(f.path, f.line, f.symbol): f for f in merged}
    assert by_place[("t04_unsupported.cu", 15, "cudaStreamGetId")].hipify == "no"  # the rule base says yes
    assert by_place[("t04_unsupported.cu", 20, "cudaThreadSynchronize")].hipify == "yes"
    assert by_place[("t07_ptx_warp.cu", 21, "__shfl_down_sync")].hipify == "no"
    assert len(merged) == len(findings)
    workload = Workload(name="all", root=".", kind="cmake", files=tuple(result.comparisons), verdicts=())
    assert result.coverage([workload])["all"] == Coverage(references=29, converted=9)
    assert {d.kind for d in result.disagreements} >= {FALSE_ALARM, SILENT_MISS, NOT_CONVERTED, UNKNOWN}


def test_scan_pass_failure_is_a_note(tmp_path: Path, rulebase) -> None:
    from migrate.hipify.scan_pass import run_pass
    from migrate.model import Extraction, SourceFile

    if not shutil.which("perl"):
        pytest.skip("perl is not installed")
    broken = tmp_path / "hipify-perl"
    broken.write_text('print STDERR "boom\\n"; exit 2;\n')
    tool = hipify.Tool(path=broken, version=None, interpreter=(shutil.which("perl") or "perl",))
    (tmp_path / "a.cu").write_text("int x;\n")
    file = SourceFile(path=tmp_path / "a.cu", rel="a.cu", kind="cuda", size=7)
    result = run_pass(tool, tmp_path, [(file, Extraction(facts=(), lines=1))], [], rulebase, rocm="7.2", arch="gfx942")
    assert result.comparisons == {} and "exit code 2" in result.error and "failed" in result.note()


FAKE_CONVERTER = r'''
if ($ARGV[0] eq "-version") { print STDERR "HIP version 6.3.0\n"; exit 0; }
my $inplace = grep { $_ eq "-inplace" } @ARGV;
foreach my $f (grep { !/^-/ } @ARGV) {
  open(my $h, "<", $f) or die "error: could not open $f";
  local $/; my $t = <$h>; close($h);
  my $n = ($t =~ s/\bcudaMalloc\b/hipMalloc/g) || 0;
  if ($inplace) { open(my $o, ">", $f) or die; print $o $t; close($o); } else { print $t; }
  print STDERR "\n[HIPIFY] info: file '$f' statistics:\n  CONVERTED refs count: $n\n  TOTAL lines of code: 1\n"
    . "  WARNINGS: 0\n[HIPIFY] info: CONVERTED refs by names:\n  cudaMalloc => hipMalloc: $n\n" if $n;
}
'''


def test_convert_never_writes_through_symbolic_links(project: Path, tmp_path: Path) -> None:
    if not shutil.which("perl"):
        pytest.skip("perl is not installed")
    fake = tmp_path / "fake-hipify-perl"  # renames cudaMalloc only, like hipify-perl's default mode
    fake.write_text(FAKE_CONVERTER)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "shared.cu").write_text("void f(float* p) { cudaMalloc(&p, 4); }\n")
    (project / "linked.cu").symlink_to(outside / "shared.cu")
    (project / "linkdir").symlink_to(outside, target_is_directory=True)
    before_outside, before = tree(outside), tree(project)
    out = tmp_path / "converted"
    result = CliRunner().invoke(convert_command, [str(project), "--out", str(out), "--hipify", str(fake)])
    assert result.exit_code == 0, result.output
    assert tree(outside) == before_outside and tree(project) == before
    assert "hipMalloc(&d" in (out / "kernels" / "reduce.cu").read_text()
    assert (out / "linked.cu").is_symlink() and "linked.cu" in result.output
    todo = (out / "rocm-migrate-todo.md").read_text()
    assert "## Files hipify-perl could not convert" in todo and "symbolic link" in todo
    assert "**HIP4010**" in todo and "`kernels/reduce.cu`" in todo


def test_convert_many_runs_one_process_per_share_under_names_of_its_own(tmp_path: Path) -> None:
    """hipify-perl -inplace hands each name to a shell (`cp NAME NAME.prehip`): the real names,
    however odd, never reach it, and one process converts a whole share."""
    if not shutil.which("perl"):
        pytest.skip("perl is not installed")
    log = tmp_path / "runs.log"
    fake = tmp_path / "fake-hipify-perl"
    fake.write_text(f'open(my $l, ">>", "{log}"); print $l "@ARGV\\n"; close($l);\n' + FAKE_CONVERTER)
    tool = hipify.Tool(path=fake, version="6.3.0", interpreter=("perl",))
    tree = tmp_path / "tree"
    tree.mkdir()
    names = [f"k{n}.cu" for n in range(7)] + ["a;touch pwned.cu", "-odd name.cuh", "$(id).cu"]
    for name in names:
        (tree / name).write_text(f"void f(float** p) {{ cudaMalloc(p, 4); }} // {name}\n")
    done, failed = hipify.convert_many(tool, names, cwd=tree, jobs=2, quiet=True)
    assert not failed and sorted(done) == sorted(names)
    for name in names:
        assert done[name].text == f"void f(float** p) {{ hipMalloc(p, 4); }} // {name}\n".encode()
        assert done[name].examine.path == name and done[name].examine.renamed() == {"cudaMalloc": "hipMalloc"}
    runs = log.read_text().splitlines()
    assert len(runs) == 2 and all("-inplace" in r and "-quiet-warnings" in r for r in runs)
    assert not any(";" in r or "$(" in r or "odd" in r for r in runs)
    assert not (tree / "pwned.cu").exists() and sorted(p.name for p in tree.iterdir()) == sorted(names)


@needs_tool
def test_demo_report_with_hipify_perl_is_its_own_golden(update_golden: bool) -> None:
    """The renderer goldens are made without hipify-perl; this one with the 2026 script (HIP 7.14.0)."""
    from dataclasses import replace as with_values

    from migrate.render import renderer
    from migrate.rulebase.load import load_rules
    from migrate.scan import pipeline
    from migrate.settings import Settings

    if REAL.version != "7.14.0":
        pytest.skip(f"the golden was recorded with hipify-perl 7.14.0, not {REAL.version}")
    report = pipeline.run([Path(__file__).resolve().parents[1] / "fixtures" / "repos" / "demo"],
                          Settings(jobs=1, cache_dir=None, hipify=str(REAL.path)), load_rules())
    report = with_values(report, root="/srv/demo", seconds=0.5, tool_version="0.0.0", rules_version="0.0.0+test",
                         scanned_at="2026-01-01T00:00:00+00:00", repository_prefix=None)
    text = renderer("json")(report).replace(str(REAL.path), "HIPIFY_PERL")  # where the machine keeps it
    golden = Path(__file__).parent / "golden" / "report" / "demo-hipify-7.14.json"
    if update_golden:
        golden.write_text(text)
    assert text == golden.read_text()
