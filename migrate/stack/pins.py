"""The pinned stack of a project, from the facts the extractors already produced.

Requirement facts (requirements files, pyproject, setup.py/setup.cfg, conda environments, Dockerfile and
script `pip install` lines) give framework pins, CUDA wheel tags (+cu121) and CUDA indexes (.../whl/cu121);
base_image facts give images and what their names say (ROCm, CUDA, OS, Python, framework). Two things no
extractor records are read here, cheaply: `requires-python`/`python_requires`, and the versions locked in
uv.lock and poetry.lock. The exact pins of a requirements file a resolver wrote (requirement facts with the role
`locked`) are locked pins as well."""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from migrate.model import Extraction, Fact, SourceFile
from migrate.scan.readfile import read_inside, tree_of
from migrate.vocabulary import PinKind

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]

CONDA_ALIASES = {"pytorch": "torch", "pytorch-gpu": "torch"}
# Conda packages whose version is the CUDA release (pytorch-cuda=12.1, cudatoolkit=11.3).
CUDA_PACKAGES = frozenset({"pytorch-cuda", "cudatoolkit", "cuda-toolkit", "cuda-version", "cuda-runtime"})
CUDA_TAG = re.compile(r"^(?:cu|cuda)(\d{2,3})$|^pt\d+cu(\d{2,3})$")
CUDA_INDEX = re.compile(r"/whl/(?:nightly/|test/)?cu(\d{2,3})(?:/|$)")
ROCM_INDEX = re.compile(r"/whl/(?:nightly/|test/)?rocm(\d+(?:\.\d+){0,2})(?:/|$)")
PYTHON_REQUIRES = re.compile(r"python_requires\s*[=:]\s*['\"]?([^'\"\n,)]+)")
LOCKS = ("uv.lock", "poetry.lock")
MAX_LOCK_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class Where:
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    text: str  # the source line, for the finding's fingerprint


@dataclass(frozen=True, slots=True, kw_only=True)
class Pin:
    package: str
    spec: str  # as written
    version: str | None  # the exact version, without its local tag
    local: str | None  # +cu121, +rocm6.2 ...
    kind: PinKind
    where: Where

    @property
    def cuda(self) -> str | None:
        m = CUDA_TAG.match(self.local or "")
        return _cuda_version(m.group(1) or m.group(2)) if m else None


@dataclass(frozen=True, slots=True, kw_only=True)
class ImagePin:
    ref: str
    rocm: str | None
    cuda: str | None
    os: str | None
    python: str | None
    framework: str | None  # pytorch, jax, tensorflow, vllm
    version: str | None
    where: Where


@dataclass(frozen=True, slots=True, kw_only=True)
class Stack:
    pins: tuple[Pin, ...]
    images: tuple[ImagePin, ...]
    indexes: tuple[tuple[str, str, Where], ...]  # (kind cuda|rocm, version, where)
    python: tuple[tuple[str, Where], ...]  # requires-python specifiers

    @property
    def cuda_versions(self) -> list[str]:
        found = {p.cuda for p in self.pins if p.cuda} | {i.cuda for i in self.images if i.cuda}
        found |= {v for k, v, _ in self.indexes if k == "cuda"}
        return sorted(v for v in found if v)


PIN_KINDS = frozenset({"base_image", "requirement"})  # the facts a stack is read from


def collect(extractions: Mapping[str, Extraction], files: Iterable[SourceFile] = (),
            locked: frozenset[str] = frozenset()) -> Stack:
    """The stack of the scanned files: `extractions` maps relative paths to their facts; `locked` names the
    packages whose lock-file versions are read."""
    pins: dict[tuple[str, int, int, str], Pin] = {}
    images: list[ImagePin] = []
    indexes: list[tuple[str, str, Where]] = []
    for rel, extraction in sorted(extractions.items()):
        for fact in extraction.facts:
            if fact.kind not in PIN_KINDS:  # most facts are code's; no place is built for them
                continue
            where = _where(rel, fact, extraction)
            if fact.kind == "base_image":
                images.append(image_pin(fact.name, where))
            elif fact.kind == "requirement" and fact.name.startswith("index:"):
                indexes.extend((kind, version, where) for kind, version in index_kind(fact.name[6:]))
            elif fact.kind == "requirement" and fact.name in CUDA_PACKAGES:
                if m := re.search(r"(\d+\.\d+)", fact.text):
                    indexes.append(("cuda", m.group(1), where))
            elif fact.kind == "requirement" and _plain(fact.name):
                pin = requirement_pin(fact.name, fact.text, where)
                if fact.role == "locked" and pin.kind == "exact":  # a resolver's record (extract/text/deps.py)
                    pin = replace(pin, kind="locked")
                pins.setdefault((rel, fact.line, fact.column, pin.package), pin)
    files = list(files)
    locks = tuple(p for p in _locked(files) if p.package in locked)
    return Stack(pins=tuple(pins.values()) + locks, images=tuple(images), indexes=tuple(indexes),
                 python=tuple(_python_requires(files)))


