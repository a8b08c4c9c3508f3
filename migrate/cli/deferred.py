"""A standard-library module a lint process names but may never use, run when first used.

`dataclasses` imports `inspect` (with ast, dis, tokenize, linecache: ~38 M instructions, ~8 % of
an edited-file lint) for one call: the signature it writes as the docstring of a class that has
none. Every dataclass on lint's way has a docstring, so a lint of one file never calls it.
`urllib.parse` (pathlib's) imports `ipaddress` (~6 M) to check a bracketed host of a URL; pathlib
names `ntpath` (~2 M, five failed `import nt` among it) for Windows paths, which a lint on POSIX never makes.
`defer(name)` puts the module in sys.modules with its spec and without having run its code; the
first attribute asked of it that it does not hold yet runs the code, in that same module object,
which is from then on the module an import would have made (one object, whoever imported it).
An `import` of it meanwhile finds it in sys.modules, as any imported module (it reads `__spec__`,
which is there). importlib.util.LazyLoader is not used: its module runs on any attribute, `__spec__`
included, so the next `import` statement would run it."""
from __future__ import annotations

import _thread
import sys
from types import ModuleType

_LOCK = _thread.RLock()
_RUNNING: set[str] = set()


class _Deferred(ModuleType):
    """A module whose code has not run: the first attribute it lacks runs it, in this object."""

    def __getattr__(self, attr: str) -> object:
        name = self.__name__
        with _LOCK:  # another thread asking meanwhile waits for the code to have run
            if type(self) is _Deferred and name not in _RUNNING:
                _RUNNING.add(name)
                try:
                    self.__spec__.loader.exec_module(self)  # type: ignore[union-attr]
                    self.__class__ = ModuleType  # type: ignore[assignment]
                except BaseException:
                    if sys.modules.get(name) is self:  # as a failed import: no module left behind
                        del sys.modules[name]
                    raise
                finally:
                    _RUNNING.discard(name)
        if type(self) is _Deferred:  # asked by its own code while it runs: as of a module being imported
            raise AttributeError(f"partially initialized module {name!r} has no attribute {attr!r}")
        return getattr(self, attr)


def defer(*names: str) -> None:
    """Make each name a deferred module unless it is imported already or its loader cannot run it later."""
    import importlib.util

    for name in names:
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            continue
        module = importlib.util.module_from_spec(spec)
        module.__class__ = _Deferred
        sys.modules[name] = module


def pending(name: str) -> bool:
    """Whether `name` is a deferred module whose code has not run (tests, benchmarks)."""
    return type(sys.modules.get(name)) is _Deferred
