"""python -m migrate.validate run|compare|plan: the validate commands alone (no scanner imports for run)."""
from migrate.cli.validate import validate

raise SystemExit(validate.main(prog_name="rocm-migrate validate"))
