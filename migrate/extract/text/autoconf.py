"""extract, configure.ac / configure.in (GNU Autoconf with Automake): the default of each automake conditional.

`./configure` run without options takes each `AC_ARG_WITH(package, help, [action-if-given], [action-if-not-given])`
and `AC_ARG_ENABLE(...)` down its action-if-not-given: the shell variables that action sets hold the option's default
(https://www.gnu.org/software/autoconf/manual/autoconf-2.72/html_node/External-Software.html, .../Package-Options.html;
without that action the option's own `with_<package>` / `enable_<feature>` variable is unset). `AM_CONDITIONAL(NAME,
shell-condition)` decides NAME from such a variable (https://www.gnu.org/software/automake/manual/html_node/
Usage-of-Conditionals.html): where the condition is a `test` of such variables, it is read at their defaults, and NAME
is a `build_switch` fact `ON AM_CONDITIONAL` or `OFF AM_CONDITIONAL`. A program search (`AC_PATH_PROG(NVCC, nvcc)`)
is found-if-present: its variable is read as on a machine without the program (its value-if-not-found), as the
project reads a CMake detection (workloads/switches.detected_switches) (SPECFEM/specfem2d 98741db1 configure.ac:74-84:
`--with-cuda` defaults to `want_cuda=no`, `AM_CONDITIONAL([COND_CUDA], [test x"$want_cuda" != xno])` is off). The
Makefile.am `if NAME` blocks and Makefile.in `@NAME_TRUE@` lines NAME gates are read with the Makefiles
(extract/text/buildfiles.py). A condition this reading cannot evaluate (a variable without a known default, a
command substitution) gives no fact: the old readings stand. Nothing here is a finding: configure.ac is read for
its switches only."""
from __future__ import annotations

import re
import shlex

from migrate.extract.text.lines import fact, finish
from migrate.model import Extraction, Fact

MACROS = re.compile(r"\b(AC_ARG_WITH|AC_ARG_ENABLE|AM_CONDITIONAL|AC_CHECK_PROGS?|AC_PATH_PROGS?|AC_CHECK_TOOLS?"
                    r"|AC_PATH_TOOL)\s*\(")
# where a program search's value-if-not-found is (0-based argument), the value its variable has on a machine without
# the program: https://www.gnu.org/software/autoconf/manual/autoconf-2.72/html_node/Generic-Programs.html
NOT_FOUND_ARGUMENT = {"AC_CHECK_PROG": 3, "AC_CHECK_PROGS": 2, "AC_PATH_PROG": 2, "AC_PATH_PROGS": 2,
                      "AC_CHECK_TOOL": 2, "AC_CHECK_TOOLS": 2, "AC_PATH_TOOL": 2}
DNL = re.compile(r"\bdnl\b.*$", re.MULTILINE)
ASSIGN = re.compile(r"(?:^|[\s;])([A-Za-z_]\w*)=(\"[^\"]*\"|'[^']*'|[^\s;]*)")
VARIABLE = re.compile(r"\$\{?([A-Za-z_]\w*)\}?")
AND_WORDS = frozenset({"-a", "&&"})
OR_WORDS = frozenset({"-o", "||"})
MAX_ARGUMENTS = 8
SPECIAL = re.compile(r"[][(),]")  # the characters an argument scan reads
# characters the macro calls' argument scans may read in all, per character of the file: a call's arguments are read
# from its `(` on, a nested call's again, so a real configure.ac reads each character a few times; unclosed calls
# (`AC_ARG_WITH(` repeated) would read the rest of the file once per call (34 configure.ac/.in of /work/repos: at most
# 0.64 characters read per character). Past the budget no further call is read
# (no fact: the old readings stand) and the file gets a note.
SCAN_BUDGET_PER_CHAR = 4


