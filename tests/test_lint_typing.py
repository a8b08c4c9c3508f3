"""typing is not on an edited-file lint's way (~10 M instructions of its ~310 M): the modules a lint imports name
typing's types under `TYPE_CHECKING = False; if TYPE_CHECKING:` (typing's own TYPE_CHECKING constant would import
it), and tree_sitter's package __init__, which imports typing for a Protocol, is deferred (migrate/extract/c/ts.py
takes the classes from tree_sitter._binding). What makes that safe is checked here: a name imported or defined for
the type checker only is used only in annotations (which `from __future__ import annotations` never evaluates) or
imported again where it runs; each vocabulary's runtime tuple holds its Literal type's words, in order."""
from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest
from tests.conftest import ROOT
from tests.test_lint_startup_work import _probe

# module -> (Literal type, the tuple of its words at run time)
VOCABULARIES = {
    "migrate/model.py": [("MigrationClass", "CLASSES"), ("Confidence", "CONFIDENCES"),
                         ("HipifyState", "HIPIFY_STATES"), ("Status", "STATUSES")],
    "migrate/rulebase/alternatives.py": [("Band", "BANDS")],
    "migrate/vocabulary.py": [("PinKind", "PIN_KINDS"), ("Extra", "EXTRAS")],
}


def _type_checking_blocks(tree: ast.Module) -> list[ast.If]:
    return [n for n in tree.body if isinstance(n, ast.If) and isinstance(n.test, ast.Name) and n.test.id == "TYPE_CHECKING"]


def runtime_uses(source: str) -> list[str]:
    """`name:line` for each use, evaluated at run time, of a name bound only in a module's `if TYPE_CHECKING:` block
    (an import, a TypeVar, a Literal alias) and not bound again in its `else:` or by an import in the function."""
    tree = ast.parse(source)
    checker_only: set[str] = set()
    skipped: set[int] = set()
    for block in _type_checking_blocks(tree):
        for node in block.body:
            skipped |= {id(n) for n in ast.walk(node)}
            if isinstance(node, ast.Import | ast.ImportFrom):
                checker_only |= {(a.asname or a.name).split(".")[0] for a in node.names}
            elif isinstance(node, ast.Assign):
                checker_only |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        for node in ast.walk(ast.Module(body=block.orelse, type_ignores=[])):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                checker_only.discard(node.id)
            elif isinstance(node, ast.alias):
                checker_only.discard((node.asname or node.name).split(".")[0])
    annotations: set[int] = set()
    local: dict[int, set[str]] = {}  # a function -> names its own imports bind
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
                if arg is not None and arg.annotation is not None:
                    annotations |= {id(n) for n in ast.walk(arg.annotation)}
            if node.returns is not None:
                annotations |= {id(n) for n in ast.walk(node.returns)}
            local[id(node)] = {(a.asname or a.name).split(".")[0] for n in ast.walk(node)
                               if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names}
        elif isinstance(node, ast.AnnAssign):
            annotations |= {id(n) for n in ast.walk(node.annotation)}
    found: list[str] = []

    def visit(node: ast.AST, bound: frozenset[str]) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            bound = bound | local[id(node)]
        if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in checker_only
                and node.id not in bound and id(node) not in annotations and id(node) not in skipped):
            found.append(f"{node.id}:{node.lineno}")
        for child in ast.iter_child_nodes(node):
            visit(child, bound)

    visit(tree, frozenset())
    return found


def test_names_for_the_type_checker_are_not_used_at_run_time() -> None:
    wrong = [f"{path.relative_to(ROOT)}:{use}" for path in sorted((ROOT / "migrate").rglob("*.py"))
             for use in runtime_uses(path.read_text(encoding="utf-8"))]
    assert not wrong, "names bound only under TYPE_CHECKING, used at run time:\n" + "\n".join(wrong)


def test_a_runtime_use_of_a_name_for_the_type_checker_is_found() -> None:
    """Near miss: the same names used where they are evaluated (a cast, a base class, a module-level alias)."""
    source = ("from __future__ import annotations\nTYPE_CHECKING = False\nif TYPE_CHECKING:\n"
              "    from typing import Any, Mapping, TypeVar\n    T = TypeVar('T')\n    Band = str\nelse:\n    Band = str\n"
              "def f(x: Any) -> T:\n    from typing import cast\n    y: Any = cast(Band, x)\n    return cast(Any, y)\n"
              "class M(Mapping[str, Any]):\n    pass\nRows = list[T]\n")
    assert runtime_uses(source) == ["Any:12", "Mapping:13", "Any:13", "T:15"]


@pytest.mark.parametrize("path", sorted(VOCABULARIES))
def test_each_vocabulary_tuple_holds_its_literal_type_s_words(path: str) -> None:
    import importlib

    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    literals: dict[str, tuple[object, ...]] = {}
    for block in _type_checking_blocks(tree):
        for node in block.body:
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript)
                    and isinstance(node.value.value, ast.Name) and node.value.value.id == "Literal"):
                words = node.value.slice
                values = words.elts if isinstance(words, ast.Tuple) else [words]
                literals[node.targets[0].id] = tuple(ast.literal_eval(v) for v in values)  # type: ignore[attr-defined]
    module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    for literal, words in VOCABULARIES[path]:
        assert literals[literal] and getattr(module, words) == literals[literal], (literal, words)


@pytest.fixture(scope="module")
def in_folder(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], dict[str, list[str]]]:
    return _probe(tmp_path_factory.mktemp("lint20-typing"), "reduce.cu")


def test_an_edited_file_lint_does_not_import_typing(
        in_folder: tuple[subprocess.CompletedProcess[str], dict[str, list[str]]]) -> None:
    done, seen = in_folder
    if "typing" in seen["at_start"]:
        pytest.skip("this interpreter imports typing as it starts")
    assert done.returncode == 1 and "HIP4010" in done.stdout
    assert "migrate.extract.c.ts" in seen["modules"] and "tree_sitter._binding" in seen["modules"]
    assert "typing" not in seen["modules"] and "tree_sitter" not in seen["modules"]  # the deferred __init__ never ran


def test_tree_sitter_s_package_is_the_same_when_it_runs_after_the_binding(tmp_path: Path) -> None:
    """Near miss: code that asks the deferred package for anything gets its __init__ run, with the classes ts.py uses."""
    import os
    import site
    import sys

    probe = ("import sys\nfrom migrate.cli import deferred\ndeferred.defer('tree_sitter')\n"
             "from migrate.extract.c import ts\nimport tree_sitter\n"
             "print(deferred.pending('tree_sitter'), 'typing' in sys.modules)\n"
             "print(tree_sitter.Parser is ts.Parser, tree_sitter.Node is ts.Node, hasattr(tree_sitter, 'QueryPredicate'),"
             " ts.parse(b'int x;').type, deferred.pending('tree_sitter'), 'typing' in sys.modules)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), *site.getsitepackages()) if p),
           "ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True, env=env, check=False)
    assert done.stdout.split() == ["True", "False", "True", "True", "True", "translation_unit", "False", "True"], done.stderr
