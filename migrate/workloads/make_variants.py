"""Makefiles for an NVIDIA build beside plain ones of the same folder (rules/workloads/alternatives.yaml
`build_variants.define_kinds`; docs/decisions/2026-12-07-s31-macros-only-a-makefile-variant-defines.md).

make reads `GNUmakefile`, `makefile` or `Makefile` unless `-f` names another file
(https://www.gnu.org/software/make/manual/html_node/Makefile-Names.html): `makefile.cuda` beside `makefile.nolibs`
and `makefile.extlibs` is one of several builds the user picks. Each such variant is a switch off by default, whose
branch is the whole file: a `-DX` only variants define is on only under them (switches.defined_only_under reads the
file as a build file the switch adds), so the project's `#if defined(X)` branches are an optional part, and so are
the variant's own lines."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from migrate.model import Fact
from migrate.workloads.alternatives import define_variants
from migrate.workloads.build_sources import join
from migrate.workloads.fact_index import of_kind
from migrate.workloads.switches import Region

VARIANT_PREFIX = "make -f "  # the switch of a variant: `make -f build/ALL_MAKEFILES/makefile.cuda`


@dataclass(frozen=True, slots=True)
class Variants:
    """The variant makefiles (file -> its switch's branch) and why each switch is off by default."""

    gated: Mapping[str, Region] = field(default_factory=dict)
    switches: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def variant_makefiles(facts: Mapping[str, Sequence[Fact]], kinds: Mapping[str, str]) -> Variants:
    """The makefiles alternatives.define_variants names, less those another build file includes (`make_include`,
    relative to the including file's folder; one whose name make expands from a variable keeps every candidate)."""
    included = {posixpath.normpath(join(posixpath.dirname(path), f.name)) for path, f in of_kind(facts, "make_include")
                if "unplaced" not in f.text}
    found = define_variants(kinds, included)
    gated: dict[str, Region] = {}
    switches: dict[str, tuple[str, ...]] = {}
    for path, why in sorted(found.items()):
        name = f"{VARIANT_PREFIX}{path}"
        gated[path] = Region(path, 1, 1, name, why)
        switches[name] = (why, f"make reads {path} only when its command line names it (`make -f`): the plain "
                               "makefiles beside it are the default build")
    return Variants(gated, switches)
