"""What `dataclasses` works out for each of the package's slotted dataclasses, kept from one lint process to
the next in the start table (cli/startcache.py), so that a lint builds those classes without working it out again.

dataclasses decides, for every class at every start, which fields a class has (three string-annotation checks a
field against ClassVar, InitVar and KW_ONLY), which methods it gets, writes each method's text, and then makes the
class a second time with `__slots__`: ~0.7 M instructions a class, ~40 classes on an edited-file lint's way (~25 M
of its ~250 M; the method texts were already compiled from the table). What it decides depends only on the class's
own namespace (its keys in order, its annotations, which of its values are defaults or `field(default_factory=...)`),
the decorator's arguments, and whether the class's module binds one of the markers the string checks look for.

- `record`: the class is processed by dataclasses itself, with its `_create_fn`, `_add_slots` and `exec` watched:
  for each method, the code of the text dataclasses executed (compiled as `exec` compiles it) and where each local of
  its `__create_fn__` came from (a field's type, its default or factory, the class, a constant of dataclasses), and
  how the namespace handed to the slotted class was made (each key: the class's own value, a made method, the
  fields, the parameters, or a constant). A class whose processing shows anything else is not kept. A text a recipe
  keeps the code of leaves the start table's new texts (a replaying lint never asks for it).
- `replay`: for a class whose key (module, qualified name) holds a recipe made for the same inputs (`inputs`), the
  Field objects are made as `_get_field` makes them, each method as `_create_fn` makes it once it has compiled its
  text (the code executed in the module's namespace, `__create_fn__` called with the same locals), wrapped, named and
  placed as dataclasses places them, and the slotted class made by the same `type(...)` call, with the same qualified
  name, `__getstate__`/`__setstate__` and `abc.update_abstractmethods`. The class, its fields, methods, slots, repr,
  equality, hashing, pickling and immutability are what dataclasses makes. The one difference: the first, slotless
  class (which dataclasses throws away, and which a frozen class's `__setattr__` still names, as `super(cls, self)`)
  is not given the methods and fields a second time.
- Only what the recipe covers is replayed: `slots=True`, no `order`, `unsafe_hash` or `weakref_slot`, no base but
  object, no metaclass, a docstring, every annotation a string, no field name in dunder form, defaults hashable,
  `field()` only as `field(default_factory=...)`, the class's module in sys.modules and binding none of InitVar,
  KW_ONLY or (where typing is imported) ClassVar. Anything else goes to dataclasses as before.
- CPython 3.11 only (the release whose dataclasses this follows; the start table is keyed by the interpreter)."""
from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing is not imported on lint's way in
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Recipe = tuple[Any, ...]  # (the method calls, the namespace plan, the slots)

SUPPORTED = (3, 11)
VERSION = 1  # of the recipe's shape: a recipe another version of this module stored is never replayed
CONSTANTS = ("MISSING", "_HAS_DEFAULT_FACTORY", "FrozenInstanceError")  # dataclasses' names a method's locals hold


def install(classes: dict[object, Any], new: dict[object, Any], new_sources: dict[object, Any], *,
            code_of: Callable[[str], Any] | None = None, stale: set[object] | None = None) -> bool:
    """Route dataclasses' class processing through the memo: `classes` holds the stored recipes by (module,
    qualified name), `new` receives this process's; a method text a recipe keeps the code of leaves `new_sources`
    (the start table's new texts: what a replayed class never asks for again is not stored twice). `code_of`: the
    start table's compiler of a method text (served from the table where it holds the code), `stale` receives the
    names of stored recipes this process found made for another shape of their class (see `kept`). False (nothing
    changed) where this is not the release followed."""
    if sys.version_info[:2] != SUPPORTED:
        return False
    import dataclasses as dc

    # every name of dataclasses this module reads: without one, inputs() or replay() would fail outside their fallback
    needed = ("_process_class", "_create_fn", "_add_slots", "_recursive_repr", "_DataclassParams", "_FIELD", "Field",
              "field", "_dataclass_getstate", "_dataclass_setstate", "_EMPTY_METADATA", "InitVar", "KW_ONLY", *CONSTANTS)
    if not all(hasattr(dc, name) for name in needed):
        return False
    original = dc._process_class  # type: ignore[attr-defined]

    def process(cls: Any, init: bool, repr: bool, eq: bool, order: bool, unsafe_hash: bool, frozen: bool,
                match_args: bool, kw_only: bool, slots: bool, weakref_slot: bool) -> Any:
        params = (init, repr, eq, order, unsafe_hash, frozen, match_args, kw_only, slots, weakref_slot)
        try:
            key = inputs(cls, params)
        except Exception:  # a class shape inputs() did not foresee: dataclasses makes it, and nothing is recorded
            key = None
        name = (cls.__module__, cls.__qualname__)
        stored = classes.get(name)
        if stored is not None and stale is not None:
            stale.add(name)  # until it is replayed below: a class now of another shape, or one left to dataclasses
        if key is None:
            return original(cls, *params)
        if stored is not None and stored[0] == key:
            try:
                made = replay(cls, params, stored[1])
                if stale is not None:
                    stale.discard(name)
                return made
            except Exception:  # a recipe this code cannot read: dataclasses makes the class (whatever replay set
                pass  # on the class's Field objects, _get_field sets again to the same values)
        made, recipe, texts = record(original, cls, params, code_of)
        if recipe is not None:
            new[name] = (key, recipe)
            for text in texts:
                new_sources.pop(text, None)
        return made

    dc._process_class = process  # type: ignore[attr-defined]
    return True


