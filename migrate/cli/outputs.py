"""Where a command's output goes, the same way in scan and lint.

One `--format` (alias `--output-format`, ruff's name) is written to stdout, or to `-o FILE`;
every further output is `--FORMAT-output FILE` (semgrep's convention: `--sarif-output r.sarif
--markdown-output summary.md`). Writing `text` (alias `terminal`) to a file gives the plain,
uncoloured form."""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping

from migrate.cli.echo import echo
from migrate.safetext import terminal, unicode_text

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])

ALIASES = {"terminal": "text"}


def options(formats: Iterable[str], *, legacy: bool = False) -> Callable[[F], F]:
    """--format/-f, -o/--output and one --FORMAT-output FILE per format; `legacy` adds scan's
    earlier `--json FILE` ... spellings, hidden."""
    import click

    names = list(formats)

    def decorate(command: F) -> F:
        for name in reversed(names):
            command = click.option(f"--{name}-output", f"{name.replace('-', '_')}_output", metavar="FILE",
                                   help=f"Also write {name} to FILE.")(command)
            if legacy and name != "text":
                command = click.option(f"--{name}", f"{name}_legacy", metavar="FILE", hidden=True)(command)
        command = click.option("-o", "--output", "output", metavar="FILE",
                               help="Write the --format output to FILE instead of stdout ('-' is stdout).")(command)
        return click.option("-f", "--format", "--output-format", "formats", multiple=True,
                            type=click.Choice([*names, *[a for a, f in ALIASES.items() if f in names]]),
                            help="Format on stdout or -o FILE (default text); one format: give "
                                 "--FORMAT-output FILE for each further one.")(command)

    return decorate


def destinations(formats: tuple[str, ...], output: str | None, extra: Mapping[str, str | None]) -> list[tuple[str, str]]:
    """(format, destination) pairs, '-' for stdout. `extra` maps a format to its --FORMAT-output file."""
    chosen = list(dict.fromkeys(ALIASES.get(f, f) for f in formats))
    if len(chosen) > 1:
        raise usage_error(f"--format takes one format, not {', '.join(chosen)}: write the others with "
                         + " ".join(f"--{f}-output FILE" for f in chosen[1:]))
    files = [(name, path) for name, path in extra.items() if path]
    main = chosen[0] if chosen else ("text" if output or not files else None)
    out = [(main, output or "-")] if main else []
    return out + files


def color_and_width(destination: str) -> tuple[bool, int]:
    """Colour for a terminal (not when NO_COLOR is set or TERM is dumb), and its width; files get
    plain text 100 columns wide, so output is the same wherever it is written."""
    if destination != "-" or not sys.stdout.isatty():
        return False, 100
    plain = "NO_COLOR" in os.environ or os.environ.get("TERM") == "dumb"
    return not plain, max(60, os.get_terminal_size().columns)


def write(text: str | Iterable[str], destination: str) -> None:
    """Write a report, given whole or in pieces (written as they come)."""
    parts = (unicode_text(part) for part in ([text] if isinstance(text, str) else text))
    if destination == "-":
        for part in parts:
            echo(part, nl=False)
        return
    try:
        with open(destination, "w", encoding="utf-8") as out:
            for part in parts:
                out.write(part)
    except OSError as exc:
        raise usage_error(f"cannot write {destination}: {exc.strerror or exc}") from None


def write_bytes(pieces: Callable[[], Iterable[bytes]], destination: str) -> None:
    """Write a report given as UTF-8 bytes in pieces (`pieces()` gives them anew), as `write`
    writes its text: copied as they are, but decoded and echoed where that would change them
    (a stdout that is not UTF-8, ANSI codes that echo strips off a terminal, a newline that is
    not "\\n")."""
    if destination == "-":
        import click

        if os.linesep == "\n" and _utf8(sys.stdout) and not any(b"\x1b" in part for part in pieces()):
            for part in pieces():
                click.echo(part, nl=False)
        else:
            click.echo(b"".join(pieces()).decode("utf-8", "replace"), nl=False)
        return
    if os.linesep != "\n":
        write(_decoded(pieces()), destination)
        return
    try:
        with open(destination, "wb") as out:
            for part in pieces():
                out.write(part)
    except OSError as exc:
        raise usage_error(f"cannot write {destination}: {exc.strerror or exc}") from None


def _decoded(pieces: Iterable[bytes]) -> Iterator[str]:
    """The pieces' text, decoded as one stream: a character split between two pieces stays whole."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    for part in pieces:
        yield decoder.decode(part)
    yield decoder.decode(b"", final=True)


def _utf8(stream: Any) -> bool:
    import codecs

    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "utf-8"
    except LookupError:
        return False


def notes(lines: Iterable[str], *, verbose: bool, limit: int = 5) -> None:
    """A command's notes on stderr: the first few, or all with -v."""
    shown = list(lines)
    for line in shown if verbose else shown[:limit]:
        echo(f"rocm-migrate: note: {terminal(line)}", err=True)
    if not verbose and len(shown) > limit:
        echo(f"rocm-migrate: note: ... and {len(shown) - limit} more (-v shows them all)", err=True)


def usage_error(message: str) -> Exception:
    """cli.errors.UsageError (click's exception: imported only when there is an error to show)."""
    from migrate.cli.errors import UsageError

    return UsageError(message)
