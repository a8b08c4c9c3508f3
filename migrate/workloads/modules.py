"""Python modules of a project by dotted name, and the file an import names (light: lint reads it too)."""
from __future__ import annotations

import posixpath
from collections.abc import Iterable


class ModuleIndex:
    """Dotted module names (every suffix of the path, for src/ layouts) -> files."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.modules: dict[str, list[str]] = {}
        for path in paths:
            parts = path[: -len(".py")].split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
            for start in range(len(parts)):
                self.modules.setdefault(".".join(parts[start:]), []).append(path)

    def candidates(self, rel: str, module: str) -> tuple[str, list[str]]:
        """The absolute module name an import in `rel` means, and the files that may be it."""
        if module.startswith("."):
            level = len(module) - len(module.lstrip("."))
            package = posixpath.dirname(rel).split("/")
            package = package[: len(package) - (level - 1)] if level > 1 else package
            module = ".".join([p for p in package if p and p != "."] + [m for m in module.lstrip(".").split(".") if m])
        return module, self.modules.get(module, [])

    def resolve(self, rel: str, module: str) -> str | None:
        """The project file an import in `rel` names, or None: the one whose path is the name from the
        fewest folders up (`ffmlp` is ffmlp/__init__.py before ffmlp/ffmlp.py), then the shortest."""
        name, found = self.candidates(rel, module)
        depth = name.count(".") + 1

        def skipped(path: str) -> int:
            return len(path.split("/")) - (path.endswith("/__init__.py") or path == "__init__.py") - depth

        return min(found, key=lambda p: (skipped(p), len(p)), default=None)
