"""What any model of the scan's features reaches out of sample on the measured ports (issue 30, s21).

    python benchmarks/effort_calibration/ceiling.py            # models by leave-one-set-out, and the noise floor
    python benchmarks/effort_calibration/ceiling.py --join s20  # the current model by set and shape, with and without
                                                                # set s20 in every other fold's fit

Reads what fit.py reads (measurements.yaml: the hand lines, and the base scan's facts each record keeps) and no
tree. For each fitting port it takes the features a scan gives: findings by family (kernels as groups of variants),
C/C++/CUDA files with findings, kinds of CUDA build use, per-back-end CUDA files and their lines, code-generator lines,
rewrite lanes, whether the base builds on ROCm (and has nothing left to port), whether its findings lie in no C/C++/CUDA
file, whether the port is compared with an optional part, and the shape. CUDA lines outside a per-back-end layout are
not among the recorded facts (130 of the 189 bases are not on this machine).

Each model is fitted on every set but one and scores that set (leave one set out, the sets of ports.yaml's
`held_out_in`): the likely within a factor of 2 of measured, and measured inside the model's range (the 10th and 90th
percentiles of measured / estimated over the fold's fitting ports, each estimated by a fit without it where the model
would otherwise see itself). The noise floor is read from ports whose features (nearly) agree: no model of these
features can put two ports with equal features and measured lines more than ×4 apart both within ×2.
"""
from __future__ import annotations

import itertools
import math
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fit

Port = dict[str, Any]
Predictor = Callable[[Port], float]
FAMILIES = ("kernel", "launch", "warp", "arch-gate", "device", "asm", "headers", "runtime", "libraries", "python")
# Candidate regressors of the log-linear models: log(1 + count), or 0/1 for a route.
CANDIDATES = ("findings", "c_files", "kernel", "device_code", "api", "build_kinds", "backend_files", "increment",
              "no_c_code", "rocm_path")
FLAGS = ("increment", "no_c_code", "rocm_path")
NEIGHBOUR_FEATURES = ("findings", "c_files", "kernel", "device_code", "api", "build_kinds", "backend_files",
                      "increment", "no_c_code", "rocm_path")


def features(project: Port, shape: str, families: list[dict[str, Any]]) -> dict[str, Any]:
    """The scan's features of one measured port (fit.projects' shape of it), as counts or 0/1."""
    counts = fit._counts(project, families)
    return {
        "findings": float(sum(counts.values())),
        **{family: float(counts.get(family, 0)) for family in FAMILIES},
        "device_code": float(sum(counts.get(f, 0) for f in ("warp", "arch-gate", "device", "asm"))),
        "api": float(sum(counts.get(f, 0) for f in ("runtime", "libraries"))),
        "c_files": float(project["c_files"]),
        "build_kinds": float(project["build_kinds"]),
        "backend_files": float(project["backend_files"]),
        "backend_lines": project["backend_lines"],
        "generator_lines": project["generator_lines"],
        "lanes": float(project["lanes"]),
        "increment": float(project["increment"]),
        "rocm_path": float(project["rocm_path"]),
        "no_c_code": float(bool(project.get("no_c_code"))),
        "optional_part": float(project["compared"] != "headline"),
        "shape": shape,
    }


def load() -> tuple[list[Port], dict[str, Any], list[dict[str, Any]], dict[str, str]]:
    """The fitting ports of ports.yaml (with `features`, `measured` and `set`), the measurements, the families and the
    sets (fit.by_set's: the pair measurements of `projects` are in every fit and scored in none)."""
    measurements = yaml.safe_load(fit.MEASUREMENTS.read_text())
    families = yaml.safe_load(fit.FAMILIES.read_text())
    sets = fit.held_out_sets((fit.HERE / "ports.yaml").read_text())
    shapes = {p["name"]: p["shape"] for p in measurements["ports"]}  # the two pair measurements are fitted, not scored
    ports = []
    for p in fit.projects(measurements, families):
        if p["split"] == "fit" and p["name"] in shapes and fit._measured(p):
            ports.append({**p, "features": features(p, shapes[p["name"]], families), "measured": fit._measured(p),
                          "set": sets.get(p["name"], "fit")})
    return ports, measurements, families, sets


