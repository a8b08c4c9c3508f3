"""extract, dependency manifests: requirements files, conda environment files, setup.cfg, pyproject.toml.

Requirement facts and their names are described in migrate.extract.text.packages."""
from __future__ import annotations

import dataclasses
import re

from migrate.extract.names import name_list
from migrate.extract.text.lines import entry_point, fact, finish, logical_lines, numbered
from migrate.extract.text.packages import canonical, conda_names, requirement_line
from migrate.model import Extraction, Fact

# Kept for the Python extractor (setup.py install_requires).
REQUIREMENT = re.compile(r"^\s*(?:-\s+)?([A-Za-z0-9][A-Za-z0-9._-]*)")
CONDA_ITEM = re.compile(r"^(\s*)-\s+(.*?)\s*$")
TOP_KEY = re.compile(r"^([A-Za-z_-]+):\s*(.*?)\s*$")
# PyTorch from conda, and the CUDA runtime it is installed with: `conda install pytorch torchvision cudatoolkit=11.3
# -c pytorch`, later `pytorch-cuda=12.1 -c pytorch -c nvidia` (https://pytorch.org/get-started/previous-versions/).
# In an environment that installs PyTorch from conda these pins are PyTorch's runtime, which its ROCm build brings
# itself; they get the role `framework_runtime` (rules/dependencies.yaml, conda-pytorch-cuda-runtime).
CONDA_PYTORCH = name_list("build", "conda_pytorch")
CONDA_RUNTIME_PINS = name_list("build", "conda_runtime_pins")
# A CUDA compiler or development package in the same environment: the project builds CUDA code of its own, and
# the runtime is not PyTorch's alone.
CONDA_TOOLCHAIN = name_list("build", "conda_toolchain")
# A requirements file a resolver or an installer wrote: its header says so (RESOLVER_STAMPS), every requirement
# carries a `--hash=` (pip's hash-checking mode, which `pip-compile --generate-hashes`, `uv pip compile
# --generate-hashes` and `poetry export` write), or it is `pip freeze` output (FREEZE_MIN or more requirements,
# every one `name==version`, in name order). Its pins are the record of one resolution or one environment, not
# the project's requirements: the role `locked`, which no dependency rule matches (match.NOT_USES; a uv.lock or
# poetry.lock gives no requirement facts either) and migrate/stack/pins.py reads as a lock file's pins.
RESOLVER_STAMPS = name_list("build", "resolver_stamps")
HEADER_LINES = 12  # where a resolver's header comment sits
# pip freeze lists every installed distribution, dependencies included (torch-NeRF's 60, mediapipe's locks 25-106);
# a hand-kept list of a project's own pins is seldom this long (aerial-ran's pyaerial/container list has 15)
FREEZE_MIN = 20
EXACT = re.compile(r"^[A-Za-z0-9][\w.-]*(\[[\w,.-]*\])?==[^=<>~!,;\s]+(\s*;.*)?$")
SETUP_CFG_LISTS = frozenset({"install_requires", "setup_requires", "tests_require", "dependency_links"})


def requirements(source: bytes) -> Extraction:
    """requirements.txt and constraints files: one requirement or option per (continued) line."""
    text = source.decode("utf-8")
    facts: list[Fact] = []
    pins = unhashed = 0
    listed: list[tuple[str, str]] = []  # (name, spec) of each requirement line, for the freeze test
    for logical in logical_lines(text):
        found = requirement_line(logical.text)
        if any("==" in spec for _, _, _, spec in found):
            pins += 1
            unhashed += "--hash=" not in logical.text
        listed += [(name, spec) for _, _, name, spec in found[:1] if not name.startswith("index:")]
        for start, end, name, spec in found:
            facts.append(logical.fact("requirement", name, start, end, text=spec))
    if facts and ((pins and not unhashed) or _resolver_header(text) or _frozen(listed)):
        facts = [dataclasses.replace(f, role="locked") for f in facts]
    return finish(text, facts)


def _frozen(listed: list[tuple[str, str]]) -> bool:
    """`pip freeze` output: FREEZE_MIN or more requirements, each an exact pin, in the order of their names."""
    names = [canonical(name) for name, _ in listed]
    return len(listed) >= FREEZE_MIN and all(EXACT.match(spec.strip()) for _, spec in listed) and names == sorted(names)