def kept(classes: dict[object, Any], stale: set[object]) -> dict[object, Any]:
    """The recipes worth storing again: none `stale` (its class, made in this process, now has another shape or is
    left to dataclasses), none of a class that is gone (its module, loaded in this process, has no class of that
    qualified name; or its module's file is gone from its package). A recipe of a module this process did not load is
    kept while the file is there. So the table holds no more recipes than the package has classes, whatever the
    edits between lints."""
    return {name: recipe for name, recipe in classes.items() if name not in stale and _exists(name)}


def _exists(name: object) -> bool:
    if type(name) is not tuple or len(name) != 2 or type(name[0]) is not str or type(name[1]) is not str:
        return False
    module_name, qualname = name
    module = sys.modules.get(module_name)
    if module is None:
        return _module_file(module_name)
    if "<locals>" in qualname:
        return True  # a class made in a function: not reachable from its module, so not told gone
    found: Any = module
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return isinstance(found, type)


def _module_file(module_name: str) -> bool:
    """Whether the source of a module of a loaded package is there (a package not loaded: not told, so True)."""
    import os

    top, _, rest = module_name.partition(".")
    package = sys.modules.get(top)
    folders = getattr(package, "__path__", None)
    if package is None or not rest or folders is None:
        return True
    parts = rest.split(".")
    return any(os.path.isfile(os.path.join(folder, *parts) + ".py")
               or os.path.isfile(os.path.join(folder, *parts, "__init__.py")) for folder in folders)


def inputs(cls: Any, params: tuple[bool, ...]) -> tuple[object, ...] | None:
    """What dataclasses' decisions about `cls` depend on, as a marshal-able key; None for a class the memo leaves to
    dataclasses."""
    import dataclasses as dc

    order, unsafe_hash, slots, weakref_slot = params[3], params[4], params[8], params[9]
    if not slots or order or unsafe_hash or weakref_slot or type(cls) is not type or cls.__bases__ != (object,):
        return None
    module = sys.modules.get(cls.__module__)
    namespace = cls.__dict__
    annotations = namespace.get("__annotations__", {})
    if module is None or not namespace.get("__doc__") or "__slots__" in namespace or type(annotations) is not dict:
        return None
    shape: list[object] = []
    for name, value in namespace.items():
        if name in annotations:
            if isinstance(value, dc.Field):
                if type(value) is not dc.Field or not _plain_factory(value):
                    return None
                shape.append((name, "factory"))
            else:
                shape.append((name, "default"))
        elif isinstance(value, dc.Field):
            return None  # dataclasses raises: a field without an annotation
        else:
            shape.append((name, "hash", value is None) if name == "__hash__" else name)
    fields: list[object] = []
    for name, annotation in annotations.items():
        if type(annotation) is not str or type(name) is not str or name.startswith("__"):
            return None
        value = namespace.get(name, dc.MISSING)
        if type(value) is not dc.Field and value is not dc.MISSING and value.__class__.__hash__ is None:
            return None  # dataclasses raises: a mutable default
        fields.append((name, annotation))
    if _binds_a_marker(module.__dict__):
        return None
    return (VERSION, cls.__module__, cls.__qualname__, cls.__name__, params, tuple(shape), tuple(fields))


def _plain_factory(field: Any) -> bool:
    """A class-body `field(default_factory=...)` and nothing else."""
    import dataclasses as dc

    return (field.default is dc.MISSING and field.default_factory is not dc.MISSING and field.init is True
            and field.repr is True and field.hash is None and field.compare is True
            and field.metadata is dc._EMPTY_METADATA and field.kw_only is dc.MISSING  # type: ignore[attr-defined]
            and field.name is None and field.type is None)


