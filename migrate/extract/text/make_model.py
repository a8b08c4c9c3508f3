"""extract, Makefiles: one model of a Makefile, read once per file (docs/decisions/2026-12-07-s28-one-makefile-model.md).

make reads a Makefile line by line (https://www.gnu.org/software/make/manual/html_node/Reading-Makefiles.html):
- an assignment (`X = a` recursive, `X := b` simple, `X ?= c` if unset, `X += d` appended, `X != cmd` a shell's
  output, `define X` ... `endef` a multi-line value; `export` / `override` in front;
  https://www.gnu.org/software/make/manual/html_node/Setting.html, .../Multi_002dLine.html);
- a rule (`targets : prerequisites | order-only ; recipe`, `::` double-colon, `objs: %.o: %.cu` static pattern,
  `target: VAR = value` a target-specific variable, not a rule), whose targets and prerequisites make expands as it
  reads them (the values assigned above, https://www.gnu.org/software/make/manual/html_node/Reading-Makefiles.html
  "Rule Definition"), followed by its recipe: the lines that start with a tab, up to the next line that is neither
  a recipe line nor a conditional directive (conditionals may sit inside a recipe;
  https://www.gnu.org/software/make/manual/html_node/Recipe-Syntax.html); a tab line outside a rule's context is
  read as an ordinary line (Caffe's tab-indented assignments inside `ifeq`);
- a conditional (`ifeq` / `ifneq` / `ifdef` / `ifndef` ... `else` ... `endif`), an `include` / `-include` /
  `sinclude`, and the other directives.
The default goal is the first target of the first rule that is neither a pattern rule nor a target starting with
`.` (unless it holds a `/`), or what `.DEFAULT_GOAL` names
(https://www.gnu.org/software/make/manual/html_node/How-Make-Works.html).

The readings of a Makefile (extract/text/buildfiles.py, make_goals.py, make_reach.py) all read this model. Two
expansions are offered: a rule's targets and prerequisites as make reads them (the values set above it, in file
order, conditionals not evaluated), and `Expander` over every value any assignment of the file gives a variable
(what some configuration of the file names: both branches of an `ifeq` count)."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from migrate.extract.text.lines import Logical, split_args

# a variable assignment (`X = a`, `X += b`, `X ?= c`, `X := d`, `X != cmd`; names may hold `.` and `-`): the name, the
# operator's first part (`+`, `?`, `:`, `!` or none) and the value
ASSIGNMENT = re.compile(r"^\s*(?:export\s+|override\s+|private\s+)*(\.?[A-Za-z_][\w.-]*)\s*(\+|\?|:{1,3}|!)?=\s*(.*?)\s*$")
DEFINE = re.compile(r"^\s*(?:export\s+|override\s+|private\s+)*define\s+(\.?[A-Za-z_][\w.-]*)\s*(\+|\?|:{1,3}|!)?=?\s*$")
ENDEF = re.compile(r"^\s*endef\b")
CONDITIONALS = frozenset({"ifeq", "ifneq", "ifdef", "ifndef"})
# lines whose first word is a make directive, not a rule (https://www.gnu.org/software/make/manual/html_node/Quick-Reference.html)
DIRECTIVES = frozenset({"ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "define", "endef", "export", "unexport",
                        "override", "vpath", "undefine", "private"})
INCLUDES = frozenset({"include", "-include", "sinclude"})
AUTOMATIC = frozenset("@<^+*?%|")
UNPLACED = "\x00"  # what an unassigned variable or an unread function expands to
KNOWN_FUNCTIONS = frozenset({"wildcard", "addprefix", "addsuffix", "patsubst", "notdir", "sort", "strip", "dir",
                             "basename", "filter", "filter-out", "subst"})
# a use of a variable: `$(X)`, `${X}`, a substitution reference `$(X:.cu=.o)` (GNU make manual 6.3.1), inside a
# function's arguments too (`$(patsubst %.cu,%.o,$(SRC))`)
VARIABLE_USE = re.compile(r"\$[({]([A-Za-z_][\w.]*)(?::[^)}$]*)?[)}]")
RECIPE_PREFIX = re.compile(r"^\t[@+\-\s]*")  # a recipe line's tab and its `@` (silent), `-` (ignore errors), `+` prefixes
MENTIONS_FILES = re.compile(r"[*%]|\.(?:cu|cuh|c|cc|cpp|cxx|o|obj)\b")
DEPTH = 16  # variables referring to variables: expanded this deep
SHELL = "!"


@dataclass(slots=True)
class Assignment:
    name: str
    how: str  # the operator's first part: "", "+", "?", ":", "::", ":::", "!"; "define" for a define block
    value: str
    line: int  # its first line
    last: int
    start: int  # offset of the name in its logical line's text
    logical: Logical


@dataclass(slots=True)
class Rule:
    targets: list[str]  # as make reads them: expanded with the values set above the rule
    prerequisites: list[str]  # normal and order-only, expanded alike
    targets_text: str  # as written
    prerequisites_text: str  # as written, order-only ones after `|` included; the static pattern's own if one
    inline: str  # a recipe after `;` on the rule's line, as written
    inline_expanded: str  # the same, expanded as the targets are
    static: str  # a static pattern rule's target pattern (`objs: %.o: %.cu`), else ""
    line: int
    last: int  # the last line of its recipe
    logical: Logical
    recipe: list[Logical] = field(default_factory=list)


@dataclass(slots=True)
class Conditional:
    directive: str  # ifeq, ifneq, ifdef, ifndef
    test: str
    line: int
    end: int = 0  # the line of its endif (0 when the file ends first)
    otherwise: int = 0  # the line of its own first `else` (`else ifeq ...` too; 0 when it has none)


@dataclass(slots=True)
class Include:
    words: list[str]  # the file names, as written
    line: int
    optional: bool  # `-include` / `sinclude`: no error where the file is missing


@dataclass(slots=True)
class Makefile:
    logicals: list[Logical]
    assignments: list[Assignment] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    conditionals: list[Conditional] = field(default_factory=list)
    includes: list[Include] = field(default_factory=list)
    # each logical line's role: "assignment", "define" (a define block's body), "rule", "recipe", "directive",
    # "include", "target-variable", "other"
    roles: list[str] = field(default_factory=list)
    default_goal: str = ""  # `.DEFAULT_GOAL`'s value where assigned, else the first eligible target
    default_from: str = ""  # ".DEFAULT_GOAL" or "line N"
    included_first: bool = False  # an `include` before the first rule: its rules may come first

    def uses(self) -> dict[str, list[int]]:
        """The lines each variable is used on (VARIABLE_USE), in file order; comments are not read."""
        out: dict[str, list[int]] = {}
        for logical in self.logicals:
            for m in VARIABLE_USE.finditer(logical.text):
                out.setdefault(m.group(1), []).append(logical.where(m.start())[0])
        return out

    def values(self) -> dict[str, list[str]]:
        """Every value any assignment gives each variable (a shell's output as UNPLACED, `*` where it may list files)."""
        out: dict[str, list[str]] = {}
        for a in self.assignments:
            shell = UNPLACED + ("*" if MENTIONS_FILES.search(a.value) else "")  # `X != find . -name '*.cu'`
            out.setdefault(a.name, []).append(shell if a.how == SHELL else a.value)
        return out


def parse(logicals: Iterable[Logical]) -> Makefile:
    """The model of one Makefile's logical lines (comments already dropped)."""
    model = Makefile(list(logicals))
    roles = model.roles
    current: dict[str, list[str]] = {}  # values as make has read them so far
    expander = Expander(current)
    rule: Rule | None = None
    define: Assignment | None = None
    body: list[str] = []
    open_conditionals: list[Conditional] = []
    for logical in model.logicals:
        text = logical.text
        if define is not None:
            if ENDEF.match(text):
                define.value, define.last = "\n".join(body), logical.pieces[-1][1]
                _set(current, define, expander)
                define, body = None, []
                roles.append("directive")
            else:
                body.append(text.rstrip())
                roles.append("define")
            continue
        words = text.split(None, 1)
        first = words[0] if words else ""
        if first in CONDITIONALS or first in ("else", "endif"):
            roles.append("directive")  # inside a recipe too: the recipe goes on after it
            if first in CONDITIONALS:
                open_conditionals.append(Conditional(first, words[1].strip() if len(words) > 1 else "", logical.line))
                model.conditionals.append(open_conditionals[-1])
            elif first == "endif" and open_conditionals:
                open_conditionals.pop().end = logical.line
            elif first == "else" and open_conditionals and not open_conditionals[-1].otherwise:
                open_conditionals[-1].otherwise = logical.line
            continue
        if text.startswith("\t") and rule is not None:
            rule.recipe.append(logical)
            rule.last = logical.pieces[-1][1]
            roles.append("recipe")
            continue
        rule = None
        if m := DEFINE.match(text):
            define = Assignment(m.group(1), "define" if not m.group(2) else m.group(2), "", logical.line,
                                logical.line, m.start(1), logical)
            model.assignments.append(define)
            roles.append("directive")
            continue
        if first in INCLUDES:
            model.includes.append(Include(words[1].split() if len(words) > 1 else [], logical.line, first != "include"))
            model.included_first = model.included_first or not model.rules
            roles.append("include")
            continue
        if m := ASSIGNMENT.match(text):
            a = Assignment(m.group(1), m.group(2) or "", m.group(3), logical.line, logical.pieces[-1][1], m.start(1),
                           logical)
            model.assignments.append(a)
            if a.name == ".DEFAULT_GOAL":
                model.default_goal, model.default_from = a.value.strip(), ".DEFAULT_GOAL"
            _set(current, a, expander)
            roles.append("assignment")
            continue
        if first in DIRECTIVES:
            roles.append("directive")
            continue
        colon = _rule_colon(text)
        if colon < 0:
            roles.append("other")
            continue
        targets_text = text[:colon]
        rest = text[colon + 1:]
        if rest.startswith(":") and not rest.startswith(":="):
            rest = rest[1:]  # `::`, a double-colon rule
        if rest.startswith("="):
            roles.append("other")  # `X := y` with a name ASSIGNMENT does not read
            continue
        prerequisites_text, _, inline = _split_inline(rest)
        if prerequisites_text.lstrip().startswith("=") or ASSIGNMENT.match(prerequisites_text) \
                or DEFINE.match(prerequisites_text):
            roles.append("target-variable")  # `cuda29: NVCC += -G`
            continue
        static = ""
        pattern_colon = _rule_colon(prerequisites_text, at_start=True)
        if pattern_colon >= 0:  # targets: target-pattern: prerequisite-patterns
            static = prerequisites_text[:pattern_colon].strip()
            prerequisites_text = prerequisites_text[pattern_colon + 1:]
        rule = Rule(expander.expand(targets_text).split(),
                    [w for w in expander.expand(prerequisites_text).split() if w != "|"],
                    targets_text, prerequisites_text, inline, expander.expand(inline), static, logical.line,
                    logical.pieces[-1][1], logical)
        model.rules.append(rule)
        roles.append("rule")
        if not model.default_from:
            goal = next((t for t in rule.targets if _eligible(t)), "")
            if goal:
                model.default_goal, model.default_from = goal, f"line {rule.line}"
    if define is not None:  # a define the file never ends: its body is its value
        define.value = "\n".join(body)
    return model


def _set(current: dict[str, list[str]], a: Assignment, expander: Expander) -> None:
    """make's flavours, in file order: `?=` only where unset, `+=` appends, a shell's output is not known."""
    value = (UNPLACED + ("*" if MENTIONS_FILES.search(a.value) else "")) if a.how == SHELL else a.value
    if a.how == "+" and a.name in current:
        current[a.name] = [f"{current[a.name][0]} {value}".strip()]
    elif a.how != "?" or a.name not in current:
        current[a.name] = [value]
    expander.forget()


def _eligible(target: str) -> bool:
    """A target that can be the default goal: not a pattern, not one left unexpanded, not a special `.X` target."""
    return "%" not in target and UNPLACED not in target and "$" not in target \
        and (not target.startswith(".") or "/" in target)


def _rule_colon(text: str, *, at_start: bool = False) -> int:
    """The offset of the colon that makes `text` a rule (outside `$(...)`, not `:=`), or -1; a line starting with a
    tab or `#`, and one with `=` before its colon, is no rule (at_start: the colon of a static pattern, any text)."""
    if not at_start and (not text or text[0] in "\t#"):
        return -1
    for i, c in _outside_references(text):
        if c == ":" and not text.startswith("=", i + 1):
            return i if i > 0 or at_start else -1
        if c in "=;#" or (c == ":" and text.startswith("=", i + 1)):
            return -1
    return -1


def _split_inline(text: str) -> tuple[str, str, str]:
    """A rule's prerequisites and the recipe after its `;` (outside `$(...)`)."""
    for i, c in _outside_references(text):
        if c == ";":
            return text[:i], ";", text[i + 1:]
    return text, "", ""


def _outside_references(text: str) -> Iterator[tuple[int, str]]:
    """(offset, character) of each character of `text` outside `$(...)`/`${...}` and not a bracket itself."""
    depth = 0
    for i, c in enumerate(text):
        if c in "({":
            depth += 1
        elif c in ")}":
            depth = max(0, depth - 1)
        elif depth == 0:
            yield i, c


class Expander:
    """Expands a Makefile's own variables in a line; what it cannot expand becomes UNPLACED (followed by `*` where
    the unread text may name files). `$(X)`, `${X}`, `$X`, substitution references `$(X:.cu=.o)`, and the text
    functions wildcard, addprefix, addsuffix, patsubst, notdir, sort, strip, dir, basename, filter, filter-out,
    subst (https://www.gnu.org/software/make/manual/html_node/Text-Functions.html); a variable's values are joined."""

    def __init__(self, values: Mapping[str, list[str]]) -> None:
        self.values = values
        self.expanded: dict[str, str] = {}  # variable -> its expansion, made once
        self.active: set[str] = set()  # variables being expanded: `X := $(X) -DY` refers to X's earlier value

    def forget(self) -> None:
        """The values changed: expand afresh."""
        self.expanded.clear()

    def expand(self, text: str, depth: int = 0) -> str:
        if "$" not in text:
            return text
        out: list[str] = []
        i = 0
        while i < len(text):
            c = text[i]
            if c != "$" or i + 1 >= len(text):
                out.append(c)
                i += 1
                continue
            nxt = text[i + 1]
            if nxt == "$":  # `$$`: a shell's variable
                out.append(UNPLACED)
                i += 2
                while i < len(text) and (text[i].isalnum() or text[i] in "_{}"):
                    i += 1
                continue
            if nxt in "({":
                close = ")" if nxt == "(" else "}"
                end = _closing(text, i + 1, nxt, close)
                if end < 0:
                    out.append(UNPLACED)
                    break
                out.append(self._reference(text[i + 2:end], depth))
                i = end + 1
                continue
            out.append("" if nxt in AUTOMATIC else self._variable(nxt, depth))
            i += 2
        return "".join(out)

    def _variable(self, name: str, depth: int) -> str:
        if name in AUTOMATIC or (len(name) == 2 and name[0] in AUTOMATIC and name[1] in "DF"):
            return ""
        if name in self.active:
            return ""  # its earlier value: every value of the variable is read anyway
        if name not in self.values or depth >= DEPTH:
            return UNPLACED
        if (done := self.expanded.get(name)) is None:
            self.active.add(name)
            done = self.expanded[name] = " ".join(self.expand(v, depth + 1) for v in self.values[name])
            self.active.discard(name)
        return done

    def _reference(self, inner: str, depth: int) -> str:
        function, space, args = inner.partition(" ")
        if not space or "$" in function or ":" in function:
            name, colon, substitution = inner.partition(":")
            if colon and "=" in substitution and "$" not in name:  # $(X:.cu=.o)
                old, _, new = substitution.partition("=")
                return " ".join(_substitute(w, old, new) for w in self._variable(name, depth).split())
            return self._variable(self.expand(inner, depth + 1), depth) if "$" in inner else self._variable(inner, depth)
        args = args.lstrip()
        if function not in KNOWN_FUNCTIONS:
            return UNPLACED + ("*" if MENTIONS_FILES.search(inner) else "")
        parts = [self.expand(a, depth + 1) for a in split_args(args)]
        return _apply(function, parts)


def match(pattern: str, word: str) -> str | None:
    """The stem of `word` under a make pattern (`obj/%.o`), or None."""
    head, _, tail = pattern.partition("%")
    if word.startswith(head) and word.endswith(tail) and len(word) >= len(head) + len(tail):
        return word[len(head):len(word) - len(tail)]
    return None


def _apply(function: str, parts: list[str]) -> str:
    last = parts[-1].split() if parts else []
    if function == "wildcard":
        return " ".join(w if UNPLACED not in w else UNPLACED + "*" for w in last)
    if function in ("sort", "strip", "filter-out", "filter") or function == "dir":
        return " ".join(last) if function != "dir" else " ".join(posixpath.dirname(w) + "/" for w in last)
    if function == "notdir":
        return " ".join(posixpath.basename(w) for w in last)
    if function == "basename":
        return " ".join(posixpath.splitext(w)[0] for w in last)
    if function == "addprefix" and len(parts) == 2:
        return " ".join(parts[0].strip() + w for w in last)
    if function == "addsuffix" and len(parts) == 2:
        return " ".join(w + parts[0].strip() for w in last)
    if function == "patsubst" and len(parts) == 3:
        return " ".join(_patsubst(parts[0].strip(), parts[1].strip(), w) for w in last)
    if function == "subst" and len(parts) == 3:
        return parts[2].replace(parts[0], parts[1])
    return UNPLACED + "*"


def _patsubst(pattern: str, replacement: str, word: str) -> str:
    if "%" not in pattern:
        return replacement if word == pattern else word
    stem = match(pattern, word)
    return word if stem is None else replacement.replace("%", stem, 1)


def _substitute(word: str, old: str, new: str) -> str:
    if "%" in old:
        return _patsubst(old, new, word)
    return word[:-len(old)] + new if old and word.endswith(old) else word


def _closing(text: str, start: int, opening: str, close: str) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i
    return -1
