"""The compatibility matrix (rules/stack/matrix.yaml): loaded, validated, every entry's source checked."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from migrate.rulebase import datafile
from migrate.rulebase.load import default_rules_dir

StreamId = Literal["legacy", "core-sdk"]

SCHEMA_PATH = Path(__file__).with_name("matrix.schema.json")
# The sections whose entries must each name a source.
SOURCED = ("os_kernels", "releases", "gpu_os", "framework_limits", "pytorch_wheels", "pytorch_wheel_archs",
           "installs", "pypi_rocm_builds", "images")


class MatrixError(Exception):
    """The matrix file is malformed; str() is one line naming the entry."""


def vtuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".") if p.isdigit())


def minor(text: str) -> tuple[int, ...]:
    return vtuple(text)[:2]


@dataclass(frozen=True, slots=True, kw_only=True)
class Source:
    id: str
    url: str
    read: str
    evidence: str = "primary"


@dataclass(frozen=True, slots=True, kw_only=True)
class Release:
    versions: tuple[str, ...]  # the patch releases of one column, newest first
    os: tuple[str, ...]
    gpus: tuple[str, ...]
    frameworks: dict[str, tuple[str, ...]]
    source: str
    note: str = ""
    stream: StreamId = "legacy"

    @property
    def version(self) -> str:
        return self.versions[0]


@dataclass(frozen=True, slots=True, kw_only=True)
class Stream:
    """A release stream: the legacy ROCm releases or the ROCm Core SDK built on TheRock."""
    id: StreamId
    name: str
    low: str
    high: str | None
    install_dir: str
    packages: str
    frameworks: str
    device_wheel_line: str | None
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class GpuOs:
    releases: tuple[str, ...]
    gpus: tuple[str, ...]
    only: tuple[str, ...]
    excluded: tuple[str, ...]
    text: str
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FrameworkLimit:
    releases: tuple[str, ...]
    gpus: tuple[str, ...]
    framework: str
    versions: tuple[str, ...]
    text: str
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Wheel:
    torch: str
    torchvision: str
    torchaudio: str
    rocm: tuple[str, ...]
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Install:
    framework: str
    low: str
    high: str | None
    line: str
    when: str | None
    source: str

    def covers(self, rocm: str) -> bool:
        return vtuple(self.low) <= vtuple(rocm) and (self.high is None or vtuple(rocm) <= vtuple(self.high))


@dataclass(frozen=True, slots=True, kw_only=True)
class Image:
    image: str
    tag: str
    rocm: str
    framework: str | None
    version: str | None
    os: str | None
    python: str | None
    source: str

    @property
    def ref(self) -> str:
        return f"{self.image}:{self.tag}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Matrix:
    sources: dict[str, Source]
    releases: tuple[Release, ...]  # newest first
    gpu_os: tuple[GpuOs, ...]
    limits: tuple[FrameworkLimit, ...]
    wheels: tuple[Wheel, ...]
    wheel_archs: tuple[tuple[tuple[str, ...], tuple[str, ...], str], ...]  # (rocm indexes, archs, source)
    installs: tuple[Install, ...]
    packages: dict[str, str]  # package name -> framework
    cuda_packages: frozenset[str]
    images: tuple[Image, ...]
    kernels: dict[str, tuple[str | None, str | None]]  # os -> (kernel, glibc)
    unconfirmed: tuple[str, ...]
    streams: tuple[Stream, ...] = ()
    families: dict[str, tuple[str, ...]] = field(default_factory=dict)  # TheRock GPU family -> its gfx targets
    families_source: str | None = None  # where the families are defined
    family_tags_source: str | None = None  # where image tags are seen naming a family

    def release(self, requested: str) -> Release | None:
        """The column for a version: an exact patch release, or the newest patch of a minor release."""
        for release in self.releases:
            if requested in release.versions:
                return release
        wanted = vtuple(requested)
        if len(wanted) <= 2:
            return next((r for r in self.releases if any(vtuple(v)[:len(wanted)] == wanted for v in r.versions)), None)
        return None

    def stream(self, release: Release) -> Stream | None:
        return next((s for s in self.streams if s.id == release.stream), None)

    def newest_for(self, arch: str) -> Release | None:
        return next((r for r in self.releases if arch in r.gpus), None)

    def url(self, source: str) -> str:
        return self.sources[source].url


def load(path: Path | None = None) -> Matrix:
    path = path or default_rules_dir() / "stack" / "matrix.yaml"
    return _cached(str(path))


@lru_cache(maxsize=4)
def _cached(path: str) -> Matrix:
    """From the JSON twin that scripts/generate_docs.py wrote after checking the YAML (while it is
    the YAML's), else the YAML parsed and checked now."""
    try:
        data = datafile.fresh_twin(Path(path))
    except OSError as exc:
        raise MatrixError(f"{path}: {exc}".splitlines()[0]) from None
    if data is None:  # YAML is imported only here: the twin serves every run of unchanged data
        import yaml

        try:
            data = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except (OSError, yaml.YAMLError) as exc:
            raise MatrixError(f"{path}: {exc}".splitlines()[0]) from None
        check(data, path)
    return _build(data)


def check(data: Any, where: str = "matrix.yaml") -> None:
    """Schema errors and entries whose source is missing or unknown, as one MatrixError."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        spot = "/".join(str(p) for p in err.absolute_path) or "(top)"
        raise MatrixError(f"{where}: {spot}: {err.message}")
    known = set(data["sources"])
    for section in SOURCED:
        for number, entry in enumerate(data[section]):
            if entry.get("source") not in known:
                raise MatrixError(f"{where}: {section}/{number}: source {entry.get('source')!r} is not in sources")
    for number, entry in enumerate(data.get("streams", ())):
        for ref in (entry["source"], entry.get("device_wheels", {}).get("source", entry["source"])):
            if ref not in known:
                raise MatrixError(f"{where}: streams/{number}: source {ref!r} is not in sources")
    families = data.get("gpu_families", {})
    for key in ("source", "tags_source"):
        if families and families[key] not in known:
            raise MatrixError(f"{where}: gpu_families/{key}: source {families[key]!r} is not in sources")
    for name, entry in data["frameworks"].items():
        if entry.get("source") not in known:
            raise MatrixError(f"{where}: frameworks/{name}: source {entry.get('source')!r} is not in sources")


def _build(data: dict[str, Any]) -> Matrix:
    sources = {k: Source(id=k, url=v["url"], read=v["read"], evidence=v.get("evidence", "primary"))
               for k, v in data["sources"].items()}
    releases = tuple(Release(versions=tuple(r["versions"]), os=tuple(r["os"]), gpus=tuple(r["gpus"]),
                             frameworks={k: tuple(v) for k, v in r["frameworks"].items()},
                             source=r["source"], note=r.get("note", ""), stream=r.get("stream", "legacy"))
                     for r in data["releases"])
    packages = {p: name for name, fw in data["frameworks"].items() for p in fw["packages"]}
    return Matrix(
        sources=sources,
        releases=tuple(sorted(releases, key=lambda r: vtuple(r.version), reverse=True)),
        gpu_os=tuple(GpuOs(releases=tuple(g["releases"]), gpus=tuple(g["gpus"]), only=tuple(g.get("os_only", ())),
                           excluded=tuple(g.get("os_except", ())), text=g["text"], source=g["source"])
                     for g in data["gpu_os"]),
        limits=tuple(FrameworkLimit(releases=tuple(x["releases"]), gpus=tuple(x["gpus"]), framework=x["framework"],
                                    versions=tuple(x["versions"]), text=x["text"], source=x["source"])
                     for x in data["framework_limits"]),
        wheels=tuple(Wheel(torch=w["torch"], torchvision=w["torchvision"], torchaudio=w["torchaudio"],
                           rocm=tuple(w["rocm"]), source=w["source"]) for w in data["pytorch_wheels"]),
        wheel_archs=tuple((tuple(a["rocm"]), tuple(a["archs"]), a["source"]) for a in data["pytorch_wheel_archs"]),
        installs=tuple(Install(framework=i["framework"], low=i["rocm"].get("min", "0"), high=i["rocm"].get("max"),
                               line=i["line"], when=i.get("when"), source=i["source"]) for i in data["installs"]),
        packages=packages,
        cuda_packages=frozenset(p for fw in data["frameworks"].values() for p in fw["cuda"]),
        images=tuple(Image(**i) for i in data["images"]),
        kernels={k["os"]: (k["kernel"], k["glibc"]) for k in data["os_kernels"]},
        unconfirmed=tuple(data["unconfirmed"]),
        streams=tuple(Stream(id=x["id"], name=x["name"], low=x["releases"]["min"], high=x["releases"].get("max"),
                             install_dir=x["install_dir"], packages=x["packages"], frameworks=x["frameworks"],
                             device_wheel_line=x.get("device_wheels", {}).get("line"), source=x["source"])
                      for x in data.get("streams", ())),
        families={k: tuple(v) for k, v in data.get("gpu_families", {}).get("families", {}).items()},
        families_source=data.get("gpu_families", {}).get("source"),
        family_tags_source=data.get("gpu_families", {}).get("tags_source"),
    )
