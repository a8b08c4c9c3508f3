"""Make switches a configure script sets (docs/decisions/2026-12-07-s32-configure-substituted-make-switches.md).

A Makefile.in (or Makefile.am) that tests a variable (`ifdef ENABLE_CUDA`) whose value is one configure substitution
(`ENABLE_CUDA = @enable_cuda@`: a `configured` fact, extract/text/buildfiles.py) has the value the configure script
gives that output variable (`AC_SUBST(enable_cuda, "$enable_cuda")`: a `configured_value` fact at configure's
defaults, extract/text/autoconf.py). Where every configure file of the project that substitutes it leaves it empty
(an `AC_ARG_ENABLE([cuda])` without an action-if-not-given: `./configure` without `--enable-cuda`), the variable is
empty in every default build, and make reads an empty variable as off both to `ifdef` and to an `ifeq` on an on
value (https://www.gnu.org/software/make/manual/html_node/Conditional-Syntax.html): the switch is declared OFF
(marshallward/optiflop 9730d5d7 Makefile.in:3,142 and configure.ac:92-94,149). A non-empty value says nothing here:
`no` is on to `ifdef` and off to `ifeq ($(X),yes)`."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.fact_index import of_kind


def configured_switches(facts: Mapping[str, Sequence[Fact]]) -> dict[str, tuple[str, str]]:
    """Make variable -> (where it is declared, "OFF"), for the tested variables a configure substitution leaves
    empty at configure's defaults (the module docstring's conditions)."""
    substitutions = of_kind(facts, "configured")
    if not substitutions:
        return {}
    values: dict[str, list[tuple[str, Fact]]] = {}
    for path, f in of_kind(facts, "configured_value"):
        values.setdefault(f.name, []).append((path, f))
    out: dict[str, tuple[str, str]] = {}
    for path, f in substitutions:
        given = values.get(f.text, [])
        if f.name in out or not given or any(v.text for _, v in given):
            continue
        where, v = given[0]
        out[f.name] = (f"{path}:{f.line} {f.name} = @{f.text}@, empty at configure's defaults ({where}:{v.line} "
                       f"AC_SUBST({f.text}))", "OFF")
    return out