def requirement_pin(name: str, spec: str, where: Where) -> Pin:
    package = CONDA_ALIASES.get(name, name)
    if "$" in spec or "{{" in spec:  # torch==${{ matrix.torch }}, torch==${TORCH_VERSION}: set elsewhere
        return Pin(package=package, spec=spec, version=None, local=None, kind="variable", where=where)
    from packaging.requirements import InvalidRequirement, Requirement  # here: most scans pin nothing (~12 ms)

    try:
        req = Requirement(spec.strip())
    except InvalidRequirement:
        return _conda_pin(package, spec, where)
    exact = [s for s in req.specifier if s.operator in ("==", "===") and "*" not in s.version]
    if len(exact) == 1:
        version, _, local = exact[0].version.partition("+")
        return Pin(package=package, spec=spec, version=version, local=local or None, kind="exact", where=where)
    kind: PinKind = "range" if len(req.specifier) else "unpinned"
    return Pin(package=package, spec=spec, version=None, local=None, kind=kind, where=where)


def _conda_pin(package: str, spec: str, where: Where) -> Pin:
    """pytorch=2.1.0=py3.10_cuda12.1*, pytorch==2.1, pytorch>=2: conda's own spec syntax."""
    m = re.match(r"^[\w.:-]+?\s*(==?)\s*([0-9][\w.]*)(?:=(\S+))?", spec.strip())
    if not m:
        kind: PinKind = "range" if re.search(r"[<>=]", spec) else "unpinned"
        return Pin(package=package, spec=spec, version=None, local=None, kind=kind, where=where)
    build = m.group(3) or ""
    cuda = re.search(r"cuda(\d+)\.?(\d)", build)
    local = f"cu{cuda.group(1)}{cuda.group(2)}" if cuda else None
    exact = len(vtuple_or_empty(m.group(2))) >= 3 or m.group(1) == "=="
    return Pin(package=package, spec=spec, version=m.group(2), local=local, kind="exact" if exact else "range",
               where=where)


def vtuple_or_empty(text: str) -> tuple[str, ...]:
    return tuple(p for p in text.split(".") if p)


def index_kind(url: str) -> list[tuple[str, str]]:
    if m := CUDA_INDEX.search(url):
        return [("cuda", _cuda_version(m.group(1)))]
    if m := ROCM_INDEX.search(url):
        return [("rocm", m.group(1))]
    return []


def _cuda_version(digits: str) -> str:
    return f"{digits[:-1]}.{digits[-1]}"


IMAGE_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"^rocm/pytorch:rocm(?P<rocm>[\d.]+)_(?:gfx[0-9a-z]+(?:-[a-z]+)?_)?(?P<os>ubuntu[\d.]+)"
               r"_py(?P<python>[\d.]+)_pytorch_(?:release_)?(?P<version>[\d.]+)"),
    re.compile(r"^rocm/jax(?:-community)?:rocm(?P<rocm>[\d.]+)-jax(?P<version>[\d.]+)-py(?P<python>\d+\.\d+)"),
    re.compile(r"^rocm/vllm:rocm(?P<rocm>[\d.]+)_(?:gfx[0-9a-z]+(?:-[a-z]+)?_)?(?:(?P<os>ubuntu[\d.]+)"
               r"_py(?P<python>[\d.]+)_pytorch_[\d.]+_)?vllm_(?P<version>[\d.]+)"),
    re.compile(r"^rocm/dev-(?P<os>ubuntu-[\d.]+|almalinux-\d+):(?P<rocm>[\d.]+)"),
    re.compile(r"^(?:docker\.io/)?nvidia/cuda:(?P<cuda>\d+\.\d+)[\d.]*-.*?(?P<os>ubuntu[\d.]+|ubi\d+|rockylinux\d+)?$"),
    re.compile(r"^(?:docker\.io/)?pytorch/pytorch:(?P<version>\d+\.\d+\.\d+)-cuda(?P<cuda>\d+\.\d+)"),
    re.compile(r"^(?:docker\.io/)?(?:library/)?python:(?P<python>\d+\.\d+)"),
    re.compile(r"^(?:docker\.io/)?(?:library/)?(?P<os>ubuntu):(?P<osver>\d+\.\d+)"),
)
FRAMEWORK_OF_IMAGE = {"rocm/pytorch": "pytorch", "rocm/jax": "jax", "rocm/jax-community": "jax", "rocm/vllm": "vllm",
                      "pytorch/pytorch": "pytorch"}


