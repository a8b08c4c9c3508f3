"""Which `if` branches a default run of a script takes: the command-line options a project declares (`cli_option`
facts, extract/python/options.py) at their argparse defaults, put into each `option_branch` test. A branch the
default run does not take (pix2pixHD's `else: from run_engine import run_trt_engine` under
`if not opt.engine and not opt.onnx:`; vid2vid's `if opt.fp16: from apex import amp`) runs only when the user asks:
what it imports is an optional part. A function's switches (`parameter_branch` facts: parameters with a True/False
default) pick branches the same way on every call that leaves them alone (microxcaling's `if custom_cuda:` ...
`from . import custom_extensions`, whose module compiles the CUDA kernels with `load()`); a choice (a parameter whose
default names a back end, `backend="auto"` resolved in the function to "cpu" or "triton") picks a branch where the test
gives one answer for every name it can hold (xgrammar's `elif backend == "cuda":`, which imports the CUDA kernel)."""
from __future__ import annotations

import ast
import itertools
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.vocabulary import UNKNOWN_DEFAULT, UNUSED_IMPORT
from migrate.workloads.fact_index import of_kind, of_kinds


def option_defaults(facts: Mapping[str, Sequence[Fact]]) -> dict[str, object]:
    """Each command-line option the project declares -> its default on a run that does not give it, where every
    declaration of that name agrees on one constant default."""
    seen: dict[str, set[str]] = {}
    for _, f in of_kind(facts, "cli_option"):
        seen.setdefault(f.name, set()).add(f.text)
    out: dict[str, object] = {}
    for name, texts in seen.items():
        if len(texts) == 1 and (text := next(iter(texts))) != UNKNOWN_DEFAULT:
            try:
                out[name] = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                continue
    return out


def branches_not_taken(facts: Mapping[str, Sequence[Fact]]) -> dict[str, list[tuple[int, int, str]]]:
    """Per file, (first line, last line, evidence) of each `if` branch a default run does not take: its test reads
    only command-line options of the project and is false (`then`) or true (`else`) with each at its default."""
    defaults: dict[str, object] | None = None
    out: dict[str, list[tuple[int, int, str]]] = {}
    for path, f in of_kinds(facts, "parameter_branch", "option_branch"):
        if f.kind == "parameter_branch":
            if (scope := _switch_not_taken(path, f)) is not None:
                out.setdefault(path, []).append(scope)
            continue
        if defaults is None:
            defaults = option_defaults(facts)
        holds = taken(f.text, defaults)
        if holds is None or holds == (f.name == "then"):
            continue
        out.setdefault(path, []).append((f.line, f.end_line, f"{path}:{f.line}: in the `{f.name}` branch of "
                                         f"`if {f.text}`, which a run without those command-line options does not "
                                         "take (each at its argparse default)"))
    return out


def uses_not_taken(facts: Mapping[str, Sequence[Fact]]) -> dict[str, dict[str, tuple[str, frozenset[int]]]]:
    """Per file, each name it imports by `from ... import` every use of which (`branch_use` facts,
    extract/python/branch_uses.py) sits in an `if` branch a default run does not take -> (evidence of the first, the
    lines of the uses)."""
    defaults: dict[str, object] | None = None
    found: dict[tuple[str, str], list[str | None]] = {}  # (file, name) -> evidence of each use, None where taken
    lines: dict[tuple[str, str], set[int]] = {}
    for path, f in of_kind(facts, "branch_use"):
        if f.text == UNUSED_IMPORT:  # imported and never read: no use at all
            found.setdefault((path, f.name), [])
            continue
        lines.setdefault((path, f.name), set()).add(f.line)
        side, _, test = f.text.partition("\n")
        evidence: str | None = None
        if test and f.role:
            holds = _taken_by_switches(test, f.role)
            evidence = f"the `{side}` branch of `if {test}`, which a call leaving the function's switches at their " \
                       f"defaults ({f.role.removeprefix('switches:')}) does not take"
        elif test:
            if defaults is None:
                defaults = option_defaults(facts)
            holds = taken(test, defaults)
            evidence = f"the `{side}` branch of `if {test}`, which a run without those command-line options does " \
                       "not take"
        if not test or holds is None or holds == (side == "then"):
            evidence = None
        found.setdefault((path, f.name), []).append(evidence and f"{path}:{f.line}: in {evidence}")
    out: dict[str, dict[str, tuple[str, frozenset[int]]]] = {}
    for (path, name), seen in found.items():
        if all(seen):
            why = str(seen[0]) if seen else f"{path} imports it and never uses it"
            out.setdefault(path, {})[name] = (why, frozenset(lines.get((path, name), ())))
    return out


