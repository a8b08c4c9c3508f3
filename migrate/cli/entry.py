"""The process entry (the console script, `python -m migrate`). A command line whose output is
stored and whose inputs did not change is replayed (migrate.scan.replay) before click or any command
is imported; otherwise main() runs, recorded for the next time."""
from __future__ import annotations

import sys
from typing import NoReturn

from migrate.scan import replay


def run() -> NoReturn:
    """main(), or its replay, then exit. What is still alive after main() (the modules, the rule
    base: ~100k objects) is frozen first, out of reach of the collection the interpreter runs on
    its way out, which cost a lint of one file ~20 ms of its ~120: the interpreter frees it all as
    it ends anyway. Output is flushed and closed as before."""
    argv = sys.argv[1:]
    code = replay.serve(argv)
    if code is None:
        import gc

        from migrate.cli.main import main
        from migrate.extract import budget

        budget.when_machine_dependent(replay.unrepeatable)
        try:
            code = replay.record(argv, main)
        finally:
            gc.freeze()
    sys.exit(code)
