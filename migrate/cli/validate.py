"""The `validate` commands: plan (from the scan), run (a spec into a fingerprint), compare (two fingerprints).
Only click is imported up front; PyTorch only when `run` runs."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import click

from migrate.cli.errors import UsageError

PLAN_FORMATS = ("terminal", "json", "markdown", "html")
COMPARE_FORMATS = ("terminal", "json", "markdown", "html")
EXIT_FAILED, EXIT_INCOMPLETE = 1, 4


@click.group()
def validate() -> None:
    """The validation chain: plan checks from the scan, run them into a fingerprint, compare two fingerprints."""


def _pairs(formats: tuple[str, ...], outputs: tuple[str, ...]) -> list[tuple[str, str]]:
    formats = formats or ("terminal",)
    if outputs and len(outputs) != len(formats):
        raise UsageError("give one -o/--output per --format")
    return list(zip(formats, outputs, strict=True)) if outputs else [(f, "-") for f in formats]


def _write(text: str, destination: str) -> None:
    if destination == "-":
        click.echo(text, nl=False)
        return
    try:
        Path(destination).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {destination}: {exc.strerror or exc}") from None


@validate.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--format", "-f", "formats", multiple=True, type=click.Choice(PLAN_FORMATS),
              help="Output format (repeatable with -o).")
@click.option("-o", "--output", "outputs", multiple=True, help="Write to FILE ('-' for stdout); one per --format.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the extraction cache.")
def plan(paths: tuple[Path, ...], formats: tuple[str, ...], outputs: tuple[str, ...], no_cache: bool) -> None:
    """Which checks each workload needs, and why, from a scan of PATH (default: .)."""
    from migrate.validate import plan as planning
    from migrate.validate import render_plan

    pairs = _pairs(formats, outputs)
    try:
        result = planning.plan_paths(list(paths) or [Path(".")], use_cache=not no_cache)
    except planning.PlanError as exc:
        raise UsageError(str(exc)) from None
    for fmt, destination in pairs:
        _write(render_plan.RENDERERS[fmt](result), destination)


@validate.command()
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path), default=".")
@click.option("-o", "--output-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("validate-spec"),
              show_default=True, help="Folder to write spec.toml and the adapter into.")
@click.option("--workload", help="The workload to write a spec for (default: the first with a PyTorch model).")
@click.option("--force", is_flag=True, help="Overwrite files already there.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the extraction cache.")
def init(path: Path, output_dir: Path, workload: str | None, force: bool, no_cache: bool) -> None:
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
    click.echo(f"{spec_file}: {sk.model_class} from {sk.model_where} (workload {sk.workload}); "
               f"{len(sk.ops)} ops; complete the TODOs in {adapter_file}")


@validate.command()
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


@validate.command()
@click.argument("reference", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("candidate", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--format", "-f", "formats", multiple=True, type=click.Choice(COMPARE_FORMATS),
              help="Output format (repeatable with -o).")
@click.option("-o", "--output", "outputs", multiple=True, help="Write to FILE ('-' for stdout); one per --format.")
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
def compare(reference: Path, candidate: Path, formats: tuple[str, ...], outputs: tuple[str, ...],
            tolerances: Path | None, max_slowdown: float | None, price_reference: float | None,
            price_candidate: float | None, scan_report: Path | None, engineer_rate: float | None,
            currency: str, dtypes: tuple[str, ...]) -> None:
    """Compare CANDIDATE's fingerprint with REFERENCE's.

    Exit 0 when every check was compared and is within tolerance, 1 when a check failed, 4 when the
    comparison is incomplete (a check failed or is missing in the reference, or nothing was compared)."""
    from migrate.validate import compare as comparing
    from migrate.validate import cost, fingerprint, render_compare
    from migrate.validate import tolerances as tol

    pairs = _pairs(formats, outputs)
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
