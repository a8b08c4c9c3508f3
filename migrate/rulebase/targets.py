"""GPU targets as data (rules/targets/gpus.yaml): what each architecture is, for target-aware rules."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from migrate.rulebase import datafile
from migrate.rulebase.load import default_rules_dir, version_tuple

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any


class TargetError(Exception):
    """An unknown architecture or ROCm version; str() is one line."""


@dataclass(frozen=True, slots=True)
class Arch:
    """One GPU architecture of rules/targets/gpus.yaml and its properties."""

    name: str
    products: str
    family: str
    wave_size: int
    lds_bytes: int
    fp8: str
    tf32: str
    matrix: tuple[str, ...]
    since_rocm: str | None = None

    def satisfies(self, conditions: Mapping[str, Any]) -> bool:
        """Every condition holds: a value, or a list of accepted values."""
        for key, wanted in conditions.items():
            value = getattr(self, key)
            if value not in (wanted if isinstance(wanted, list) else [wanted]):
                return False
        return True


@dataclass(frozen=True, slots=True)
class Catalogue:
    """The targets data: default ROCm release and architectures, the releases and architectures known."""

    default_rocm: str
    default_arch: tuple[str, ...]
    rocm_releases: tuple[str, ...]
    architectures: dict[str, Arch]

    def check_release(self, rocm: str) -> None:
        """A ROCm release the catalogue knows (major.minor), or one older than all of them."""
        try:
            wanted = version_tuple(rocm)[:2]
        except ValueError:
            raise TargetError(f"--rocm takes a version such as {self.default_rocm}, not {rocm!r}") from None
        known = [version_tuple(r)[:2] for r in self.rocm_releases]
        if wanted not in known and wanted > min(known):
            raise TargetError(f"unknown ROCm release {rocm!r} (known: {', '.join(self.rocm_releases)})")

    def resolve(self, arch: tuple[str, ...], rocm: str) -> tuple[Arch, ...]:
        unknown = [a for a in arch if a not in self.architectures]
        if unknown:
            raise TargetError(f"unknown GPU architecture {unknown[0]!r} (known: {', '.join(self.architectures)})")
        try:
            version_tuple(rocm)
        except ValueError:
            raise TargetError(f"--rocm takes a version such as {self.default_rocm}, not {rocm!r}") from None
        return tuple(self.architectures[a] for a in arch)


@lru_cache(maxsize=4)
def load(path: Path | None = None) -> Catalogue:
    data = datafile.read(path or default_rules_dir() / "targets" / "gpus.yaml")
    archs = {name: Arch(name=name, matrix=tuple(spec.pop("matrix", ())), **spec)
             for name, spec in data["architectures"].items()}
    return Catalogue(default_rocm=data["default_rocm"], default_arch=tuple(data["default_arch"]),
                     rocm_releases=tuple(data["rocm_releases"]), architectures=archs)
