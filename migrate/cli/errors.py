"""The one usage-error type of the command line."""
from __future__ import annotations

from typing import IO, Any

import click

from migrate.safetext import terminal


class UsageError(click.ClickException):
    """A one-line error on stderr with exit code 2 and no traceback."""

    exit_code = 2

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"rocm-migrate: error: {terminal(self.message)}", err=True)
