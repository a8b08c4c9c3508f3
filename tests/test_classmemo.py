"""A lint process builds the package's frozen slotted dataclasses from the recipes an earlier lint kept
(migrate/cli/classmemo.py): every class it replays is, attribute by attribute, the class dataclasses makes (methods'
code, defaults, closures, qualified names, fields, parameters, slots), instances behave the same (init, repr,
equality, hashing, immutability, pickling, replace), a class edited under the same name is made by dataclasses again,
and a class outside the recipe's shapes never leaves dataclasses. Every process that installs the memo is a
subprocess: the test process keeps dataclasses as it is."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import ROOT

KERNEL = "#include <cuda_runtime.h>\n__global__ void reduce(float* v, int n) {{\n  v[{run}] = v[threadIdx.x];\n}}\n"

# every dataclass of the package's loaded modules, described by what can be compared across processes
DESCRIBE = r'''
import dataclasses, json, re, sys, types

def d(v, depth=0):
    if depth > 6:
        return "deep"
    if isinstance(v, types.FunctionType):
        return ["fn", v.__qualname__, v.__name__, v.__module__, code(v.__code__), d(v.__defaults__, depth + 1),
                d(v.__kwdefaults__, depth + 1), d(v.__annotations__, depth + 1),
                [d(c.cell_contents, depth + 1) for c in (v.__closure__ or ())],
                v.__globals__ is sys.modules[v.__module__].__dict__, d(getattr(v, "__wrapped__", None), depth + 1),
                sorted(k for k in v.__dict__ if k != "__wrapped__"), v.__doc__]
    if isinstance(v, dataclasses.Field):
        return ["field", v.name, v.type, d(v.default, depth + 1), d(v.default_factory, depth + 1), v.init, v.repr,
                v.hash, v.compare, dict(v.metadata), d(v.kw_only), v._field_type.name]
    if isinstance(v, type):
        return ["class", v.__module__, v.__qualname__]
    if isinstance(v, dict):
        return ["dict", [[d(k), d(x, depth + 1)] for k, x in v.items()]]
    if isinstance(v, (tuple, list)):
        return [type(v).__name__, [d(x, depth + 1) for x in v]]
    if type(v).__name__ == "_DataclassParams":
        return ["params", [getattr(v, s) for s in v.__slots__]]
    if isinstance(v, (types.MemberDescriptorType, types.GetSetDescriptorType)):
        return [type(v).__name__, v.__name__, v.__objclass__.__qualname__]
    if isinstance(v, (property, classmethod, staticmethod)):
        return [type(v).__name__, [d(getattr(v, a, None), depth + 1) for a in ("fget", "fset", "fdel", "__func__")]]
    return [type(v).__name__, re.sub("0x[0-9a-f]+", "0x", repr(v))]

def code(c):
    return [c.co_name, c.co_qualname, c.co_filename, c.co_firstlineno, c.co_code.hex(),
            [code(x) if isinstance(x, types.CodeType) else repr(x) for x in c.co_consts], c.co_names, c.co_varnames,
            c.co_freevars, c.co_cellvars, c.co_argcount, c.co_kwonlyargcount, c.co_flags]

def describe_all(prefix):
    out = {}
    for name, mod in sorted(sys.modules.items()):
        if name.startswith(prefix):
            for cls in vars(mod).values():
                if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == name:
                    out[f"{name}.{cls.__qualname__}"] = [cls.__qualname__, cls.__name__,
                                                         [c.__qualname__ for c in cls.__mro__],
                                                         [[k, d(v)] for k, v in cls.__dict__.items()]]
    return out
'''
LINT = DESCRIBE + r'''
sys.argv = ["rocm-migrate"] + sys.argv[1:]
from migrate.cli import entry
try:
    code_ = entry._run(sys.argv[1:])
except SystemExit as exc:
    code_ = exc.code
from migrate.cli import startcache
t = startcache._Table.current
print(json.dumps({"code": code_, "classes": describe_all("migrate"), "stored": len(t.classes),
                  "new": len(t.new_classes)}), file=sys.__stderr__)
'''


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
               PYTHONPYCACHEPREFIX=str(tmp_path / "pycache"), ROCM_MIGRATE_CACHE_DIR=str(tmp_path / "cache"))
    return env


def test_a_replayed_lint_class_is_the_class_dataclasses_makes(tmp_path: Path) -> None:
    """The first lint stores a recipe for each class it can (nothing stored yet: dataclasses made them all), the
    second replays them: every dataclass of the package is described the same, and the lint's output is the same."""
    source = tmp_path / "kernel.cu"
    runs = []
    for n in range(2):
        source.write_text(KERNEL.format(run=n))  # edited: extracted, not replayed from the last run
        done = subprocess.run([sys.executable, "-c", LINT, "lint", str(source)], capture_output=True, text=True,
                              env=_env(tmp_path), cwd=tmp_path, check=False)
        runs.append((done.stdout, json.loads(done.stderr.rstrip("\n").rpartition("\n")[2])))
    (out0, first), (out1, second) = runs
    assert first["stored"] == 0 and first["new"] >= 35
    assert second["stored"] == first["new"] and second["new"] == 0
    assert second["classes"] == first["classes"] and len(first["classes"]) >= 35
    assert out0 == out1 and "HIP4002" in out1 and first["code"] == second["code"] == 1


