"""extract, containers and clusters: Dockerfiles, compose files, Kubernetes manifests."""
from __future__ import annotations

import re

from migrate.extract.lines import fact, finish, numbered
from migrate.model import Extraction, Fact

FROM = re.compile(r"^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)", re.IGNORECASE)
ENV = re.compile(r"^\s*(?:ENV|ARG)\s+(.*)$", re.IGNORECASE)
ENV_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?==|\s|$)")
IMAGE = re.compile(r"^\s*-?\s*image:\s*[\"']?([^\s\"']+)")
GPU_KEYS = re.compile(
    r"nvidia\.com/(?:gpu|mig[-.][\w.-]+)(?:\.[\w.-]+)?|\b(?:runtime|driver|runtimeClassName):\s*[\"']?nvidia\b"
    r"|\bNVIDIA_[A-Z_]+\b|\bnvidia-smi\b"
)


def dockerfile(source: bytes) -> Extraction:
    text = source.decode("utf-8")
    facts: list[Fact] = []
    for number, line, _ in numbered(text):
        if m := FROM.match(line):
            facts.append(fact("base_image", m.group(1).lower(), number, m.start(1), m.end(1)))
        elif m := ENV.match(line):
            for key in ENV_KEY.finditer(m.group(1)):
                if key.group(1).startswith(("NVIDIA_", "CUDA_")):
                    start = m.start(1) + key.start(1)
                    facts.append(fact("manifest", key.group(1), number, start, start + len(key.group(1))))
        else:
            facts.extend(_gpu_keys(line, number))
    return finish(text, facts)


def manifest(source: bytes) -> Extraction:
    """Compose files and Kubernetes manifests: images and NVIDIA device requests."""
    text = source.decode("utf-8")
    facts: list[Fact] = []
    for number, line, _ in numbered(text):
        if m := IMAGE.match(line):
            facts.append(fact("base_image", m.group(1).lower(), number, m.start(1), m.end(1)))
        facts.extend(_gpu_keys(line, number))
    return finish(text, facts)


def _gpu_keys(line: str, number: int) -> list[Fact]:
    out = []
    for m in GPU_KEYS.finditer(line):
        key = re.sub(r":\s*[\"']?", ": ", m.group(0))
        kind = "construct" if key == "nvidia-smi" else "manifest"
        name = "subprocess-nvidia-smi" if kind == "construct" else key
        out.append(fact(kind, name, number, m.start(), m.end(), text=key))
    return out
