"""extract, build files: CMake (see cmakelists), Makefiles and shell scripts."""
from __future__ import annotations

import re

from migrate.extract.c.guards import SWITCH
from migrate.extract.names import alternatives
from migrate.extract.text import case_arms, commands, host_tools, make_goal_tests, make_goals, make_model, make_reach
from migrate.extract.text.cmakelists import SOURCE_SUFFIXES
from migrate.extract.text.lines import Logical, fact, finish, flags, logical_lines, numbered
from migrate.model import Extraction, Fact
from migrate.vocabulary import MAKE_UNSET

WORD_NVIDIA_SMI = re.compile(r"\bnvidia-smi\b")
# the path before nvcc is capped: an unbounded run before a `/` is rescanned from every start (quadratic)
WORD_NVCC = re.compile(r"(?<![\w-])(?:[\w$(){}.~/-]{0,255}/)?nvcc\b(?![.-])")
# Lines that only mention a tool (messages, existence checks) do not run it.
MENTION_ONLY = re.compile(
    r"^\s*(?:if\s+(?:!\s*)?|!\s*)?(echo|printf|@echo|command\s+-v|which|type|hash)\b|\$\(\s*(command\s+-v|which)\b"
)
# make's message functions print their text (`$(info ... try `apt install libnccl-dev`)`): nothing runs.
MAKE_MESSAGE = re.compile(r"^\s*\$[({](info|warning|error)\s")
SBATCH = re.compile(r"^\s*#SBATCH\s+")
COMMENTED_SWITCH = re.compile(rf"^\s*#\s*({SWITCH})\s*:?=\s*1\s*$")
SOURCE_ASSIGNMENT = re.compile(r"^\s*[A-Za-z_]\w*\s*(?:\+=|:=|\?=|::=|=)\s*([^#]*)")
MAKE_WILDCARD = re.compile(r"\$[({]wildcard\s+([^)}]*)[)}]")  # $(wildcard cuda/*.cu): the files that match
# $(shell ls src/*.cpp): the shell lists the files that match, as $(wildcard) does (libSTARK's algebra/FFT/Makefile)
MAKE_SHELL_LS = re.compile(r"\$[({]shell\s+ls\s+(?:-[A-Za-z1]+\s+)*([^)}|;&`$]*)[)}]")
MAKE_TEST = re.compile(r"^\(\s*\$[({]([A-Za-z_]\w*)[)}]\s*,\s*([^)]*)\)$")
# `$(strip $(X))` in a test (`ifeq ($(strip ${WANTQUDA}),true)`): strip only drops the value's surrounding and repeated
# whitespace (https://www.gnu.org/software/make/manual/html_node/Text-Functions.html), so the test is still one on X
STRIPPED_VARIABLE = re.compile(r"\$[({]strip\s+(\$[({][A-Za-z_]\w*[)}])\s*[)}]")
# make's quoted form of the same test, `ifeq "$(ENABLE_CUDA)" "1"` or with single quotes (either quote on each
# argument: https://www.gnu.org/software/make/manual/html_node/Conditional-Syntax.html)
MAKE_TEST_QUOTED = re.compile(r"""^(["'])\$[({]([A-Za-z_]\w*)[)}]\1\s+(["'])([^"']*)\3$""")
# make variables are switches by their values (GPU=0, ifeq ($(GPU),1)), with or without a `_` in the name
MAKE_SWITCH = re.compile(r"^[A-Z][A-Z0-9_]*$")
SELECTED_VALUE = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")
WORD_RUN = re.compile(r"\S+")
OBJECT_SUFFIX = ".o"  # an object file named after its whole source name (`x.cu.o`)
# an old-fashioned suffix rule's target (`.cu.o:`, `.c.o:`): a pair of suffixes, no file
# (https://www.gnu.org/software/make/manual/html_node/Suffix-Rules.html)
SUFFIX_RULE = re.compile(r"^(?:\.[A-Za-z0-9_+]+){1,2}$")
# `ifdef gpu`: a lowercase variable is one the user passes on make's command line (`make gpu=1`); make imports
# every environment variable too, and those are uppercase by convention (CUDA_HOME), so only a lowercase one that
# the Makefile never assigns is off by default (https://www.gnu.org/software/make/manual/html_node/Environment.html,
# .../Conditional-Syntax.html: ifdef is false for a variable with no value)
COMMAND_LINE_SWITCH = re.compile(r"^[a-z][a-z0-9_]*$")
SWITCH_VALUES = frozenset({"0", "1", "ON", "OFF", "on", "off", "yes", "no", "true", "false"})
SWITCH_ON_VALUES = frozenset({"1", "ON", "YES", "TRUE"})
# a configure substitution, the whole of a Makefile.in value (`@enable_cuda@`: https://www.gnu.org/software/autoconf/
# manual/autoconf-2.72/html_node/Setting-Output-Variables.html)
SUBSTITUTION = re.compile(r"@([A-Za-z_]\w*)@")
# automake's conditional line prefix in a Makefile.in (`@COND_CUDA_TRUE@CUDA = yes`)
AUTOMAKE_PREFIX = re.compile(r"^@([A-Za-z_]\w*)_(TRUE|FALSE)@")
# automake's `if NAME` / `if !NAME` at the start of a Makefile.am line (never a recipe's: those start with a tab)
AUTOMAKE_MARK = "@"  # marks an automake conditional on the stack of open branches
# (the space after `!` only with the `!`: `\s+!?\s*` would try every split of a run of spaces, quadratic on a long line)
AUTOMAKE_IF = re.compile(r"^if\s+(?:(!)\s*)?([A-Za-z_]\w*)\s*(?:#.*)?$")
# Files GNU Autoconf and GNU libtool write (a `configure` script, `ltmain.sh`) say so in their header comment
# (rules/names/build.yaml, autotools_stamps and autotools_templates): they tell nothing of the project's toolchain.
AUTOTOOLS_STAMP = re.compile(r"^#.*(?:" + alternatives("build", "autotools_stamps") + r"|generated from \S*(?:"
                             + alternatives("build", "autotools_templates") + "))", re.MULTILINE)
