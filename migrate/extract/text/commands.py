"""Shell commands in scripts, Makefile recipes and Dockerfile RUN instructions: package installs,
docker run GPU options, cmake -D definitions, build environment variables, Slurm GPU requests and
environment modules. Works on one logical (backslash-continued) line at a time."""
from __future__ import annotations

import re

from migrate.extract.names import alternatives, name_list
from migrate.extract.text import repositories
from migrate.extract.text.lines import Logical, commands
from migrate.extract.text.packages import INDEX_OPTIONS, conda_names, pip_names, url_names
from migrate.model import Fact

Words = list[tuple[int, int, str]]

ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)
PREFIXES = frozenset({"sudo", "env", "exec", "time", "nohup", "if", "elif", "while", "until", "then", "do", "else",
                      "!", "{", "command", "xargs", "export", "declare", "local", "readonly", "eval"})
PYTHON = re.compile(r"^python(\d(\.\d+)?)?$")
PIP = re.compile(r"^pip(\d(\.\d+)?)?$")
# Options of pip, uv and conda that take a value, so the value is not read as a package.
PIP_VALUED = frozenset({"-r", "--requirement", "-c", "--constraint", "-t", "--target", "--prefix", "--root",
                        "--upgrade-strategy", "--platform", "--python-version", "--implementation", "--abi",
                        "--src", "--log", "--cache-dir", "--progress-bar", "--trusted-host", "-C",
                        "--config-settings", "--global-option", "--only-binary", "--no-binary", "--proxy",
                        "--timeout", "--retries", "--exists-action", "--cert", "--client-cert", "--report",
                        "-p", "--python", "-n", "--name", "--file", "--group", "--optional", "--extra",
                        "--index-strategy", "--keyring-provider", "--resolution", "--prerelease", "-o", "--option",
                        "--target-release", "--setopt", "--exclude", "--enablerepo", "--disablerepo",
                        "--installroot", "--releasever"}) | INDEX_OPTIONS
CHANNEL_OPTIONS = frozenset({"-c", "--channel"})
DOCKER_VALUED = frozenset({"-v", "--volume", "-p", "--publish", "--name", "-w", "--workdir", "--shm-size", "--ipc",
                           "--network", "--net", "-u", "--user", "--entrypoint", "--mount", "--group-add",
                           "--security-opt", "--cap-add", "--cap-drop", "--ulimit", "--device", "-e", "--env",
                           "--env-file", "-l", "--label", "--gpus", "--runtime", "--platform", "--cpus", "-m",
                           "--memory", "-h", "--hostname", "--restart", "--add-host", "--tmpfs", "--volumes-from",
                           "--log-driver", "--log-opt", "--pull", "--cidfile", "--pid", "--uts", "--userns", "--dns",
                           "--expose", "--link", "--cpuset-cpus", "--memory-swap", "--stop-signal", "--health-cmd"})
# Environment variables that CMake or PyTorch's extension builder read: reported as cmake facts.
# Runtime variables that make ROCm treat a GPU as another target (a workaround a port reports).
RUNTIME_VARIABLES = name_list("build", "runtime_variables")
BUILD_VARIABLES = name_list("build", "build_variables")
INDEX_VARIABLES = name_list("build", "index_variables")
SLURM_GPU_OPTIONS = {"--gres": "gres", "--gpus": "gpus", "-G": "gpus", "--gpus-per-node": "gpus",
                     "--gpus-per-task": "gpus", "--gpus-per-socket": "gpus", "--constraint": "constraint",
                     "-C": "constraint"}
# NVIDIA-only command-line tools, reported as manifest facts `tool:NAME` where a command runs them.
NVIDIA_TOOLS = name_list("build", "nvidia_tools")
# Programs that run the command given in their arguments (mpirun -np 4 nsys profile ...).
LAUNCHERS = name_list("build", "launchers")
# Programs whose own options share a spelling with nvcc's: `gzip -dc` / `xz -dc` decompress to standard output
# (automake's distcheck recipe), not nvcc's relocatable device code. A flag given to one of them is its own.
# https://www.gnu.org/software/gzip/manual/gzip.html#Invoking-gzip (-d, -c), https://tukaani.org/xz/man.html,
# https://sourceware.org/bzip2/manual/manual.html, https://facebook.github.io/zstd/zstd_manual.html
ARCHIVERS = name_list("build", "archivers")
# nvcc's options that other programs spell the same (gzip/lz4/zstd -dc, tr -dc): nvcc's only on a command that runs
# nvcc, a variable that may hold it ($(NVCC), ${CXX}), or in a variable's value (rules/names/build.yaml)
NVCC_ONLY_FLAGS = name_list("build", "nvcc_only_flags")
CUDA_COMPILER_DRIVERS = name_list("build", "cuda_compiler_drivers")
NVCC_ONLY_FLAG = re.compile(r"(?<![\w-])(?:" + alternatives("build", "nvcc_only_flags") + r")(?![\w-])")
# the last one before a flag starts its simple command: ; | & ` and the parentheses of a subshell or a case
# pattern (`*.tar.gz*) gzip -dc`), not those of a variable ($(NVCC) -dc, $(CUDA_PATH)/bin/nvcc)
COMMAND_SEPARATOR = re.compile(r";|\||&|`|\)(?=\s)|(?<![$\w])\(")
MAKE_ASSIGNING = frozenset({"=", ":=", "::=", "+=", "?=", "!="})
DASH_D = re.compile(r"^-D\s*([A-Za-z_][A-Za-z0-9_]*)(?::\w+)?=")


