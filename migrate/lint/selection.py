"""Which rules are on: flake8's decision engine over the select/ignore choices of Settings.

A selector is ALL, a rule id, a rule name, or a prefix of rule ids (HIP4, HIP40). For each
rule, the matching choice from the strongest level wins (explicit beats implicit: command
line > configuration file > defaults); within a level the longest match wins (an id or a
name is longest); on a full tie, ignore wins. Per-file ignores always apply."""
from __future__ import annotations

import fnmatch

from migrate.rulebase.load import RuleBase
from migrate.settings import LEVELS, Settings

EXACT = 100  # the specificity of a full id or a name


class SelectorError(Exception):
    """A selector that names no rule; str() is one line."""


class RuleFilter:
    def __init__(self, rules: RuleBase, settings: Settings) -> None:
        self._ids = tuple(rules.ids)
        self._names = dict(zip(rules.names, self._ids, strict=True))
        self._choices = [(c, *self._resolve(c.selector, LEVELS[c.level])) for c in settings.choices]
        self._per_file = [(glob, [self._resolve(s, "per-file-ignores") for s in selectors])
                          for glob, selectors in settings.per_file_ignores]
        self._cache: dict[tuple[str, str], bool] = {}

    def _resolve(self, selector: str, where: str) -> tuple[str, int]:
        """(id or id prefix, specificity) for a selector; SelectorError if it names no rule."""
        if selector.upper() == "ALL":
            return "", 0
        if selector in self._names:
            return self._names[selector], EXACT
        code = selector.upper()
        if code in self._ids:
            return code, EXACT
        if code.startswith("HIP") and any(i.startswith(code) for i in self._ids):
            return code, len(code)
        raise SelectorError(f"unknown rule selector {selector!r} ({where}): give a rule id, name or id prefix")

    def enabled(self, rule_id: str, path: str = "") -> bool:
        """Whether a rule is on for a path (relative to the configuration file's directory)."""
        key = (rule_id, path)
        if key not in self._cache:
            self._cache[key] = self._decide(rule_id) and not self._ignored_in(rule_id, path)
        return self._cache[key]

    def _decide(self, rule_id: str) -> bool:
        matching = [(choice.level, spec, choice.ignore) for choice, code, spec in self._choices
                    if _matches(rule_id, code, spec)]
        return bool(matching) and not max(matching)[2]

    def _ignored_in(self, rule_id: str, path: str) -> bool:
        return bool(path) and any(_glob_matches(path, glob) and any(_matches(rule_id, *c) for c in codes)
                                  for glob, codes in self._per_file)


def _matches(rule_id: str, code: str, spec: int) -> bool:
    return rule_id == code if spec == EXACT else rule_id.startswith(code)


def _glob_matches(path: str, glob: str) -> bool:
    """flake8's rule: a pattern without a slash matches the file name or the whole path;
    a pattern ending in a slash matches everything under that directory."""
    glob = glob + "*" if glob.endswith("/") else glob
    if "/" in glob:
        return fnmatch.fnmatch(path, glob)
    return fnmatch.fnmatch(path.rsplit("/", 1)[-1], glob) or fnmatch.fnmatch(path, glob)