AUTOTOOLS_STAMP_CHARS = 2048  # the stamp is in the header comment


def cmake(source: bytes) -> Extraction:
    from migrate.extract.text import cmakelists

    return cmakelists.extract(source)


def makefile(source: bytes) -> Extraction:
    original = source.decode("utf-8")
    text, conditional = _automake_lines(original)
    model = make_model.parse(logical_lines(text))  # read once: every reading below reads this model
    branches = _make_switches(model)
    facts = _tool_lines(text) + branches + _commented_switches(text) + _conditional_lines(text, conditional)
    assigned: dict[str, str] = {}  # variable -> its first value in this file
    assignments = {id(a.logical): a for a in model.assignments if a.how != "define"}
    for logical, role in zip(model.logicals, model.roles, strict=True):
        if role == "assignment" and (a := assignments.get(id(logical))) is not None:
            facts += commands.variable(logical, a.name, a.value, a.start, len(logical.text.rstrip()))
            assigned.setdefault(a.name, a.value)
            if MAKE_SWITCH.match(a.name) and a.value in SWITCH_VALUES and logical.line not in conditional:
                # (a value set on an automake conditional's line follows that conditional: _conditional_lines)
                facts.append(fact("build_switch", a.name, logical.line, 0, len(a.name), text=f"{a.value} make"))
            continue
        if MAKE_MESSAGE.match(logical.text):
            continue
        prefix = make_model.RECIPE_PREFIX.match(logical.text)
        facts += commands.analyse(logical, start=prefix.end() if prefix else 0)
    facts = commands.drop_foreign_flags(facts, model.logicals)
    facts += _selected_values(branches, assigned)
    facts += [fact("build_switch", b.name, b.line, 0, 0, text="OFF make") for b in branches
              if COMMAND_LINE_SWITCH.match(b.name) and b.name not in assigned]
    # an upper-case switch this file tests and never assigns: make imports the environment too, so only where no
    # build file of the project assigns it and its name asks for something (ENABLE_CUDA) is it off by default
    # (workloads/switches.make_unset)
    facts += [fact("build_switch", b.name, b.line, 0, 0, text=f"OFF {MAKE_UNSET}") for b in branches
              if not COMMAND_LINE_SWITCH.match(b.name) and b.text.startswith("make: ") and "=" not in b.text
              and b.name not in assigned]
    facts += _empty_switches(branches, model)
    facts += _configured_switches(branches, model)
    facts += make_goals.goal_facts(model)
    facts += make_goal_tests.goal_tests(model)
    facts += make_reach.facts(model)
    return finish(original, facts)


