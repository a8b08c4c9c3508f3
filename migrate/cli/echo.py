"""click.echo's bytes without importing click, for the paths that start often (a lint of one
file): text and a newline written to stdout or stderr, then flushed. Where click.echo would
change the text (ANSI codes it strips off a terminal, a stream it re-wraps because its encoding
is ASCII, Windows' console) the call is click.echo's own."""
from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from typing import TextIO


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """As click.echo(message, err=err, nl=nl) for a str message."""
    stream = sys.stderr if err else sys.stdout
    if "\x1b" in message or os.name != "posix" or _ascii(stream):
        import click

        click.echo(message, err=err, nl=nl)
        return
    text = message + "\n" if nl else message
    if text:
        stream.write(text)
    stream.flush()


def _ascii(stream: TextIO) -> bool:
    """Whether click would take `stream` for misconfigured (an ASCII encoding, or none)."""
    import codecs

    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "ascii"
    except LookupError:
        return False