def percentile_range(ratios: Sequence[float]) -> tuple[float, float]:
    values = sorted(ratios)
    return fit._percentile(values, 0.1), fit._percentile(values, 0.9)


# ---- models: each takes the fold's fitting ports and gives a predictor (hand lines) and its range ----------------

def median_model(key: Callable[[Port], str]) -> Callable[[list[Port]], tuple[Predictor, tuple[float, float]]]:
    """The median measured lines of the fitting ports with the same key (a shape, a route), else of all."""
    def train(ports: list[Port]) -> tuple[Predictor, tuple[float, float]]:
        groups: dict[str, list[float]] = {}
        for p in ports:
            groups.setdefault(key(p), []).append(p["measured"])
        overall = statistics.median(p["measured"] for p in ports)

        def predict(p: Port) -> float:
            values = groups.get(key(p))
            return statistics.median(values) if values else overall
        loo = []
        for p in ports:  # each fitting port against the median of its group without it
            values = list(groups.get(key(p), []))
            values.remove(p["measured"])
            loo.append(p["measured"] / (statistics.median(values) if values else overall))
        return predict, percentile_range(loo)
    return train


def route(p: Port) -> str:
    """The current model's branches, with nothing else: an increment, a base on ROCm with work left, a base with no
    C/C++/CUDA finding, a first port with C/C++/CUDA findings."""
    f = p["features"]
    return "increment" if f["increment"] else "rocm" if f["rocm_path"] else "no-c" if f["no_c_code"] else "first"


def _x(p: Port, names: Sequence[str]) -> list[float]:
    f = p["features"]
    return [1.0] + [f[n] if n in FLAGS else math.log1p(f[n]) for n in names]


def least_squares(rows: list[list[float]], y: list[float]) -> list[float]:
    """Ordinary least squares by the normal equations (a small ridge keeps a column of zeros solvable)."""
    n = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) + (1e-6 if i == j else 0.0) for j in range(n)] for i in range(n)]
    b = [sum(r[i] * v for r, v in zip(rows, y, strict=True)) for i in range(n)]
    for col in range(n):  # Gauss-Jordan with partial pivoting
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot], b[col], b[pivot] = a[pivot], a[col], b[pivot], b[col]
        for r in range(n):
            if r != col and a[col][col]:
                k = a[r][col] / a[col][col]
                a[r] = [x - k * y0 for x, y0 in zip(a[r], a[col], strict=True)]
                b[r] -= k * b[col]
    return [b[i] / a[i][i] if a[i][i] else 0.0 for i in range(n)]


def loglinear(names: Sequence[str]) -> Callable[[list[Port]], tuple[Predictor, tuple[float, float]]]:
    """log(measured lines) = a + Σ b_i log(1 + feature_i) (0/1 for a route), least squares on the fold."""
    def train(ports: list[Port]) -> tuple[Predictor, tuple[float, float]]:
        coef = least_squares([_x(p, names) for p in ports], [math.log(p["measured"]) for p in ports])

        def predict(p: Port) -> float:
            return math.exp(sum(c * x for c, x in zip(coef, _x(p, names), strict=True)))
        return predict, percentile_range([p["measured"] / predict(p) for p in ports])
    return train


def chosen_loglinear(size: int) -> Callable[[list[Port]], tuple[Predictor, tuple[float, float]]]:
    """The log-linear model on the 1..size candidates that put most of the fold's own ports within ×2 (the choice is
    made inside each fold: the left-out set plays no part in it)."""
    subsets = [c for k in range(1, size + 1) for c in itertools.combinations(CANDIDATES, k)]

    def train(ports: list[Port]) -> tuple[Predictor, tuple[float, float]]:
        best = max(subsets, key=lambda names: _within(ports, loglinear(names)(ports)[0]))
        return loglinear(best)(ports)
    return train