def _automake_lines(text: str) -> tuple[str, dict[int, str]]:
    """The Makefile with automake's `@NAME_TRUE@` / `@NAME_FALSE@` line prefixes taken off, and line -> NAME for the
    `@NAME_TRUE@` lines ("" for a `@NAME_FALSE@` one): configure makes the prefix empty where the conditional NAME
    holds and `#` where it does not (https://www.gnu.org/software/automake/manual/html_node/Usage-of-Conditionals.html),
    so such a line is in effect only where NAME is on."""
    if "_TRUE@" not in text and "_FALSE@" not in text:
        return text, {}
    lines = text.split("\n")
    conditional: dict[int, str] = {}
    for number, line in enumerate(lines, start=1):
        if m := AUTOMAKE_PREFIX.match(line):
            lines[number - 1] = line[m.end():]
            conditional[number] = m.group(1) if m.group(2) == "TRUE" else ""
    return "\n".join(lines), conditional


def _conditional_lines(text: str, conditional: dict[int, str]) -> list[Fact]:
    """A `switch_branch` over each `@NAME_TRUE@` line, and a `switch_value` for a variable such a line sets to an on
    value (`@COND_CUDA_TRUE@CUDA = yes`, SPECFEM/specfem2d 98741db1 Makefile.in:121): true only where NAME is on
    (workloads/switches.set_only_under ties `ifeq ($(CUDA),yes)` to NAME)."""
    out: list[Fact] = []
    lines = text.split("\n")
    for number, name in sorted((n, c) for n, c in conditional.items() if c):
        out.append(Fact(kind="switch_branch", name=name, line=number, column=1, end_line=number, end_column=1,
                        text=f"automake: @{name}_TRUE@"))
        if (m := make_model.ASSIGNMENT.match(lines[number - 1])) and m.group(3).upper() in SWITCH_ON_VALUES:
            out.append(fact("switch_value", m.group(1), number, 0, len(m.group(1)), text=m.group(3).upper()))
    return out


def _selected_values(branches: list[Fact], assigned: dict[str, str]) -> list[Fact]:
    """A back end chosen by a variable's value (`DEVICE ?= OPENCL` ... `ifeq ($(DEVICE),CUDA)`): the switch
    `DEVICE_CUDA`, on by default only when the variable's value in the file is that one (an unset variable
    is empty: https://www.gnu.org/software/make/manual/html_node/Conditional-Syntax.html)."""
    out, seen = [], set()
    for branch in branches:
        variable, _, value = branch.text.removeprefix("make: ").partition("=")
        if value and branch.name not in seen:
            seen.add(branch.name)
            default = "ON" if assigned.get(variable, "").upper() == value.upper() else "OFF"
            out.append(fact("build_switch", branch.name, branch.line, 0, 0, text=f"{default} make"))
    return out


def _empty_switches(branches: list[Fact], model: make_model.Makefile) -> list[Fact]:
    """A switch the file tests (`ifeq ($(WANTQUDA),true)`) and assigns only empty values (`WANTQUDA ?= #true`: the
    comment leaves the value empty): off by default, as an empty variable is to `ifeq` with an on value and to `ifdef`
    (https://www.gnu.org/software/make/manual/html_node/Conditional-Syntax.html); each empty assignment is the
    evidence. An environment or command-line value turns it on, as it does a `X ?= 0`."""
    values: dict[str, list[make_model.Assignment]] = {}
    for a in model.assignments:
        values.setdefault(a.name, []).append(a)
    tested = {b.name for b in branches if b.text.startswith("make: ") and "=" not in b.text}
    return [fact("build_switch", name, a.line, 0, len(name), text="OFF make") for name in sorted(tested)
            if (assigned := values.get(name)) and all(a.how != "define" and not a.value for a in assigned)
            for a in assigned]


