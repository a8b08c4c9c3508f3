"""extract, containers and clusters: compose files, Kubernetes manifests, Helm values and CI
workflows (Dockerfiles are in migrate.extract.text.docker)."""
from __future__ import annotations

import posixpath
import re

from migrate.extract.names import alternatives
from migrate.extract.text import commands
from migrate.extract.text.buildfiles import command_line
from migrate.extract.text.lines import Logical, fact, finish, numbered
from migrate.model import Extraction, Fact

# image: x, container: x (CI), repository: x (Helm), baseImage:/BASE_IMAGE: x (build arguments)
IMAGE = re.compile(r"^\s*(?:-\s*)?[\"']?(image|container|repository|(?=[\w.-]*(?i:image))[\w.-]+)[\"']?\s*:\s*[\"']?"
                   r"([^\s\"'#{}\[\],]+)")
GPU_KEYS = re.compile(
    r"(?<![\w./-])nvidia\.com/[\w.-]+|\b(?:runtime|driver|runtimeClassName):\s*[\"']?nvidia\b"
    r"|\bNVIDIA_[A-Z_]+\b|\bnvidia-smi\b"
)
CAPABILITIES = re.compile(r"^(\s*(?:-\s*)?)capabilities:\s*(.*)$")
COMPOSE_GPUS = re.compile(r"^\s+(gpus:\s*[\"']?[^\s\"'#]+)")
# Cloud node labels that select NVIDIA accelerators (GKE, EKS, Karpenter, AKS ...).
ACCELERATOR_KEY = r"[\w./-]*(?:accelerator|instance-gpu-manufacturer|gpu-type)"
ACCELERATOR = re.compile(rf"(?i)(?<![\w.-])({ACCELERATOR_KEY})[\"']?\s*[:=]\s*[\"']?((?:nvidia|tesla)[\w.-]*)")
ACCELERATOR_SELECTOR = re.compile(rf"(?i)^\s*(?:-\s*)?key:\s*[\"']?{ACCELERATOR_KEY}[\"']?\s*$")
VALUES = re.compile(r"^\s*values:\s*\[(.*)\]")
# a key whose value is prose (an alert's description): its lines, inline or continued, name NVIDIA tools without using them
PROSE_KEYS = alternatives("build", "manifest_prose_keys")
PROSE_KEY = re.compile(rf"^(\s*)(?:-\s+)?[\"']?(?:{PROSE_KEYS})[\"']?\s*:(?:\s|$)")
# CI steps: GitHub's run:, GitLab's script: (inline, block scalar, or a list of commands)
SHELL_KEY = re.compile(r"^(\s*)(?:-\s+)?(?:run|script|before_script|after_script)\s*:\s*(.*?)\s*$")


def dockerfile(source: bytes) -> Extraction:
    from migrate.extract.text import docker

    return docker.dockerfile(source)


def manifest(source: bytes) -> Extraction:
    """Compose files, Kubernetes manifests and the like: images and NVIDIA device requests."""
    text = source.decode("utf-8")
    compose = bool(re.search(r"^services:", text, re.MULTILINE)) and not re.search(r"^apiVersion:", text, re.MULTILINE)
    facts: list[Fact] = []
    capability_indent = -1
    in_selector = False  # inside a matchExpressions entry keyed on an accelerator label
    shell_block = (-1, False)
    prose_indent = -1
    for number, line, _ in numbered(text):
        shell_block = _shell_step(line, number, shell_block, facts)
        prose_indent = _prose(line, prose_indent)
        if m := IMAGE.match(line):
            key, value = m.group(1), m.group(2)
            if key == "image" or "/" in value or (key == "container" and ":" in value):
                facts.append(fact("base_image", value.lower(), number, m.start(2), m.end(2)))
        if prose_indent < 0:  # an NVIDIA name in prose (an alert's description) requests and runs nothing
            facts.extend(_gpu_keys(line, number))
        capability_indent = _capabilities(line, number, capability_indent, facts)
        if compose and (m := COMPOSE_GPUS.match(line)):
            facts.append(fact("manifest", "gpus", number, m.start(1), m.end(1), text=m.group(1)))
        for m in ACCELERATOR.finditer(line):
            facts.append(fact("manifest", f"accelerator: {m.group(2).lower()}", number, m.start(), m.end(),
                              text=m.group(0)))
        if re.match(r"^\s*(?:-\s*)?key:", line):
            in_selector = bool(ACCELERATOR_SELECTOR.match(line))
        elif in_selector and (m := VALUES.match(line)):
            in_selector = False
            for value in re.finditer(r"(?i)(nvidia|tesla)[\w.-]*", m.group(1)):
                start = m.start(1) + value.start()
                facts.append(fact("manifest", f"accelerator: {value.group(0).lower()}", number, start,
                                  start + len(value.group(0)), text=value.group(0)))
    if compose:
        facts.extend(compose_services(text))
    return finish(text, _without_redundant_capabilities(text.split("\n"), facts))


# A Compose service's image built from a Dockerfile (https://docs.docker.com/reference/compose-file/build/): `build:`
# holds the context (a path, relative to the Compose file's folder), inline or as `context:`, and `dockerfile:`
# (relative to the context; `Dockerfile` by default).
SERVICE = re.compile(r"^( +)([\w.-]+):\s*(?:#.*)?$")
BUILD_INLINE = re.compile(r"^\s+build:\s*[\"']?([^\s\"'#{&*][^\s\"'#]*)")
BUILD_KEY = re.compile(r"^\s+(context|dockerfile):\s*[\"']?([^\s\"'#&*][^\s\"'#]*)")


