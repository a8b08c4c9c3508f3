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
its switches only.

The script's own shell is followed too, in order: plain assignments (`have_cuda="no"`) set a variable; `if` / `elif`
/ `else` / `fi` blocks whose test reads known values run or not (a test is read in Kleene's logic: `test "$h" = yes
-a "$have_nvcc" = yes` is false where have_nvcc is "no", whatever h is), and an assignment in a block whose test is
not known, in a `case` or a loop, or inside another macro's arguments (AC_COMPILE_IFELSE's actions, AS_IF) makes the
variable unknown. The last AM_CONDITIONAL of a name is the one configure leaves (an unknown last one says nothing).
An AC_MSG_ERROR that runs at the defaults stops configure on a machine without NVIDIA's tools: the file then says
nothing. Autoconf macro files (`*.m4`: a project's m4/ folder, acinclude.m4) are read the same way, each AC_DEFUN body
in place: cr-marcstevens/hashclash 892f02e6 m4/ax_cuda.m4:166-181 sets have_cuda="yes" only where nvcc, the CUDA
headers and libraries are found, and `AM_CONDITIONAL(HAVE_CUDA, test "x${have_cuda}" = xyes)`. Not followed: where
configure.ac calls the macro (a call inside an `if` of configure.ac is read as if made at the top), shell functions,
`test ... && x=y` (read as may-set).

`AC_SUBST(variable, [value])` makes configure write the variable's value where a template says `@variable@`
(https://www.gnu.org/software/autoconf/manual/autoconf-2.72/html_node/Setting-Output-Variables.html): where that
value at the defaults is known it is a `configured_value` fact (marshallward/optiflop 9730d5d7 configure.ac:92-94,149:
`AC_ARG_ENABLE([cuda], ...)` with no action-if-not-given, `AC_SUBST(enable_cuda, "$enable_cuda")`, empty without
`--enable-cuda`); a Makefile.in's `ENABLE_CUDA = @enable_cuda@` takes it (workloads/configured.py)."""
from __future__ import annotations

import bisect
import re
import shlex

from migrate.extract.text.lines import SHELL_CLOSES, SHELL_OPENS, fact, finish
from migrate.model import Extraction

MACROS = re.compile(r"\b(AC_ARG_WITH|AC_ARG_ENABLE|AM_CONDITIONAL|AC_CHECK_PROGS?|AC_PATH_PROGS?|AC_CHECK_TOOLS?"
                    r"|AC_PATH_TOOL|AC_MSG_ERROR|AC_MSG_FAILURE|AC_SUBST)\s*\(")
STOPS = frozenset({"AC_MSG_ERROR", "AC_MSG_FAILURE"})  # configure stops with an error
# where a program search's value-if-not-found is (0-based argument), the value its variable has on a machine without
# the program: https://www.gnu.org/software/autoconf/manual/autoconf-2.72/html_node/Generic-Programs.html
NOT_FOUND_ARGUMENT = {"AC_CHECK_PROG": 3, "AC_CHECK_PROGS": 2, "AC_PATH_PROG": 2, "AC_PATH_PROGS": 2,
                      "AC_CHECK_TOOL": 2, "AC_CHECK_TOOLS": 2, "AC_PATH_TOOL": 2}
DNL = re.compile(r"\bdnl\b.*$", re.MULTILINE)
# any m4 macro call with arguments (m4 reads arguments only where `(` follows the name at once)
ANY_MACRO = re.compile(r"(?<![\w$])([A-Z][A-Z0-9_]*|m4_\w+)\(")
# macros whose argument is a definition, read in place: a macro file's AC_DEFUN body is the code configure runs
# where it calls the macro (https://www.gnu.org/software/autoconf/manual/autoconf-2.72/html_node/Macro-Definitions.html)
TRANSPARENT = frozenset({"AC_DEFUN", "AC_DEFUN_ONCE", "AU_DEFUN"})
LEADING_ASSIGN = re.compile(r"([A-Za-z_]\w*)=(\"[^\"]*\"|'[^']*'|[^\s;]*)")
TEST_THEN_ASSIGN = re.compile(r"(test\s.*?)\s*(\|\||&&)\s*([A-Za-z_]\w*)=(\"[^\"]*\"|'[^']*'|[^\s;]*)")
M4_QUOTES = str.maketrans("[]", "  ")  # m4 takes its quotes off before the shell reads the code
BLOCK_WORDS = frozenset({*SHELL_OPENS, *SHELL_CLOSES, "elif", "else", "then", "do"})
COMMAND = re.compile(r"(?:[^;\"'#]|\"[^\"]*\"|'[^']*'|(?<=\S)#)+|#.*")
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
AT_END = object()  # an AC_SUBST(variable) without a value: configure substitutes the variable's last value


def extract(source: bytes) -> Extraction:
    text = source.decode("utf-8")
    clean = DNL.sub("", text)
    state = _State()
    budget = SCAN_BUDGET_PER_CHAR * len(clean) + 4096
    notes: list[str] = []
    calls: list[tuple[int, int, str, list[str]]] = []  # (start, end, macro, arguments) of the macros read
    opaque: list[tuple[int, int]] = []  # the argument spans of other macros: code there may or may not run
    for m in ANY_MACRO.finditer(clean):
        name = m.group(1)
        known = MACROS.fullmatch(m.group(0)) is not None
        if not known and (name in TRANSPARENT or (opaque and m.start() < opaque[-1][1])):
            continue  # a definition's body is read in place; a call inside an opaque one changes nothing
        args, scanned = _arguments(clean, m.end(), m.end() + budget)
        budget -= scanned
        if budget <= 0:
            line = clean.count("\n", 0, m.start()) + 1
            notes.append(f"macro calls from line {line} on not read: their arguments are unclosed or nested past the"
                         f" reading budget ({SCAN_BUDGET_PER_CHAR} characters per character of the file)")
            break
        if args is None:
            continue
        if known:
            calls.append((m.start(), m.end() + scanned, name, args))
        else:
            opaque.append((m.end(), m.end() + scanned))
    skipped = [(a, b) for a, b, name, _ in calls if name in ("AC_ARG_WITH", "AC_ARG_ENABLE")]
    events: list[tuple[int, int, str, list[str]]] = [(a, 1, name, args) for a, _, name, args in calls]
    events += [(pos, 0, command, []) for pos, command in _commands(clean, skipped)]
    conditionals: dict[str, tuple[int, bool | None]] = {}  # the last AM_CONDITIONAL of each name: line, value
    substituted: dict[str, tuple[int, str | object | None]] = {}  # the last AC_SUBST of each variable: line, value
    starts = [a for a, _ in opaque]  # disjoint and in order: a call inside another opaque one is not kept
    for pos, is_macro, name, args in sorted(events, key=lambda e: (e[0], e[1])):
        i = bisect.bisect_right(starts, pos) - 1
        maybe = i >= 0 and pos < opaque[i][1]
        if not is_macro:
            state.command(name, maybe)
        elif name in ("AC_ARG_WITH", "AC_ARG_ENABLE") and args:
            prefix = "with_" if name == "AC_ARG_WITH" else "enable_"
            state.defaults.setdefault(prefix + args[0].replace("-", "_"), "")
            for variable, _ in ASSIGN.findall(args[2]) if len(args) > 2 else []:
                state.defaults.setdefault(variable, "")  # a variable only the given action sets is unset by default
            for variable, value in ASSIGN.findall(args[3]) if len(args) > 3 else []:
                state.defaults[variable] = value.strip("\"'")
        elif name in NOT_FOUND_ARGUMENT and args and re.fullmatch(r"[A-Za-z_]\w*", args[0]) and state.runs() is not False:
            # found-if-present (AC_PATH_PROG(NVCC, nvcc)): read as on a machine without the program
            where = NOT_FOUND_ARGUMENT[name]
            value = args[where] if len(args) > where and "$" not in args[where] else ""
            if args[0] in state.defaults or args[0] in state.unknown:
                state.set(args[0], value, maybe)
            else:  # run or not, the variable holds no program: the not-found value, or unset
                state.defaults[args[0]] = value
        elif name in STOPS and not maybe and state.runs() is True and _own_command(clean, pos):
            return finish(text, [], notes)  # configure stops at its defaults without NVIDIA's tools: no default build
        elif name == "AM_CONDITIONAL" and len(args) >= 2 and args[0] and (runs := state.runs()) is not False:
            value = None if maybe or runs is None else _evaluate(args[1], state.defaults, state.unknown)
            conditionals[args[0]] = (clean.count("\n", 0, pos) + 1, value)
        elif name == "AC_SUBST" and args and re.fullmatch(r"[A-Za-z_]\w*", args[0]):
            substituted[args[0]] = (clean.count("\n", 0, pos) + 1, _substitution(args, state, maybe))
    facts = [fact("build_switch", name, line, 0, len(name), text=f"{'ON' if value else 'OFF'} AM_CONDITIONAL")
             for name, (line, value) in conditionals.items() if value is not None]
    for name, (line, value) in substituted.items():
        if value is AT_END and name not in state.unknown:
            value = state.defaults.get(name)
        if isinstance(value, str):
            facts.append(fact("configured_value", name, line, 0, len(name), text=value))
    return finish(text, facts, notes)


def _substitution(args: list[str], state: _State, maybe: bool) -> str | object | None:
    """The value `AC_SUBST(variable, value)` gives the variable at configure's defaults (its variables read at
    their defaults); AT_END without a value (configure substitutes the variable's last value); None where the call
    may not run or the value reads a command or a variable without a known default."""
    if len(args) < 2 or not args[1]:
        return AT_END
    if maybe or state.runs() is not True or "`" in args[1] or "$(" in args[1]:
        return None
    if any(n in state.unknown or n not in state.defaults for n in VARIABLE.findall(args[1])):
        return None
    return VARIABLE.sub(lambda m: state.defaults[m.group(1)], args[1].strip().strip("\"'"))


class _State:
    """The shell variables of a configure script at its defaults, on a machine without NVIDIA's tools, and the `if`
    blocks the script is in: each frame is whether its branch runs (None: not known)."""

    def __init__(self) -> None:
        self.defaults: dict[str, str] = {}
        self.unknown: set[str] = set()
        self.frames: list[list[bool | None]] = []  # per open block: the truth of each branch so far, the last current

    def runs(self) -> bool | None:
        truths = [frame[-1] for frame in self.frames]
        return False if False in truths else None if None in truths else True

    def set(self, name: str, value: str, maybe: bool = False) -> None:
        runs = self.runs()
        if runs is False:
            return
        value = value.strip("\"'")
        if runs is None or maybe or "$" in value or "`" in value:
            if "$" in value or "`" in value or self.defaults.get(name) != value:  # may set another value: unknown
                self.defaults.pop(name, None)
                self.unknown.add(name)
            return
        self.defaults[name] = value
        self.unknown.discard(name)

    def command(self, command: str, maybe: bool) -> None:
        words = command.split(None, 1)
        first, rest = words[0], words[1] if len(words) > 1 else ""
        if maybe and first in BLOCK_WORDS:  # a test program's C `if` or a macro's own shell: its blocks are its own
            return
        if first in ("then", "do") or (first == "else" and not self.frames):
            if rest:
                self.command(rest, maybe)
            return
        if first == "if":
            self.frames.append([None if maybe else _evaluate(rest, self.defaults, self.unknown)])
        elif first == "elif" and self.frames:
            frame = self.frames[-1]
            before = _any(frame)
            frame.append(False if before is True else None if before is None or maybe
                         else _evaluate(rest, self.defaults, self.unknown))
        elif first == "else":
            frame = self.frames[-1]
            before = _any(frame)
            frame.append(None if before is None else not before)
            if rest:
                self.command(rest, maybe)
        elif first in SHELL_CLOSES and self.frames:
            self.frames.pop()
        elif first in SHELL_OPENS:  # `if` is read above
            self.frames.append([None])
            for name, value in ASSIGN.findall(rest):  # `case $host in *linux*) w=yes`: set in some runs only
                self.set(name, value, True)
        elif (m := LEADING_ASSIGN.match(command)) is not None:
            self.set(m.group(1), m.group(2), maybe or bool(command[m.end():].strip()))
        elif (m := TEST_THEN_ASSIGN.fullmatch(command)) is not None:  # `test "x$d" = xyes || enable_doxygen=no`
            truth = None if maybe else _evaluate(m.group(1), self.defaults, self.unknown)
            runs = None if truth is None else truth == (m.group(2) == "&&")
            if runs is not False:
                self.set(m.group(3), m.group(4), runs is None)
        else:  # an assignment after another command (`grep -q x f && have=yes`) may or may not run
            for name, value in ASSIGN.findall(command):
                self.set(name, value, True)


def _own_command(text: str, pos: int) -> bool:
    """Whether the macro call at `pos` is a command of its own: first on its line (after `then`/`else`), and not the
    second half of a `||` / `&&` list or a continued line (`flags=`$x` ||` then AC_MSG_ERROR on the next line)."""
    start = text.rfind("\n", 0, pos) + 1
    before = text[start:pos].split()
    if before and before[-1] not in ("then", "else", ";"):
        return False
    previous = text[:start].rstrip()
    return not previous.endswith(("||", "&&", "|", "\\"))


def _any(truths: list[bool | None]) -> bool | None:
    return True if True in truths else None if None in truths else False


def _commands(text: str, skipped: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """The shell commands of the script outside `skipped` spans: each line, m4's quotes taken off, cut at `;` (outside
    quotes) and at a comment, with its position."""
    out: list[tuple[int, str]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        start, pos = pos, pos + len(line)
        if any(a < pos and start < b for a, b in skipped):
            continue
        for m in COMMAND.finditer(line.translate(M4_QUOTES)):
            command = m.group().strip()
            if command.startswith("#"):
                break
            if command:
                out.append((start + m.start(), command))
    return out


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


def _evaluate(condition: str, defaults: dict[str, str], unknown: set[str] | frozenset[str] = frozenset()) -> bool | None:
    """A shell condition made of `test` / `[ ]` comparisons (=, !=, -n, -z) joined by -a/-o/&&/||, at the variables'
    defaults, in Kleene's logic: a comparison that reads anything else (a command, a variable without a known
    default) is not known, and decides nothing an `and` with a false one or an `or` with a true one decides."""
    text = condition.replace("\\\n", " ").strip().removesuffix("then").strip().rstrip(";")
    if "`" in text or "$(" in text:
        return None
    try:
        words = shlex.split(text, posix=True)
    except ValueError:
        return None
    words = [w for w in words if w not in ("test", "[", "]")]
    result: bool | None = False
    for alternative in _split(words, OR_WORDS):
        value: bool | None = True
        for atom in _split(alternative, AND_WORDS):
            names = [n for word in atom for n in VARIABLE.findall(word)]
            truth = None if any(n in unknown or n not in defaults for n in names) else \
                _atom([VARIABLE.sub(lambda m: defaults[m.group(1)], w) for w in atom])
            value = False if value is False or truth is False else None if value is None or truth is None else True
        result = True if result is True or value is True else None if result is None or value is None else False
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
