"""Binary coverage: the gfx targets each prebuilt GPU binary the project pins carries, against the fleet.

A prebuilt wheel or image runs only on the GPUs it was compiled for ("invalid device function" otherwise).
What each binary carries is data (rules/stack/matrix.yaml: `pytorch_wheel_archs` per pytorch.org ROCm
index; a TheRock per-GPU wheel carries the device packs its `device-gfxNNNN` extras name; a rocm/* image whose
tag names a TheRock GPU family carries that family's targets, `gpu_families`)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from migrate.stack.matrix import Matrix, minor
from migrate.stack.pins import Pin, Stack, Where

BinaryKind = Literal["pytorch-wheel", "device-wheel", "image"]
DEVICE_EXTRA = re.compile(r"device-(gfx[0-9a-z]+)")
ROCM_TAG = re.compile(r"^rocm(\d+\.\d+)")
FAMILY_TOKEN = re.compile(r"(?<![0-9A-Za-z])((?:gfx[0-9a-fA-FxX]+(?:-(?:all|dcgpu|dgpu|igpu))?)|(?:dcgpu|dgpu)-all)"
                          r"(?![0-9A-Za-z-])")
GFX_TARGET = re.compile(r"gfx[0-9a-f]+")


@dataclass(frozen=True, slots=True, kw_only=True)
class Binary:
    """One pinned prebuilt binary and the gfx targets it carries (None: not known from the data read)."""

    name: str
    kind: BinaryKind
    carries: tuple[str, ...] | None
    fleet: tuple[str, ...]
    where: Where
    source: str | None

    @property
    def missing(self) -> tuple[str, ...]:
        return () if self.carries is None else tuple(a for a in self.fleet if a not in self.carries)

    def to_json(self) -> dict[str, Any]:
        return {"binary": self.name, "kind": self.kind,
                "carries": list(self.carries) if self.carries is not None else None,
                "fleet": list(self.fleet), "missing": list(self.missing),
                "status": "unknown" if self.carries is None else ("missing" if self.missing else "covered"),
                "path": self.where.path, "line": self.where.line, "source": self.source}


def coverage(matrix: Matrix, stack: Stack, fleet: list[str]) -> tuple[Binary, ...]:
    """Every prebuilt GPU binary the stack pins: torch wheels by ROCm tag or index, TheRock device wheels,
    rocm/* framework images (whose target lists were not read: unknown)."""
    found: list[Binary] = []
    rocm_indexes = [(version, where) for kind, version, where in stack.indexes if kind == "rocm"]
    for pin in stack.pins:
        if pin.package != "torch":
            continue
        devices = DEVICE_EXTRA.findall(pin.spec)
        if devices:
            found.append(Binary(name=pin.spec, kind="device-wheel", carries=tuple(dict.fromkeys(devices)),
                                fleet=tuple(fleet), where=pin.where,
                                source=_stream_source(matrix)))
            continue
        index = _rocm_index(pin, rocm_indexes)
        if index:
            archs, source = _wheel_archs(matrix, index)
            found.append(Binary(name=f"{pin.spec} (download.pytorch.org/whl/rocm{index})", kind="pytorch-wheel",
                                carries=archs, fleet=tuple(fleet), where=pin.where, source=source))
    for image in stack.images:
        if image.rocm and image.framework:
            carries = _image_family(matrix, image.ref)
            found.append(Binary(name=image.ref, kind="image", carries=carries, fleet=tuple(fleet), where=image.where,
                                source=_families_source(matrix) if carries is not None else None))
    return tuple(found)


def _image_family(matrix: Matrix, ref: str) -> tuple[str, ...] | None:
    """The targets of the TheRock GPU family (or the bare gfx target, its own family) an image tag names."""
    tag = ref.rsplit(":", 1)[1] if ":" in ref.rsplit("/", 1)[-1] else ""
    families = {name.lower(): targets for name, targets in matrix.families.items()}  # image refs are lower case
    for token in FAMILY_TOKEN.findall(tag):
        if token.lower() in families:
            return families[token.lower()]
        if GFX_TARGET.fullmatch(token) and matrix.families:
            return (token,)
    return None


def _families_source(matrix: Matrix) -> str | None:
    return matrix.url(matrix.families_source) if matrix.families_source else None


def _rocm_index(pin: Pin, indexes: list[tuple[str, Where]]) -> str | None:
    """The pytorch.org ROCm index a torch pin comes from: its +rocmX.Y tag, else a ROCm index in the tree."""
    m = ROCM_TAG.match(pin.local or "")
    if m:
        return m.group(1)
    return indexes[0][0] if indexes and pin.kind in ("exact", "locked", "range", "unpinned") else None


def _wheel_archs(matrix: Matrix, index: str) -> tuple[tuple[str, ...] | None, str | None]:
    for indexes, archs, source in matrix.wheel_archs:
        if any(minor(i) == minor(index) for i in indexes):
            return archs, matrix.url(source)
    return None, None


def _stream_source(matrix: Matrix) -> str | None:
    core = next((s for s in matrix.streams if s.id == "core-sdk"), None)
    return matrix.url(core.source) if core else None
