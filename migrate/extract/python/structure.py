"""Workload structure seen in Python: distributions, extension modules and their sources."""
from __future__ import annotations

import ast
import copy
import re
from functools import cache
from typing import TYPE_CHECKING

from migrate.extract.names import name_list

if TYPE_CHECKING:
    from migrate.extract.python.extractor import _Visitor

SETUP_CALLS = name_list("python", "setup_calls")
# an extension declaration and how it is built: by setup() or when the program runs
EXTENSION_CALLS = {**dict.fromkeys(name_list("python", "extension_setup_calls"), "setup"),
                   **dict.fromkeys(name_list("python", "extension_jit_calls"), "jit")}
SETUP_NAMED = name_list("python", "extensions_named_by_setup")
PATH_JOINS = frozenset({"os.path.join", "pathlib.Path", "posixpath.join"})
RUNNERS = frozenset({"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
                     "subprocess.Popen"})


def on_call(visitor: _Visitor, node: ast.Call, name: str | None) -> None:
    _link_arguments(visitor, node, name)
    _runs_nvcc(visitor, node, name)
    _structure(visitor, node, name)


def _link_arguments(visitor: _Visitor, node: ast.Call, name: str | None) -> None:
    """Extension(libraries=["cudart"], extra_link_args=["-lcublasLt"]): CUDA libraries linked by name."""
    if EXTENSION_CALLS.get(name or "") != "setup":
        return
    for keyword in node.keywords:
        values = keyword.value.elts if isinstance(keyword.value, (ast.List, ast.Tuple)) else []
        for value in values:
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                continue
            if keyword.arg == "libraries":
                visitor.add("flag", f"-l{value.value}", value, text=value.value)
            elif keyword.arg == "extra_link_args" and value.value.startswith("-l"):
                visitor.add("flag", value.value, value, text=value.value)


def _runs_nvcc(visitor: _Visitor, node: ast.Call, name: str | None) -> None:
    """subprocess.run(["nvcc", ...]) builds with nvcc."""
    if name not in RUNNERS or not node.args or not isinstance(node.args[0], (ast.List, ast.Tuple)):
        return
    first = node.args[0].elts[0] if node.args[0].elts else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.rsplit("/", 1)[-1] == "nvcc":
        visitor.add("flag", "nvcc", first, text=first.value)


def _structure(visitor: _Visitor, node: ast.Call, name: str | None) -> None:
    if name in SETUP_CALLS:
        dist = _argument(node, None, "name")
        if isinstance(dist, ast.Constant) and isinstance(dist.value, str):
            visitor.add("distribution", dist.value, node)
            modules = _argument(node, None, "ext_modules")  # Paddle: the extension setup() names (visited next)
            for item in modules.elts if isinstance(modules, (ast.List, ast.Tuple)) else [modules]:
                if isinstance(item, ast.Call):
                    visitor.setup_named[id(item)] = dist.value
    if name not in EXTENSION_CALLS and isinstance(node.func, ast.Name):  # extension = CUDAExtension; extension(...)
        name = next((v for v in sorted(visitor.assigned.get(node.func.id, ())) if v in EXTENSION_CALLS), name)
    if name in ("glob.glob", "glob.iglob") and node.args and (pattern := _path(visitor, node.args[0])):
        visitor.globbed.append(pattern)
    role = EXTENSION_CALLS.get(name or "")
    if role is None:
        return
    named = name in SETUP_NAMED  # no name of its own: setup()'s, else its sources' folder's (assemble.py)
    module = None if named else _argument(node, 0, "name")
    if named:
        label = visitor.setup_named.get(id(node), "").rsplit(".", 1)[-1]
    elif isinstance(module, ast.Constant) and isinstance(module.value, str):
        label = module.value.rsplit(".", 1)[-1]
    elif module is not None:
        label = ""  # CUDAExtension(pkg_name, ...), load(name=ext_name, ...): named by its sources' folder (assemble.py)
    else:
        return
    sources = _argument(node, 0 if named else 1, "sources") if role == "setup" or (name or "").endswith(".load") else None
    paths = [p for p in (_path(visitor, e) for e in _elements(visitor, sources)) if p]
    if role == "setup" and sources is not None and not any(p.endswith(".cu") for p in paths):
        # `sources = [main_source] + sources`, `[join(extensions_dir, s) for s in sources]` after globs
        # (maskrcnn-benchmark's setup.py, copied by detectron2, Deformable-DETR, GroundingDINO): the list
        # names no .cu the file can follow, so the file's glob patterns are its sources
        paths += [f"glob:{p}" for p in visitor.globbed if f"glob:{p}" not in paths]
    if sources is not None and not any(p.endswith(".cu") or p.startswith("glob:") for p in paths):
        # still none: the list is built where the file cannot follow it (a helper's parameter joined in a
        # comprehension, `"/".join(here + ["x.cu"])`, a module-level list appended to in a branch); the
        # source file names the file spells are its sources, wherever they sit below the loader's folder
        paths += [f"glob:**/{n}" for n in visitor.named_sources() if f"glob:**/{n}" not in paths]
    paths = [f"glob:{p}" if UNKNOWN in p and not p.startswith("glob:") else p for p in paths]
    visitor.add("extension", label, node, text="\n".join(paths), role=role)
    for flag in dict.fromkeys(v for kw in node.keywords for v in _strings(visitor, kw.value) if v.startswith(_offload_flags())):
        # `extra_cuda_cflags=["--offload-arch=gfx942"]`: the target the extension's device code is compiled for
        visitor.add("extension_target", flag, node, text="\n".join(paths), role=role)