def _binds_a_marker(scope: dict[str, Any]) -> bool:
    """Whether the module binds a value dataclasses' string checks would take for InitVar, KW_ONLY or ClassVar: every
    one of those checks looks a name up in the class's module and tests what it finds."""
    import dataclasses as dc

    typing = sys.modules.get("typing")
    class_var = getattr(typing, "ClassVar", None) if typing is not None else None
    alias = getattr(typing, "_GenericAlias", None) if typing is not None else None
    for value in scope.values():
        if value is dc.InitVar or type(value) is dc.InitVar or value is dc.KW_ONLY:
            return True
        if typing is not None and (value is class_var or (type(value) is alias and value.__origin__ is class_var)):
            return True
    return False


def record(original: Callable[..., Any], cls: Any, params: tuple[bool, ...],
           code_of: Callable[[str], Any] | None = None) -> tuple[Any, Recipe | None, list[str]]:
    """The class dataclasses makes, the recipe that makes it again (None where its processing showed something
    the recipe cannot say), and the method texts dataclasses compiled for it. Each text is compiled once (by
    `code_of` where given, as `exec` compiles it otherwise): the recipe keeps the code that ran."""
    import dataclasses as dc

    before = dict(cls.__dict__)
    made_fns: list[tuple[object, Any]] = []  # (the call as a recipe or None, the function made)
    namespace: list[tuple[str, Any]] = []
    texts: list[str] = []
    codes: list[Any] = []
    create_fn, add_slots = dc._create_fn, dc._add_slots  # type: ignore[attr-defined]
    run = dc.__dict__.get("exec")  # the start table's hook, where one is installed

    def watched_exec(source: Any, globals_: Any = None, locals_: Any = None) -> None:
        if type(source) is not str:
            exec(source, globals_, locals_)
            return
        # as dataclasses' own `exec` of a text compiles it: no future flag of this module's
        code = compile(source, "<string>", "exec", dont_inherit=True) if code_of is None else code_of(source)
        texts.append(source)
        codes.append(code)
        exec(code, globals_, locals_)

    def watched_create(name: str, args: Any, body: Any, *, globals: Any = None, locals: Any = None,
                       return_type: Any = dc.MISSING) -> Any:
        spec = _locals(cls, globals, locals, return_type)
        seen = len(texts)
        fn = create_fn(name, args, body, globals=globals, locals=locals, return_type=return_type)
        call = None
        if spec is not None and len(texts) == seen + 1:  # one text, compiled as exec compiles it
            call = (codes[-1], spec, return_type is None)
        made_fns.append((call, fn))
        return fn

    def watched_slots(target: Any, is_frozen: bool, weakref_slot: bool) -> Any:
        namespace.extend(target.__dict__.items())
        return add_slots(target, is_frozen, weakref_slot)

    dc._create_fn, dc._add_slots, dc.exec = watched_create, watched_slots, watched_exec  # type: ignore[attr-defined]
    try:
        made = original(cls, *params)
    finally:
        dc._create_fn, dc._add_slots = create_fn, add_slots  # type: ignore[attr-defined]
        if run is None:
            del dc.exec  # type: ignore[attr-defined]
        else:
            dc.exec = run  # type: ignore[attr-defined]
    return made, _recipe(cls, made, before, namespace, made_fns), texts


def _locals(cls: Any, globals_: Any, locals_: Any, return_type: Any) -> tuple[tuple[str, str, str], ...] | None:
    """A `_create_fn` call's locals, each named by where it comes from; None where one cannot be, or where the
    method is not made in the class's module's namespace."""
    import dataclasses as dc

    module = sys.modules.get(cls.__module__)
    if module is None or globals_ is not module.__dict__ or not (return_type is dc.MISSING or return_type is None):
        return None
    fields = cls.__dict__.get("__dataclass_fields__", {})
    spec: list[tuple[str, str, str]] = []
    for local, value in (locals_ or {}).items():
        field = fields.get(local[len("_type_"):]) if local.startswith("_type_") else None
        default = fields.get(local[len("_dflt_"):]) if local.startswith("_dflt_") else None
        if field is not None and value is field.type:
            spec.append((local, "type", field.name))
        elif default is not None and value is (default.default if default.default_factory is dc.MISSING
                                                else default.default_factory):
            spec.append((local, "default", default.name))
        elif local == "__dataclass_builtins_object__" and value is object:
            spec.append((local, "object", ""))
        elif local == "cls" and value is cls:
            spec.append((local, "cls", ""))
        elif local in CONSTANTS and value is getattr(dc, local):
            spec.append((local, "constant", local))
        else:
            return None
    return tuple(spec)


