"""extract, Makefiles: what make's default goal does not reach.

Run with no goal, make builds the default goal, the first target of the first rule (not a target that starts
with `.`, nor a pattern rule), or the one `.DEFAULT_GOAL` names, and what its prerequisites reach
(https://www.gnu.org/software/make/manual/html_node/How-Make-Works.html,
.../Special-Variables.html#index-_002eDEFAULT_005fGOAL-_0028define-default-goal_0029). A rule none of whose targets
that reaches runs only when a user or another Makefile asks for it (`make cuda29`): tromp/cuckoo's
src/cuckaroo/Makefile:17 `all : simpletest meantest` builds the CPU solvers; its `cuda29:` rule is the only one
that names mean.cu. Each such rule is a `make_goal_only` fact over its lines (and over the assignment of a
variable only such rules use, `NVCC ?= nvcc`); `make_call` facts name the goals a recipe asks another make for
(`$(MAKE) -C gpu cuda`), which are then not optional (workloads/make_goals.py).

A `make_enters` fact names each folder a recipe runs make in (`make -C src`, `$(MAKE) --directory=src`,
`cd src && make`, `make -f src/Makefile`), `*` for one read from a variable (`make -C $$d`), its text the goals the
call names ("" for that folder's default goal), its role `default` where make's default goal reaches the rule; a
`make_enters` fact `.` with role `default` says the default goal was read and builds here: what the default build
reaches beyond this file (workloads/reach.py)."""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from migrate.extract.text.cmakelists import SOURCE_SUFFIXES
from migrate.extract.text.lines import Logical, fact
from migrate.extract.text.make_model import RECIPE_PREFIX, UNPLACED, Makefile, Rule, match
from migrate.model import Fact

MAKE_RUN = re.compile(r"(?:\$[({]MAKE[)}]|(?<![\w$/.-])make)(?=\s|$)")
# a recipe that changes folder and runs make there: `cd src && make`, `cd src; $(MAKE) all`
CD_THEN_MAKE = re.compile(r"(?<![\w$/.-])cd\s+([^\s;&|()]+)\s*(?:&&|;)\s*(?:\$[({]MAKE[)}]|make)(?=\s|$)")
OWN_FOLDER = "."  # the `make_enters` fact of the Makefile's own folder
DEFAULT_ROLE = "default"  # a `make_enters` fact of a rule make's default goal reaches
MAKE_OPTIONS_WITH_VALUE = frozenset({"-C", "-f", "-I", "-o", "-W", "--directory", "--file", "--makefile"})
UNKNOWN_GOAL = "*"  # a recipe asks another make for goals this reading cannot tell (`$(MAKE) $(GOALS)`)
CLOSURE_LIMIT = 5000  # words followed from one rule's prerequisites
# a single-quoted program's text (an awk or sed script printing `make <target>`) runs no make
QUOTED = re.compile(r"'[^']*'")
SEPARATOR = re.compile(r"[;&|)`]")  # where a shell command ends
ECHO = re.compile(RECIPE_PREFIX.pattern + r"(?:echo|printf|\$[({](?:info|warning|error)\s)")


@dataclass(slots=True)
class _Reading:
    rule: Rule
    builds: bool = False  # names a source file or runs make itself


