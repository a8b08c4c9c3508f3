"""extract, Makefiles: what make's default goal does not reach.

Run with no goal, make builds the default goal, the first target of the first rule (not a target that starts
with `.`, nor a pattern rule), or the one `.DEFAULT_GOAL` names, and what its prerequisites reach
(https://www.gnu.org/software/make/manual/html_node/How-Make-Works.html,
.../Special-Variables.html#index-_002eDEFAULT_005fGOAL-_0028define-default-goal_0029). A rule none of whose targets
that reaches runs only when a user or another Makefile asks for it (`make cuda29`): tromp/cuckoo's
src/cuckaroo/Makefile:17 `all : simpletest meantest` builds the CPU solvers; its `cuda29:` rule is the only one
that names mean.cu. Each such rule is a `make_goal_only` fact over its lines (and over the assignment of a
variable only such rules use, `NVCC ?= nvcc`); `make_call` facts name the goals a recipe asks another make for
(`$(MAKE) -C gpu cuda`), which are then not optional (workloads/make_goals.py)."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from migrate.extract.text.cmakelists import SOURCE_SUFFIXES
from migrate.extract.text.lines import Logical, fact
from migrate.model import Fact

# a variable assignment (`X = a`, `X += b`, `X ?= c`, `X := d`, `X != cmd`; names may hold `.` and `-`): the name, the
# operator's first part (`+`, `?`, `:`, `!` or none) and the value
# (https://www.gnu.org/software/make/manual/html_node/Setting.html); make_reach reads the same lines
ASSIGNMENT = re.compile(r"^\s*(?:export\s+|override\s+)*(\.?[A-Za-z_][\w.-]*)\s*(\+|\?|:{1,3}|!)?=\s*(.*?)\s*$")
RULE = re.compile(r"^([^\t:=#][^:=#]*)(::?)(?!=)\s*(.*)$")  # group 1 keeps trailing blanks: its words are split
REFERENCE = re.compile(r"\$[({]([A-Za-z_][\w.]*)[)}]")
# lines whose first word is a make directive, not a rule (https://www.gnu.org/software/make/manual/html_node/Quick-Reference.html)
DIRECTIVES = frozenset({"ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "define", "endef", "export", "unexport",
                        "override", "vpath", "undefine", "private"})
INCLUDES = frozenset({"include", "-include", "sinclude"})
MAKE_RUN = re.compile(r"(?:\$[({]MAKE[)}]|(?<![\w$/.-])make)(?=\s|$)")
MAKE_OPTIONS_WITH_VALUE = frozenset({"-C", "-f", "-I", "-o", "-W", "--directory", "--file", "--makefile"})
UNKNOWN_GOAL = "*"  # a recipe asks another make for goals this reading cannot tell (`$(MAKE) $(GOALS)`)
EXPANSION_DEPTH = 8
ECHO = re.compile(r"^\t[@+\-\s]*(?:echo|printf|\$[({](?:info|warning|error)\s)")


@dataclass(slots=True)
class _Rule:
    targets: list[str]
    prerequisites: list[str]
    first: int
    last: int
    builds: bool = False  # names a source file or runs make itself


def goal_facts(text: str, logicals: Sequence[Logical]) -> list[Fact]:
    """`make_goal_only` facts over the rules (and variables) the default goal does not reach, and `make_call` facts for
    the goals recipes ask for; none when the default goal cannot be told (a file `include`d before the first rule, a
    prerequisite of a reached rule that names a variable this file does not set)."""
    values: dict[str, str] = {}
    assignments: list[tuple[str, int, int]] = []  # (variable, first line, last line)
    rules: list[_Rule] = []
    calls: list[Fact] = []
    default = ""
    included_first = False
    current: _Rule | None = None
    for logical in logicals:
        first, last = logical.pieces[0][1], logical.pieces[-1][1]
        if logical.text.startswith("\t"):
            if current is not None:
                current.last = last
                if ECHO.match(logical.text):
                    continue  # a message naming a goal (`@echo "make ampere"`) runs nothing
                asked = _make_calls(logical, first)
                calls += asked
                current.builds = current.builds or bool(asked) or MAKE_RUN.search(logical.text) is not None \
                    or _names_source(logical.text.split())
            continue
        current = None
        words = logical.text.split()
        if not words:
            continue
        if words[0] in INCLUDES:
            included_first = included_first or not rules
            continue
        if words[0] in DIRECTIVES and not (words[0] in ("export", "override") and ASSIGNMENT.match(logical.text)):
            continue
        if m := ASSIGNMENT.match(logical.text):
            name, how, value = m.group(1), m.group(2) or "", m.group(3)
            if name == ".DEFAULT_GOAL":
                default = value.strip()
            elif how == "+":
                values[name] = f"{values.get(name, '')} {value}".strip()
            elif how != "?" or name not in values:
                values[name] = value
            assignments.append((name, first, last))
            continue
        if m := RULE.match(logical.text):
            prerequisites, _, recipe = m.group(3).partition(";")
            if prerequisites.lstrip().startswith("=") or ASSIGNMENT.match(prerequisites):
                continue  # a target-specific variable (`cuda29: NVCC += -G`)
            current = _Rule(_expand(m.group(1), values).split(), _expand(prerequisites, values).split(), first, last)
            current.builds = _names_source(current.prerequisites) or _names_source(_expand(recipe, values).split())
            rules.append(current)
            if recipe:
                calls += _make_calls(Logical(recipe, ((0, first, 0),)), first)
    if included_first or not rules:
        return calls
    if not default:
        default = next((t for r in rules for t in r.targets if _plain(t) and not t.startswith(".")), "")
    if not default:
        return calls
    by_target: dict[str, list[_Rule]] = {}
    for rule in rules:
        for target in rule.targets:
            by_target.setdefault(target, []).append(rule)
    reached: set[str] = set()
    builds = False
    pending = [default]
    while pending:
        target = pending.pop()
        if target in reached:
            continue
        reached.add(target)
        for rule in by_target.get(target, ()):
            builds = builds or rule.builds
            for word in rule.prerequisites:
                if "$" in word:
                    return calls  # a variable this file does not set: what the default goal reaches is not known
                if "%" not in word and word != "|":
                    pending.append(word)
    if not builds:
        return calls  # a default goal that compiles nothing (`help:` printing the goals): no default build to read
    default_rule = by_target.get(default, [None])[0]
    where = f"line {default_rule.first}" if default_rule is not None else ".DEFAULT_GOAL"
    out: list[Fact] = []
    spans: list[tuple[int, int, str]] = []
    for rule in rules:
        if not rule.targets or any(t in reached or not _plain(t) or t.startswith(".") for t in rule.targets):
            continue  # reached, a pattern rule (applies to whatever is needed), or a special target
        spans.append((rule.first, rule.last, rule.targets[0]))
    # a variable every use of which lies in such rules (or in such variables) goes with the first of them
    used_at: dict[str, list[int]] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        for m in REFERENCE.finditer(line):
            used_at.setdefault(m.group(1), []).append(number)
    lines_of = {name: (a, b) for name, a, b in assignments}
    changed = True
    while changed:
        changed = False
        for name, (a, b) in lines_of.items():
            if any(s[0] == a for s in spans) or not used_at.get(name):
                continue
            goals = [next((g for s, e, g in spans if s <= n <= e and not (s <= a <= e)), "") for n in used_at[name]]
            if all(goals):
                spans.append((a, b, goals[0]))
                changed = True
    for first, last, goal in sorted(spans):
        out.append(Fact(kind="make_goal_only", name=goal, line=first, column=1, end_line=last, end_column=1,
                        text=f"default goal `{default}` ({where})"))
    return out + calls


def _names_source(words: list[str]) -> bool:
    return any(w.endswith(SOURCE_SUFFIXES) for w in words)


def _plain(target: str) -> bool:
    return "%" not in target and "$" not in target


def _expand(words: str, values: dict[str, str], depth: int = 0) -> str:
    """Words with the file's own variables put in (`$(SUBDIRS)`); an unknown one stays as written."""
    if depth >= EXPANSION_DEPTH or "$" not in words:
        return words
    expanded = REFERENCE.sub(lambda m: values.get(m.group(1), m.group(0)), words)
    return expanded if expanded == words else _expand(expanded, values, depth + 1)


def _make_calls(logical: Logical, line: int) -> list[Fact]:
    """The goals a recipe asks make for (`$(MAKE) -C gpu cuda`, `make install`): `make_call` facts."""
    out: list[Fact] = []
    for m in MAKE_RUN.finditer(logical.text):
        rest = re.split(r"[;&|)`]", logical.text[m.end():], maxsplit=1)[0].split()
        skip = False
        for word in rest:
            if skip:
                skip = False
            elif word in MAKE_OPTIONS_WITH_VALUE:
                skip = True
            elif word.startswith("-") or "=" in word or word in ("$@", "$(MAKECMDGOALS)", "${MAKECMDGOALS}"):
                continue
            else:
                out.append(fact("make_call", UNKNOWN_GOAL if "$" in word else word, line, 0, 0))
    return out
