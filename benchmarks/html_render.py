#!/usr/bin/env python3
"""Render the HTML report of a synthetic large report (the demo's findings repeated).

    python benchmarks/html_render.py [--findings 20000]

Prints the HTML size and the render time. (tests/test_html_browser.py opens such a
report in headless Chromium.)"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from migrate.render import renderer
from tests.report_fixture import demo_report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--findings", type=int, default=20_000)
    args = parser.parse_args()
    base = demo_report()
    findings = tuple(replace(base.findings[i % len(base.findings)], line=1 + i) for i in range(args.findings))
    report = replace(base, findings=findings)
    for name in ("html", "json", "sarif", "markdown", "csv"):
        started = time.perf_counter()
        text = renderer(name)(report)
        print(f"{name:8} {len(text) / 1e6:6.2f} MB in {time.perf_counter() - started:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