def _recipe(cls: Any, made: Any, before: dict[str, Any], namespace: list[tuple[str, Any]],
            made_fns: list[tuple[object, Any]]) -> Recipe | None:
    """The calls and the slotted class's namespace, each value by its origin; None where one has another."""
    import dataclasses as dc

    fields = made.__dict__.get("__dataclass_fields__")
    if not namespace or type(fields) is not dict or made is cls:
        return None
    dropped = {*fields, "__dict__", "__weakref__"}
    calls: list[object] = []
    plan: list[tuple[str, str, object]] = []
    for name, value in namespace:
        if name in dropped:
            continue
        if name in before and value is before[name]:
            plan.append((name, "own", None))
        elif name == "__dataclass_fields__" and value is fields:
            plan.append((name, "fields", None))
        elif name == "__dataclass_params__" and type(value) is dc._DataclassParams:  # type: ignore[attr-defined]
            plan.append((name, "params", None))
        elif name == "__match_args__" and type(value) is tuple and all(type(n) is str for n in value):
            plan.append((name, "value", value))
        elif name == "__hash__" and value is None:
            plan.append((name, "value", None))
        else:
            wrapped = name == "__repr__" and hasattr(value, "__wrapped__")
            fn = value.__wrapped__ if wrapped else value
            call = next((c for c, f in made_fns if f is fn), None)
            if call is None or getattr(value, "__qualname__", None) != f"{cls.__qualname__}.{name}" or fn.__name__ != name:
                return None
            calls.append(call)
            plan.append((name, "repr" if wrapped else "method", len(calls) - 1))
    slots = made.__dict__.get("__slots__")
    if type(slots) is not tuple or slots != tuple(fields) or made.__qualname__ != cls.__qualname__:
        return None
    return (tuple(calls), tuple(plan), slots)


def replay(cls: Any, params: tuple[bool, ...], recipe: Recipe) -> Any:
    """The class dataclasses makes of `cls` with these parameters, made from the recipe (see the module's text)."""
    import abc
    import dataclasses as dc

    init, repr_, eq, order, unsafe_hash, frozen, kw_only = params[:6] + params[7:8]
    calls, plan, slot_names = recipe
    namespace = cls.__dict__
    fields: dict[str, Any] = {}
    missing, field_type = dc.MISSING, dc._FIELD  # type: ignore[attr-defined]
    for name, annotation in namespace.get("__annotations__", {}).items():
        value = namespace.get(name, missing)
        field: Any = value if type(value) is dc.Field else dc.field(default=value)
        field.name = name
        field.type = annotation
        field._field_type = field_type
        if field.kw_only is missing:
            field.kw_only = kw_only
        fields[name] = field
    scope = sys.modules[cls.__module__].__dict__
    made_fns = []
    for code, spec, returns_none in calls:  # what dataclasses._create_fn does once it has compiled its text
        local: dict[str, Any] = {}
        for key, origin, what in spec:
            if origin == "type":
                local[key] = fields[what].type
            elif origin == "default":
                named = fields[what]
                local[key] = named.default if named.default_factory is missing else named.default_factory
            elif origin == "object":
                local[key] = object
            elif origin == "cls":
                local[key] = cls
            else:
                local[key] = getattr(dc, what)
        if returns_none:
            local["_return_type"] = None
        made_scope: dict[str, Any] = {}
        exec(code, scope, made_scope)
        made_fns.append(made_scope["__create_fn__"](**local))
    qualname = cls.__qualname__
    made: dict[str, Any] = {}
    for name, origin, what in plan:
        if origin == "own":
            made[name] = namespace[name]
        elif origin == "fields":
            made[name] = fields
        elif origin == "params":
            made[name] = dc._DataclassParams(init, repr_, eq, order, unsafe_hash, frozen)  # type: ignore[attr-defined]
        elif origin == "value":
            made[name] = what
        else:
            fn = made_fns[what]
            if origin == "repr":
                fn = dc._recursive_repr(fn)  # type: ignore[attr-defined]
            fn.__qualname__ = f"{qualname}.{fn.__name__}"
            made[name] = fn
    made["__slots__"] = slot_names
    new = type(cls)(cls.__name__, cls.__bases__, made)
    new.__qualname__ = qualname
    if frozen:
        if "__getstate__" not in made:
            new.__getstate__ = dc._dataclass_getstate  # type: ignore[attr-defined]
        if "__setstate__" not in made:
            new.__setstate__ = dc._dataclass_setstate  # type: ignore[attr-defined]
    abc.update_abstractmethods(new)
    return new