@cache
def _offload_flags() -> tuple[str, ...]:
    """The offload-target flags (rules/names/build.yaml `offload_arch_flags`), read at the first extension call."""
    return tuple(sorted(name_list("build", "offload_arch_flags")))


def _strings(visitor: _Visitor, node: ast.expr, depth: int = 0) -> list[str]:
    """The strings of a build argument: a list's (through names, as source lists are followed), a dict's values
    (`extra_compile_args={"nvcc": [...]}`)."""
    out: list[str] = []
    for item in _elements(visitor, node):
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            out.append(item.value)
        elif isinstance(item, ast.Dict) and depth < 2:
            out += [s for value in item.values for s in _strings(visitor, value, depth + 1)]
    return out


def _argument(call: ast.Call, position: int | None, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return call.args[position] if position is not None and position < len(call.args) else None


def _elements(visitor: _Visitor, node: ast.expr | None, depth: int = 0) -> list[ast.expr]:
    """The items of a source list: a literal, a name with what was added to it (`+=`, append, extend, in a
    branch or not: every source the build may compile), a sum, a comprehension."""
    if depth > 4:
        return []
    if isinstance(node, ast.Name) and (node.id in visitor.exprs or node.id in visitor.grown):
        grown = [e for added in visitor.grown.get(node.id, []) for e in _elements(visitor, added, depth + 1)]
        return (_elements(visitor, visitor.exprs[node.id], depth + 1) if node.id in visitor.exprs else []) + grown
    if isinstance(node, (ast.List, ast.Tuple)):
        return list(node.elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _elements(visitor, node.left, depth + 1) + _elements(visitor, node.right, depth + 1)
    if isinstance(node, ast.ListComp) and len(node.generators) == 1:
        return _expanded(node.elt, node.generators[0])
    return [node] if node is not None else []


def _expanded(element: ast.expr, loop: ast.comprehension) -> list[ast.expr]:
    """`[os.path.join(src, f) for f in ["a.cu", "b.cpp"]]`: the element once per string of a literal list."""
    if not (isinstance(loop.target, ast.Name) and isinstance(loop.iter, (ast.List, ast.Tuple)) and not loop.ifs):
        return []
    out = []
    for item in loop.iter.elts:
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            out.append(_Substitute(loop.target.id, item).visit(copy.deepcopy(element)))
    return out


class _Substitute(ast.NodeTransformer):
    def __init__(self, name: str, value: ast.Constant) -> None:
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return self.value if node.id == self.name else node


def _path(visitor: _Visitor, node: ast.expr, depth: int = 0) -> str | None:
    """A source path: a string, or the known parts of os.path.join(...), where
    os.path.dirname(__file__) (the file's own folder) contributes nothing."""
    if depth > 4:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in visitor.exprs:
        return _path(visitor, visitor.exprs[node.id], depth + 1)
    if isinstance(node, ast.Call) and visitor.call_name(node) in PATH_JOINS:
        parts = [_path(visitor, a, depth + 1) or _runtime_folder(visitor, a, inner=0 < i < len(node.args) - 1)
                 for i, a in enumerate(node.args)]
        known = [p for p in parts if p]
        return "/".join(known) if known and any(p != UNKNOWN for p in known) else None
    if isinstance(node, ast.Call) and visitor.call_name(node) in ("glob.glob", "glob.iglob") and node.args:
        pattern = _path(visitor, node.args[0])
        return f"glob:{pattern}" if pattern else None
    if isinstance(node, ast.Call) and len(node.args) == 1 and (visitor.call_name(node) == "os.fspath" or (
            isinstance(node.func, ast.Name) and node.func.id == "str" and "str" not in visitor.aliases)):
        return _path(visitor, node.args[0], depth + 1)  # str(root / "src" / "x.cu")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return _pathlib(visitor, node, depth + 1) or None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in visitor.walkers and node.args:
        # `sources=find_sources("src")`, a helper of the file that os.walk()s its first parameter and collects what it
        # finds (mapillary/inplace_abn setup.py:10-20): the files below that folder
        folder = _path(visitor, node.args[0], depth + 1)
        return f"glob:{folder.rstrip('/')}/*" if folder else None
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):  # [join(root, f) for root, _, files in os.walk(src) ...]
        walked = node.generators[0].iter
        if isinstance(walked, ast.Call) and visitor.call_name(walked) == "os.walk" and walked.args:
            folder = _path(visitor, walked.args[0], depth + 1)
            suffixes = [a.value for g in node.generators for test in g.ifs for call in ast.walk(test)
                        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                        and call.func.attr == "endswith" for a in call.args
                        if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            # one pattern per suffix the comprehension keeps (fnmatch's * crosses folders, as os.walk does)
            return "\n".join(f"glob:{folder.rstrip('/')}/*{s}" for s in suffixes or [""]) if folder else None
    return _formatted(node)


UNKNOWN = "*"  # a part of a file name only known at run time (`"{}.cu".format(name)`): any name


def _runtime_folder(visitor: _Visitor, node: ast.expr, *, inner: bool) -> str:
    """A name the file never assigns (a helper's parameter) joined between a first and a last part: a folder known
    only at run time, UNKNOWN (`os.path.join(library_name, module_name, "csrc", "*.cu")` is `library/*/csrc/*.cu`).
    As the first part it is the root the path starts from (the setup file's folder, a path from elsewhere), as the
    last a file name the loop supplies: nothing, as before."""
    if not inner or not isinstance(node, ast.Name) or node.id in visitor.exprs or node.id in visitor.aliases:
        return ""
    return UNKNOWN


def _pathlib(visitor: _Visitor, node: ast.expr, depth: int) -> str:
    """A path built with pathlib's `/` (https://docs.python.org/3/library/pathlib.html#operators): strings as
    they are, the setup file's own folder (anything made from `__file__`) as nothing, and any other part (a loop
    variable over folders, a folder's `.name`) as UNKNOWN: HTGS's `extension_root / module / 'src' / '**' /
    '*.cu'` is `*/*/src/**/*.cu` below the file's folder."""
    if depth > 16:
        return UNKNOWN
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return "/".join(p for p in (_pathlib(visitor, node.left, depth + 1),
                                    _pathlib(visitor, node.right, depth + 1)) if p)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if any(isinstance(n, ast.Name) and n.id == "__file__" for n in ast.walk(node)):
        return ""
    if isinstance(node, ast.Name) and node.id in visitor.exprs:
        return _pathlib(visitor, visitor.exprs[node.id], depth + 1)
    return UNKNOWN


def _formatted(node: ast.expr) -> str | None:
    """A file name made by formatting (`"{}.cu".format(name)`, f"{name}.cu", `"%s.cu" % name`), with `*`
    for what is filled in; None unless a suffix is known."""
    pattern = None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        pattern = re.sub(r"\{[^{}]*\}", UNKNOWN, node.func.value.value)
    elif isinstance(node, ast.JoinedStr):
        pattern = "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else UNKNOWN
                          for v in node.values)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
            and isinstance(node.left.value, str):
        pattern = re.sub(r"%[sd]", UNKNOWN, node.left.value)
    return pattern if pattern and "." in pattern.rsplit("/", 1)[-1] and pattern != UNKNOWN else None
