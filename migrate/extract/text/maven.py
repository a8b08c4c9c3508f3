r"""extract, Maven project files (`pom.xml`): the modules a build reads. `mvn` builds the modules the POM's
`<modules>` lists, and those of each profile that is active: a profile is active by default only with
`<activeByDefault>true</activeByDefault>` (and then only while no other profile is activated explicitly), or when its
`<activation>` tests the machine (`<jdk>`, `<os>`, `<file>`); one with no activation, `activeByDefault` false, or a
`<property>` test (true only where the user passes `-Dname`) is built only with `-P<id>`
(https://maven.apache.org/guides/introduction/introduction-to-profiles.html). Each listed module is a `maven_module`
fact (the name as written, relative to the POM's folder), its text the profile's id (empty outside profiles), its role
`default` or `not-default`. Comments are dropped; nothing here is a finding."""
from __future__ import annotations

import re

from migrate.extract.text.lines import fact, finish
from migrate.model import Extraction, Fact

COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
PROFILE = re.compile(r"<profile>(.*?)</profile>", re.DOTALL)
MODULE = re.compile(r"<module>\s*([^<]*?)\s*</module>")
PROFILE_ID = re.compile(r"<id>\s*([^<]*?)\s*</id>")
ACTIVATION = re.compile(r"<activation>(.*?)</activation>", re.DOTALL)
ACTIVE_BY_DEFAULT = re.compile(r"<activeByDefault>\s*true\s*</activeByDefault>")
MACHINE_TESTS = re.compile(r"<(?:jdk|os|file)>")  # a test of the machine: may hold in a plain `mvn`


def extract(source: bytes) -> Extraction:
    text = source.decode("utf-8-sig", errors="replace")
    plain = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)  # offsets and lines kept
    starts = [0] + [m.end() for m in re.finditer("\n", plain)]
    profiles = [(m.start(), m.end(), m.group(1)) for m in PROFILE.finditer(plain)]
    facts: list[Fact] = []
    line = 0
    for m in MODULE.finditer(plain):
        while line + 1 < len(starts) and starts[line + 1] <= m.start(1):
            line += 1
        column = m.start(1) - starts[line]
        profile = next((body for start, end, body in profiles if start <= m.start() < end), None)
        name, role = ("", "default") if profile is None else _profile(profile)
        facts.append(fact("maven_module", m.group(1), line + 1, column, column + len(m.group(1)), text=name,
                          role=role))
    return finish(text, facts)


def _profile(body: str) -> tuple[str, str]:
    """(the profile's id, `default` or `not-default`) from its body."""
    found = PROFILE_ID.search(body)
    activation = ACTIVATION.search(body)
    on = activation is not None and (ACTIVE_BY_DEFAULT.search(activation.group(1)) is not None
                                     or MACHINE_TESTS.search(activation.group(1)) is not None)
    return (found.group(1) if found else ""), ("default" if on else "not-default")
