"""Package specifications as `requirement` fact names.

One specification gives several names, so rules can match on any of them:

    cupy-cuda12x                 the canonical package name
    jax[cuda12]                  one per extra
    torch==2.3.1+cu121           one per pin or upper bound (==, ===, ~=, <, <=)
    pytorch-gpu=2.3.1=*cuda*     a conda spec with a build string
    index:URL                    an index, find-links page, VCS or direct URL
    channel:nvidia               a conda channel
    system:cuda-toolkit-12-4     an operating-system package (apt, dnf, yum ...)
"""
from __future__ import annotations

import re
from urllib.parse import unquote as url_unquote

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename

NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
URL = re.compile(r"^(?:(?:git|hg|svn|bzr)\+)?(?:https?|file|ssh)://", re.IGNORECASE)
VCS = re.compile(r"^(?:git|hg|svn|bzr)\+", re.IGNORECASE)
PINS = ("==", "===", "~=", "<", "<=")
CONDA = re.compile(r"^(?:[\w./:-]+::)?(__[a-z0-9_]+|[A-Za-z0-9][\w.-]*)\s*(.*)$")
CONDA_BUILD = re.compile(r"\[\s*build(?:_string)?\s*=\s*['\"]?([^'\"\],\s]+)")
INDEX_OPTIONS = frozenset({"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--index",
                           "--default-index"})
EDITABLE_OPTIONS = frozenset({"-e", "--editable"})
# Trailing per-requirement options in a requirements file (torch==2.3.1 --hash=sha256:...).
TRAILING_OPTION = re.compile(r"\s+(?=--?[A-Za-z][\w-]*(?:[=\s]|$))")


def canonical(name: str) -> str:
    return canonicalize_name(name)


def pip_names(spec: str) -> list[str]:
    """Names for one PEP 508 requirement, a URL, or a wheel file."""
    spec = spec.strip()
    if not spec:
        return []
    if URL.match(spec) or (spec.lower().endswith(".whl") and not re.search(r"\s@\s", spec)):
        return url_names(spec)
    try:
        req = Requirement(spec)
    except InvalidRequirement:
        m = NAME.match(spec)
        return [canonical(m.group(1))] if m else []
    name = canonical(req.name)
    out = [name]
    out += [f"{name}[{canonical(extra)}]" for extra in sorted(req.extras)]
    out += [f"{name}{s.operator}{s.version}" for s in req.specifier if s.operator in PINS]
    if req.url:
        out += url_names(req.url, name)
    return out


def url_names(url: str, known: str | None = None) -> list[str]:
    """index:URL, plus the project (and pinned version) that #egg= or a wheel file name gives.

    A VCS URL whose project is known gives no index: name; rules judge the project instead."""
    egg = re.search(r"[#&]egg=([A-Za-z0-9][\w.-]*)", url)
    name = known or (canonical(egg.group(1)) if egg else None)
    out = [] if not URL.match(url) or (VCS.match(url) and name) else [f"index:{url}"]
    if name and not known:
        out.append(name)
    filename = url_unquote(url.split("#", 1)[0].split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1])
    if filename.lower().endswith(".whl"):
        try:
            wheel, version, _, _ = parse_wheel_filename(filename)
        except InvalidWheelFilename:
            return out
        out += [str(wheel), f"{wheel}=={version}"] if wheel != known else [f"{wheel}=={version}"]
    return out


def conda_names(spec: str) -> list[str]:
    """Names for a conda match spec: pkg, pkg=1.2, pkg=1.2=build, chan::pkg>=1, pkg[build=*cuda*]."""
    m = CONDA.match(spec.strip().strip("'\""))
    if not m:
        return []
    raw, rest = m.group(1), m.group(2)
    name = raw.lower() if raw.startswith("__") else canonical(raw)
    out = [name]
    bracket = CONDA_BUILD.search(rest)
    parts = re.split(r"[=\s]+", re.sub(r"\[.*\]", "", rest).lstrip("=<>!~ ").strip())
    build = bracket.group(1) if bracket else parts[1] if len(parts) > 1 and parts[1] else ""
    if build:
        out.append(f"{name}={parts[0] or '*'}={build.lower()}")
    return out


def requirement_line(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int, str, str]]:
    """(start, end, name, spec) for one line of a requirements file, including its index options."""
    stop = len(text) if end is None else end
    body = text[start:stop]
    lead = len(body) - len(body.lstrip())
    body = body.strip()
    if not body:
        return []
    first = start + lead
    if body.startswith("-"):
        m = re.match(r"(-[A-Za-z]|--[\w-]+)(?:\s*=\s*|\s+)?(\S*)", body)
        if not m:
            return []
        option, value, vstart = m.group(1), m.group(2), first + m.start(2)
        if option in INDEX_OPTIONS and value:
            return [(vstart, vstart + len(value), f"index:{value}", value)]
        if option in EDITABLE_OPTIONS and value:
            return [(vstart, vstart + len(value), n, value) for n in url_names(value)]
        return []
    spec = TRAILING_OPTION.split(body, maxsplit=1)[0] if _balanced_quotes(body) else body
    return [(first, first + len(spec), name, spec) for name in pip_names(spec)]


def _balanced_quotes(text: str) -> bool:
    return text.count('"') % 2 == 0 and text.count("'") % 2 == 0