# a module of dataclasses, made by dataclasses and then replayed by the memo in one process (a recipe stored in a
# dict as the start table stores it), and a few behaviours of their instances compared
SHAPES = r'''
import copy, dataclasses, pickle, sys, types
from migrate.cli import classmemo

TEXT = """
from __future__ import annotations
from dataclasses import dataclass, field

@dataclass(frozen=True, slots=True, kw_only=True)
class Plain:
    'doc'
    name: str
    size: int = 0
    tags: tuple[str, ...] = ()
    extra: dict[str, int] = field(default_factory=dict)
    self_: str | None = None

@dataclass(frozen=True, slots=True)
class Positional:
    'doc'
    a: int
    b: str = "x"
    def __str__(self) -> str:
        return self.b

@dataclass(frozen=True, slots=True)
class OwnHash:
    'doc'
    a: int
    def __hash__(self) -> int:
        return 7

@dataclass(slots=True)
class Mutable:
    'doc'
    a: int
    b: list[int] = field(default_factory=list)

@dataclass(frozen=True, slots=True)
class Empty:
    'doc'

@dataclass(frozen=True)
class NoSlots:
    'doc'
    a: int

@dataclass(frozen=True, slots=True)
class NoDoc:
    a: int
"""
EDITED = TEXT.replace("size: int = 0", "size: int = 0\n    more: int = 1")
stored, new, sources = {}, {}, {}

def load(text, name):
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(text, name + ".py", "exec"), module.__dict__)
    return module

def behaviour(m):
    p = m.Plain(name="n", size=2, tags=("t",))
    q = m.Positional(1)
    r = m.Mutable(1)
    r.a = 2
    out = [repr(p), p == m.Plain(name="n", size=2, tags=("t",)), hash(q) == hash(m.Positional(1)),
           repr(q), str(q), hash(m.OwnHash(3)), repr(r), r.b, m.Positional.__match_args__, m.Plain.__match_args__,
           pickle.loads(pickle.dumps(p)) == p, repr(dataclasses.replace(p, size=5)), repr(copy.copy(q)),
           [f.name for f in dataclasses.fields(m.Plain)], m.Plain.__slots__, hasattr(p, "__dict__"),
           repr(m.Empty()), m.Empty() == m.Empty(), m.Empty.__slots__]
    for attempt in (lambda: setattr(p, "name", "x"), lambda: delattr(p, "name"), lambda: m.Plain(name="n", nope=1),
                    lambda: setattr(p, "other", 1), lambda: hash(r), lambda: hash(p)):
        try:
            attempt()
            out.append("no error")
        except Exception as exc:
            out.append(type(exc).__name__ + ": " + str(exc))
    return out

plain = describe_all("shapes") if load(TEXT, "shapes") else None  # dataclasses alone
assert classmemo.install(stored, new, sources)
made = load(TEXT, "shapes")
real = describe_all("shapes")
assert real == plain  # recorded: dataclasses' own processing, watched
first = behaviour(made)  # pickling finds a class by its module's name: before the module is loaded again
recorded = sorted(k[1] for k in new)
stored.update(new)
new.clear()
again = load(TEXT, "shapes")
replayed = describe_all("shapes")
assert sorted(k[1] for k in new) == [], new  # every recipe matched: nothing recorded again

second = behaviour(again)
edited = load(EDITED, "shapes")
rerecorded = sorted(k[1] for k in new)
print(json.dumps({"recorded": recorded, "same": real == replayed, "behaviour": first == second,
                  "first": first, "edited": rerecorded, "more": edited.Plain(name="n").more}))
'''


