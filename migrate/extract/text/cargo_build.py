"""extract, a Cargo build script (`build.rs` at a package's root): the files it names, and the features they are
named under, read by workloads/cargo_features.py.

Cargo compiles Rust only; a package's C, C++ and CUDA sources are compiled by its build script, which Cargo builds and
runs before the package (https://doc.rust-lang.org/cargo/reference/build-scripts.html), through `cc::Build::file(..)`,
`Command::new("nvcc").args([.., "x.cu", ..])` or a glob. The script sees the package's features as
`#[cfg(feature = "x")]`/`cfg!(feature = "x")` and as the environment variable `CARGO_FEATURE_<X>` (the name upper-cased,
`-` as `_`: https://doc.rust-lang.org/cargo/reference/environment-variables.html#environment-variables-cargo-sets-for-
build-scripts), so a source named only inside `if env::var("CARGO_FEATURE_TENSORRT_NATIVE").is_ok() { .. }` or a
`#[cfg(feature = "cuda")] { .. }` block is compiled only with that feature.

Facts: `cargo_build_source`, one per string literal that is a relative file path with a suffix (`"csrc/x.cpp"`,
`"cuda-kernels/**/*.cu"`; not `"cargo:rerun-if-changed=x.cu"`, which compiles nothing): the name is the path as
written, the text the feature gates around it, one a line; a gate is its feature names joined by `|` where any one of
them turns it on (`cfg!(any(feature = "a", feature = "b"))`), one gate a feature where each must be on (a single test,
`all(..)`, nested blocks). Features are written as in Cargo.toml, or upper-cased with `_` from `CARGO_FEATURE_<X>`
(workloads/cargo_features.py compares both forms). A condition that negates (`!cfg!(..)`, `not(..)`, `.is_err()`,
`is_none`) or an `else` branch gates nothing. Comments are blanked first; a brace inside a string or a character
literal is no block."""
from __future__ import annotations

import re

from migrate.extract.text.lines import fact, finish
from migrate.model import Extraction

KIND = "cargo_build_source"
# `feature = "x"` of a cfg attribute or cfg! macro
CFG_FEATURE = re.compile(r'\bfeature\s*=\s*"([^"\\]+)"')
CFG = re.compile(r"(?:#!?\[\s*cfg\s*\(|\bcfg!\s*\()")
ENV_FEATURE = re.compile(r'"CARGO_FEATURE_([A-Z0-9_]+)"')
NEGATION = re.compile(r"!\s*cfg!|\bnot\s*\(|\bis_err\b|\bis_none\b|!\s*(?:std::)?env::|!\s*std::env")
ELSE = re.compile(r"\belse\b")
IF = re.compile(r"(?:^|[\s)\]])(?:if|while)\b")
ATTRIBUTE = re.compile(r"#\s*\[\s*cfg\s*\(")
# a relative path with a suffix: word characters, `/`, `.`, `-`, `*` (a glob), not starting with `/` or a scheme
PATH = re.compile(r"(?![/.]*$)[\w*.][\w*./-]*\.[A-Za-z0-9+]+")
STRING = re.compile(r'b?r(#*)"|b?"')
CHAR = re.compile(r"b?'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]{1,6}\}|.)|[^\\'\n])'")


def extract(source: bytes) -> Extraction:
    text = source.decode("utf-8", errors="replace")
    code, kept, literals = _blank(text)
    facts = []
    for start, end, value, gates in _gated(code, kept, literals):
        if PATH.fullmatch(value):
            line = code.count("\n", 0, start) + 1
            column = start - (code.rfind("\n", 0, start) + 1)
            facts.append(fact(KIND, value, line, column, column + end - start, text="\n".join(gates)))
    return finish(text, facts)


def _blank(text: str) -> tuple[str, str, list[tuple[int, int, str]]]:
    """The text with comments, character literals and string contents blanked (newlines kept); the text with only
    comments and character literals blanked (the feature names are in the strings); and each string literal as (start
    of its opening quote, end after its closing quote, value). All three share the text's offsets."""
    out = list(text)
    kept = list(text)
    literals: list[tuple[int, int, str]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out[i:end] = kept[i:end] = " " * (end - i)
            i = end
        elif text.startswith("/*", i):
            depth, j = 1, i + 2  # Rust block comments nest
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out[i:j] = kept[i:j] = [ch if ch == "\n" else " " for ch in text[i:j]]
            i = j
        elif (c in "br\"") and (m := STRING.match(text, i)) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = m.group(1)
            opening = m.end()
            if m.group(0).rstrip('"').endswith("r"):  # raw: no escapes, ends at `"` and the same number of `#`
                close = text.find('"' + (hashes or ""), opening)
                end = n if close < 0 else close + 1 + len(hashes or "")
                value = text[opening:close if close >= 0 else n]
            else:
                j = opening
                while j < n and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                end = min(n, j + 1)
                value = text[opening:j]
            literals.append((i, end, value))
            out[opening:end - 1] = [ch if ch == "\n" else " " for ch in text[opening:end - 1]]
            i = end
        elif c == "'" and (m := CHAR.match(text, i)):
            out[i:m.end()] = kept[i:m.end()] = " " * (m.end() - i)
            i = m.end()
        else:
            i += 1
    return "".join(out), "".join(kept), literals


def _gated(code: str, kept: str, literals: list[tuple[int, int, str]]) -> list[tuple[int, int, str, list[str]]]:
    """Each literal with the gates around it: those of the blocks it is in and of its own statement's head."""
    values = {start: (end, value) for start, end, value in literals}
    stack: list[list[str]] = []
    head = 0
    out = []
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if i in values:
            end, value = values[i]
            gates = [g for block in stack for g in block] + _head_gates(code[head:i], kept[head:i])
            out.append((i, end, value, gates))
            i = end
            continue
        if c == "{":
            stack.append(_head_gates(code[head:i], kept[head:i]))
            head = i + 1
        elif c == "}":
            if stack:
                stack.pop()
            head = i + 1
        elif c == ";":
            head = i + 1
        i += 1
    return out


def _head_gates(head: str, filled: str) -> list[str]:
    """The gates a statement head puts on what follows it: an `if` on features or CARGO_FEATURE_ variables, or a cfg
    attribute; none where the head negates or is an `else`. `filled`: the head with its strings' contents."""
    if not head.strip() or ELSE.search(head) or NEGATION.search(head):
        return []
    if not (ATTRIBUTE.search(head) or (IF.search(head) and (CFG.search(head) or ENV_FEATURE.search(filled)))):
        return []
    names = [m.group(1) for m in CFG_FEATURE.finditer(filled)] + [m.group(1) for m in ENV_FEATURE.finditer(filled)]
    if not names:
        return []
    if re.search(r"\bany\s*\(|\|\|", filled):
        return ["|".join(dict.fromkeys(names))]
    return list(dict.fromkeys(names))

