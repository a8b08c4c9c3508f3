"""extract, Makefiles: the source files a Makefile names once its own variables are expanded
(docs/decisions/2026-12-07-s27-what-the-makefiles-name.md).

make compiles what its rules name: a source a rule or recipe names (`nvcc -c $S/k.cu` with `S = ./Src_working`), a
glob (`$(wildcard *.cu)`), and the source of an object a rule needs (`kudnn.o` through `%.o: %.cu`,
https://www.gnu.org/software/make/manual/html_node/Pattern-Rules.html). The file's own assignments are expanded
(`$(X)`, `${X}`, `$X`, substitution references `$(X:.cu=.o)`, and the text functions wildcard, addprefix, addsuffix,
patsubst, notdir, sort, strip: https://www.gnu.org/software/make/manual/html_node/Text-Functions.html). What cannot be
placed says so (`make_unplaced`, a file name pattern): a source name below a variable the file does not assign (`k.cu`),
an object no rule of the file compiles (its stem: `x.*`, an implicit rule or an included file's pattern rule may
compile any source of that stem), and a function the reading does not evaluate (`$(shell find . -name '*.cu')`,
`$(foreach ...)`) that mentions a source or a pattern: `*`, every file. A word that is only an unknown variable
(`$(NVCC)`, `$(LIBS)`) names no file. Comments are dropped (`#nvcc -c old.cu` names nothing)."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Sequence

from migrate.extract.text.cmakelists import SOURCE_SUFFIXES
from migrate.extract.text.lines import fact
from migrate.extract.text.make_model import UNPLACED, Expander, Makefile, match
from migrate.model import Fact

OBJECT_SUFFIXES = (".o", ".obj")
GLOB = re.compile(r"[%*?\[]")  # a pattern or a glob, not one target
WORD_SEPARATORS = re.compile(r"[\s;:=,()'\"<>|&`]+")
# the lines whose words may name a file: a define block's body is a canned recipe or a template `$(eval)` reads
READ_ROLES = frozenset({"assignment", "define", "rule", "recipe", "target-variable", "other"})


def facts(model: Makefile) -> list[Fact]:
    """`make_source` (a path relative to the Makefile's folder, a glob where a wildcard gave one; text `object` for
    the source an object's pattern rule names), `make_unplaced` and `make_include` facts of one Makefile (every value
    any assignment gives a variable: what some configuration of the file names)."""
    expander = Expander(model.values())
    patterns: list[tuple[str, list[str]]] = []  # (target pattern, its prerequisite patterns)
    explicit: set[str] = set()  # targets of a rule with a recipe of its own or source prerequisites
    phony: set[str] = set()  # `.PHONY: all clean`: make searches no implicit rule for them
    needed: dict[int, list[str]] = {}  # a rule's line -> its prerequisites, every value expanded
    for rule in model.rules:
        prerequisites = [_norm(p) for p in expander.expand(rule.prerequisites_text).replace("|", " ").split()]
        needed[rule.line] = prerequisites
        targets = [_norm(t) for t in expander.expand(rule.static or rule.targets_text).split()]
        if ".PHONY" in targets:
            phony.update(prerequisites)
        if any("%" in t for t in targets):
            patterns += [(t, [p for p in prerequisites if "%" in p]) for t in targets if "%" in t]
        elif rule.recipe or rule.inline.strip() or any(p.endswith(SOURCE_SUFFIXES) for p in prerequisites):
            explicit.update(targets)
    out: list[Fact] = []
    seen: set[tuple[str, str]] = set()

    def add(kind: str, name: str, line: int, text: str = "") -> None:
        if (kind, name) not in seen:
            seen.add((kind, name))
            out.append(fact(kind, name, line, 0, 0, text=text))

    for logical, role in zip(model.logicals, model.roles, strict=True):
        if role not in READ_ROLES:
            continue
        text = expander.expand(logical.text)
        if UNPLACED + "*" in text:
            add("make_unplaced", "*", logical.line, "a function the reading does not evaluate")
        for word in _words(text):
            if "%" in word or not word.endswith(SOURCE_SUFFIXES):
                continue
            if UNPLACED in word:
                base = posixpath.basename(word).replace(UNPLACED, "*")
                add("make_unplaced", base or "*", logical.line, "a source below a variable the file does not assign")
            else:
                add("make_source", word, logical.line)
        # objects a rule needs: make builds them (a recipe's `-o x.o` is output)
        for word in needed.get(logical.line, ()) if role == "rule" else ():
            if word.endswith(OBJECT_SUFFIXES) and "%" not in word and UNPLACED not in posixpath.basename(word):
                _object(word, patterns, explicit, logical.line, add)
            elif word not in phony and not GLOB.search(word) and UNPLACED not in word \
                    and not word.endswith(SOURCE_SUFFIXES):
                _chained(word, patterns, explicit, logical.line, add)
    return out + includes(model, expander) + unassigned(model)


# an include make reads through $(eval) (`$(eval include packages/$(package).mk)`): the words up to eval's closing one
EVAL_INCLUDE = re.compile(r"\$[({]eval\s+(-?include|sinclude)\s+((?:\$[({][^(){}]*[)}]|[^(){}])*)")
UPPER_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


def unassigned(model: Makefile) -> list[Fact]:
    """`make_unassigned`: the upper-case variables the file reads and never assigns (the name the first, the text all
    of them, in the order of their first use), one fact or none. A fragment that reads EXECUTABLE and CUFILES waits
    for the Makefile that includes it to set them (the CUDA SDK's common.mk); workloads/make_reached.py leaves out
    make's own and the environment's (rules/names/build.yaml `make_own_variables`)."""
    assigned = {a.name for a in model.assignments}
    uses = model.uses()
    names = [name for name, lines in sorted(uses.items(), key=lambda item: item[1][0])
             if name not in assigned and UPPER_NAME.match(name)]
    return [fact("make_unassigned", names[0], uses[names[0]][0], 0, 0, text=" ".join(names))] if names else []


def includes(model: Makefile, expander: Expander) -> list[Fact]:
    """`make_include`, one per file an include / -include / sinclude names (expanded with the file's own values),
    relative to the folder make runs in (https://www.gnu.org/software/make/manual/html_node/Include.html); where a
    variable the file does not assign is in it, the name as written and the text `unplaced`. The text says
    `optional` for -include / sinclude (make goes on where the file is missing)."""
    out: list[Fact] = []
    for logical in model.logicals:  # an include make reads through $(eval): its file names as written
        for m in EVAL_INCLUDE.finditer(logical.text):
            how = "unplaced" + (" optional" if m.group(1) != "include" else "")
            out.extend(fact("make_include", word, logical.line, 0, 0, text=how) for word in m.group(2).split())
    for include in model.includes:
        optional = " optional" if include.optional else ""
        for written in include.words:
            expanded = expander.expand(written)
            named = [(written, "unplaced")] if UNPLACED in expanded else [(_norm(w), "") for w in expanded.split()]
            out.extend(fact("make_include", name, include.line, 0, 0, text=(how + optional).strip())
                       for name, how in named)
    return out


def _object(word: str, patterns: Sequence[tuple[str, list[str]]], explicit: set[str], line: int,
            add: Callable[[str, str, int, str], None]) -> None:
    """The source an object is compiled from: the pattern rules of the file whose target matches it give their
    prerequisites (`%.o: %.cu` and `%.o: %.cpp`: make uses the first whose prerequisite exists, so each names one);
    an object with a rule of its own is placed by that rule's prerequisites; any other is compiled by an implicit
    rule or an included file's pattern rule from a source of its stem somewhere."""
    if word in explicit or UNPLACED in word:
        if UNPLACED in word and word not in explicit:
            add("make_unplaced", posixpath.splitext(posixpath.basename(word))[0] + ".*", line, "an object's source")
        return
    placed = False
    for target, prerequisites in patterns:  # make takes the first rule whose prerequisite exists: each may be it
        stem = match(target, word)
        if stem is not None:
            for prerequisite in prerequisites:
                if prerequisite.endswith(SOURCE_SUFFIXES) and UNPLACED not in prerequisite:
                    add("make_source", prerequisite.replace("%", stem, 1), line, "object")
                    placed = True
    if not placed:
        add("make_unplaced", posixpath.splitext(posixpath.basename(word))[0] + ".*", line, "an object's source")


def _chained(word: str, patterns: Sequence[tuple[str, list[str]]], explicit: set[str], line: int,
             add: Callable[[str, str, int, str], None], depth: int = 0) -> None:
    """The sources of a goal with no rule of its own that a pattern rule makes (`gpu1` under `build: gpu1` through
    `%: %.o $(DEPS)` and `%.o: src/%.cu`; `prog` through `%: %.cu`): make looks for an implicit rule for a target
    with no recipe and chains pattern rules whose prerequisites exist or can be made
    (https://www.gnu.org/software/make/manual/html_node/Implicit-Rule-Search.html,
    https://www.gnu.org/software/make/manual/html_node/Chained-Rules.html). Each matching rule's prerequisites, the
    stem put in, name a source that may be it (a name no file has names nothing downstream); an object among them is
    placed by the object rules; nothing is said where no rule places it. A `.PHONY` goal is no file: make searches
    no implicit rule for it (https://www.gnu.org/software/make/manual/html_node/Phony-Targets.html)."""
    if word in explicit or depth > 2:
        return
    for target, prerequisites in patterns:
        stem = match(target, word)
        if not stem:  # no match, or an empty stem
            continue
        for prerequisite in prerequisites:
            made = prerequisite.replace("%", stem, 1)
            if made == word or UNPLACED in made:
                continue
            if made.endswith(SOURCE_SUFFIXES):
                add("make_source", made, line, "object")
            elif made.endswith(OBJECT_SUFFIXES):
                _chained(made, patterns, explicit, line, add, depth + 1)


def _words(text: str) -> Iterable[str]:
    """The words of an expanded line that may name a file (not an option), `./` taken off."""
    for word in WORD_SEPARATORS.split(text):
        if word and not word.startswith("-"):
            yield _norm(word)


def _norm(word: str) -> str:
    while word.startswith("./"):
        word = word[2:]
    return word
