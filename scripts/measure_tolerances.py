"""Measured differences behind the default tolerances: each committed H200 fingerprint against its second H200
run and against a CPU run of the same spec on the same host (same PyTorch), written to
fixtures/validate/tolerances/measured.json (`--check` compares instead of writing)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from migrate.validate import fingerprint  # noqa: E402
from migrate.validate.margins import differences  # noqa: E402

PRINTS = ROOT / "fixtures" / "validate" / "fingerprints"
OUT = ROOT / "fixtures" / "validate" / "tolerances" / "measured.json"
SPECS = ("tinygpt", "hf-llama", "minigpt", "nanogpt", "llmc")
PAIRS = (("run-to-run", "h200-{}-rerun.json"), ("cpu-vs-gpu", "h200-host-cpu-{}.json"))


def measure() -> dict[str, object]:
    rows = []
    for spec in SPECS:
        reference = fingerprint.load(PRINTS / f"h200-{spec}.json")
        for pair, pattern in PAIRS:
            candidate = PRINTS / pattern.format(spec)
            for row in differences(reference, fingerprint.load(candidate)):
                rows.append({"spec": spec, "pair": pair, "candidate": candidate.name, **row})
    return {"source": "scripts/measure_tolerances.py over fixtures/validate/fingerprints", "rows": rows}


def main() -> int:
    text = json.dumps(measure(), indent=1) + "\n"
    if "--check" in sys.argv:
        return 0 if OUT.read_text(encoding="utf-8") == text else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
