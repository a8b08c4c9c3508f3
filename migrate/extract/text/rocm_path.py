"""extract, evidence of a ROCm path in build, CI and dependency files: facts of kind `rocm_path`.

A CMake option or branch on HIP (`enable_language(HIP)`, `if(GGML_HIP)`, `KOKKOS_ENABLE_HIP`),
`hipcc` in a Makefile or script, a ROCm job in CI (`rocm/` images, MI300 runners), a `rocm` extra
or ROCm wheel index in a manifest. The fact's name is the evidence's strength class (`build`,
`ci`, `package`); its text is what was seen. `workloads/ported.py` decides what they cover."""
from __future__ import annotations

import re

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
    if kind in WHOLE_TEXT_FIRST and not any(pattern.search(text) for pattern in patterns):
        return []
    out: list[Fact] = []
    for number, line, _ in numbered(text):
        if kind == "manifest" and CI_OFF.match(line):
            continue
        for pattern in patterns:
            if m := pattern.search(line):
                out.append(fact("rocm_path", strength, number, m.start(), m.end(), text=m.group(0)))
                break
    return out
