"""What the stack check found: per target (ROCm release x GPU) verdicts, and the stack they judge."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from migrate.stack.pins import Where


@dataclass(frozen=True, slots=True, kw_only=True)
class GpuVerdict:
    arch: str
    status: str  # supported | other-release | unlisted
    os: tuple[str, ...]  # the systems the release supports for this GPU
    limits: str  # AMD's footnote narrowing the systems, if any
    newest: str | None  # the newest release that supports the GPU
    sources: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"arch": self.arch, "status": self.status, "os": list(self.os), "limits": self.limits or None,
                "newest_release": self.newest, "sources": list(self.sources)}


@dataclass(frozen=True, slots=True, kw_only=True)
class FrameworkVerdict:
    framework: str
    package: str
    pinned: str | None  # the pinned version, or the spec when it is not exact
    pin_kind: str  # exact | locked | range | unpinned | variable
    status: str  # ok | bump | floating | route | unsupported
    supported: tuple[str, ...]  # what the release lists for the framework
    nearest: str | None  # the version to pin for this target
    install: str | None
    image: str | None
    other_releases: tuple[str, ...]  # releases that support the pinned version on this GPU
    note: str
    where: Where
    sources: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"framework": self.framework, "package": self.package, "pinned": self.pinned,
                "pin_kind": self.pin_kind, "status": self.status, "supported": list(self.supported),
                "nearest": self.nearest, "install": self.install, "image": self.image,
                "other_releases": list(self.other_releases), "note": self.note or None,
                "path": self.where.path, "line": self.where.line, "sources": list(self.sources)}


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """An unsupported combination, to become a finding of `rule` at `where`."""

    rule: str
    arch: str
    symbol: str
    message: str
    where: Where


@dataclass(frozen=True, slots=True, kw_only=True)
class StackTarget:
    rocm: str  # as requested
    release: str | None  # the matrix column it resolved to
    arch: str
    gpu: GpuVerdict
    frameworks: tuple[FrameworkVerdict, ...]
    base_image: str | None  # a rocm/dev image for the release
    images_os: tuple[tuple[str, str, bool], ...]  # (image, its OS, whether the release supports that OS here)
    problems: tuple[Problem, ...]
    migration_class: str

    def to_json(self) -> dict[str, Any]:
        return {"rocm": self.rocm, "release": self.release, "arch": self.arch, "class": self.migration_class,
                "gpu": self.gpu.to_json(), "frameworks": [f.to_json() for f in self.frameworks],
                "base_image": self.base_image,
                "images_os": [{"image": i, "os": o, "supported": ok} for i, o, ok in self.images_os],
                "problems": [p.rule for p in self.problems]}


@dataclass(frozen=True, slots=True, kw_only=True)
class StackReport:
    pins: tuple[dict[str, Any], ...]  # framework pins as found: package, spec, kind, path, line
    images: tuple[dict[str, Any], ...]
    python: tuple[dict[str, Any], ...]
    cuda: tuple[str, ...]
    rocm_pinned: bool
    floating: tuple[dict[str, Any], ...]
    no_rocm_build: tuple[dict[str, Any], ...]
    targets: tuple[StackTarget, ...]
    notes: tuple[str, ...]
    binaries: tuple[dict[str, Any], ...] = ()  # each pinned prebuilt GPU binary: the gfx targets it carries vs the fleet
    capabilities: tuple[dict[str, Any], ...] = ()  # each capability check and what it sees on every target

    def to_json(self) -> dict[str, Any]:
        return {"pins": list(self.pins), "images": list(self.images), "python": list(self.python),
                "cuda": list(self.cuda), "rocm_pinned": self.rocm_pinned, "floating": list(self.floating),
                "no_rocm_build": list(self.no_rocm_build), "targets": [t.to_json() for t in self.targets],
                "binaries": list(self.binaries), "capabilities": list(self.capabilities), "notes": list(self.notes)}
