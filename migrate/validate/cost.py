"""Cost of the measured work on each platform and the port's break-even point (a pure function of numbers).

Cost per unit of work = price per GPU-hour × GPUs × hours per unit, the hours from the measured median step
(a unit is a million samples for a model spec, one run for a command spec). The port's cost is the scan's
effort estimate (hours, low/likely/high) times the engineering rate; it is paid back after
port cost / (reference cost − candidate cost per unit) units of work, when the candidate is cheaper per unit.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SAMPLES_PER_UNIT = 1_000_000
EFFORT_KEYS = ("low", "likely", "high")


class CostError(Exception):
    """A scan report without an effort estimate; str() is one line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Prices:
    reference: float | None = None  # per GPU-hour
    candidate: float | None = None
    engineer_rate: float | None = None  # per engineering hour
    effort_hours: tuple[float, float, float] | None = None  # low, likely, high from a scan report
    currency: str = "USD"


@dataclass(frozen=True, slots=True, kw_only=True)
class CostLine:
    dtype: str
    unit: str  # "1M samples" or "run"
    reference_per_unit: float
    candidate_per_unit: float
    saving_per_unit: float  # reference - candidate: positive when the candidate is cheaper
    break_even_units: tuple[float, float, float] | None  # low, likely, high effort; None when never or not priced
    break_even_reference_gpu_hours: tuple[float, float, float] | None

    def to_json(self) -> dict[str, Any]:
        return {"dtype": self.dtype, "unit": self.unit, "reference_per_unit": self.reference_per_unit,
                "candidate_per_unit": self.candidate_per_unit, "saving_per_unit": self.saving_per_unit,
                "break_even_units": _triple(self.break_even_units),
                "break_even_reference_gpu_hours": _triple(self.break_even_reference_gpu_hours)}


@dataclass(frozen=True, slots=True, kw_only=True)
class Cost:
    prices: Prices
    lines: tuple[CostLine, ...]
    port_cost: tuple[float, float, float] | None
    note: str

    def to_json(self) -> dict[str, Any]:
        p = self.prices
        return {"currency": p.currency, "price_per_gpu_hour": {"reference": p.reference, "candidate": p.candidate},
                "engineer_rate": p.engineer_rate, "effort_hours": _triple(p.effort_hours),
                "port_cost": _triple(self.port_cost), "per_unit": [line.to_json() for line in self.lines],
                "note": self.note}


def _triple(values: tuple[float, float, float] | None) -> dict[str, float] | None:
    return dict(zip(EFFORT_KEYS, values, strict=True)) if values else None


def effort_from_report(path: Path) -> tuple[float, float, float]:
    """summary.effort_hours of a `rocm-migrate scan --format json` report."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        hours = data["summary"]["effort_hours"]
        return float(hours["low"]), float(hours["likely"]), float(hours["high"])
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CostError(f"{path}: {exc}") from None
    except (KeyError, TypeError, ValueError):
        raise CostError(f"{path}: no summary.effort_hours (low, likely, high): not a scan report") from None


def estimate(performance: list[dict[str, Any]], prices: Prices) -> Cost:
    """performance: rows with dtype, unit, reference_ms, candidate_ms and gpus (per side) of each timed step."""
    if prices.reference is None or prices.candidate is None:
        return Cost(prices=prices, lines=(), port_cost=_port_cost(prices),
                    note="not priced: give --price-reference and --price-candidate (per GPU-hour)")
    lines = tuple(_line(row, prices) for row in performance)
    note = "" if lines else "no step time measured on both sides, so no cost per unit of work"
    if lines and prices.effort_hours is None:
        note = "no break-even: give --scan-report (the port's effort) and --engineer-rate"
    elif lines and prices.engineer_rate is None:
        note = "no break-even: give --engineer-rate (per engineering hour) to price the effort"
    return Cost(prices=prices, lines=lines, port_cost=_port_cost(prices), note=note)


def _port_cost(prices: Prices) -> tuple[float, float, float] | None:
    if prices.effort_hours is None or prices.engineer_rate is None:
        return None
    low, likely, high = prices.effort_hours
    rate = prices.engineer_rate
    return low * rate, likely * rate, high * rate


def _line(row: dict[str, Any], prices: Prices) -> CostLine:
    assert prices.reference is not None and prices.candidate is not None
    per_unit = SAMPLES_PER_UNIT / row["batch_size"] if row["unit"] == "sample" else 1.0
    ref_hours = row["reference_ms"] * per_unit / 3.6e6
    cand_hours = row["candidate_ms"] * per_unit / 3.6e6
    ref_cost = prices.reference * row["gpus"][0] * ref_hours
    cand_cost = prices.candidate * row["gpus"][1] * cand_hours
    saving = ref_cost - cand_cost
    port = _port_cost(prices)
    units = tuple(c / saving for c in port) if port and saving > 0 else None
    return CostLine(dtype=row["dtype"], unit="1M samples" if row["unit"] == "sample" else "run",
                    reference_per_unit=ref_cost, candidate_per_unit=cand_cost, saving_per_unit=saving,
                    break_even_units=units,
                    break_even_reference_gpu_hours=tuple(u * ref_hours * row["gpus"][0] for u in units)
                    if units else None)


def describe(line: CostLine, currency: str) -> str:
    """One line for the terminal and Markdown: costs per unit and when the port pays off."""
    head = (f"{line.dtype}: {line.candidate_per_unit:.4g} vs {line.reference_per_unit:.4g} {currency} per "
            f"{line.unit} (candidate vs reference)")
    if line.saving_per_unit <= 0:
        return head + "; the candidate costs more per unit of work: the port never pays for itself on this measure"
    if line.break_even_units is None:
        return head + f"; saves {line.saving_per_unit:.4g} {currency} per {line.unit}"
    low, likely, high = line.break_even_units
    hours = line.break_even_reference_gpu_hours or (0.0, 0.0, 0.0)
    many = "runs" if line.unit == "run" else line.unit
    return head + (f"; break-even after {likely:.3g} {many} (effort range {low:.3g}-{high:.3g}), "
                   f"about {hours[1]:.3g} reference GPU-hours of this work")