def test_the_memo_replays_only_the_shapes_it_keeps_and_an_edited_class_is_made_again(tmp_path: Path) -> None:
    """Frozen and mutable slotted classes, keyword-only or positional, defaults, a default factory, an own __hash__ or
    __str__ are recorded and replayed the same (described alike, instances alike); a class without slots or without
    a docstring is left to dataclasses; a class edited under its name (a field added) is made by dataclasses again."""
    done = subprocess.run([sys.executable, "-c", "import json\n" + DESCRIBE + SHAPES], capture_output=True, text=True,
                          env=_env(tmp_path), cwd=tmp_path, check=True)
    said = json.loads(done.stdout)
    assert said["recorded"] == ["Empty", "Mutable", "OwnHash", "Plain", "Positional"]  # not NoSlots, NoDoc
    assert said["same"] and said["behaviour"]
    assert "FrozenInstanceError: cannot assign to field 'name'" in said["first"]
    assert said["edited"] == ["Plain"] and said["more"] == 1  # only Plain changed: recorded again, with its new field


FAILING_INPUTS = r'''
import dataclasses, json, sys
from migrate.cli import classmemo

def broken(cls, params):
    raise RuntimeError("a class shape inputs() did not foresee")

classmemo.inputs = broken
new = {}
installed = classmemo.install({}, new, {})

@dataclasses.dataclass(frozen=True, slots=True)
class Point:
    """A point."""
    x: int
    y: int = 2

p = Point(1)
print(json.dumps({"installed": installed, "repr": repr(p), "fields": [f.name for f in dataclasses.fields(Point)],
                  "recorded": len(new)}))
'''


def test_a_class_whose_inputs_cannot_be_read_is_made_by_dataclasses(tmp_path: Path) -> None:
    """An error while the memo works out a class's key is no error of the class statement: dataclasses makes the
    class, and no recipe is kept for it."""
    done = subprocess.run([sys.executable, "-c", FAILING_INPUTS], capture_output=True, text=True, env=_env(tmp_path),
                          cwd=tmp_path, check=True)
    said = json.loads(done.stdout)
    if not said["installed"]:
        pytest.skip("the memo follows another CPython release's dataclasses")
    assert said["repr"].endswith("Point(x=1, y=2)") and said["fields"] == ["x", "y"] and said["recorded"] == 0


PRUNING = r'''
import builtins, dataclasses, json, sys, types
from migrate.cli import classmemo

TEXT = """
from __future__ import annotations
from dataclasses import dataclass

@dataclass(frozen=True, slots=True)
class Kept:
    'doc'
    a: int
    b: str = "x"

@dataclass(frozen=True)
class NowUnslotted:
    'doc'
    a: int
"""
compiled: dict[str, int] = {}
real_compile = builtins.compile

def counting(source, *args, **kwargs):
    if type(source) is str and "__create_fn__" in source:
        compiled[source] = compiled.get(source, 0) + 1
    return real_compile(source, *args, **kwargs)

builtins.compile = counting
old = ("another shape", ())
stored = {("shapes", "NowUnslotted"): old, ("shapes", "Gone"): old, ("migrate.no_such_module", "X"): old,
          ("migrate.render.sarif_report", "Unread"): old}
new, stale = {}, set()
assert classmemo.install(stored, new, {}, stale=stale)
module = types.ModuleType("shapes")
sys.modules["shapes"] = module
exec(real_compile(TEXT, "shapes.py", "exec"), module.__dict__)
assert "migrate.render.sarif_report" not in sys.modules
print(json.dumps({"kept": sorted(map(list, classmemo.kept({**stored, **new}, stale - new.keys()))),
                  "most_compiles": max(compiled.values()), "texts": len(compiled)}))
'''


def test_a_recording_compiles_each_text_once_and_recipes_of_changed_or_gone_classes_are_dropped(tmp_path: Path) -> None:
    """A recorded method text is compiled once (the code that ran is the recipe's). The table keeps no recipe of a
    class made here in another shape (now unslotted: dataclasses makes it), of a class its loaded module no longer
    has, nor of a module whose file is gone; a recipe of a module this process did not load stays (near miss), and so
    does this process's own. So the table stays bounded by the package's classes across code changes."""
    from migrate.cli import classmemo

    if sys.version_info[:2] != classmemo.SUPPORTED:  # not on a failed install(): that is this test's failure to show
        pytest.skip("the memo follows another CPython release's dataclasses")
    done = subprocess.run([sys.executable, "-c", PRUNING], capture_output=True, text=True, env=_env(tmp_path),
                          cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["kept"] == [["migrate.render.sarif_report", "Unread"], ["shapes", "Kept"]]
    assert said["texts"] >= 3 and said["most_compiles"] == 1