def image_pin(ref: str, where: Where) -> ImagePin:
    """What an image's name says about the stack inside it."""
    fields: dict[str, str | None] = {"rocm": None, "cuda": None, "os": None, "python": None, "version": None}
    for pattern in IMAGE_PATTERNS:
        m = pattern.match(ref)
        if m:
            groups = m.groupdict()
            fields.update({k: v for k, v in groups.items() if k in fields and v})
            if groups.get("osver"):
                fields["os"] = f"ubuntu{groups['osver']}"
            break
    repo = ref.split(":", 1)[0].removeprefix("docker.io/")
    os_name = fields["os"]
    if os_name:
        os_name = re.sub(r"^ubuntu-?", "Ubuntu ", os_name)
    return ImagePin(ref=ref, rocm=fields["rocm"], cuda=fields["cuda"], os=os_name, python=fields["python"],
                    framework=FRAMEWORK_OF_IMAGE.get(repo), version=fields["version"], where=where)


def _plain(name: str) -> bool:
    return ":" not in name and "[" not in name and not re.search(r"[=<>~]", name)


def _where(rel: str, fact: Fact, extraction: Extraction) -> Where:
    return Where(path=rel, line=fact.line, column=fact.column, end_line=fact.end_line, end_column=fact.end_column,
                 text=extraction.line_text.get((fact.cell or 0, fact.line), ""))


def _python_requires(files: list[SourceFile]) -> Iterable[tuple[str, Where]]:
    for file in files:
        if file.kind not in ("pyproject", "python", "setupcfg") or (file.kind == "python" and file.path.name != "setup.py"):
            continue
        text = _read(file.path, tree_of(file))
        if not text:
            continue
        for number, line in enumerate(text.split("\n"), start=1):
            m = re.search(r"requires-python\s*=\s*['\"]([^'\"]+)", line) if file.kind == "pyproject" \
                else PYTHON_REQUIRES.search(line)
            if m and _is_specifier(m.group(1).strip()):  # not `python_requires=REQUIRES_PYTHON`, a variable
                yield m.group(1).strip(), Where(path=file.rel, line=number, column=m.start(1) + 1, end_line=number,
                                                end_column=m.end(1) + 1, text=line)


def _is_specifier(text: str) -> bool:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        SpecifierSet(text)
    except InvalidSpecifier:
        return False
    return True


def _locked(files: list[SourceFile]) -> Iterable[Pin]:
    """Framework versions that a uv.lock or poetry.lock beside a manifest resolves to. Each folder is looked in
    once, for its first file: the locks beside the others are the same (a scan's files share few folders; a
    stat per file and lock name cost cuda-samples ~25 ms)."""
    folders: set[str] = set()
    for file in files:
        folder = os.path.dirname(str(file.path))  # equal for files of one folder (Path's string is normalised)
        if folder in folders:
            continue
        folders.add(folder)
        for name in LOCKS:
            lock = file.path.parent / name
            if not lock.is_file() or lock.is_symlink() or lock.stat().st_size > MAX_LOCK_BYTES:
                continue
            rel = str(Path(file.rel).parent / name).removeprefix("./")
            yield from _lock_pins(lock, rel, tree_of(file))


def _lock_pins(lock: Path, rel: str, top: str) -> Iterable[Pin]:
    from packaging.utils import canonicalize_name

    text = _read(lock, top)
    try:
        packages = tomllib.loads(text or "").get("package", [])
    except tomllib.TOMLDecodeError:
        return
    lines = (text or "").split("\n")
    for entry in packages:
        name, version = canonicalize_name(str(entry.get("name", ""))), str(entry.get("version", ""))
        if not name or not version:
            continue
        number = next((i for i, line in enumerate(lines, start=1) if line.strip() in (f'name = "{entry.get("name")}"',)), 1)
        ver, _, local = version.partition("+")
        yield Pin(package=name, spec=f"{name}=={version}", version=ver, local=local or None, kind="locked",
                  where=Where(path=rel, line=number, column=1, end_line=number, end_column=len(lines[number - 1]) + 1,
                              text=lines[number - 1]))


def _read(path: Path, top: str) -> str | None:
    """A manifest or lock file of the scanned tree, never through a link out of it."""
    try:
        return read_inside(path, top, MAX_LOCK_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
