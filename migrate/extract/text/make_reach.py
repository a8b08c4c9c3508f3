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
from collections.abc import Callable, Iterable, Mapping, Sequence

from migrate.extract.text.cmakelists import SOURCE_SUFFIXES
from migrate.extract.text.lines import Logical, fact
from migrate.extract.text.make_goals import ASSIGNMENT
from migrate.model import Fact

OBJECT_SUFFIXES = (".o", ".obj")
RECIPE = re.compile(r"^\t")
DIRECTIVE = re.compile(r"^\s*(?:-?include|sinclude|ifeq|ifneq|ifdef|ifndef|else|endif|define|endef|export|unexport|"
                       r"override|vpath|undefine)\b")
AUTOMATIC = frozenset("@<^+*?%|")
UNPLACED = "\x00"  # what an unassigned variable or an unread function expands to
KNOWN_FUNCTIONS = frozenset({"wildcard", "addprefix", "addsuffix", "patsubst", "notdir", "sort", "strip", "dir",
                             "basename", "filter", "filter-out", "subst"})
MENTIONS_FILES = re.compile(r"[*%]|\.(?:cu|cuh|c|cc|cpp|cxx|o|obj)\b")
WORD_SEPARATORS = re.compile(r"[\s;:=,()'\"<>|&`]+")
DEPTH = 16  # variables referring to variables: expanded this deep


def facts(logicals: Sequence[Logical]) -> list[Fact]:
    """`make_source` (a path relative to the Makefile's folder, a glob where a wildcard gave one; text `object` for
    the source an object's pattern rule names) and `make_unplaced` facts of one Makefile's logical lines."""
    values: dict[str, list[str]] = {}
    for logical in logicals:
        if not RECIPE.match(logical.text) and (m := ASSIGNMENT.match(logical.text)):
            shell = UNPLACED + ("*" if MENTIONS_FILES.search(m.group(3)) else "")  # `X != find . -name '*.cu'`
            values.setdefault(m.group(1), []).append(shell if m.group(2) == "!" else m.group(3))
    expander = _Expander(values)
    lines: list[tuple[Logical, str, bool]] = []  # (line, expanded text, whether a recipe)
    for logical in logicals:
        if DIRECTIVE.match(logical.text) and not RECIPE.match(logical.text):
            continue
        lines.append((logical, expander.expand(logical.text), bool(RECIPE.match(logical.text))))
    patterns: list[tuple[str, list[str]]] = []  # (target pattern, its prerequisite patterns)
    explicit: set[str] = set()  # targets of a rule with a recipe of its own or source prerequisites
    last_targets: list[str] = []
    for logical, text, recipe in lines:
        if recipe:
            explicit.update(last_targets)
            continue
        last_targets = []
        if ASSIGNMENT.match(logical.text):
            continue
        rule = _rule(text)
        if rule is None:
            continue
        targets, prerequisites = [_norm(t) for t in rule[0]], [_norm(p) for p in rule[1]]
        if any("%" in t for t in targets):
            patterns += [(t, [p for p in prerequisites if "%" in p]) for t in targets if "%" in t]
        else:
            last_targets = targets
            if any(p.endswith(SOURCE_SUFFIXES) for p in prerequisites):
                explicit.update(targets)
    out: list[Fact] = []
    seen: set[tuple[str, str]] = set()

    def add(kind: str, name: str, line: int, text: str = "") -> None:
        if (kind, name) not in seen:
            seen.add((kind, name))
            out.append(fact(kind, name, line, 0, 0, text=text))

    for logical, text, recipe in lines:
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
        rule = None if recipe or ASSIGNMENT.match(logical.text) else _rule(text)
        for word in rule[1] if rule else ():  # objects a rule needs: make builds them (a recipe's `-o x.o` is output)
            if word.endswith(OBJECT_SUFFIXES) and "%" not in word and UNPLACED not in posixpath.basename(word):
                _object(_norm(word), patterns, explicit, logical.line, add)
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
        stem = _match(target, word)
        if stem is not None:
            for prerequisite in prerequisites:
                if prerequisite.endswith(SOURCE_SUFFIXES) and UNPLACED not in prerequisite:
                    add("make_source", prerequisite.replace("%", stem, 1), line, "object")
                    placed = True
    if not placed:
        add("make_unplaced", posixpath.splitext(posixpath.basename(word))[0] + ".*", line, "an object's source")


def _match(pattern: str, word: str) -> str | None:
    """The stem of `word` under a make pattern (`obj/%.o`), or None."""
    head, _, tail = pattern.partition("%")
    if word.startswith(head) and word.endswith(tail) and len(word) >= len(head) + len(tail):
        return word[len(head):len(word) - len(tail)]
    return None


def _rule(text: str) -> tuple[list[str], list[str]] | None:
    """(targets, prerequisites) of a rule line (`a.o b.o: %.o: %.cu`, static pattern rules read as pattern rules)."""
    if ":" not in text or "=" in text.partition(":")[0]:
        return None
    targets, _, rest = text.partition(":")
    rest = rest.lstrip(":")
    if ":" in rest.partition(";")[0]:  # a static pattern rule: targets: target-pattern: prerequisite-patterns
        pattern, _, prerequisites = rest.partition(":")
        return pattern.split(), prerequisites.partition(";")[0].replace("|", " ").split()
    return targets.split(), rest.partition(";")[0].replace("|", " ").split()


def _words(text: str) -> Iterable[str]:
    """The words of an expanded line that may name a file (not an option), `./` taken off."""
    for word in WORD_SEPARATORS.split(text):
        if word and not word.startswith("-"):
            yield _norm(word)


def _norm(word: str) -> str:
    while word.startswith("./"):
        word = word[2:]
    return word


class _Expander:
    """Expands a Makefile's own variables in a line; what it cannot expand becomes UNPLACED (followed by `*` where
    the unread text may name files)."""

    def __init__(self, values: Mapping[str, list[str]]) -> None:
        self.values = values
        self.expanded: dict[str, str] = {}  # variable -> its expansion, made once
        self.active: set[str] = set()  # variables being expanded: `X := $(X) -DY` refers to X's earlier value

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
        parts = [self.expand(a, depth + 1) for a in _split_args(args)]
        return _apply(function, parts)


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
    stem = _match(pattern, word)
    return word if stem is None else replacement.replace("%", stem, 1)


def _substitute(word: str, old: str, new: str) -> str:
    if "%" in old:
        return _patsubst(old, new, word)
    return word[:-len(old)] + new if old and word.endswith(old) else word


def _split_args(args: str) -> list[str]:
    """A function's comma-separated arguments, commas inside nested references kept."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(args):
        if c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(args[start:i])
            start = i + 1
    out.append(args[start:])
    return out


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