def compose_services(text: str) -> list[Fact]:
    """`compose_service` facts: one per service of a Compose file that builds its image, spanning the service's lines,
    named after the service, its text the Dockerfile's path relative to the Compose file's folder."""
    out: list[Fact] = []
    service: tuple[str, int] | None = None
    indent = -1  # the services' own indent, once seen
    last = 0  # the last line of the current service with content
    build = {"context": ".", "dockerfile": ""}
    in_services = False

    def close() -> None:
        if service is not None and build["dockerfile"] != "":
            path = posixpath.normpath(posixpath.join(build["context"], build["dockerfile"]))
            out.append(Fact(kind="compose_service", name=service[0], line=service[1], column=1, end_line=last,
                            end_column=1, text=path))

    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():  # a top-level key: `services:` opens the services, any other closes them
            close()
            service, in_services, indent = None, line.startswith("services:"), -1
            continue
        if not in_services:
            continue
        m = SERVICE.match(line)
        if m and (indent < 0 or len(m.group(1)) == indent):
            close()
            indent = len(m.group(1))
            service, build = (m.group(2), number), {"context": ".", "dockerfile": ""}
        elif service is not None and (b := BUILD_INLINE.match(line)):
            build["context"], build["dockerfile"] = b.group(1), build["dockerfile"] or "Dockerfile"
        elif service is not None and (k := BUILD_KEY.match(line)):
            build[k.group(1)] = k.group(2)
            if k.group(1) == "context" and not build["dockerfile"]:
                build["dockerfile"] = "Dockerfile"
        last = number
    close()
    return out


def _prose(line: str, indent: int) -> int:
    """The indent of the prose key whose value `line` is part of (its own line or a more indented one), -1 outside."""
    if m := PROSE_KEY.match(line):
        return len(m.group(1))
    if indent >= 0 and (not line.strip() or _indent(line) > indent):
        return indent
    return -1


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _without_redundant_capabilities(lines: list[str], facts: list[Fact]) -> list[Fact]:
    """A device request with driver: nvidia is reported once, as the driver, not again as capabilities."""
    drivers = {f.line for f in facts if f.name == "driver: nvidia"}
    if not drivers:
        return facts
    return [f for f in facts if f.name != "capabilities: gpu" or not drivers & _entry(lines, f.line)]


def _entry(lines: list[str], number: int) -> set[int]:
    """Line numbers of the YAML list entry (- key: ...) that contains line `number`."""
    start = number
    while start > 1 and not re.match(r"^\s*- ", lines[start - 1]):
        start -= 1
    dash = len(lines[start - 1]) - len(lines[start - 1].lstrip())
    end = start + 1
    while end <= len(lines) and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")
                                 or len(lines[end - 1]) - len(lines[end - 1].lstrip()) > dash):
        end += 1
    return set(range(start, end))


def _shell_step(line: str, number: int, block: tuple[int, bool], facts: list[Fact]) -> tuple[int, bool]:
    """Shell commands of CI steps. `block` is the (indent, list allowed at that indent) of an open
    run:/script: block, indent -1 when none; returns the new one."""
    indent, list_ok = block
    current = len(line) - len(line.lstrip())
    item = line.lstrip().startswith("- ")
    if indent >= 0 and line.strip() and (current > indent or (list_ok and item and current == indent)):
        _shell(line, number, current + 2 if item else current, facts)
        return block
    m = SHELL_KEY.match(line)
    if not m:
        return (-1, False) if line.strip() else block
    value = m.group(2)
    if not value or value[0] in "|>":
        return len(m.group(1)), not value
    quote = 1 if value[0] in "\"'" else 0
    _shell(line, number, m.start(2) + quote, facts)
    return -1, False


def _shell(line: str, number: int, start: int, facts: list[Fact]) -> None:
    logical = Logical(line, ((0, number, 0),))
    facts.extend(commands.analyse(logical, start=start))
    facts.extend(command_line(" " * start + line[start:], number))


def _capabilities(line: str, number: int, indent: int, facts: list[Fact]) -> int:
    """capabilities: [gpu] (compose device requests), inline or as a block list; returns the block's indent."""
    if m := CAPABILITIES.match(line):
        if g := re.search(r"\bgpu\b", m.group(2)):
            facts.append(fact("manifest", "capabilities: gpu", number, m.start(2) + g.start(), m.start(2) + g.end(),
                              text=line.strip()))
        return len(m.group(1).rstrip("- ")) if not m.group(2).strip() else -1
    item = re.match(r"^(\s*)-\s*[\"']?(\w+)", line)
    if indent >= 0 and item and len(item.group(1)) >= indent:
        if item.group(2) == "gpu":
            facts.append(fact("manifest", "capabilities: gpu", number, item.start(2), item.end(2), text="gpu"))
        return indent
    return -1 if line.strip() else indent


def _gpu_keys(line: str, number: int) -> list[Fact]:
    out = []
    for m in GPU_KEYS.finditer(line):
        key = re.sub(r":\s*[\"']?", ": ", m.group(0))
        kind = "construct" if key == "nvidia-smi" else "manifest"
        name = "subprocess-nvidia-smi" if kind == "construct" else key
        out.append(fact(kind, name, number, m.start(), m.end(), text=key))
    return out