def _configured_switches(branches: list[Fact], model: make_model.Makefile) -> list[Fact]:
    """A switch the file tests (`ifdef ENABLE_CUDA`) whose value is one configure substitution (`ENABLE_CUDA =
    @enable_cuda@` in a Makefile.in): a `configured` fact naming the substituted variable, whose value at configure's
    defaults the configure script says (extract/text/autoconf.py `configured_value`; workloads/configured.py)."""
    tested = {b.text.removeprefix("make: ").partition("=")[0] for b in branches if b.text.startswith("make: ")}
    return [fact("configured", a.name, a.line, 0, len(a.name), text=m.group(1)) for a in model.assignments
            if a.name in tested and a.how != "define" and (m := SUBSTITUTION.fullmatch(a.value.strip()))]


def _make_switches(model: make_model.Makefile) -> list[Fact]:
    """`ifeq ($(USE_CUDNN), 1)` / `ifdef USE_CUDNN` branches (`switch_branch`, to their `else` or `endif`), automake's
    `if COND` ones, and the sources assignments, rules and recipes name (`build_source`; text `make rule` for a rule's
    or recipe's outside every switch's branch), read from the model's logical lines."""
    out: list[Fact] = []
    stack: list[tuple[int, str, str]] = []  # (first line, switch or "", the switch of its automake `else` or "")
    for logical, role in zip(model.logicals, model.roles, strict=True):
        text = logical.text
        if role == "assignment" and (m := make_model.ASSIGNMENT.match(text)):
            out += _assigned_sources(logical, m.start(3), m.group(3))  # also tab-indented inside ifeq, as Caffe's
        elif not text.lstrip().startswith(tuple(make_model.CONDITIONALS)):
            # a rule's prerequisites or a recipe (`x.o: src/x.cu`, `nvcc -c k.cu`): sources it builds
            said = "" if any(name for _, name, _ in stack) else "make rule"
            out += [fact("build_source", word, logical.where(start)[0], 0, 0, text=said)
                    for start, word in _plain_words(text.replace(":", " "))]
        words = text.split(None, 1)
        directive = words[0] if words else ""
        number = logical.line
        if directive in make_model.CONDITIONALS:
            stack.append((number, _make_switch(directive, words[1] if len(words) > 1 else ""), ""))
        elif m := AUTOMAKE_IF.match(text):  # automake's `if COND` (`if !COND`: its else is COND's branch)
            named = AUTOMAKE_MARK + m.group(2)
            stack.append((number, "", named) if m.group(1) else (number, named, ""))
        elif directive in ("else", "endif") and stack:
            _close(out, stack, number, words)
    return out


def _close(out: list[Fact], stack: list[tuple[int, str, str]], number: int, words: list[str]) -> None:
    """An `else` or `endif` on line `number`: the branch it ends (a `switch_branch` where one is on a switch), and the
    branch an `else` opens (automake's other side, or the next test of an `else ifeq` chain)."""
    first, name, otherwise = stack.pop()
    if name.startswith(AUTOMAKE_MARK):
        out.append(Fact(kind="switch_branch", name=name[1:], line=first, column=1, end_line=number,
                        end_column=1, text=f"automake: if {name[1:]}"))
    elif name:
        variable, _, value = name.partition("=")
        out.append(Fact(kind="switch_branch", name=f"{variable}_{value.upper()}" if value else name, line=first,
                        column=1, end_line=number, end_column=1, text=f"make: {name}"))
    if words[0] == "else" and otherwise:
        stack.append((number, otherwise, ""))
    elif words[0] == "else":  # `else ifeq ($(BACKEND),cuda)`: the next test of one chain, closed by one endif
        chained = (words[1] if len(words) > 1 else "").split(None, 1)
        test = _make_switch(chained[0], chained[1] if len(chained) > 1 else "") \
            if chained and chained[0] in make_model.CONDITIONALS else ""
        stack.append((number, test, ""))


def _assigned_sources(logical: Logical, at: int, value: str) -> list[Fact]:
    """The sources an assignment's value names outright, and the patterns of its `$(wildcard ...)` / `$(shell ls
    ...)` (text `GLOB make`), each on the physical line it sits on (`at`: where the value starts in the logical line)."""
    out = [fact("build_source", word, logical.where(at + start)[0], 0, 0) for start, word in _plain_words(value)]
    for found in (*MAKE_WILDCARD.finditer(value), *MAKE_SHELL_LS.finditer(value)):
        line = logical.where(at + found.start())[0]
        out += [fact("build_source", pattern, line, 0, 0, text="GLOB make") for pattern in found.group(1).split()
                if pattern.endswith(SOURCE_SUFFIXES) and "$" not in pattern]
    return out


