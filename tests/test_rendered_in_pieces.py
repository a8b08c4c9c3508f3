"""The report cache's formats are encoded piece by piece where the renderer gives pieces (scan/reportcache.py's
`_rendered`): the bytes are those of the whole text encoded at once, also where a piece holds a character that
encodes to several bytes or a lone surrogate (written as U+FFFD), and the command line writes the same bytes cold,
into a fresh cache and from it. docs/decisions/2026-12-07-s29-a-scan-s-serial-tail.md."""
from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from migrate.model_report import Report
from migrate.render import csv_report, json_report, sarif_report
from migrate.rulebase.load import RuleBase
from migrate.safetext import unicode_bytes
from migrate.scan import pipeline, reportcache
from migrate.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "repos" / "demo"
ODD = ("caf\u00e9 \u2014 \U0001f600", "bad \udcff byte", "\ud800", "\u202eevil\u202c", "")


@pytest.fixture(scope="module")
def report(rulebase: RuleBase) -> Report:
    scanned = pipeline.run([DEMO], Settings(jobs=1, cache_dir=None, use_hipify=False), rulebase)
    assert len(scanned.findings) > len(ODD)
    # messages with what encodes to several bytes, or not at all, spread over the findings (and a symbol with a byte
    # the source did not decode: the one surrogate a symbol can hold)
    findings = tuple(dataclasses.replace(f, message=f.message + ODD[n % len(ODD)],
                                         symbol=f.symbol + ("\udcff" if n % 2 else ""))
                     for n, f in enumerate(scanned.findings))
    return dataclasses.replace(scanned, findings=findings)


@pytest.mark.parametrize("at_once", [1, 3, 256])
@pytest.mark.parametrize("name", ["json", "sarif", "csv", "markdown", "text"])
def test_a_format_encoded_in_pieces_is_the_whole_text_encoded(report: Report, name: str, at_once: int,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_report, "FINDINGS_AT_ONCE", at_once)
    monkeypatch.setattr(csv_report, "ROWS_PER_CHUNK", at_once)
    options = reportcache.TextOptions()
    whole = unicode_bytes(reportcache._render(report, name, options))
    assert reportcache._rendered(report, name, options) == whole
    pieces = reportcache._chunks(report, name)
    if name in ("json", "sarif", "csv"):
        assert pieces is not None
        listed = list(pieces)
        assert (len(listed) > 2 or at_once == 256) and unicode_bytes("".join(listed)) == whole
        assert name != "json" or b"\xef\xbf\xbd" in whole  # the lone surrogates' U+FFFD
    else:
        assert pieces is None


def test_sarif_pieces_are_the_report_caches_default_sarif(report: Report) -> None:
    assert "".join(sarif_report.chunks(report)) == sarif_report.render(report)


@pytest.mark.parametrize("fmt", ["json", "sarif", "csv"])
def test_the_cli_writes_the_same_bytes_without_the_cache_into_it_and_from_it(tmp_path: Path, fmt: str) -> None:
    def scan(out: Path, *extra: str) -> bytes:
        subprocess.run([sys.executable, "-m", "migrate", "scan", str(DEMO), "--no-hipify", "-f", fmt, "-o", str(out),
                        "-q", "--jobs", "1", *extra], check=True, cwd=tmp_path,
                       env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "ROCM_MIGRATE_CACHE_DIR": str(tmp_path / "c"),
                            "HOME": str(tmp_path)})
        lines = out.read_bytes().split(b"\n")
        return b"\n".join(line for line in lines if b'"seconds"' not in line and b"scanned_at" not in line)

    cold = scan(tmp_path / "cold", "--no-cache")
    assert scan(tmp_path / "stored") == cold  # rendered in pieces into a fresh cache
    assert scan(tmp_path / "warm") == cold  # the cache's hit