def extract(source: bytes) -> Extraction:
    text = source.decode("utf-8")
    clean = DNL.sub("", text)
    defaults: dict[str, str] = {}
    facts: list[Fact] = []
    budget = SCAN_BUDGET_PER_CHAR * len(clean) + 4096
    line, counted = 1, 0
    notes: list[str] = []
    for m in MACROS.finditer(clean):
        args, scanned = _arguments(clean, m.end(), m.end() + budget)
        budget -= scanned
        if budget <= 0:
            line += clean.count("\n", counted, m.start())
            notes.append(f"macro calls from line {line} on not read: their arguments are unclosed or nested past the"
                         f" reading budget ({SCAN_BUDGET_PER_CHAR} characters per character of the file)")
            break
        if args is None:
            continue
        line += clean.count("\n", counted, m.start())  # the macros come in order: each newline counted once
        counted = m.start()
        if m.group(1) in ("AC_ARG_WITH", "AC_ARG_ENABLE") and args:
            prefix = "with_" if m.group(1) == "AC_ARG_WITH" else "enable_"
            defaults.setdefault(prefix + args[0].replace("-", "_"), "")
            given = ASSIGN.findall(args[2]) if len(args) > 2 else []
            for name, _ in given:  # a variable only the given action sets is unset (empty) by default
                defaults.setdefault(name, "")
            for name, value in ASSIGN.findall(args[3]) if len(args) > 3 else []:
                defaults[name] = value.strip("\"'")
        elif m.group(1) in NOT_FOUND_ARGUMENT and args and re.fullmatch(r"[A-Za-z_]\w*", args[0]):
            # found-if-present (AC_PATH_PROG(NVCC, nvcc)): read as on a machine without the program
            where = NOT_FOUND_ARGUMENT[m.group(1)]
            defaults.setdefault(args[0], args[where] if len(args) > where and "$" not in args[where] else "")
        elif m.group(1) == "AM_CONDITIONAL" and len(args) >= 2 and args[0]:
            value = _evaluate(args[1], defaults)
            if value is not None:
                state = "ON" if value else "OFF"
                facts.append(fact("build_switch", args[0], line, 0, len(args[0]), text=f"{state} AM_CONDITIONAL"))
    return finish(text, facts, notes)


def _arguments(text: str, start: int, stop: int) -> tuple[list[str] | None, int]:
    """The top-level arguments of an m4 macro call whose `(` ends at `start`, quotes `[...]` taken off, or None where
    it does not close before `stop`; and the characters read."""
    args: list[str] = []
    depth, quote, begin = 0, 0, start
    end = min(stop, len(text))
    for special in SPECIAL.finditer(text, start, end):
        i, c = special.start(), special.group()
        if c == "[":
            quote += 1
        elif c == "]":
            quote = max(0, quote - 1)
        elif quote:
            continue
        elif c == "(":
            depth += 1
        elif c == ")" and depth:
            depth -= 1
        elif c in ",)" and not depth:
            args.append(_unquote(text[begin:i]))
            begin = i + 1
            if c == ")" or len(args) > MAX_ARGUMENTS:
                return args, i + 1 - start
    return None, end - start


def _unquote(arg: str) -> str:
    """`arg` without its surrounding whitespace and quotes `[...]`, however deep (one slice: no copy per level)."""
    i, j = 0, len(arg)
    while True:
        while i < j and arg[i].isspace():
            i += 1
        while j > i and arg[j - 1].isspace():
            j -= 1
        if j - i < 2 or arg[i] != "[" or arg[j - 1] != "]":
            return arg[i:j]
        i, j = i + 1, j - 1


def _evaluate(condition: str, defaults: dict[str, str]) -> bool | None:
    """A shell condition made of `test` / `[ ]` comparisons (=, !=, -n, -z) joined by -a/-o/&&/||, at the variables'
    defaults; None where it reads anything else (a command, a variable without a known default)."""
    text = condition.replace("\\\n", " ")
    unknown = [name for name in VARIABLE.findall(text) if name not in defaults]
    if unknown or "`" in text or "$(" in text:
        return None
    try:
        words = shlex.split(VARIABLE.sub(lambda m: defaults[m.group(1)], text), posix=True)
    except ValueError:
        return None
    words = [w for w in words if w not in ("test", "[", "]")]
    result: bool | None = None
    for alternative in _split(words, OR_WORDS):
        value = True
        for atom in _split(alternative, AND_WORDS):
            truth = _atom(atom)
            if truth is None:
                return None
            value = value and truth
        result = value if result is None else (result or value)
    return result


def _split(words: list[str], separators: frozenset[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for word in words:
        if word in separators:
            out.append([])
        else:
            out[-1].append(word)
    return out


def _atom(words: list[str]) -> bool | None:
    if len(words) == 3 and words[1] in ("=", "==", "!="):
        return (words[0] == words[2]) == (words[1] != "!=")
    if len(words) == 2 and words[0] in ("-n", "-z"):
        return bool(words[1]) == (words[0] == "-n")
    return None