def _commented_switches(text: str) -> list[Fact]:
    """Switches a Makefile.config leaves commented out (`# USE_CUDNN := 1`: off unless the user turns it on): comments,
    which the model does not hold."""
    return [fact("build_switch", m.group(1), number, 0, len(raw), text="0 commented-out")
            for number, _, raw in numbered(text, strip_hash_comments=False) if (m := COMMENTED_SWITCH.match(raw))]


def _plain_words(text: str) -> list[tuple[int, str]]:
    """(offset, word) for each word of the text that names a source outright (`_plain_sources`)."""
    out = []
    for m in WORD_RUN.finditer(text):
        named = _plain_sources([m.group(0)])
        if named:
            out.append((m.start(), named[0]))
    return out


def _plain_sources(words: list[str]) -> list[str]:
    """The words that name a source file outright (no variable, pattern or wildcard in them), or through the object
    named after it (`lz/gpucompact/kernels.cu.o`: the object a `%.cu.o: %.cu` rule compiles from that source); not a
    suffix rule's target (`.cu.o:`, SUFFIX_RULE), which names no file."""
    named = (word.removesuffix(OBJECT_SUFFIX) for word in words if not SUFFIX_RULE.match(word))
    return [word for word in named if word.endswith(SOURCE_SUFFIXES) and not any(c in word for c in "$%*")]


def _make_switch(directive: str, condition: str) -> str:
    """The switch a make conditional's true branch is taken on, or ""."""
    if directive == "ifdef":
        name = condition.strip()
        if COMMAND_LINE_SWITCH.match(name):
            return name
    elif test := _make_test(condition.strip()):
        name, value = test
        if directive == "ifeq" and SELECTED_VALUE.match(value) and value not in SWITCH_VALUES:
            return f"{name}={value}" if MAKE_SWITCH.match(name) else ""  # a value-selected back end
        on = value not in ("", "0") if directive == "ifeq" else value in ("", "0")
        if not on:
            return ""
    else:
        return ""
    return name if MAKE_SWITCH.match(name) else ""


def _make_test(condition: str) -> tuple[str, str] | None:
    """(variable, value) of `($(X),value)` or `"$(X)" "value"` (X also as `$(strip $(X))`), else None."""
    condition = STRIPPED_VARIABLE.sub(r"\1", condition)
    if m := MAKE_TEST.match(condition):
        return m.group(1), m.group(2).strip()
    if m := MAKE_TEST_QUOTED.match(condition):
        return m.group(2), m.group(4).strip()
    return None


def shell(source: bytes) -> Extraction:
    text = source.decode("utf-8")
    generated = AUTOTOOLS_STAMP.search(text, 0, AUTOTOOLS_STAMP_CHARS) is not None
    facts = [] if generated else _tool_lines(text)
    logicals = list(logical_lines(text))
    for logical in logicals:
        facts += commands.analyse(logical)
    facts = commands.drop_foreign_flags(facts, logicals) + host_tools.branches(text) + case_arms.arms(text)
    for number, _, raw in numbered(text, strip_hash_comments=False):
        if m := SBATCH.match(raw):
            directive = Logical(raw, ((0, number, 0),))
            facts += commands.slurm_options(directive, directive.words(m.end()))
    return finish(text, facts)


def _tool_lines(text: str) -> list[Fact]:
    out: list[Fact] = []
    for number, line, _ in numbered(text):
        out.extend(command_line(line, number))
    return out


def command_line(line: str, number: int) -> list[Fact]:
    """nvidia-smi and nvcc runs and nvcc flags on one physical line (without its comment)."""
    if MENTION_ONLY.search(line):
        return []
    facts: list[Fact] = []
    for m in WORD_NVIDIA_SMI.finditer(line):
        facts.append(fact("construct", "subprocess-nvidia-smi", number, m.start(), m.end(), text="nvidia-smi"))
    for m in WORD_NVCC.finditer(line):
        facts.append(fact("flag", "nvcc", number, m.start(), m.end(), text=m.group(0)))
    facts.extend(flags(line, number))
    return facts
