"""Extension twins: two folders side by side, each a Python distribution of its own (a setup.py, rules/workloads/
optional.yaml `torch_extensions.install_scripts`) that declares an extension module for setup(), where the project's
code imports the one and no file imports the other. The project runs on the module it imports; the other is a variant
kept beside it (a CUDA build of the same operation) that a user installs by hand, an optional part with its own class.
sh0416/bpr e66323fe: vsl-extension/cpp/setup.py builds vsl_cpp (CppExtension), which metrics.py imports;
vsl-extension/cuda/setup.py builds vsl_cuda (CUDAExtension, a kernel and its launch), which nothing imports.
Not where a file imports the module (by its name or a dotted name ending in it), and not without such a sibling: an
extension package alone in its folder may be what the repository ships."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.fact_index import of_kind
from migrate.workloads.optional_words import Words


def unimported_twins(facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, str]:
    """Each file of a folder whose setup script builds an extension module no file imports, beside a sibling folder's
    module that the project imports -> the evidence."""
    builds: dict[str, list[str]] = {}  # folder of a setup script below the top -> the modules it builds
    scripts: dict[str, str] = {}
    for path, f in of_kind(facts, "extension"):
        folder = posixpath.dirname(path)
        if f.role == "setup" and f.name and folder and posixpath.basename(path) in known.install_scripts:
            builds.setdefault(folder, []).append(f.name.rsplit(".", 1)[-1])
            scripts[folder] = path
    if len(builds) < 2:
        return {}
    importers: dict[str, list[str]] = {}  # module -> the files importing it
    for path, f in of_kind(facts, "python_import"):
        importers.setdefault(f.name.rsplit(".", 1)[-1], []).append(path)
        importers.setdefault(f.name.split(".", 1)[0], []).append(path)
    for paths in importers.values():
        paths.sort()

    def importer(folder: str, module: str) -> str | None:
        return next((p for p in importers.get(module, ()) if not p.startswith(folder + "/")), None)

    out: dict[str, str] = {}
    for folder, modules in sorted(builds.items()):
        if any(importer(folder, m) is not None for m in modules):
            continue
        parent = posixpath.dirname(folder)
        twin = next(((other, m, user) for other, theirs in sorted(builds.items())
                     if other != folder and posixpath.dirname(other) == parent
                     for m in theirs if (user := importer(other, m)) is not None), None)
        if twin is None:
            continue
        other, module, user = twin
        why = (f"{scripts[folder]} builds {', '.join(modules)}, which no file imports; {scripts[other]} beside it builds "
               f"{module}, which {user} imports: the project runs on that one")
        out.update({p: why for p in facts if p.startswith(folder + "/")})
    return out
