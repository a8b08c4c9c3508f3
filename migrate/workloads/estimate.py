"""estimate: a three-point effort estimate per workload (the model is written up in docs/effort.md)."""
from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from migrate.model import Effort, Finding

FIXED_COSTS = {
    "native": {"smoke test on ROCm": 1.0},
    "minor-adaptation": {"CI on ROCm": 2.0, "functional tests on ROCm": 2.0},
    "migration-required": {"build system port": 4.0, "CI on ROCm": 4.0, "functional and numerical tests": 8.0,
                           "performance check": 4.0},
    "incompatible": {"build system port": 4.0, "CI on ROCm": 4.0, "functional and numerical tests": 16.0,
                     "performance check": 8.0},
}
UNCERTAINTY = {"native": (1.0, 1.5), "minor-adaptation": (0.8, 1.5), "migration-required": (0.7, 2.0),
               "incompatible": (0.6, 3.0)}


@dataclass(frozen=True)
class EffortModel:
    learning_rate: float = 0.8  # each doubling of one rule's occurrences costs this fraction per occurrence
    hipify_factor: Mapping[str, float] = field(default_factory=lambda: {"yes": 0.5, "partial": 0.75, "no": 1.0})
    kernel_rules: tuple[str, ...] = ("HIP4002",)
    kernel_review: float = 0.5
    kernel_validation: float = 1.0
    fixed: Mapping[str, Mapping[str, float]] = field(default_factory=lambda: FIXED_COSTS)
    uncertainty: Mapping[str, tuple[float, float]] = field(default_factory=lambda: UNCERTAINTY)

    def with_overrides(self, table: Mapping[str, object]) -> EffortModel:
        """Apply `[tool.rocm-migrate.effort]` (already type-checked by settings)."""
        changes: dict[str, object] = {}
        for key, value in table.items():
            attr = key.replace("-", "_")
            if attr in ("fixed", "uncertainty", "hipify_factor"):
                given = value if isinstance(value, Mapping) else {}
                merged = {**getattr(self, attr), **{k: (tuple(v) if isinstance(v, list) else v) for k, v in given.items()}}
                changes[attr] = merged
            else:
                changes[attr] = tuple(value) if isinstance(value, list) else value
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Estimate:
    effort: Effort
    breakdown: tuple[tuple[str, float], ...]


def occurrence_weight(k: int, learning_rate: float) -> float:
    """Wright's learning curve: the k-th occurrence costs k^log2(rate) of the first."""
    return float(k ** math.log2(learning_rate))


def estimate(findings: Sequence[Finding], own_class: str, model: EffortModel,
             rule_effort: Callable[[str], tuple[float, float]], rule_name: Callable[[str], str]) -> Estimate:
    """Effort of one workload from its own findings and its own class."""
    items: dict[str, float] = defaultdict(float)
    by_rule: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        by_rule[finding.rule].append(finding)
    kernels = 0
    for rule, occurrences in sorted(by_rule.items()):
        if rule in model.kernel_rules:
            kernels += len(occurrences)
            continue
        per_occurrence, first_use = rule_effort(rule)
        hours = first_use + sum(per_occurrence * model.hipify_factor.get(f.hipify, 1.0)
                                * occurrence_weight(k, model.learning_rate)
                                for k, f in enumerate(occurrences, start=1))
        items[f"{rule} {rule_name(rule)} ×{len(occurrences)}"] += hours
    if kernels:
        items[f"kernel review and validation ×{kernels}"] = kernels * (model.kernel_review + model.kernel_validation)
    for item, hours in model.fixed.get(own_class, {}).items():
        items[f"fixed: {item}"] = hours
    likely = sum(items.values())
    low_factor, high_factor = model.uncertainty.get(own_class, (1.0, 1.0))
    ranked = sorted(items.items(), key=lambda kv: (-kv[1], kv[0]))
    return Estimate(Effort(low=likely * low_factor, likely=likely, high=likely * high_factor),
                    tuple((label, round(hours, 2)) for label, hours in ranked))
