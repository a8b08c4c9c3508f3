"""The command line: thin click commands that build Settings and call the library."""
from __future__ import annotations

import gc
import importlib
import sys
from typing import Any, NoReturn

import click

from migrate import __version__
from migrate.cli.errors import UsageError

# name -> (module, attribute): a command's module is imported when the command runs, so that
# `lint` does not pay for importing `inventory`, `convert` and the rest at every start.
COMMANDS = {
    "scan": ("migrate.cli.scan", "scan"),
    "lint": ("migrate.cli.lint", "lint"),
    "lint-server": ("migrate.cli.lint_server_command", "lint_server_command"),
    "convert": ("migrate.cli.convert", "convert"),
    "check": ("migrate.cli.check", "check"),
    "validate": ("migrate.cli.validate", "validate"),
    "inventory": ("migrate.cli.inventory", "inventory"),
    "stack": ("migrate.cli.stack", "stack"),
    "rules": ("migrate.cli.rules", "list_rules"),
    "explain": ("migrate.cli.rules", "explain"),
}


class _Commands(click.Group):
    """The subcommands, each imported when it is first asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attribute = COMMANDS[cmd_name]
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from pathlib import Path

    from migrate.rulebase import stamps
    from migrate.rulebase.load import default_rules_dir, version_text
    from migrate.scan import storedfiles

    # load.rules_version()'s digest, known by the data files' stamps as a lint knows it (rulebase/stamps): reading
    # and hashing every data file made --version cost more than a lint of one file
    version = stamps.digests(default_rules_dir(), Path(storedfiles.default_dir())).version
    click.echo(f"rocm-migrate {__version__} (rules {version_text(version)})")
    ctx.exit()


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the version of rocm-migrate and of its rules, and exit.")
def cli() -> None:
    """Assess what it takes to move CUDA code to AMD ROCm/HIP."""


def run() -> NoReturn:
    """The process entry of installs made before migrate.cli.entry (which replays stored runs): main(), then exit. What is still
    alive then (the modules, the rule base: ~100k objects) is frozen first, out of reach of the
    collection the interpreter runs on its way out, which cost a lint of one file ~20 ms of its
    ~120: the interpreter frees it all as it ends anyway. Output is flushed and closed as before."""
    try:
        code = main()
    finally:
        gc.freeze()
    sys.exit(code)


def main(argv: list[str] | None = None) -> int:
    try:
        cli.main(args=argv, prog_name="rocm-migrate", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except UsageError as exc:
        exc.show()
        return exc.exit_code
    except click.ClickException as exc:  # usage errors
        exc.show()
        return 2
    except click.exceptions.Abort:
        return 130
    except Exception as exc:
        return internal_error(exc)
    return 0


def shown(exc: BaseException) -> int:
    """The exit code of a command run without click's parser (cli/lint_args.py) that raised `exc`,
    shown on stderr as main() and click's Command.main (standalone_mode=False) show it. Anything
    else is raised again (SystemExit: the command's own exit)."""
    import errno

    if isinstance(exc, (EOFError, KeyboardInterrupt)):
        click.echo(file=sys.stderr)
        return 130
    if isinstance(exc, UsageError):
        exc.show()
        return exc.exit_code
    if isinstance(exc, click.ClickException):
        exc.show()
        return 2
    if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
        sys.stdout = _QuietOnBrokenPipe(sys.stdout)  # as click's Command.main wraps them
        sys.stderr = _QuietOnBrokenPipe(sys.stderr)
        sys.exit(1)
    if isinstance(exc, Exception):
        return internal_error(exc)
    raise exc


class _QuietOnBrokenPipe:
    """A stream whose flush ignores a closed pipe, so the interpreter's exit says nothing more (what
    click's Command.main does on EPIPE, without importing a private click name)."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        import errno

        try:
            self.wrapped.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


INTERNAL_ERROR = 3
TRACEBACK_VARIABLE = "ROCM_MIGRATE_TRACEBACK"


def internal_error(exc: BaseException) -> int:
    """One line on stderr (the traceback too when $ROCM_MIGRATE_TRACEBACK is set) and exit code 3."""
    import os
    import traceback

    from migrate.safetext import terminal, terminal_lines

    if os.environ.get(TRACEBACK_VARIABLE):
        click.echo(terminal_lines("".join(traceback.format_exception(exc))), err=True, nl=False)
    message = " ".join(str(exc).split())[:300]
    click.echo(f"rocm-migrate: internal error: {type(exc).__name__}: {terminal(message)} (a bug in rocm-migrate: "
               f"please report it; set {TRACEBACK_VARIABLE}=1 for the traceback)", err=True)
    return INTERNAL_ERROR