def analyse(logical: Logical, *, start: int = 0) -> list[Fact]:
    """Facts from the simple commands of one logical line (from `start`, e.g. past a Dockerfile RUN)."""
    out: list[Fact] = []
    for words in commands(logical.words(start)):
        mention = _mention(words)
        words = _assignments(logical, words, out)
        if not words:
            continue
        program = words[0][2].rsplit("/", 1)[-1]
        args = words[1:]
        names = [w[2] for w in args]
        if not mention:
            out += _tools(logical, words, program)
        if program == "git" and (i := repositories.clone_url(names)) is not None:
            out.append(logical.fact("requirement", repositories.name(names[i]), args[i][0], args[i][1], text=names[i]))
        if PIP.match(program) and names[:1] == ["install"]:
            out += _pip(logical, args[1:])
        elif PYTHON.match(program) and names[:3] == ["-m", "pip", "install"]:
            out += _pip(logical, args[3:])
        elif program == "uv" and (names[:2] == ["pip", "install"] or names[:1] == ["add"]):
            out += _pip(logical, args[2:] if names[0] == "pip" else args[1:])
        elif program in ("poetry", "pdm", "rye", "pixi") and names[:1] == ["add"]:
            out += _pip(logical, args[1:], conda=program == "pixi")
        elif program in ("conda", "mamba", "micromamba") and names[:1] in (["install"], ["create"]):
            out += _pip(logical, args[1:], conda=True)
        elif program in ("apt-get", "apt", "yum", "dnf", "microdnf", "zypper", "apk") and "install" in names[:3]:
            out += _system(logical, args[names.index("install") + 1:])
        elif program in ("docker", "podman", "nerdctl", "nvidia-docker"):
            out += _docker(logical, words, program)
        elif program in ("cmake", "cmake3", "ccmake"):
            defined = _defines(logical, args)
            out += defined + _switched(logical, words, defined)
        elif program in ("srun", "sbatch", "salloc"):
            out += slurm_options(logical, args)
        elif program in ("module", "ml") or (program == "spack" and names[:1] == ["load"]):
            out += _modules(logical, args, program)
    return out


def _mention(words: Words) -> bool:
    """`command -v X` (also after `if !`) looks a program up without running it."""
    for i, (_, _, value) in enumerate(words):
        if value == "command":
            return i + 1 < len(words) and words[i + 1][2] in ("-v", "-V")
        if value not in PREFIXES:
            return False
    return False


def _tools(logical: Logical, words: Words, program: str) -> list[Fact]:
    """An NVIDIA-only tool run as the command, or as the command a launcher runs."""
    if program in LAUNCHERS:
        words = [w for w in words[1:] if w[2].rsplit("/", 1)[-1] in NVIDIA_TOOLS][:1]
    elif program not in NVIDIA_TOOLS:
        return []
    return [logical.fact("manifest", f"tool:{w[2].rsplit('/', 1)[-1]}", w[0], w[1], text=w[2]) for w in words[:1]]


def _assignments(logical: Logical, words: Words, out: list[Fact]) -> Words:
    """Skip leading VAR=value words, export/ENV and prefixes like sudo; report the variables that matter."""
    i = 0
    while i < len(words):
        value = words[i][2]
        if value in PREFIXES or (value.startswith("-") and i and words[i - 1][2] in PREFIXES):
            i += 1
            continue
        m = ASSIGNMENT.match(value)
        if not m:
            break
        out.extend(variable(logical, m.group(1), m.group(2), words[i][0], words[i][1]))
        i += 1
    return words[i:]


