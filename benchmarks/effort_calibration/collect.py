"""Put the records ports.py wrote (one YAML per port under PORTS_WORK) into measurements.yaml's
`ports:` list, in ports.yaml's order; with `--set s9`, ports-s9.yaml's records into
measurements-s9.yaml (a held-out set kept in its own files, which fit.py never reads).

    python benchmarks/effort_calibration/collect.py
    python benchmarks/effort_calibration/collect.py --set s9
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
WORK = Path(os.environ.get("PORTS_WORK", "/tmp/cache-30/ports"))


def main(argv: list[str]) -> int:
    suffix = f"-{argv[argv.index('--set') + 1]}" if "--set" in argv else ""
    manifest = yaml.safe_load((HERE / f"ports{suffix}.yaml").read_text())["ports"]
    target = HERE / f"measurements{suffix}.yaml"
    text = target.read_text()
    head = text[:text.index("\nports:")] if "\nports:" in text else text.rstrip("\n")
    records = []
    for entry in manifest:
        done = WORK / f"{entry['name']}.yaml"
        if not done.exists():
            print(f"not measured: {entry['name']}", file=sys.stderr)
            continue
        records.extend(yaml.safe_load(done.read_text()))
    body = yaml.safe_dump({"ports": records}, sort_keys=False, width=120, default_flow_style=None)
    target.write_text(head + "\n" + body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
