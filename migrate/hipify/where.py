"""Where hipify-perl is looked for, and whether one is there: all a scan asks before it knows
whether it runs the tool (imports nothing heavy; `tool` runs it)."""
from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from migrate.settings import Settings

NAME = "hipify-perl"
ROCM_DEFAULT = Path("/opt/rocm")


def candidates(explicit: str | os.PathLike[str] | None = None,
               env: Mapping[str, str] | None = None) -> list[Path]:
    """Where to look, in order: the explicit path, $HIPIFY_PERL, $ROCM_PATH/bin, /opt/rocm/bin, PATH."""
    env = os.environ if env is None else env
    if explicit:
        return [Path(explicit).expanduser()]
    out = []
    if env.get("HIPIFY_PERL"):
        out.append(Path(env["HIPIFY_PERL"]).expanduser())
    if env.get("ROCM_PATH"):
        out.append(Path(env["ROCM_PATH"]).expanduser() / "bin" / NAME)
    out.append(ROCM_DEFAULT / "bin" / NAME)
    on_path = shutil.which(NAME, path=env.get("PATH", os.defpath))
    if on_path:
        out.append(Path(on_path))
    return out


def installed(explicit: str | os.PathLike[str] | None = None) -> bool:
    """Whether a hipify-perl is where `locate` looks (without running it)."""
    return any(path.is_file() for path in candidates(explicit))


def scan_runs(settings: Settings) -> bool:
    """Whether a scan with these settings runs a hipify-perl pass: turned on, and one is where
    `locate` looks (the pipeline then keeps every fact; the report cache does not serve it)."""
    return settings.use_hipify and installed(settings.hipify)