def _resolver_header(text: str) -> bool:
    """Whether the file's leading comment names the resolver that wrote it (RESOLVER_STAMPS)."""
    head = " ".join(line.lstrip("# ").lower() for line in text.splitlines()[:HEADER_LINES] if line.startswith("#"))
    return any(stamp in head for stamp in RESOLVER_STAMPS)


def conda(source: bytes) -> Extraction:
    """Conda environment files: channels, dependencies, and the pip section's entries."""
    text = source.decode("utf-8")
    facts: list[Fact] = []
    conda_torch = False  # PyTorch among the conda dependencies (not the pip section's)
    section, pip_indent = "", -1
    for number, line, _ in numbered(text):
        if m := TOP_KEY.match(line):
            section, pip_indent = m.group(1), -1
            if m.group(2).startswith("["):
                for item in re.finditer(r"[^\[\],\s'\"]+", m.group(2)):
                    items = _conda_item(section, item.group(0), number, m.start(2) + item.start())
                    conda_torch = conda_torch or any(f.name in CONDA_PYTORCH for f in items)
                    facts.extend(items)
            continue
        entry = CONDA_ITEM.match(line)
        if not entry or not entry.group(2):
            continue
        indent, value, start = len(entry.group(1)), entry.group(2), entry.start(2)
        if pip_indent >= 0 and indent <= pip_indent:
            pip_indent = -1
        if re.fullmatch(r"pip\s*:", value):
            pip_indent = indent
        elif pip_indent >= 0:
            unquoted = value.strip("'\"")
            offset = start + value.find(unquoted)
            for s, e, name, spec in requirement_line(line, offset, offset + len(unquoted)):
                facts.append(fact("requirement", name, number, s, e, text=spec))
        else:
            items = _conda_item(section, value, number, start)
            conda_torch = conda_torch or any(f.name in CONDA_PYTORCH for f in items)
            facts.extend(items)
    return finish(text, _framework_runtime(facts, conda_torch))


def _framework_runtime(facts: list[Fact], conda_torch: bool) -> list[Fact]:
    """The CUDA runtime pins of an environment that installs PyTorch from conda and no CUDA toolchain, with the role
    `framework_runtime`."""
    if not conda_torch or any(f.name in CONDA_TOOLCHAIN for f in facts):
        return facts
    return [dataclasses.replace(f, role="framework_runtime") if f.name in CONDA_RUNTIME_PINS else f for f in facts]


def _conda_item(section: str, value: str, number: int, start: int) -> list[Fact]:
    end = start + len(value)
    if section == "channels":
        channel = re.sub(r"^\w+://[^/]+/", "", value.strip("'\"")).split("/")[0]
        return [fact("requirement", f"channel:{channel}", number, start, end, text=value)]
    if section != "dependencies":
        return []
    if value.startswith(("-", "http://", "https://")):
        return [fact("requirement", name, number, s, e, text=spec)
                for s, e, name, spec in requirement_line(value)]
    return [fact("requirement", name, number, start, end, text=value) for name in conda_names(value)]


def pyproject(source: bytes) -> Extraction:
    from migrate.extract.text import pyproject as toml_manifest

    return toml_manifest.extract(source)


def setup_cfg(source: bytes) -> Extraction:
    """setup.cfg: install_requires, extras_require and dependency_links entries, one per line."""
    text = source.decode("utf-8")
    facts: list[Fact] = []
    section, in_list = "", False
    for number, line, _ in numbered(text):
        if m := re.match(r"^\s*\[([^\]]+)\]", line):
            section, in_list = m.group(1).strip(), False
            continue
        if section == "options.entry_points" and (made := entry_point(line, number, 0, len(line))) is not None:
            facts.append(made)
            continue
        key = re.match(r"^([\w-]+)\s*[=:]\s*(.*)$", line)
        if key:
            in_list = (section == "options" and key.group(1) in SETUP_CFG_LISTS) or section == "options.extras_require"
            start = key.start(2)
        elif in_list and line[:1].isspace():
            start = 0
        else:
            continue
        if in_list:
            for s, e, name, spec in requirement_line(line, start):
                made = fact("requirement", name, number, s, e, text=spec)
                # an extra is not in a plain install: an optional fact, as pyproject's optional-dependencies
                facts.append(dataclasses.replace(made, guard="optional") if section == "options.extras_require" else made)
    return finish(text, facts)