def _switches(role: str) -> dict[str, tuple[object, ...]]:
    """`switches:a=False,b='auto'|'triton'` -> {a: (False,), b: ('auto', 'triton')}: the values each can hold on a
    call that leaves it alone (a choice's names: extract/python/options.py)."""
    switches: dict[str, tuple[object, ...]] = {}
    for pair in role.removeprefix("switches:").split(","):
        name, _, value = pair.partition("=")
        switches[name] = (value == "True",) if value in ("True", "False") else \
            tuple(v[1:-1] for v in value.split("|"))
    return switches


def _taken_by_switches(test: str, role: str) -> bool | None:
    """Whether a test holds on every call leaving the function's switches alone: the same answer for each value
    they can hold, None where the values disagree or the test reads more than them."""
    switches = _switches(role)
    answers = {taken(test, {}, dict(zip(switches, values, strict=True)))
               for values in itertools.product(*switches.values())}
    return answers.pop() if len(answers) == 1 else None


def _switch_not_taken(path: str, fact: Fact) -> tuple[int, int, str] | None:
    """(first line, last line, evidence) of a branch that a call leaving the function's switches at their defaults
    does not take; None where it does, or where the test's other reads leave it untold."""
    said = fact.role.removeprefix("switches:")
    holds = _taken_by_switches(fact.text, fact.role)
    if holds is None or holds == (fact.name == "then"):
        return None
    return (fact.line, fact.end_line, f"{path}:{fact.line}: in the `{fact.name}` branch of `if {fact.text}`, which a "
                                      f"call leaving the function's switches at their defaults ({said}) does not "
                                      "take")


def taken(test: str, defaults: dict[str, object], names: dict[str, object] | None = None) -> bool | None:
    """Whether a recorded test holds on a default run (`defaults`: each option's default, read as an attribute;
    `names`: plain names' values, a function's switches), None where it cannot be told: an attribute that is no
    option of the project, a default that is no constant."""
    try:
        node = ast.parse(test, mode="eval").body
    except SyntaxError:
        return None
    value = _value(node, defaults, names or {})
    return None if value is _UNSET else bool(value)


_UNSET = object()


def _value(node: ast.expr, defaults: dict[str, object], names: dict[str, object]) -> object:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id, _UNSET)
    if isinstance(node, ast.Attribute):
        return defaults.get(node.attr, _UNSET)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _value(node.operand, defaults, names)
        return _UNSET if inner is _UNSET else not inner
    if isinstance(node, ast.BoolOp):
        values = [_value(v, defaults, names) for v in node.values]
        if isinstance(node.op, ast.And):
            if any(v is not _UNSET and not v for v in values):
                return False
            return _UNSET if any(v is _UNSET for v in values) else True
        if any(v is not _UNSET and v for v in values):
            return True
        return _UNSET if any(v is _UNSET for v in values) else False
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        a, b = _value(node.left, defaults, names), _value(node.comparators[0], defaults, names)
        if a is _UNSET or b is _UNSET:
            return _UNSET
        op = node.ops[0]
        if isinstance(op, ast.Eq):
            return a == b
        if isinstance(op, ast.NotEq):
            return a != b
        if isinstance(op, ast.Is):
            return a is b
        if isinstance(op, ast.IsNot):
            return a is not b
    return _UNSET
