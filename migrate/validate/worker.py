"""One rank of `validate run --nproc N` (also runs under torchrun): python -m migrate.validate.worker SPEC OUT."""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from migrate.validate import backend
from migrate.validate import spec as specs
from migrate.validate.distributed import run_rank
from migrate.validate.runner import load_functions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m migrate.validate.worker")
    parser.add_argument("spec", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--overrides", default="{}")
    parser.add_argument("--force-cpu", action="store_true")
    args = parser.parse_args(argv)
    spec = specs.load(args.spec).with_overrides(**json.loads(args.overrides))
    torch = backend.torch_module()
    backend.make_deterministic(torch, spec.seed)
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    init = f"tcp://{os.environ.get('MASTER_ADDR', '127.0.0.1')}:{os.environ['MASTER_PORT']}"
    result = run_rank(torch, load_functions(spec), spec.seed, spec.batch_size, rank, world,
                      int(os.environ.get("LOCAL_RANK", rank)), args.force_cpu, init)
    args.out.write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
