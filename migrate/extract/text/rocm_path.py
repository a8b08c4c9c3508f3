"""extract, evidence of a ROCm path in build, CI and dependency files: facts of kind `rocm_path`.

A CMake option or branch on HIP (`enable_language(HIP)`, `if(GGML_HIP)`, `KOKKOS_ENABLE_HIP`),
`hipcc` in a Makefile or script, a ROCm job in CI (`rocm/` images, MI300 runners), a `rocm` extra
or ROCm wheel index in a manifest, a ROCm build's package index in a shell script (`install`: the project's
own installer installs the ROCm build of a package, rules/names/build.yaml `rocm_package_indexes`). The fact's
name is the evidence's strength class (`build`, `ci`, `package`, `install`); its text is what was seen.
`workloads/ported.py` decides what they cover."""
from __future__ import annotations

import re

from migrate.extract.names import alternatives
from migrate.extract.text.lines import fact, numbered
from migrate.model import Fact

# An identifier with a HIP/ROCm word between underscores: GGML_HIP, USE_ROCM, CMAKE_HIP_FLAGS.
HIP_IDENT = re.compile(r"\b(?:\w+_)?(?:HIP|ROCM|ROCm)(?:_\w+)?\b")
BUILD = re.compile(r"\benable_language\s*\(\s*HIP\b|\bLANGUAGES\b[^)]*\bHIP\b|\bfind_package\s*\(\s*(?:hip|HIP|ROCM"
                   r"|roc(?:blas|prim|thrust|rand|fft|solver|sparse)|hip(?:blas|cub|rand|fft|sparse|solver))\b"
                   r"|\bhipcc\b|\bamdclang\+\+|--offload-arch=[^\s)\]\"',;]*|\bSTREQUAL\s+\"?hip\"?")
CI = re.compile(r"(?i)\brocm\b|\brocm/|\bmi(?:100|200|210|250x?|300[ax]?|325x?|355x?)\b|\bamd[-_ ]?gpu\b|\bgfx9\d\w\b"
                r"|\bhip\b")
# A CI setting that turns ROCm off for the job (pytorch/test-infra's `with-rocm: false`, which pytorch/TensorRT's
# workflows pass to generate_binary_build_matrix.yml): a ROCm word on such a line is no ROCm job.
CI_OFF = re.compile(r"(?i)^\s*(?:-\s*)?(?=[\w-]*(?:rocm|hip))[\w-]+\s*:\s*[\"']?(?:false|no|off|0)[\"']?\s*(?:#.*)?$")
PACKAGE = re.compile(r"(?i)\bwhl/rocm|\brocm\d*\s*[\]=:]|\[rocm\w*\]|^\s*\"?rocm[\w-]*\"?\s*=|\bpytorch-triton-rocm\b"
                     r"|\bamdsmi\b|\bcupy-rocm")
# A Cargo feature on ROCm or HIP (`rocm = []`, supranational/sppark's rust/Cargo.toml): a ROCm build the crate
# offers, as a Python extra does. A feature's value is a list; a dependency's is a version or a table.
CARGO_FEATURE = re.compile(r"^\s*\"?(?:rocm|hip)(?:[-_]\w+)?\"?\s*=\s*\[")
# A ROCm build's package index (PyTorch's whl/rocm6.4, AMD's repo.radeon.com, TheRock's nightlies), where a script
# runs pip with it: `install` evidence, read in shell scripts here and in a Python launcher's strings
# (extract/python/extractor.py)
ROCM_INDEX = re.compile(r"(?<![\w.-])(?:https?://)?(?:" + alternatives("build", "rocm_package_indexes") + ")")
INSTALL = "install"
KIND_PATTERNS = {
    "cmake": ("build", (BUILD, HIP_IDENT)),
    "makefile": ("build", (BUILD, HIP_IDENT)),
    "shell": ("build", (BUILD,)),
    "manifest": ("ci", (CI,)),
    "pyproject": ("package", (PACKAGE,)),
    "setupcfg": ("package", (PACKAGE,)),
    "cargo": ("package", (CARGO_FEATURE,)),
    "requirements": ("package", (PACKAGE,)),
    "conda": ("package", (PACKAGE,)),
}


# Kinds whose patterns hold no `^` or `$`: a match in a line (or in its part before a # comment) is one in the whole
# text too (a \b at a line's ends is one beside the newline or the `#`), so a text none of them finds has no evidence
# and its lines are not read one by one (cuda-samples: 215 CMakeLists.txt, nearly all without any)
WHOLE_TEXT_FIRST = frozenset({"cmake", "makefile", "shell", "manifest"})


def evidence(kind: str, text: str) -> list[Fact]:
    """At most one `rocm_path` fact per line: the first match of the kind's patterns."""
    strength, patterns = KIND_PATTERNS.get(kind, ("", ()))
    installs = kind == "shell"  # a script's pip run from a ROCm build's index, before its build evidence
    if kind in WHOLE_TEXT_FIRST and not any(pattern.search(text) for pattern in patterns) \
            and not (installs and ROCM_INDEX.search(text)):
        return []
    out: list[Fact] = []
    for number, line, _ in numbered(text):
        if kind == "manifest" and CI_OFF.match(line):
            continue
        if installs and (m := ROCM_INDEX.search(line)):
            out.append(fact("rocm_path", INSTALL, number, m.start(), m.end(), text=m.group(0)))
            continue
        for pattern in patterns:
            if m := pattern.search(line):
                out.append(fact("rocm_path", strength, number, m.start(), m.end(), text=m.group(0)))
                break
    return out
