"""The `validate` commands: plan (from the scan), run (a spec into a fingerprint), compare (two fingerprints).
Only click is imported up front; PyTorch only when `run` runs."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import click

from migrate.cli import outputs as destinations
from migrate.cli.errors import UsageError

FORMATS = ("text", "json", "markdown", "html")  # the renderers' "terminal" is the outputs' "text"
EXIT_FAILED, EXIT_INCOMPLETE = 1, 4
PLAN_EPILOG = """\b
Examples:
  rocm-migrate validate plan                          the checks each workload of . needs
  rocm-migrate validate plan . -f markdown -o validation-plan.md --json-output plan.json

\b
Exit codes: 0 done, 2 usage or input error, 3 internal error."""
INIT_EPILOG = """\b
Examples:
  rocm-migrate validate init . -o validation/        spec.toml and an adapter to complete

\b
Exit codes: 0 done, 2 usage or input error (no model found, folder not empty), 3 internal error."""
RUN_EPILOG = """\b
Examples:
  rocm-migrate validate run spec.toml -o h200.json    on the GPU present (or the CPU)
  rocm-migrate validate run spec.toml --cpu -o cpu.json

\b
Exit codes: 0 done, 2 usage or input error (bad spec), 3 internal error."""
COMPARE_EPILOG = """\b
Examples:
  rocm-migrate validate compare h200.json mi300x.json
  rocm-migrate validate compare h200.json mi300x.json -f html -o validation.html --json-output v.json
  rocm-migrate validate compare a.json b.json --price-reference 3.5 --price-candidate 2.2 --scan-report scan.json

\b
Exit codes: 0 every compared check within tolerance, 1 a check failed, 2 usage or input
error, 3 internal error, 4 incomplete (a check failed or missing in the reference: nothing compared)."""


@click.group()
def validate() -> None:
    """The validation chain: plan checks from the scan, run them into a fingerprint, compare two fingerprints."""


def _pairs(formats: tuple[str, ...], output: str | None, extra: dict[str, object]) -> list[tuple[str, str]]:
    """(renderer, destination) pairs from -f/-o and --FORMAT-output, as in scan and lint."""
    files = {name: extra.pop(f"{name}_output", None) for name in FORMATS}
    pairs = destinations.destinations(formats, output, {k: v for k, v in files.items() if isinstance(v, str)})
    return [("terminal" if name == "text" else name, destination) for name, destination in pairs]


def _write(text: str, destination: str) -> None:
    if destination == "-":
        click.echo(text, nl=False)
        return
    try:
        Path(destination).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {destination}: {exc.strerror or exc}") from None


@validate.command(epilog=PLAN_EPILOG)
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@destinations.options(FORMATS)
@click.option("--no-cache", is_flag=True, help="Do not read or write the extraction cache.")
def plan(paths: tuple[Path, ...], formats: tuple[str, ...], output: str | None, no_cache: bool,
         **extra: str | None) -> None:
    """Which checks each workload needs, and why, from a scan of PATH (default: .)."""
    from migrate.validate import plan as planning
    from migrate.validate import render_plan

    pairs = _pairs(formats, output, dict(extra))
    try:
        result = planning.plan_paths(list(paths) or [Path(".")], use_cache=not no_cache)
    except planning.PlanError as exc:
        raise UsageError(str(exc)) from None
    for fmt, destination in pairs:
        _write(render_plan.RENDERERS[fmt](result), destination)


@validate.command(epilog=INIT_EPILOG)
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path), default=".")
@click.option("-o", "--output-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("validate-spec"),
              show_default=True, help="Folder to write spec.toml and the adapter into.")
@click.option("--workload", help="The workload to write a spec for (default: the first with a PyTorch model).")
@click.option("--force", is_flag=True, help="Overwrite files already there.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the extraction cache.")
@click.option("-q", "--quiet", is_flag=True, help="No summary line on stderr.")
def init(path: Path, output_dir: Path, workload: str | None, force: bool, no_cache: bool, quiet: bool) -> None:
    """Write a spec skeleton for the PyTorch model in PATH, from validate plan's findings."""
    from migrate.validate import plan as planning
    from migrate.validate import skeleton

    try:
        scanned = planning.scan([path], use_cache=not no_cache)
        sk = skeleton.build(planning.plan(scanned.report, scanned.facts), scanned.facts, scanned.files,
                            root=path.resolve(), workload=workload)
    except (planning.PlanError, skeleton.SkeletonError) as exc:
        raise UsageError(str(exc)) from None
    adapter = "validate_adapter"
    spec_file, adapter_file = output_dir / "spec.toml", output_dir / f"{adapter}.py"
    existing = [str(f) for f in (spec_file, adapter_file) if f.exists()]
    if existing and not force:
        raise UsageError(f"{existing[0]} exists (use --force to overwrite)")
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {output_dir}: {exc.strerror or exc}") from None
    _write(skeleton.spec_text(sk, adapter), str(spec_file))
    _write(skeleton.adapter_text(sk, output_dir), str(adapter_file))
    if not quiet:
        click.echo(f"{spec_file}: {sk.model_class} from {sk.model_where} (workload {sk.workload}); "
                   f"{len(sk.ops)} ops; complete the TODOs in {adapter_file}", err=True)