def _within(ports: list[Port], predict: Predictor) -> int:
    return sum(0.5 <= predict(p) / p["measured"] <= 2.0 for p in ports)


def neighbours(k: int) -> Callable[[list[Port]], tuple[Predictor, tuple[float, float]]]:
    """The median measured lines of the k fitting ports nearest in the standardised log features."""
    def train(ports: list[Port]) -> tuple[Predictor, tuple[float, float]]:
        vectors = [_x(p, NEIGHBOUR_FEATURES)[1:] for p in ports]
        scale = [statistics.pstdev(col) or 1.0 for col in zip(*vectors, strict=True)]

        def near(v: list[float], skip: int | None = None) -> float:
            order = sorted((sum(((a - b) / s) ** 2 for a, b, s in zip(v, w, scale, strict=True)), i)
                           for i, w in enumerate(vectors) if i != skip)
            return float(statistics.median(ports[i]["measured"] for _, i in order[:k]))

        def predict(p: Port) -> float:
            return near(_x(p, NEIGHBOUR_FEATURES)[1:])
        pairs = enumerate(zip(ports, vectors, strict=True))
        return predict, percentile_range([p["measured"] / near(v, i) for i, (p, v) in pairs])
    return train


def current(measurements: dict[str, Any], families: list[dict[str, Any]], *, recalibrated: bool = False,
            never: frozenset[str] = frozenset()) -> Callable[[list[Port]], tuple[Predictor, tuple[float, float]]]:
    """fit.py's model (its terms: no rewrite band) fitted on the fold's ports; `recalibrated`: then log(measured) =
    a + b log(its estimate) on the fold's ports, each estimated by a fit without it."""
    def train(ports: list[Port]) -> tuple[Predictor, tuple[float, float]]:
        names = {p["name"] for p in ports} - never
        held = {**measurements, "ports": [{**p, "split": "fit" if p["name"] in names else "test"}
                                          for p in measurements["ports"]]}
        result = fit.fit(held, families)

        def estimate(p: Port, constants: dict[str, Any] = result) -> float:
            return sum(fit.estimate_lines(p, constants, families).values())
        if not recalibrated:
            return estimate, (result["spread"]["low"], result["spread"]["high"])
        loo = []
        for i, p in enumerate(ports):
            without = fit.constants(ports[:i] + ports[i + 1:], families)
            loo.append((math.log(estimate(p, {"families": without["families"], "project": fit._project(without)})),
                        math.log(p["measured"])))
        a, b = least_squares([[1.0, x] for x, _ in loo], [y for _, y in loo])

        def predict(p: Port) -> float:
            return math.exp(a + b * math.log(estimate(p)))
        return predict, percentile_range([p["measured"] / predict(p) for p in ports])
    return train


def leave_one_set_out(ports: list[Port], train: Callable[[list[Port]], tuple[Predictor, tuple[float, float]]],
                      ) -> list[tuple[Port, float, bool]]:
    """Each port with its likely estimate and whether measured lies inside the range, from a fit without its set."""
    out = []
    for name in sorted({p["set"] for p in ports}):
        predict, (low, high) = train([p for p in ports if p["set"] != name])
        for p in ports:
            if p["set"] == name:
                likely = predict(p)
                out.append((p, likely, likely * low <= p["measured"] <= likely * high))
    return out


def summary(scored: list[tuple[Port, float, bool]]) -> tuple[int, int, float]:
    within = sum(0.5 <= likely / p["measured"] <= 2.0 for p, likely, _ in scored)
    errors = sorted(abs(math.log2(likely / p["measured"])) for p, likely, _ in scored)
    return within, sum(inside for _, _, inside in scored), statistics.median(errors)


def best_window(values: Sequence[float], factor: float = 4.0) -> int:
    """The most values inside one window [v, factor·v]: the most a single estimate can put within ×√factor."""
    values = sorted(values)
    return max(sum(v <= x <= v * factor for x in values) for v in values) if values else 0


