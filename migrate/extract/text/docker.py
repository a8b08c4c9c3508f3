"""extract, Dockerfiles: base images (with ARG defaults resolved), COPY --from images, ENV and ARG
settings, and the shell commands of RUN instructions (heredocs included)."""
from __future__ import annotations

import re

from migrate.extract.text import commands
from migrate.extract.text.buildfiles import command_line
from migrate.extract.text.lines import Logical, finish, logical_lines
from migrate.model import Extraction, Fact

INSTRUCTION = re.compile(r"^\s*([A-Za-z]+)(?=\s|$)")
HEREDOC = re.compile(r"<<-?\s*[\"']?([A-Za-z_]\w*)[\"']?")
REFERENCE = re.compile(r"\$(?:\{(\w+)(?::?-([^}]*))?\}|(\w+))")
SHELL_INSTRUCTIONS = frozenset({"RUN", "CMD", "ENTRYPOINT", "HEALTHCHECK"})


class _State:
    def __init__(self) -> None:
        self.facts: list[Fact] = []
        self.args: dict[str, tuple[str, Logical, int, int]] = {}  # name -> default, where it is written
        self.stages: set[str] = set()
        self.seen_from = False


def dockerfile(source: bytes) -> Extraction:
    text = source.decode("utf-8")
    state = _State()
    heredoc = ""
    for logical in logical_lines(text, dockerfile=True):
        if heredoc:
            if logical.text.strip() == heredoc:
                heredoc = ""
            else:
                _shell(state, logical, 0)
            continue
        m = INSTRUCTION.match(logical.text)
        if not m:
            continue
        keyword, rest = m.group(1).upper(), m.end()
        if keyword == "FROM":
            _from(state, logical, rest)
        elif keyword in ("ARG", "ENV"):
            _settings(state, logical, rest, keyword)
        elif keyword in ("COPY", "ADD"):
            _copy_from(state, logical, rest)
        elif keyword in SHELL_INSTRUCTIONS:
            _shell(state, logical, _past_options(logical, rest))
            if keyword == "RUN" and (doc := HEREDOC.search(logical.text)):
                heredoc = doc.group(1)
    return finish(text, state.facts)


def _shell(state: _State, logical: Logical, start: int) -> None:
    state.facts.extend(commands.analyse(logical, start=start))
    ends = [s for s, _, _ in logical.pieces[1:]] + [len(logical.text)]
    for (offset, line, column), end in zip(logical.pieces, ends, strict=True):
        cut = min(max(start, offset), end)
        piece = " " * (column + cut - offset) + logical.text[cut:end]
        state.facts.extend(command_line(piece, line))


def _past_options(logical: Logical, start: int) -> int:
    """Offset past RUN's own --mount/--network/--security options."""
    for word_start, word_end, value in logical.words(start):
        if not value.startswith("--"):
            return word_start
        start = word_end
    return start


def _from(state: _State, logical: Logical, start: int) -> None:
    words = [w for w in logical.words(start) if not w[2].startswith("--")]
    if not words:
        return
    image_start, image_end, image = words[0]
    if len(words) >= 3 and words[1][2].lower() == "as":
        state.stages.add(words[2][2].lower())
    state.seen_from = True
    if image.lower() in state.stages:
        return
    state.facts.append(_image_fact(state, logical, image, image_start, image_end))


def _copy_from(state: _State, logical: Logical, start: int) -> None:
    for word_start, word_end, value in logical.words(start):
        if not value.startswith("--"):
            return
        if value.startswith("--from="):
            image = value[len("--from="):]
            if image.lower() not in state.stages and not image.isdigit():
                state.facts.append(_image_fact(state, logical, image, word_start + len("--from="), word_end))


def _image_fact(state: _State, logical: Logical, image: str, start: int, end: int) -> Fact:
    """A base_image fact; an image given entirely by one ARG is reported where that ARG's default is."""
    whole = REFERENCE.fullmatch(image)
    name = (whole.group(1) or whole.group(3)) if whole else None
    if name in state.args and state.args[name][0]:
        value, where, vstart, vend = state.args[name]
        return where.fact("base_image", _resolve(value, state.args).lower(), vstart, vend, text=value)
    return logical.fact("base_image", _resolve(image, state.args).lower(), start, end, text=image)


def _resolve(image: str, args: dict[str, tuple[str, Logical, int, int]]) -> str:
    def substitute(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(3)
        if name in args and args[name][0]:
            return args[name][0]
        return m.group(2) if m.group(2) is not None else m.group(0)

    return REFERENCE.sub(substitute, image)


def _settings(state: _State, logical: Logical, start: int, keyword: str) -> None:
    """ARG NAME[=default] ... and ENV NAME=value ... (or the legacy ENV NAME value)."""
    words = logical.words(start)
    pairs = []
    if keyword == "ENV" and words and "=" not in words[0][2]:
        pairs = [(words[0][2], " ".join(w[2] for w in words[1:]), words[0][0], words[-1][1], words[0][1])]
    else:
        for word_start, word_end, value in words:
            name, _, default = value.partition("=")
            pairs.append((name, default, word_start, word_end, word_start + len(name)))
    for name, value, word_start, word_end, name_end in pairs:
        # FROM sees only the ARGs declared before the first FROM; a later default is used when no
        # global one exists, as the author evidently meant it for the next FROM.
        if keyword == "ARG" and (not state.seen_from or not state.args.get(name, ("",))[0]):
            raw = logical.text[word_start:word_end]
            value_start = word_start + raw.find("=") + 1 if "=" in raw else word_end
            state.args[name] = (value, logical, value_start, word_end)
        if name.startswith(("NVIDIA_", "CUDA_")):
            state.facts.append(logical.fact("manifest", name, word_start, name_end, text=name))
        state.facts.extend(commands.variable(logical, name, value, word_start, word_end))
