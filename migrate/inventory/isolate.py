"""One repository's scan in a process of its own, ended at the repository's time and memory
limits: a repository that loops, or grows without bound, is that repository's error and the
run goes on. The child is this module run with `python -m`; it reads its task (pickled by its
parent, with the rule base the parent already loaded) on stdin and writes the outcome as JSON
(UTF-8, undecodable file-name bytes as U+FFFD) on stdout."""
from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from migrate.inventory.repolist import RepoSpec
from migrate.inventory.worker import Previous, ScanOptions, failure, rules_for, scan_repo
from migrate.safetext import unicode_text

if TYPE_CHECKING:
    from migrate.rulebase.load import RuleBase

def scan_within_limits(spec: RepoSpec, previous: Previous | None, options: ScanOptions) -> dict[str, Any]:
    """One repository's outcome: in a process of its own, ended at the limits, when `options.isolated`
    (the default); else in this process."""
    return scan_isolated(spec, previous, options) if options.isolated else scan_repo(spec, previous, options)


def scan_isolated(spec: RepoSpec, previous: Previous | None, options: ScanOptions) -> dict[str, Any]:
    """scan_repo in a child process; past `options.repo_seconds` or `options.repo_memory_mib` the
    child is ended and the outcome is a failure that says which limit it reached."""
    try:  # loaded once per worker process and handed down: the child need not load them again
        rules: RuleBase | None = rules_for(options)
    except Exception:  # the rules themselves may fail: the child reports it as this repository's error
        rules = None
    task = pickle.dumps({"spec": spec, "previous": previous, "options": replace(options, isolated=False), "rules": rules})
    started = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (_package_parent(), os.environ.get("PYTHONPATH"))
                                                        if p)}
    try:
        done = subprocess.run([sys.executable, "-m", "migrate.inventory.isolate"], input=task,
                              capture_output=True, timeout=options.repo_seconds, env=env, check=False)
    except subprocess.TimeoutExpired:
        return failure(spec, options, f"time limit: the scan ran past {options.repo_seconds:g} s and was ended",
                       started=started)
    if done.returncode == 0:
        try:
            outcome: dict[str, Any] = json.loads(done.stdout)
            return outcome
        except ValueError:
            pass
    return failure(spec, options, _why(done, options), started=started)


def _why(done: subprocess.CompletedProcess[bytes], options: ScanOptions) -> str:
    last = unicode_text(done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:][0]
                        if done.stderr.strip() else "")[:300]
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name if -done.returncode in signal.valid_signals() else "a signal"
        return f"the scan process was ended by {name} (memory limit {options.repo_memory_mib} MiB?)"
    if "MemoryError" in last:
        return f"memory limit: the scan needed more than {options.repo_memory_mib} MiB"
    return f"the scan process failed (exit {done.returncode}): {last}"


def _package_parent() -> str:
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _child() -> int:
    import resource

    task = pickle.loads(sys.stdin.buffer.read())
    options: ScanOptions = task["options"]
    limit = options.repo_memory_mib << 20
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:  # a lower limit set on the whole run stays
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    outcome = scan_repo(task["spec"], task["previous"], options, rules=task["rules"])
    sys.stdout.write(unicode_text(json.dumps(outcome, ensure_ascii=False)))
    return 0


if __name__ == "__main__":
    raise SystemExit(_child())