def goal_facts(model: Makefile) -> list[Fact]:
    """`make_goal_only` facts over the rules (and variables) the default goal does not reach, `make_call` facts for
    the goals recipes ask for, and a `make_no_rule` fact for each prerequisite the default goal needs that no rule of
    the file makes (workloads/make_goals.py tells whether a file of that name is there: where none is, make stops
    with "No rule to make target"); no goal facts when the default goal cannot be told (a file `include`d before the
    first rule, a prerequisite of a reached rule that names a variable this file does not set)."""
    readings: list[_Reading] = []
    calls: list[Fact] = []
    for rule in model.rules:
        reading = _Reading(rule, _names_source(rule.prerequisites) or _names_source(rule.inline_expanded.split()))
        if rule.inline:
            asked = _make_calls(Logical(rule.inline, ((0, rule.line, 0),)), rule.line)
            calls += asked
        for logical in rule.recipe:
            if ECHO.match(logical.text):
                continue  # a message naming a goal (`@echo "make ampere"`) runs nothing
            asked = _make_calls(logical, logical.line)
            calls += asked
            reading.builds = reading.builds or bool(asked) or MAKE_RUN.search(QUOTED.sub("", logical.text)) is not None \
                or _names_source(logical.text.split())
        readings.append(reading)
    calls_in = [f for r in readings for f in _entered_facts(r.rule)]  # make_enters, no role yet
    default = model.default_goal
    if model.included_first or not readings or not default:
        return calls + calls_in
    by_target: dict[str, list[_Reading]] = {}
    for reading in readings:
        for target in reading.rule.targets:
            by_target.setdefault(target, []).append(reading)
    patterns = [t for r in readings for t in r.rule.targets if "%" in t]
    reached: set[str] = set()
    builds = False
    missing: list[tuple[str, int]] = []  # (prerequisite, the line of the rule that needs it)
    pending = [(default, 0)]
    while pending:
        target, needed_at = pending.pop()
        if target in reached:
            continue
        reached.add(target)
        found = by_target.get(target, ())
        if not found and needed_at and "." not in target.rpartition("/")[2] \
                and not any(match(p, target) is not None for p in patterns):
            missing.append((target, needed_at))
        for reading in found:
            builds = builds or reading.builds
            for word in reading.rule.prerequisites:
                if "$" in word or UNPLACED in word:
                    return calls + calls_in  # a variable this file does not set: what the default goal reaches is unknown
                if "%" not in word:
                    pending.append((word, reading.rule.line))
    if not builds:
        return calls + calls_in  # a default goal that compiles nothing (`help:` printing the goals): nothing to read
    reached_lines = {logical.line for r in readings if any(t in reached for t in r.rule.targets)
                     for logical in (*_inline(r.rule), *r.rule.recipe)}
    entered = [fact("make_enters", OWN_FOLDER, 0, 0, 0, role=DEFAULT_ROLE)]
    for f in calls_in:
        entered.append(f if f.line not in reached_lines else fact("make_enters", f.name, f.line, 0, 0, text=f.text,
                                                                   role=DEFAULT_ROLE))
    default_rule = by_target.get(default, [None])[0]
    where = f"line {default_rule.rule.line}" if default_rule is not None else ".DEFAULT_GOAL"
    steps = _later_steps(default, readings, by_target, reached)
    out: list[Fact] = [fact("make_no_rule", word, line, 0, 0, text=f"default goal `{default}` ({where})")
                       for word, line in sorted(missing, key=lambda m: (m[1], m[0]))]
    spans: list[tuple[int, int, str]] = []
    for reading in readings:
        targets = reading.rule.targets
        if not targets or any(t in reached or not _plain(t) or t.startswith(".") for t in targets) \
                or id(reading) in steps:
            continue  # reached, a pattern rule (applies to whatever is needed), a special target, or a later step
        spans.append((reading.rule.line, reading.rule.last, targets[0]))
    # a variable every use of which lies in such rules (or in such variables) goes with the first of them
    used_at = model.uses()
    lines_of = {a.name: (a.line, a.last) for a in model.assignments if a.how != "define"}
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
    return out + calls + entered


def _later_steps(default: str, readings: list[_Reading], by_target: dict[str, list[_Reading]],
                 reached: set[str]) -> set[int]:
    """The rules outside the default goal that build on what it makes (ids): what such a rule needs (its
    prerequisites, followed through the file's rules and pattern rules up to what the default goal reaches) includes
    every prerequisite of the default goal that a rule makes, or the default goal itself where none of its
    prerequisites is made (`cuda: $(CUCPPS)` makes the `.cpp` files of the `.cu` ones; `exe: $(OBJS)` compiles
    those `.cpp` files: the next step of the same build, not an alternative to it). A rule that shares only part of
    them (`debug: install-debugc py` beside `rel: install-relc py`), or that needs the default goal only as a whole
    (`test: all`, then runs the tests), stays outside."""
    # pattern rules, less match-anything ones (`%: %.cu`: make does not chain those through other files)
    patterns = [(t, [p for p in r.rule.prerequisites if "%" in p]) for r in readings for t in r.rule.targets
                if "%" in t and t != "%"]

    def made(word: str) -> bool:
        return word in by_target or any(match(t, word) is not None for t, _ in patterns)

    wanted = {p for r in by_target.get(default, ()) for p in r.rule.prerequisites if "%" not in p and made(p)} \
        or {default}
    out: set[int] = set()
    for reading in readings:
        if any(t in reached for t in reading.rule.targets):
            continue
        needs: set[str] = set()
        # (word, the pattern rules of its chain: make uses no implicit rule twice in one chain)
        pending: list[tuple[str, frozenset[int]]] = [(p, frozenset()) for p in reading.rule.prerequisites if "%" not in p]
        while pending and len(needs) < CLOSURE_LIMIT:
            word, chain = pending.pop()
            if word in needs:
                continue
            needs.add(word)
            if word in reached:
                continue  # what the default goal makes: followed no further
            for other in by_target.get(word, ()):
                pending += [(p, chain) for p in other.rule.prerequisites if "%" not in p]
            for index, (target, prerequisites) in enumerate(patterns):
                if index not in chain and (stem := match(target, word)) is not None:
                    pending += [(p.replace("%", stem, 1), chain | {index}) for p in prerequisites]
        if wanted <= needs:
            out.add(id(reading))
    return out