def variable(logical: Logical, name: str, value: str, start: int, end: int) -> list[Fact]:
    """Facts for one environment assignment (shell, Dockerfile ENV/ARG, Makefile export)."""
    if name in BUILD_VARIABLES:
        return [logical.fact("cmake", name, start, end, text=name)]
    if name in RUNTIME_VARIABLES:
        return [logical.fact("manifest", name, start, end, text=value)]
    if name in INDEX_VARIABLES:
        return [logical.fact("requirement", f"index:{url}", start, end, text=url) for url in value.split()]
    if name == "CMAKE_ARGS":
        return [logical.fact("cmake", m.group(1), start, end, text=m.group(0))
                for m in re.finditer(r"-D\s*([A-Za-z_]\w*)(?::\w+)?=", value)]
    return []


def _pip(logical: Logical, args: Words, *, conda: bool = False) -> list[Fact]:
    out: list[Fact] = []
    skip = False
    for i, (start, end, value) in enumerate(args):
        if skip:
            skip = False
            continue
        if value.startswith("-"):
            option, eq, inline = value.partition("=")
            has_inline = bool(eq) and option.startswith("--")
            if has_inline:
                target, tstart, tend = inline, start, end
            elif i + 1 < len(args):
                tstart, tend, target = args[i + 1]
            else:
                target, tstart, tend = "", start, end
            if conda and option in CHANNEL_OPTIONS and target:
                out.append(logical.fact("requirement", f"channel:{target.split('/')[0]}", tstart, tend, text=target))
            elif option in INDEX_OPTIONS and target:
                out.append(logical.fact("requirement", f"index:{target}", tstart, tend, text=target))
            elif option in ("-e", "--editable") and target:
                out += [logical.fact("requirement", n, tstart, tend, text=target) for n in url_names(target)]
            skip = not has_inline and (option in PIP_VALUED or option in ("-e", "--editable"))
            continue
        if value.startswith(("$", ".", "/")) and not value.endswith(".whl"):
            continue
        names = conda_names(value) if conda and not value.startswith(("http", "git+")) else pip_names(value)
        out += [logical.fact("requirement", n, start, end, text=value) for n in names]
    return out


def _system(logical: Logical, args: Words) -> list[Fact]:
    out = []
    skip = False
    for start, end, value in args:
        if skip or value.startswith("-"):
            skip = not skip and value in PIP_VALUED
            continue
        name = re.split(r"[=<>]", value, maxsplit=1)[0]
        if re.fullmatch(r"[A-Za-z0-9][\w.+-]*", name):
            out.append(logical.fact("requirement", f"system:{name.lower()}", start, end, text=value))
    return out


def _docker(logical: Logical, words: Words, program: str) -> list[Fact]:
    names = [w[2] for w in words[1:3]]
    if program == "nvidia-docker":
        return [logical.fact("manifest", "nvidia-docker", words[0][0], words[0][1], text=words[0][2])]
    if not (names[:1] in (["run"], ["create"]) or names == ["container", "run"]):
        return []
    out = []
    args = words[2 if names[0] != "container" else 3:]
    i = 0
    while i < len(args):
        start, end, value = args[i]
        if not value.startswith("-"):
            break  # the image: what follows is the container's command
        option, eq, inline = value.partition("=")
        if eq:
            target, tspan = inline, (start, end)
        elif option in DOCKER_VALUED and i + 1 < len(args):
            target, tspan = args[i + 1][2], args[i + 1][:2]
        else:
            target, tspan = "", (start, end)
        if option == "--gpus":
            out.append(logical.fact("manifest", "--gpus", start, tspan[1], text=f"--gpus {target}".strip()))
        elif option == "--runtime" and target == "nvidia":
            out.append(logical.fact("manifest", "runtime: nvidia", start, tspan[1], text=value))
        elif option in ("-e", "--env") and target.startswith("NVIDIA_"):
            key = target.split("=", 1)[0]
            out.append(logical.fact("manifest", key, tspan[0], tspan[0] + len(key), text=key))
        elif option == "--device" and target.startswith("nvidia.com/"):
            key = target.split("=", 1)[0]
            out.append(logical.fact("manifest", key, tspan[0], tspan[0] + len(key), text=target))
        i += 1 if eq or option not in DOCKER_VALUED else 2
    return out


LITERAL_OFF = frozenset({"0", "OFF", "FALSE", "NO", "N"})  # CMake's false constants (if() documentation)


def _defines(logical: Logical, args: Words) -> list[Fact]:
    """cmake -DVAR=value and -D VAR=value."""
    out = []
    for i, (start, end, value) in enumerate(args):
        if value == "-D" and i + 1 < len(args):
            start, end, value = args[i + 1][0], args[i + 1][1], "-D" + args[i + 1][2]
        if m := DASH_D.match(value):
            out.append(logical.fact("cmake", m.group(1), start, end, text=value))
    return out


