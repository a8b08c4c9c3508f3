"""Compose services that build their image from a Dockerfile in a folder a package does not need to run (rules/
workloads/optional.yaml `folders`: ci/, tests/, benchmarks/ ...): the service runs that image, so it is the CI's (or
the tests') as the Dockerfile is, and its GPU requests (`driver: nvidia`, `runtime: nvidia`, NVIDIA_VISIBLE_DEVICES)
and images go with it, an optional part with their own class (the session-31 labelling convention: NVIDIA deployment
text only in CI or tests leaves the class to the other parts). apache/arrow 515410b2 compose.yaml:593-645: the
`ubuntu-cuda-cpp` service builds ci/docker/ubuntu-${UBUNTU}-cpp.dockerfile on an nvidia/cuda base with ARROW_CUDA ON
and reserves an NVIDIA device; its header says the file is run with `docker compose run` by the CI tooling (archery).
A service whose Dockerfile is outside such folders (a deployment's docker/Dockerfile) keeps its findings."""
from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.fact_index import of_kind
from migrate.workloads.optional_words import Words, optional_root

WHAT = "a service of an optional folder's image"


def optional_services(facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, tuple[tuple[int, int, str], ...]]:
    """Compose file -> (first line, last line, evidence) of each service that builds its image from a Dockerfile in an
    optional folder; a Compose file itself in such a folder is optional already and says nothing here."""
    out: dict[str, list[tuple[int, int, str]]] = {}
    for path, f in of_kind(facts, "compose_service"):
        if optional_root(path, known) is not None:
            continue
        dockerfile = posixpath.normpath(posixpath.join(posixpath.dirname(path), f.text))
        if dockerfile.startswith("../") or (root := optional_root(dockerfile, known)) is None:
            continue
        out.setdefault(path, []).append((f.line, f.end_line, (
            f"{path}:{f.line} service {f.name} builds its image from {dockerfile}, in {root}/: a folder a package does "
            "not need to run (rules/workloads/optional.yaml); the service runs that image")))
    return {path: tuple(spans) for path, spans in out.items()}
