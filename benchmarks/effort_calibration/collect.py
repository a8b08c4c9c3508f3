"""Put the records ports.py wrote (one YAML per port under PORTS_WORK) into measurements.yaml's
`ports:` list, in ports.yaml's order.

    python benchmarks/effort_calibration/collect.py
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
WORK = Path(os.environ.get("PORTS_WORK", "/tmp/cache-30/ports"))


def main() -> int:
    manifest = yaml.safe_load((HERE / "ports.yaml").read_text())["ports"]
    text = (HERE / "measurements.yaml").read_text()
    head = text[:text.index("\nports:")] if "\nports:" in text else text.rstrip("\n")
    records = []
    for entry in manifest:
        done = WORK / f"{entry['name']}.yaml"
        if not done.exists():
            print(f"not measured: {entry['name']}", file=sys.stderr)
            continue
        records.extend(yaml.safe_load(done.read_text()))
    body = yaml.safe_dump({"ports": records}, sort_keys=False, width=120, default_flow_style=None)
    (HERE / "measurements.yaml").write_text(head + "\n" + body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
