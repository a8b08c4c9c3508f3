"""Jinja templates of source code (FBGEMM's codegen/*_template.cu): the template syntax masked so
that a parser of the target language reads the code around it, every byte and line in place.

jinja2's lexer (the one user of it in extract/) gives the spans of `{{ }}`, `{% %}` and `{# #}`;
it only tokenises, so nothing in a template is ever rendered or run. In the copy:
- `{{ expr }}` becomes an identifier of its length (`{{ t.name }}_kernel` -> `__t_name___kernel`),
  or spaces when it has its lines to itself (it stands for statements or a list of parameters);
- tags and comments become spaces;
- of an `{% if %}` chain, a branch for ROCm only (`{% if is_rocm %}`) becomes spaces: it is the
  ported code, as a HIP-guarded `#if` branch is;
- of the other chains, every branch is kept, unless all leave the same brackets open
  (`{% if a %}namespace x {{% else %}namespace y {{% endif %}`): then they are alternatives, and the
  first is kept alone, as a rendering keeps one.
Newlines are never replaced, so lines and byte offsets of the copy are the file's."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

# a statement tag on one line: C, CUDA, Python and CMake have no `{% if` of their own
MARKER = re.compile(rb"\{%[-+]?\s*(?:if|for|set|macro|call|filter|block|include|import|from|raw|with|else|elif|"
                    rb"endif|endfor|endmacro)\b[^\n]*?[-+]?%\}")
OPENERS = {"if": "endif", "for": "endfor", "macro": "endmacro", "call": "endcall", "filter": "endfilter",
           "block": "endblock", "with": "endwith", "autoescape": "endautoescape", "set": "endset", "trans": "endtrans"}
ROCM_NAME = re.compile(r"(?i)^\(?\s*\w*(rocm|hip)\w*\s*\)?$")
C_SKIPPED = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
SPACE = re.compile(r"\s*")
IDENTIFIER_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


class NotATemplate(ValueError):
    """The lexer rejected the text (a `{%` of the language's own, or a broken template)."""


@dataclass(frozen=True, slots=True)
class Tag:
    start: int  # character offsets in the text
    end: int
    kind: str  # variable, block, comment
    keyword: str = ""  # a block's first name: if, else, endfor, set ...
    body: str = ""  # a block's text after the keyword


@dataclass
class _Branch:
    tag: Tag
    items: list[Tag | tuple[int, int] | _Chain] = field(default_factory=list)  # data spans, tags, chains


@dataclass
class _Chain:
    branches: list[_Branch]
    end: Tag | None = None


def is_template(data: bytes) -> bool:
    """Whether C/C++/CUDA/Python/CMake source is a Jinja template (a statement tag on one line)."""
    return b"{%" in data and MARKER.search(data) is not None


def mask(data: bytes) -> tuple[bytes, int]:
    """The source with its template syntax masked (see the module's docstring) and the number of
    tags masked. Raises NotATemplate when the lexer rejects it."""
    text = data.decode("utf-8", "replace")
    tags = _tags(text)
    offsets = _byte_offsets(text)
    out = bytearray(data)
    for tag in tags:
        _fill(out, offsets[tag.start], offsets[tag.end], identifier=tag.kind == "variable" and not _alone(text, tag))
    root = _structure(text, tags)
    if root is not None:
        for start, end in _dropped(text, root):
            _fill(out, offsets[start], offsets[end], identifier=False)
    return bytes(out), len(tags)


@cache
def _lexer() -> Any:
    import jinja2

    return jinja2.Environment().lexer


def _tags(text: str) -> list[Tag]:
    from jinja2.exceptions import TemplateSyntaxError

    source = text.replace("\r", " ")  # the lexer joins lines with "\n": a CR kept would move offsets
    tags: list[Tag] = []
    pos, start, words = 0, 0, list[str]()
    try:
        for _, token, value in _lexer().tokeniter(source, None):
            if not source.startswith(value, pos):  # whitespace a `-` trimmed from data is not in a token
                blanks = SPACE.match(source, pos)
                pos = blanks.end() if blanks else pos
                if not source.startswith(value, pos):
                    raise NotATemplate(f"lexer token {token} not found at offset {pos}")
            if token in ("raw_begin", "raw_end"):
                tags.append(Tag(pos, pos + len(value), "block", "raw" if token == "raw_begin" else "endraw"))
            elif token.endswith("_begin"):
                start, words = pos, []
            elif token in ("name", "operator", "string", "integer", "float"):
                words.append(value)
            pos += len(value)
            if token.endswith("_end") and token != "raw_end":
                kind, end = token[:-4], pos - len(value) + len(value.rstrip())  # `-%}` takes the blanks after it
                keyword = words[0] if kind == "block" and words else ""
                body = source[start:end].strip("{}%-+ \n\t")[len(keyword):].strip() if keyword else ""
                tags.append(Tag(start, end, kind, keyword, body))
    except TemplateSyntaxError as exc:
        raise NotATemplate(str(exc)) from None
    return tags


def _alone(text: str, tag: Tag) -> bool:
    """Whether nothing but blanks shares the tag's lines (`{{ sync_grad_sums(32) }}` expands to statements)."""
    before = text[text.rfind("\n", 0, tag.start) + 1:tag.start]
    after_end = text.find("\n", tag.end)
    return not before.strip() and not text[tag.end:after_end if after_end >= 0 else len(text)].strip()


def _byte_offsets(text: str) -> list[int]:
    offsets = [0]
    for ch in text:
        offsets.append(offsets[-1] + (1 if ch < "\x80" else len(ch.encode("utf-8", "replace"))))
    return offsets


def _fill(out: bytearray, start: int, end: int, *, identifier: bool) -> None:
    for i in range(start, end):
        if out[i] != 0x0A:
            out[i] = out[i] if identifier and out[i] in IDENTIFIER_BYTES else (0x5F if identifier else 0x20)


def _structure(text: str, tags: list[Tag]) -> _Branch | None:
    """The tags as nested chains (`if`/`elif`/`else`/`endif`, `for`/`else`/`endfor`, ...); None when
    the openers and closers do not pair up (the tags are still masked, every branch kept)."""
    root = _Branch(Tag(0, 0, "block"))
    stack: list[tuple[str, _Chain]] = []
    branch, pos = root, 0
    for tag in tags:
        if tag.start > pos:
            branch.items.append((pos, tag.start))
        pos = tag.end
        is_set_block = tag.keyword == "set" and "=" not in tag.body
        if tag.keyword in OPENERS and (tag.keyword != "set" or is_set_block):
            chain = _Chain([_Branch(tag)])
            branch.items.append(chain)
            stack.append((tag.keyword, chain))
            branch = chain.branches[0]
        elif tag.keyword in ("elif", "else"):
            if not stack or stack[-1][0] not in ("if", "for"):
                return None
            stack[-1][1].branches.append(_Branch(tag))
            branch = stack[-1][1].branches[-1]
        elif tag.keyword.startswith("end") and tag.keyword != "endraw":
            if not stack or OPENERS[stack[-1][0]] != tag.keyword:
                return None
            stack.pop()[1].end = tag
            branch = stack[-1][1].branches[-1] if stack else root
        else:
            branch.items.append(tag)
    if stack:
        return None
    if pos < len(text):
        root.items.append((pos, len(text)))
    return root


def _dropped(text: str, root: _Branch) -> list[tuple[int, int]]:
    """Character spans of the branches left out."""
    dropped: list[tuple[int, int]] = []
    _balance(text, root, dropped)
    return dropped


def _balance(text: str, branch: _Branch, dropped: list[tuple[int, int]]) -> tuple[int, int]:
    """The (braces, parentheses) a kept branch leaves open; left-out branches go to `dropped`."""
    braces = parens = 0
    for item in branch.items:
        if isinstance(item, tuple):
            code = C_SKIPPED.sub("", text[item[0]:item[1]])
            braces += code.count("{") - code.count("}")
            parens += code.count("(") - code.count(")")
        elif isinstance(item, _Chain):
            b, p = _chain(text, item, dropped)
            braces, parens = braces + b, parens + p
    return braces, parens


def _chain(text: str, chain: _Chain, dropped: list[tuple[int, int]]) -> tuple[int, int]:
    branches = chain.branches
    ends = [b.tag.start for b in branches[1:]] + [chain.end.start if chain.end else branches[-1].tag.end]
    spans = [(b.tag.end, end) for b, end in zip(branches, ends, strict=True)]
    rocm = [_for_rocm_only(b, i, branches) for i, b in enumerate(branches)]
    kept_balance = []
    for branch, span, for_rocm in zip(branches, spans, rocm, strict=True):
        if for_rocm:
            dropped.append(span)
        else:
            kept_balance.append((span, _balance(text, branch, dropped)))
    if not kept_balance:
        return 0, 0
    balances = {b for _, b in kept_balance}
    if branches[0].tag.keyword == "if" and branches[-1].tag.keyword != "else" and not rocm[0]:
        balances.add((0, 0))  # the empty branch of an `if` without `else`
    if len(balances) == 1 and len(kept_balance) > 1 and balances != {(0, 0)}:
        dropped.extend(span for span, _ in kept_balance[1:])  # alternatives: keep the first alone
        return kept_balance[0][1]
    return sum(b for _, (b, _) in kept_balance), sum(p for _, (_, p) in kept_balance)


def _for_rocm_only(branch: _Branch, index: int, branches: list[_Branch]) -> bool:
    """`{% if is_rocm %}`, `{% elif has_hip_support and x %}`; the `else` of `{% if not is_rocm %}`."""
    if branch.tag.keyword in ("if", "elif"):
        return _positive_rocm(branch.tag.body)
    if branch.tag.keyword == "else" and index == 1 and branches[0].tag.keyword == "if":
        condition = branches[0].tag.body
        return condition.startswith("not ") and ROCM_NAME.match(condition[4:].strip()) is not None
    return False


def _positive_rocm(condition: str) -> bool:
    if re.search(r"\bor\b", condition):
        return False
    return any(ROCM_NAME.match(part.strip()) for part in re.split(r"\band\b", condition))
