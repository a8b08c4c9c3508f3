"""`rocm-migrate rules` and `rocm-migrate explain`, and loading the rule base for every command."""
from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING

import click

from migrate.cli.errors import UsageError
from migrate.model import CLASSES
from migrate.rulebase.docs import FAMILIES

if TYPE_CHECKING:
    from migrate.rulebase.load import Rule, RuleBase


def load_rules(rules_dir: Path | None) -> RuleBase:
    """The rule base, from the precompiled cache when the rule files are unchanged (whatever
    --no-cache says: that is about the per-file caches; the rules are validated once per change)."""
    from migrate.rulebase import precompiled
    from migrate.rulebase.load import RuleError
    from migrate.scan import cache

    try:
        return precompiled.load(rules_dir, cache.default_dir())
    except RuleError as exc:
        raise UsageError(str(exc)) from None


@click.command("rules", epilog="""\b
Examples:
  rocm-migrate rules                         every rule: id, name, class, title
  rocm-migrate rules --class incompatible    only the rules of one class

\b
Exit codes: 0 done, 2 usage error (a bad --rules-dir).""")
@click.option("--family", type=click.Choice(sorted(set(FAMILIES.values()))), help="Only this family.")
@click.option("--class", "class_", type=click.Choice(CLASSES), help="Only rules of this class.")
@click.option("--rules-dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
def list_rules(family: str | None, class_: str | None, rules_dir: Path | None) -> None:
    """List the rules, sorted by id: id, name, class and title."""
    from migrate.rulebase.docs import family as family_of

    for rule in sorted(load_rules(rules_dir).rules, key=lambda r: r.id):
        if (family is None or family_of(rule) == family) and (class_ is None or rule.migration_class == class_):
            click.echo(f"{rule.id:<9} {rule.name:<48} {rule.migration_class:<19} {rule.title}")


@click.command(epilog="""\b
Examples:
  rocm-migrate explain sync-mask-32bit       by name (or by id)
  rocm-migrate explain Sync-Mask-32bit       any case

\b
Exit codes: 0 done, 2 no such rule (with the nearest names).""")
@click.argument("rule")
@click.option("--rules-dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
def explain(rule: str, rules_dir: Path | None) -> None:
    """Show one rule, by id or name (any case): what it matches, why, and the ROCm equivalent."""
    from migrate.rulebase.docs import terminal

    rules = load_rules(rules_dir).rules
    found = find(rules, rule)
    if found is None:
        spelled = {k.lower(): k for r in rules for k in (r.id, r.name)}
        close = [spelled[k] for k in difflib.get_close_matches(rule.strip().lower(), list(spelled), n=3)]
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UsageError(f"no rule with id or name {rule!r} (see 'rocm-migrate rules'){hint}")
    click.echo(terminal(found))


def find(rules: tuple[Rule, ...], key: str) -> Rule | None:
    wanted = key.strip().lower()
    return next((r for r in rules if wanted in (r.id.lower(), r.name.lower())), None)
