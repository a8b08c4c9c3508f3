"""The process entry (the console script, `python -m migrate`). A command line whose output is
stored and whose inputs did not change is replayed (migrate.scan.replay) before click or any command
is imported; otherwise the command runs, recorded for the next time: a lint command line of the
plain shapes cli/lint_args.py reads without click, any other through click (cli.main.main)."""
from __future__ import annotations

import sys

from migrate.scan import replay

TYPE_CHECKING = False  # as in scan.storedfiles: nothing beyond the os layer before a replay or a served lint
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn

LINT_GC_THRESHOLD = 100_000  # allocations between young-generation collections (the interpreter's: 700)


def run() -> NoReturn:
    """main(), or its replay, then exit. What is still alive after main() (the modules, the rule
    base: ~100k objects) is frozen first, out of reach of the collection the interpreter runs on
    its way out, which cost a lint of one file ~20 ms of its ~120: the interpreter frees it all as
    it ends anyway. Output is flushed and closed as before; a lint process ends as `leave` says."""
    argv = sys.argv[1:]
    code: str | int | None
    try:
        code = _run(argv)
    except SystemExit as exc:  # lint_run, click: the exit status
        code = exc.code
    leave(code, at_once=argv[:1] == ["lint"])


def _run(argv: list[str]) -> int | None:
    code = replay.serve(argv)
    if code is None and argv[:1] == ["lint"]:
        from migrate.cli import lint_client

        code = lint_client.serve(argv)  # a resident lint server's run, when one is there to ask
    if code is None:
        import gc

        command = lint_or_main(argv)
        interrupted = False
        try:
            code = replay.record(argv, command)
        except KeyboardInterrupt:
            interrupted = True  # a Ctrl-C'd run exits now, without compiling its new patterns for the table
            raise
        finally:
            gc.freeze()
            if not interrupted:
                from migrate.cli import startcache

                startcache.save()  # after the recorded run (a file written outside the cache folder keeps it from being stored)
    return code


def leave(code: str | int | None, *, at_once: bool) -> NoReturn:
    """sys.exit(code); with `at_once` (a lint process), when the interpreter's way out would only free
    what is alive (no atexit callback registered, no other thread running; the code an exit status),
    the streams are flushed and the process ends there (os._exit): tearing the modules and the rule base
    down object by object cost an edited-file lint ~7 M of its ~350 M instructions. Every file lint
    writes is closed where it is written (`with`), and the cache's database commits each write; a
    stream that cannot be flushed is left to sys.exit, which reports it as before."""
    if at_once and (code is None or type(code) is int) and _nothing_left_to_run():
        try:
            for stream in dict.fromkeys((sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)):
                if stream is not None:
                    stream.flush()
        except (OSError, ValueError):
            sys.exit(code)
        import os

        os._exit(code or 0)
    sys.exit(code)


def _nothing_left_to_run() -> bool:
    """No atexit callback (a coverage tool's, logging's, multiprocessing's) and no thread but this one."""
    import atexit

    threading = sys.modules.get("threading")
    return atexit._ncallbacks() == 0 and (threading is None or threading.active_count() == 1)


def lint_or_main(argv: list[str]) -> Callable[[], int]:
    """The command that runs `argv` here (the replay and any lint server missed; cli/lint_server.py
    runs its requests so too): a lint command line of the shapes cli/lint_args.py reads runs
    cli/lint_run.py without click, any other runs click's cli.main.main (which reads sys.argv)."""
    import gc
    from functools import partial

    threshold = gc.get_threshold()
    if argv[:1] == ["lint"]:  # before lint's modules: their patterns and dataclasses come from the table
        # a lint process is short-lived and makes little cyclic garbage: collecting every 700 allocations
        # cost an edited-file lint ~23 M of its ~750 M instructions, and the full collections the imports
        # below set off ~8 M of its ~326 M: the threshold is set before them
        gc.set_threshold(LINT_GC_THRESHOLD)
        from migrate.cli import deferred, startcache

        # asked only for a dataclass without a docstring, a URL's [host], a Windows path (pathlib names ntpath);
        # tree_sitter's __init__ (extract/c/ts.py imports the compiled classes from tree_sitter._binding)
        deferred.defer("inspect", "ipaddress", "ntpath", "tree_sitter")
        startcache.install()
        from migrate import compat

        compat.import_pathlib()  # without urllib.parse, which pathlib names for as_uri() alone
    elif argv[:1] == ["scan"]:  # a scan's modules too: its parent's imports are serial work before the workers start
        from migrate.cli import startcache

        startcache.install("scan")  # a table of its own: a lint does not unmarshal what only a scan compiles
    elif argv == ["--version"]:  # click, the rule data's stamps and model's classes: compiled once, in a table of its own
        from migrate.cli import startcache

        startcache.install("version")
    if argv[:1] and argv[0] in replay.COMMANDS:  # a recorded command: a budget-stopped analysis is not stored
        from migrate.extract import budget

        budget.when_machine_dependent(replay.unrepeatable)
    options = None
    if argv[:1] == ["lint"]:  # not for another command (--version imported lint's modules without their start table)
        from migrate.cli import lint_args

        options = lint_args.read(argv)
    if options is None:
        from migrate.cli.main import main

        gc.set_threshold(*threshold)  # click's commands collect as the interpreter does
        return main
    from migrate.cli import lint_run

    return partial(lint_run.main, options)
