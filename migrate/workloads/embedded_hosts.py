"""CUDA source in a Python file's strings, compiled only where the file's GPU host code runs.

CUDA C kept in a string of a Python module (`gpu_code = \"\"\"__global__ void psi1computations(...)\"\"\"`) is compiled
by whatever receives it at run time: PyCUDA's `SourceModule`, CuPy's `RawModule`, torch's `load_inline`
(classify.AUTO_HIPIFIED_KINDS). The device rules report the kernels in the string where it is written, often at module
level, while the compile call and the host package's import sit in a function the project runs only on request (GPy's
`PSICOMP_RBF_GPU.__init__`, reached only with `useGPU=True`). Where the file has GPU host findings of its own (Python
rules: an import of PyCUDA, a CuPy compile call) and every one of them is optional, the file compiles its strings only
on that optional path, and the kernels in them are part of it. A file with no host finding of its own is left as it
is."""
from __future__ import annotations

from collections.abc import Callable, Iterable

from migrate.model import Finding
from migrate.rulebase import families
from migrate.workloads.classify import PYTHON_SUFFIXES


def optional_host_files(findings: Iterable[Finding], optional: Callable[[Finding], bool]) -> dict[str, str]:
    """Python file -> evidence, where the file has CUDA findings in its strings (C-family rules) and host findings
    (Python rules), every host finding optional by `optional`."""
    rules = families.load()
    strings: dict[str, bool] = {}
    hosts: dict[str, list[Finding]] = {}
    for f in findings:
        if not f.path.endswith(PYTHON_SUFFIXES):
            continue
        if rules.is_code(f.rule, "c"):
            strings[f.path] = True
        elif rules.is_code(f.rule, "python"):
            hosts.setdefault(f.path, []).append(f)
    out: dict[str, str] = {}
    for path in strings:
        found = hosts.get(path, [])
        if found and all(optional(f) for f in found):
            first = min(found, key=lambda f: (f.line, f.column))
            out[path] = (f"{path}:{first.line} {first.symbol}: the file's GPU host code ({len(found)} finding"
                         f"{'s' if len(found) > 1 else ''}) runs only in optional scopes, so the CUDA source in its "
                         "strings is compiled only there")
    return out