@validate.command(epilog=RUN_EPILOG)
@click.argument("spec_path", metavar="SPEC", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--output", default="-", show_default=True, help="Write the fingerprint JSON here.")
@click.option("--cpu", "force_cpu", is_flag=True, help="Run on the CPU even where a GPU is present.")
@click.option("--nproc", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes for the collectives and DDP checks (one GPU each, or gloo on the CPU).")
@click.option("--steps", type=click.IntRange(min=1), help="Override the spec's optimizer steps.")
@click.option("--batch-size", type=click.IntRange(min=1), help="Override the spec's batch size.")
@click.option("--warmup", type=click.IntRange(min=0), help="Override the spec's warm-up steps before timing.")
@click.option("--timed-steps", type=click.IntRange(min=1), help="Override the spec's timed steps.")
@click.option("--dtype", "dtypes", multiple=True, type=click.Choice(("float32", "bfloat16", "float16")),
              help="Run only these dtypes (repeatable).")
@click.option("--command", "command_line", metavar="CMD",
              help="A command spec: run CMD instead of its command.run (e.g. the CPU build of the same test).")
@click.option("--repeats", type=click.IntRange(min=1), help="A command spec: run the command this many times.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
def run(spec_path: Path, output: str, force_cpu: bool, nproc: int, steps: int | None, batch_size: int | None,
        warmup: int | None, timed_steps: int | None, dtypes: tuple[str, ...], command_line: str | None,
        repeats: int | None, quiet: bool) -> None:
    """Run SPEC (TOML) on the GPU or CPU present and write its fingerprint.

    A spec with [model] runs the training-step checks on a PyTorch model; a spec with [command] runs the
    project's own program or test suite and reads the metrics its [[metrics]] patterns name."""
    from migrate.validate import command, fingerprint, runner
    from migrate.validate import spec as specs

    if command.is_command_spec(spec_path):
        try:
            loaded = command.load(spec_path)
            loaded = replace(loaded, run=command_line or loaded.run, repeats=repeats or loaded.repeats)
            if not quiet:
                click.echo(f"validate run: {loaded.run} (in {loaded.folder()}, {loaded.repeats}x)", err=True)
            _write(fingerprint.dumps(command.run(loaded, force_cpu=force_cpu)), output)
        except specs.SpecError as exc:
            raise UsageError(str(exc)) from None
        return
    if command_line or repeats:
        raise UsageError("--command and --repeats need a command spec (a [command] table)")

    overrides = {"steps": steps, "batch_size": batch_size, "warmup": warmup, "timed_steps": timed_steps,
                 "dtypes": tuple(dtypes) or None}
    try:
        spec = specs.load(spec_path).with_overrides(**overrides)
        result = runner.run(spec, force_cpu=force_cpu, nproc=nproc,
                            overrides={k: v for k, v in overrides.items() if v is not None and k != "dtypes"},
                            progress=(lambda _: None) if quiet else (lambda m: click.echo(f"validate run: {m}", err=True)))
    except (specs.SpecError, RuntimeError) as exc:
        raise UsageError(str(exc)) from None
    _write(fingerprint.dumps(result), output)


@validate.command(epilog=COMPARE_EPILOG)
@click.argument("reference", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("candidate", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@destinations.options(FORMATS)
@click.option("--tolerances", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="TOML file of [dtype.check] rtol/atol/bound overrides.")
@click.option("--max-slowdown", type=click.FloatRange(min=0, min_open=True),
              help="Also fail when the candidate's step time is more than this many times the reference's.")
@click.option("--price-reference", type=click.FloatRange(min=0), help="Reference platform's price per GPU-hour.")
@click.option("--price-candidate", type=click.FloatRange(min=0), help="Candidate platform's price per GPU-hour.")
@click.option("--scan-report", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A `scan --format json` report: its effort estimate is the port's cost.")
@click.option("--engineer-rate", type=click.FloatRange(min=0), help="Price of one engineering hour (for break-even).")
@click.option("--currency", default="USD", show_default=True, help="Label of the prices.")
@click.option("--dtype", "dtypes", multiple=True, type=click.Choice(("float32", "bfloat16", "float16")),
              help="Compare only the checks of these dtypes (repeatable), e.g. a run made with run --dtype.")
def compare(reference: Path, candidate: Path, formats: tuple[str, ...], output: str | None,
            tolerances: Path | None, max_slowdown: float | None, price_reference: float | None,
            price_candidate: float | None, scan_report: Path | None, engineer_rate: float | None,
            currency: str, dtypes: tuple[str, ...], **extra: str | None) -> None:
    """Compare CANDIDATE's fingerprint with REFERENCE's.

    Exit 0 when every check was compared and is within tolerance, 1 when a check failed, 4 when the
    comparison is incomplete (a check failed or is missing in the reference, or nothing was compared)."""
    from migrate.validate import compare as comparing
    from migrate.validate import cost, fingerprint, render_compare
    from migrate.validate import tolerances as tol

    pairs = _pairs(formats, output, dict(extra))
    try:
        prices = cost.Prices(reference=price_reference, candidate=price_candidate, engineer_rate=engineer_rate,
                             effort_hours=cost.effort_from_report(scan_report) if scan_report else None,
                             currency=currency)
        result = comparing.compare(fingerprint.load(reference), fingerprint.load(candidate), tol.load(tolerances),
                                   max_slowdown, prices=prices, dtypes=dtypes)
    except (fingerprint.FingerprintError, tol.ToleranceError, cost.CostError) as exc:
        raise UsageError(str(exc)) from None
    for fmt, destination in pairs:
        _write(render_compare.RENDERERS[fmt](result), destination)
    if result.verdict != "passed":
        sys.exit(EXIT_FAILED if result.verdict == "failed" else EXIT_INCOMPLETE)