def noise_floor(ports: list[Port]) -> list[str]:
    """Ports whose features agree: the measured spread no model of these features can explain."""
    lines = []
    increments = [p["measured"] for p in ports if p["features"]["increment"]]
    lines.append(f"- the {len(increments)} increments with nothing left to port (the scan sees the same thing in each):"
                 f" measured {min(increments):.0f} to {max(increments):.0f} lines, median "
                 f"{statistics.median(increments):.0f}, P10-P90 {fit._percentile(sorted(increments), 0.1):.0f}-"
                 f"{fit._percentile(sorted(increments), 0.9):.0f}; one estimate puts at most {best_window(increments)} of "
                 f"{len(increments)} within ×2 (the best ×4 window)")
    vectors = [_x(p, NEIGHBOUR_FEATURES)[1:] for p in ports]
    for tolerance in (0.25, 0.5, 1.0):  # every log feature within this of the other port's, the same routes
        pairs = [(a, b) for (a, va), (b, vb) in itertools.combinations(zip(ports, vectors, strict=True), 2)
                 if all(abs(x - y) <= tolerance for x, y in zip(va, vb, strict=True)) and
                 all(a["features"][f] == b["features"][f] for f in FLAGS)]
        for label, chosen in (("both increments", [(a, b) for a, b in pairs if a["features"]["increment"]]),
                              ("neither an increment", [(a, b) for a, b in pairs if not a["features"]["increment"]])):
            if chosen:
                lines.append(f"- pairs whose every log feature agrees within {tolerance} (×{math.exp(tolerance):.2f}), "
                             f"{label}: {len(chosen)}; {_apart(chosen)}")
    nearest = []
    for i, v in enumerate(vectors):
        j = min((sum((a - b) ** 2 for a, b in zip(v, w, strict=True)), j) for j, w in enumerate(vectors) if j != i)[1]
        nearest.append(abs(math.log2(ports[i]["measured"] / ports[j]["measured"])))
    lines.append(f"- each port against its nearest neighbour in the features: measured within ×2 for "
                 f"{sum(e <= 1 for e in nearest)} of {len(nearest)}, more than ×4 apart for {sum(e > 2 for e in nearest)}; "
                 f"median ×{2 ** statistics.median(nearest):.1f}")
    for name, train in (("log-linear on all ten candidates", loglinear(CANDIDATES)),
                        ("median per shape and route", median_model(lambda p: f"{p['features']['shape']} {route(p)}"))):
        predict, (low, high) = train(ports)
        within = _within(ports, predict)
        inside = sum(predict(p) * low <= p["measured"] <= predict(p) * high for p in ports)
        lines.append(f"- in sample (fitted on all {len(ports)} and scored on them, an optimistic bound): {name} "
                     f"{within} within ×2 ({100 * within / len(ports):.0f} %), {inside} inside")
    return lines


def _apart(pairs: list[tuple[Port, Port]]) -> str:
    """How far apart the measured lines of pairs of ports are."""
    far = sum(max(a["measured"], b["measured"]) > 4 * min(a["measured"], b["measured"]) for a, b in pairs)
    close = sum(max(a["measured"], b["measured"]) <= 2 * min(a["measured"], b["measured"]) for a, b in pairs)
    spread = statistics.median(abs(math.log2(a["measured"] / b["measured"])) for a, b in pairs)
    return (f"measured within ×2 of each other in {close} ({100 * close / len(pairs):.0f} %), more than ×4 apart in {far} "
            f"({100 * far / len(pairs):.0f} %); median ×{2 ** spread:.1f} apart")


