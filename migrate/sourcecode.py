"""Functions the package writes as text at run time (model.slot_builder's and model.evolver's makers), run
here: compiled by `compile`, or, in a process that installed cli/startcache.py's table, served from it as
the methods dataclasses writes are (compiling one costs ~1 M instructions; a lint of one file writes six).
Imports nothing."""
from __future__ import annotations

TYPE_CHECKING = False  # typing's own constant imports typing: not on lint's way (tests/test_lint_typing.py)
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import CodeType
    from typing import Any

compiled: Callable[[str], CodeType] | None = None  # the table's compiler (startcache.install), None without one


def run(text: str, scope: dict[str, Any]) -> None:
    """`exec(text, scope)`, the text compiled as `exec` compiles it in a module without future imports."""
    code = compiled(text) if compiled is not None else compile(text, "<string>", "exec", dont_inherit=True)
    exec(code, scope)
