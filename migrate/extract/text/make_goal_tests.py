"""extract, Makefiles: branches only a goal named on make's command line takes.

make sets MAKECMDGOALS to the goals given on its command line, and leaves it empty when it runs with none
(https://www.gnu.org/software/make/manual/html_node/Goals.html). A conditional that holds only when some goal is named
(`ifneq (,$(filter $(MAKECMDGOALS),optix optixmex))`, `ifneq ($(findstring cuda,$(MAKECMDGOALS)),)`,
`ifeq ($(MAKECMDGOALS),cuda)`) is false in the default `make`: what its branch adds (`FILES += mmc_optix_host`,
`CFLAGS += -DUSE_OPTIX`) is built only when the user asks for that goal (fangq/mmc 4cefc497 src/Makefile:21). Such a
branch is a `make_goal_test` fact over its lines (to its `else` or `endif`): the name is the first goal, the text all
of them. A word of an assignment in it that is a plain stem (`mmc_optix_host`, no suffix, no variable left once the
file's own variables are expanded) is a `make_stem` fact: the source of that stem in the Makefile's folder is what
an included pattern rule (`%.o: %.cpp`) compiles from it (workloads/make_goals.py places it). Tests that hold when no
goal is named (`ifneq ($(MAKECMDGOALS),clean)`, `ifeq (,$(filter ...))`) give nothing."""
from __future__ import annotations

import re

from migrate.extract.text.lines import fact, split_args
from migrate.extract.text.make_model import UNPLACED, Expander, Makefile
from migrate.model import Fact

GOALS = re.compile(r"^\$[({]MAKECMDGOALS[)}]$")
SEARCH = re.compile(r"^\$[({](filter|findstring)\s+(.*)[)}]$")  # `$(filter A,B)`, `$(findstring A,B)`
GOAL_WORD = re.compile(r"^[A-Za-z_][\w.+-]*$")
STEM = re.compile(r"^[A-Za-z_][\w/+-]*$")  # a word with no suffix, variable or option


def goal_tests(model: Makefile) -> list[Fact]:
    """`make_goal_test` facts over the branches only a named goal takes, and `make_stem` facts for the plain stems
    their assignments name (module docstring)."""
    branches: list[Fact] = []
    for conditional in model.conditionals:
        goals = asked_goals(conditional.directive, conditional.test)
        if goals and conditional.end:
            branches.append(Fact(kind="make_goal_test", name=goals[0], line=conditional.line, column=1,
                                 end_line=conditional.otherwise or conditional.end, end_column=1,
                                 text=" ".join(goals)))
    if not branches:
        return []
    expander = Expander(model.values())
    inside: list[tuple[int, str]] = []
    outside: set[str] = set()  # stems the default `make` reads too (`FILES = mmc_host`)
    for a in model.assignments:
        if a.how == "define":
            continue
        words = [w for w in expander.expand(a.value).split() if STEM.match(w) and UNPLACED not in w]
        if any(b.line < a.line < b.end_line for b in branches):
            inside += [(a.line, w) for w in words]
        else:
            outside.update(words)
    return branches + [fact("make_stem", word, line, 0, 0) for line, word in inside if word not in outside]


def asked_goals(directive: str, test: str) -> list[str]:
    """The goals a conditional's test asks for when it holds only where one of them is named, else []."""
    arguments = _arguments(test)
    if arguments is None:
        return []
    left, right = (a.strip() for a in arguments)
    if directive == "ifeq":
        for one, other in ((left, right), (right, left)):
            if GOALS.match(one) and GOAL_WORD.match(other):
                return [other]
        return []
    if directive != "ifneq" or (left and right):
        return []
    m = SEARCH.match(left or right)
    searched = _arguments(f"({m.group(2)})") if m else None
    if searched is None:
        return []
    first, second = (s.strip() for s in searched)
    words = second if GOALS.match(first) else first if GOALS.match(second) else ""
    goals = words.split()
    return goals if goals and all(GOAL_WORD.match(g) for g in goals) else []


def _arguments(test: str) -> tuple[str, str] | None:
    """The two arguments of `(a,b)`, split at the first comma outside every parenthesis; None for any other form."""
    if not (test.startswith("(") and test.endswith(")")):
        return None
    first, *rest = split_args(test[1:-1])
    return (first, ",".join(rest)) if rest else None
