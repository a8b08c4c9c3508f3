"""The one usage-error type of the command line."""
from __future__ import annotations

from typing import IO, Any

import click

from migrate.safetext import terminal


class UsageError(click.ClickException):
    """An error on stderr, one line per problem (a message of several lines lists several), with
    exit code 2 and no traceback."""

    exit_code = 2

    def show(self, file: IO[Any] | None = None) -> None:
        for line in self.message.split("\n"):
            click.echo(f"rocm-migrate: error: {terminal(line)}", err=True)
