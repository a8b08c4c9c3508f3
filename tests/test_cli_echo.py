"""cli/echo.py writes the bytes click.echo writes (it stands in for it on the lint's fast path)."""
from __future__ import annotations

import io
import sys
from collections.abc import Callable

import click
import pytest
from migrate.cli.echo import echo


def _written(write: Callable[[], None], encoding: str) -> tuple[bytes, bytes]:
    """The bytes `write` leaves on a stdout and a stderr of this encoding (not terminals)."""
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdout, sys.stderr
    streams = [io.TextIOWrapper(b, encoding=encoding, errors="replace") for b in (out, err)]
    sys.stdout, sys.stderr = streams
    try:
        write()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        sys.stdout, sys.stderr = saved
    return out.getvalue(), err.getvalue()  # before `streams` goes, which closes them


@pytest.mark.parametrize("encoding", ["utf-8", "ascii", "latin-1"])
@pytest.mark.parametrize("message", ["", "src/k.cu:1:1: HIP4010 cudaMalloc", "two\nlines", "é ✓", "\x1b[31mred\x1b[0m"])
@pytest.mark.parametrize("err", [False, True])
@pytest.mark.parametrize("nl", [True, False])
def test_the_same_bytes_as_click_echo(encoding: str, message: str, err: bool, nl: bool) -> None:
    ours = _written(lambda: echo(message, err=err, nl=nl), encoding)
    clicks = _written(lambda: click.echo(message, err=err, nl=nl), encoding)
    assert ours == clicks
    assert ours[1 if err else 0] != b"" or (message == "" and not nl)  # something was compared
