"""CSV: one row per finding, stable columns, for spreadsheets."""
from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from migrate.model_report import Report
from migrate.safetext import csv_cell

COLUMNS = ("id", "rule", "class", "confidence", "hipify", "path", "line", "column", "end_line", "end_column",
           "cell", "symbol", "hip", "workload", "targets", "message", "fingerprint",
           "compiler")


ROWS_PER_CHUNK = 1000


def render(report: Report) -> str:
    return "".join(chunks(report))


def chunks(report: Report) -> Iterator[str]:
    """The CSV text in pieces of ROWS_PER_CHUNK rows (the header first), which join to `render`'s."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerow(COLUMNS)
    ids = report.finding_ids()
    for n, f in enumerate(report.findings, start=1):
        writer.writerow([csv_cell(v) for v in (
            ids[f], f.rule, f.migration_class, f.confidence, f.hipify, f.path, f.line, f.column, f.end_line,
            f.end_column, f.cell or "", f.symbol, f.hip or "", f.workload, " ".join(f.targets), f.message,
            f.fingerprint, f.compiler)])
        if n % ROWS_PER_CHUNK == 0:
            yield out.getvalue()
            out.seek(0)
            out.truncate()
    yield out.getvalue()

