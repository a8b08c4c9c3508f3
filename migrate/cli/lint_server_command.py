"""The `lint-server` command: start, stop and ask after the resident lint process of the project
in the working folder (cli/lint_server.py), which `rocm-migrate lint` uses when one runs."""
from __future__ import annotations

import time
from pathlib import Path

import click

from migrate.cli import lint_server
from migrate.cli.errors import UsageError

EPILOG = """\b
Examples:
  rocm-migrate lint-server start                 from the top of the project the hook lints
  rocm-migrate lint-server status
  rocm-migrate lint-server stop

\b
A lint run from the same folder, with the same rocm-migrate and Python, is served by it; with none,
or a stale one (code or rules changed since it started), lint runs in its own process.
Exit codes: 0 done (status: running), 1 status: no server, 2 usage error."""


@click.group(epilog=EPILOG)
def lint_server_command() -> None:
    """A resident lint process for pre-commit hooks (as dmypy): lint of one file without start-up."""


@lint_server_command.command()
@click.option("--idle-timeout", type=click.IntRange(min=1), default=lint_server.IDLE_SECONDS, show_default=True,
              metavar="SECONDS", help="Stop after this long without a request.")
def start(idle_timeout: int) -> None:
    """Start the server for the working folder (nothing to do when it runs)."""
    try:
        pid = lint_server.start(Path.cwd(), idle_seconds=idle_timeout)
    except lint_server.ServerError as exc:
        raise UsageError(str(exc)) from None
    click.echo(f"rocm-migrate: lint server running (pid {pid})", err=True)


@lint_server_command.command()
def stop() -> None:
    """Stop the server for the working folder."""
    stopped = lint_server.stop(Path.cwd())
    click.echo(f"rocm-migrate: {'lint server stopped' if stopped else 'no lint server was running'}", err=True)


@lint_server_command.command()
def status() -> None:
    """Say whether a server runs for the working folder; exit 1 when none does."""
    facts = lint_server.status(Path.cwd())
    if facts is None:
        click.echo("rocm-migrate: no lint server running", err=True)
        raise SystemExit(1)
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(int(facts.get("started", "0"))))
    click.echo(f"pid {facts.get('pid')}, rocm-migrate {facts.get('version')}, started {started}, "
               f"{facts.get('requests')} requests, idle timeout {facts.get('idle_timeout')} s\n"
               f"socket {facts.get('socket')}")