def models(measurements: dict[str, Any], families: list[dict[str, Any]],
           ) -> list[tuple[str, Callable[[list[Port]], tuple[Predictor, tuple[float, float]]]]]:
    return [
        ("current model (fit.py's terms)", current(measurements, families)),
        ("current model, recalibrated: log m = a + b log estimate", current(measurements, families, recalibrated=True)),
        ("one median for all", median_model(lambda p: "all")),
        ("median per shape", median_model(lambda p: str(p["features"]["shape"]))),
        ("median per route (increment / ROCm path / no C code / first)", median_model(route)),
        ("log-linear: findings", loglinear(("findings",))),
        ("log-linear: C/C++/CUDA files with findings", loglinear(("c_files",))),
        ("log-linear: findings, increment", loglinear(("findings", "increment"))),
        ("log-linear: c_files, increment, build kinds", loglinear(("c_files", "increment", "build_kinds"))),
        ("log-linear: findings, c_files, increment", loglinear(("findings", "c_files", "increment"))),
        ("log-linear: 1 feature, chosen in each fold", chosen_loglinear(1)),
        ("log-linear: up to 3 features, chosen in each fold", chosen_loglinear(3)),
        ("nearest neighbours, k = 3", neighbours(3)),
        ("nearest neighbours, k = 7", neighbours(7)),
        ("nearest neighbours, k = 15", neighbours(15)),
    ]


def model_table(ports: list[Port], measurements: dict[str, Any], families: list[dict[str, Any]]) -> list[str]:
    n = len(ports)
    rows = [f"| model (left out by set, {n} ports) | within ×2 | inside its range | median factor off |",
            "|---|---|---|---|"]
    for name, train in models(measurements, families):
        within, inside, error = summary(leave_one_set_out(ports, train))
        rows.append(f"| {name} | {within} ({100 * within / n:.0f} %) | {inside} ({100 * inside / n:.0f} %) | "
                    f"×{2 ** error:.2f} |")
    return rows


def join_table(ports: list[Port], measurements: dict[str, Any], families: list[dict[str, Any]], joined: str,
               ) -> list[str]:
    """The current model left out by set, with `joined` in no fold's fit (before) and in every other fold's (after),
    per set and per shape."""
    before = leave_one_set_out(ports, current(measurements, families, never=frozenset(
        p["name"] for p in ports if p["set"] == joined)))
    after = leave_one_set_out(ports, current(measurements, families))
    out = []
    keys: list[tuple[str, Callable[[Port], str]]] = [("set", lambda p: str(p["set"])),
                                                     ("shape", lambda p: str(p["features"]["shape"]))]
    for label, key in keys:
        out += [f"| {label} | ports | before: within ×2 / inside | after: within ×2 / inside |", "|---|---|---|---|"]
        for value in sorted({key(p) for p in ports}, key=lambda s: (s != "fit", len(s), s)):
            b = summary([r for r in before if key(r[0]) == value])
            a = summary([r for r in after if key(r[0]) == value])
            count = sum(1 for p in ports if key(p) == value)
            out.append(f"| {value} | {count} | {b[0]} / {b[1]} | {a[0]} / {a[1]} |")
        b, a = summary(before), summary(after)
        out += [f"| all | {len(ports)} | {b[0]} / {b[1]} | {a[0]} / {a[1]} |", ""]
    moved = [(p["name"], lb / p["measured"], la / p["measured"])
             for (p, lb, _), (_, la, _) in zip(before, after, strict=True)
             if (0.5 <= lb / p["measured"] <= 2.0) != (0.5 <= la / p["measured"] <= 2.0)]
    out.append("within ×2 changed side (estimated / measured, before -> after): " +
               ", ".join(f"{n} {b:.3f} -> {a:.3f}" for n, b, a in moved))
    crossed = [(p["name"], i, j) for (p, _, i), (_, _, j) in zip(before, after, strict=True) if i != j]
    out.append("inside changed side (before -> after): " +
               ", ".join(f"{n} {'inside' if i else 'outside'} -> {'inside' if j else 'outside'}" for n, i, j in crossed))
    return out


def main(argv: list[str]) -> int:
    ports, measurements, families, _ = load()
    if "--join" in argv:
        print("\n".join(join_table(ports, measurements, families, argv[argv.index("--join") + 1])))
        return 0
    print("\n".join(model_table(ports, measurements, families)))
    print()
    print("\n".join(noise_floor(ports)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
