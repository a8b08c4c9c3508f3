"""Container files a default deployment of the project never uses: the cases session 31's labelling convention leaves
to the other parts (docs/decisions/2026-12-08-s35-a-shipped-nvidia-image-is-required-deployment-text.md).

A container file the project ships (a Dockerfile, a Compose file) with NVIDIA text in it is how the workload is
deployed, and is required (minor-adaptation when nothing else decides). It is an opt-in image instead when:
- it sits in a development-container folder (`.devcontainer/`, the Development Container specification's place): an
  editor's environment, not what the workload ships (`deployment.dev_containers`);
- it has a non-default name (`Dockerfile.cuda`, `docker-compose.gpu.yml`) beside a default-named file of its family
  (`Dockerfile`, `compose.yaml`) with no NVIDIA text: `docker build` and `docker compose up` take the default one,
  the NVIDIA one only when asked for (`-f`);
- a file of its family in the same folder whose name marks a CPU variant (`Dockerfile.cpu`) has no NVIDIA text: the
  project ships a vendor-neutral image and the NVIDIA one is its GPU choice (`deployment.cpu_variant_words`);
- it also builds an AMD GPU image (a `rocm/` base image beside the NVIDIA one, chosen by a build argument): the NVIDIA
  stage is one vendor's, beside AMD's (`deployment.amd_images`).
CI, test and documentation folders are optional folders already (rules/workloads/optional.yaml `folders`), and an
image made for an optional CUDA build goes with that build (parts._images_of_optional_builds).
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.optional_words import Words

WHAT = "an opt-in container image"
# The names `docker build` reads without -f (https://docs.docker.com/reference/cli/docker/buildx/build/#file) and
# Podman's (https://docs.podman.io/en/latest/markdown/podman-build.1.html), and the names `docker compose` reads without
# -f (https://docs.docker.com/compose/intro/compose-application-model/#the-compose-file), overrides included.
DEFAULT_NAMES = frozenset({"dockerfile", "containerfile", "compose.yaml", "compose.yml", "docker-compose.yaml",
                           "docker-compose.yml", "compose.override.yaml", "compose.override.yml",
                           "docker-compose.override.yaml", "docker-compose.override.yml"})
WORD = re.compile(r"[a-z0-9]+")


def opt_in_images(images: Sequence[str], nvidia: set[str], family: Mapping[str, str],
                  facts: Mapping[str, Sequence[Fact]], known: Words) -> dict[str, str]:
    """Of the container files `images` (file -> its family in `family`: "dockerfile" or "compose"), those with NVIDIA
    text (`nvidia`) that a default deployment does not use, with why."""
    plain: dict[tuple[str, str], list[str]] = {}  # (folder, family) -> its container files with no NVIDIA text
    for p in images:
        if p not in nvidia and p in family:
            plain.setdefault((posixpath.dirname(p), family[p]), []).append(p)
    out: dict[str, str] = {}
    for path in images:
        if path not in nvidia or path not in family:
            continue
        folder, name = posixpath.split(path)
        if any(part in known.dev_containers for part in path.split("/")[:-1]):
            out[path] = f"{path}: a development container, an editor's environment rather than what the project ships"
            continue
        if amd := _amd(facts, path, known):
            image = sorted(amd)[0]
            out[path] = f"{path}: the file also builds an AMD GPU image ({image}); the NVIDIA one is one vendor's choice"
            continue
        siblings = plain.get((folder, family[path]), [])
        default = next((p for p in siblings if posixpath.basename(p).lower() in DEFAULT_NAMES), None)
        if default is not None and name.lower() not in DEFAULT_NAMES:
            out[path] = f"{path}: an image asked for by name beside {default}, the default, which has no NVIDIA text"
            continue
        cpu = next((p for p in siblings if known.cpu_variant_words & set(WORD.findall(posixpath.basename(p).lower()))),
                   None)
        if cpu is not None:
            out[path] = f"{path}: the GPU variant beside {cpu}, a CPU image with no NVIDIA text"
    return out


def _amd(facts: Mapping[str, Sequence[Fact]], path: str, known: Words) -> set[str]:
    return {f.name for f in facts.get(path, ()) if f.kind == "base_image" and f.name.startswith(known.amd_images)}