def _switched(logical: Logical, words: Words, defined: list[Fact]) -> list[Fact]:
    """The cmake command's lines as a branch of each switch it sets to anything but a literal off
    (`cmake -DENABLE_CUDA=${GPU} -DCMAKE_CUDA_ARCHITECTURES=...`): what else the command says
    (CUDA architectures, toolkit paths) configures that switch's part (workloads/parts.py)."""
    first, last = logical.where(words[0][0])[0], logical.where(words[-1][1])[0]
    out = []
    for define in defined:
        if define.kind == "cmake":
            value = define.text.partition("=")[2].strip("\"'")
            if value.upper() not in LITERAL_OFF:
                out.append(Fact(kind="switch_branch", name=define.name, line=first, column=1, end_line=last,
                                end_column=1, text=f"cmake -D{define.name}={value}"[:120]))
    return out


def slurm_options(logical: Logical, args: Words) -> list[Fact]:
    """Typed GPU requests (--gres=gpu:a100:4, --gpus=h100:8) and node features (--constraint=a100)."""
    out = []
    for i, (start, end, value) in enumerate(args):
        option, eq, target = value.partition("=")
        if not eq and i + 1 < len(args) and option in SLURM_GPU_OPTIONS:
            target, end = args[i + 1][2], args[i + 1][1]
        kind = SLURM_GPU_OPTIONS.get(option)
        if not kind or not target:
            continue
        for item in re.split(r"[,&|\[\]()*]+" if kind == "constraint" else r",", target.lower()):
            if gpu_type := _gpu_type(kind, item.strip()):
                out.append(logical.fact("manifest", f"slurm:{kind}:{gpu_type}", start, end, text=value))
    return out


def _gpu_type(kind: str, item: str) -> str:
    parts = item.split(":")
    if kind == "constraint":
        return item
    if kind == "gres":  # gpu[:type][:count]
        return parts[1] if parts[0] == "gpu" and len(parts) > 1 and not parts[1].isdigit() else ""
    return parts[0] if len(parts) == 2 else ""  # --gpus [type:]count


def _modules(logical: Logical, args: Words, program: str) -> list[Fact]:
    names = [w[2] for w in args]
    if program == "module" and names[:1] not in (["load"], ["add"], ["swap"], ["switch"]):
        return []
    first = 1 if program in ("module", "spack") or names[:1] in (["load"], ["add"]) else 0
    return [logical.fact("manifest", f"module:{re.split(r'[/@]', value)[0].lower()}", start, end, text=value)
            for start, end, value in args[first:] if not value.startswith("-")]


def drop_foreign_flags(facts: list[Fact], logicals: list[Logical]) -> list[Fact]:
    """The facts without the flags that an archiver's command line carries (ARCHIVERS: `gzip -dc x.tar.gz`),
    nor nvcc's shared spellings given to another program (NVCC_ONLY_FLAGS: `eval GZIP= gzip -dc`, `lz4 -dc`)."""
    spans: set[tuple[int, int]] = set()
    for logical in logicals:
        spans |= {logical.where(m.start()) for m in NVCC_ONLY_FLAG.finditer(logical.text)
                  if _given_to_another_program(logical.text, m.start())}
        if not any(name in logical.text for name in ARCHIVERS):
            continue  # cheap: most lines run no archiver
        for words in commands(logical.words()):
            words = [w for w in words if not ASSIGNMENT.match(w[2]) and w[2] not in PREFIXES] or words
            if words[0][2].rsplit("/", 1)[-1] in ARCHIVERS:
                spans |= {logical.where(w[0]) for w in words[1:] if w[2].startswith("-")}
    if not spans:
        return facts
    return [f for f in facts if not (f.kind == "flag" and (f.line, f.column - 1) in spans)]


def _given_to_another_program(text: str, at: int) -> bool:
    """Whether the flag at `at` belongs to a simple command whose words before it (past `eval`, PREFIXES and
    assignments) name a program and none is nvcc. A word held in a variable ($(NVCC), ${CXX}, `$NVCC`) may be nvcc;
    a variable's value (`NVCCFLAGS += -dc`, `FLAGS="-dc"`) is no command; a flag that starts the command (a
    continued flag list) has no program to tell."""
    start = max((m.end() for m in COMMAND_SEPARATOR.finditer(text, 0, at)), default=0)
    words = text[start:at].split()
    if any(w in MAKE_ASSIGNING for w in words):  # `NVCCFLAGS += -dc`, `override X = -dc`, `x.o: X += -dc`
        return False
    words = [w for w in words if w not in PREFIXES and w != "eval" and not ASSIGNMENT.match(w)]
    if not words:
        return False
    # the program, or a launcher before it (`ccache nvcc`), may be nvcc
    named = [w.lstrip("@+-") for w in words]  # make's recipe prefixes (@nvcc)
    return not any("$" in w or w.startswith(("(", "{")) or w.rsplit("/", 1)[-1] in CUDA_COMPILER_DRIVERS for w in named)