def _names_source(words: list[str]) -> bool:
    return any(w.endswith(SOURCE_SUFFIXES) for w in words)


def _plain(target: str) -> bool:
    return "%" not in target and "$" not in target and UNPLACED not in target


def _inline(rule: Rule) -> list[Logical]:
    return [Logical(rule.inline, ((0, rule.line, 0),))] if rule.inline else []


def _entered_facts(rule: Rule) -> list[Fact]:
    """The `make_enters` facts of a rule's recipe (module docstring)."""
    out: list[Fact] = []
    for logical in (*_inline(rule), *rule.recipe):
        if not ECHO.match(logical.text):
            out += [fact("make_enters", folder, logical.line, 0, 0, text=goals) for folder, goals in _entered(logical.text)]
    return out


def _entered(text: str) -> list[tuple[str, str]]:
    """The folders a recipe line runs make in (`make_enters`, module docstring); `*` for one a variable names. Each
    make call's words end at a shell separator or at the next make call (`make -C a && make -C b clean`: `a`'s goal
    is its default, not `clean`), read once a call."""
    text = QUOTED.sub("", text)
    runs = list(MAKE_RUN.finditer(text))
    calls = [m.start() for m in runs if m.start() == 0 or text[m.start() - 1].isspace()]
    out: list[tuple[str, str]] = []
    for m in CD_THEN_MAKE.finditer(text):
        out.append((m.group(1), " ".join(_goals(_call_words(text, m.end(), calls)))))
    for m in runs:
        words = _call_words(text, m.end(), calls)
        goals = " ".join(_goals(words))
        for index, option in enumerate(words):
            value = words[index + 1] if index + 1 < len(words) else ""
            if option in ("-C", "--directory") and value:
                out.append((value, goals))
            elif option.startswith("--directory="):
                out.append((option.partition("=")[2], goals))
            elif option in ("-f", "--file", "--makefile") and "/" in value:
                out.append((value.rpartition("/")[0], goals))
    return [(UNKNOWN_GOAL if "$" in folder or "`" in folder else folder.rstrip("/") or OWN_FOLDER, goals)
            for folder, goals in out]


def _call_words(text: str, start: int, calls: list[int]) -> list[str]:
    """The words of the make call whose name ends at `start`: up to a shell separator or the next call in `calls`."""
    following = bisect.bisect_left(calls, start)
    end = calls[following] if following < len(calls) else len(text)
    return SEPARATOR.split(text[start:end], maxsplit=1)[0].split()


def _goals(words: list[str]) -> list[str]:
    """The goals among a make call's words (less options and their values); `*` for one a variable names."""
    out: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in MAKE_OPTIONS_WITH_VALUE:
            skip = True
        elif word.startswith("-") or "=" in word or word in ("$@", "$(MAKECMDGOALS)", "${MAKECMDGOALS}"):
            continue
        else:
            out.append(UNKNOWN_GOAL if "$" in word else word)
    return out


def _make_calls(logical: Logical, line: int) -> list[Fact]:
    """The goals a recipe asks make for (`$(MAKE) -C gpu cuda`, `make install`): `make_call` facts."""
    return [fact("make_call", goal, line, 0, 0) for m in MAKE_RUN.finditer(logical.text)
            for goal in _goals(SEPARATOR.split(logical.text[m.end():], maxsplit=1)[0].split())]
