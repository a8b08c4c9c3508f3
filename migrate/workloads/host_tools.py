"""Shell lines that run only on a host with an NVIDIA tool installed (`host_tool_branch` facts,
extract/text/host_tools.py): on the AMD machine the report is for, `command -v nvidia-smi` finds nothing, so the
branch is not taken, and a script that leaves where the tool is missing (`exit 0`) does nothing more. What those
lines use is an optional part of the script: its class is theirs, and it does not decide the workload's."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from migrate.model import Fact
from migrate.workloads.fact_index import of_kind


def nvidia_host_branches(facts: Mapping[str, Sequence[Fact]]) -> dict[str, tuple[tuple[int, int, str], ...]]:
    """Per file, (first line, last line, evidence) of each span that runs only where an NVIDIA tool is installed."""
    out: dict[str, list[tuple[int, int, str]]] = {}
    for path, f in of_kind(facts, "host_tool_branch"):
        out.setdefault(path, []).append((f.line, f.end_line, f"{path}:{f.line}-{f.end_line} runs only where {f.name} "
                                         f"is installed (`{f.text}`); no such tool is on an AMD host"))
    return {path: tuple(spans) for path, spans in out.items()}
