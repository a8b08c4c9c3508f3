"""The command line: thin click commands that build Settings and call the library."""
from __future__ import annotations

import click

from migrate import __version__
from migrate.cli.convert import convert
from migrate.cli.errors import UsageError
from migrate.cli.inventory import inventory
from migrate.cli.lint import lint
from migrate.cli.rules import explain, list_rules
from migrate.cli.scan import scan
from migrate.cli.stack import stack
from migrate.cli.validate import validate


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from migrate.rulebase.load import rules_version

    click.echo(f"rocm-migrate {__version__} (rules {rules_version()})")
    ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the version of rocm-migrate and of its rules, and exit.")
def cli() -> None:
    """Assess what it takes to move CUDA code to AMD ROCm/HIP."""


cli.add_command(scan)
cli.add_command(lint)
cli.add_command(convert)
cli.add_command(validate)
cli.add_command(inventory)
cli.add_command(stack)
cli.add_command(list_rules)
cli.add_command(explain)


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
