"""The stack block (report.stack, or a stack-only report) as terminal tables and as Markdown."""
from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from migrate.render.escape import md
from migrate.vocabulary import pin_rank

STYLES = {"native": "green", "minor-adaptation": "cyan", "migration-required": "yellow", "incompatible": "bold red"}
STATUS = {"ok": "ok", "bump": "bump", "floating": "not pinned", "route": "ROCm route", "unsupported": "no build",
          "unknown": "unknown"}


def summary_line(stack: dict[str, Any]) -> str:
    deciding: dict[str, dict[str, Any]] = {}
    for pin in stack["pins"]:
        best = deciding.get(pin["package"])
        if best is None or pin_rank(pin["kind"]) < pin_rank(best["kind"]):
            deciding[pin["package"]] = pin
    pins = ", ".join(f"{p['package']} {p['version'] or _spec(p)}" for p in deciding.values()) or "no framework pins"
    cuda = f"; CUDA {', '.join(stack['cuda'])} implied" if stack["cuda"] else ""
    rocm = "ROCm pinned" if stack["rocm_pinned"] else "ROCm not pinned"
    return f"Stack: {pins}{cuda}; {rocm}"


def _spec(pin: dict[str, Any]) -> str:
    rest = pin["spec"][len(pin["package"]):].strip() if pin["spec"].startswith(pin["package"]) else pin["spec"]
    return rest or "(no version)"


def terminal(stack: dict[str, Any], *, color: bool = False, width: int = 110, detail: bool = True) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=color, no_color=not color, highlight=False)
    console.print(escape(summary_line(stack)))
    for line in _facts(stack):
        console.print("  " + escape(line))
    if len(stack["targets"]) > 1:
        console.print(_what_if(stack))
    if detail:
        for target in stack["targets"]:
            console.print(_target(target))
    for line in binary_lines(stack) + capability_lines(stack):
        console.print(escape(line))
    for note in stack["notes"]:
        console.print(f"note: {escape(note)}")
    return out.getvalue()


def capability_lines(stack: dict[str, Any]) -> list[str]:
    """One line per kind of capability check that sees the same on every target (rule, check and what each
    target sees and decides): its first place and code, and how many more places are like it (the JSON
    keeps each place), so thirty `-gencode` lines of one CMakeLists are one line, not thirty."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for c in stack.get("capabilities", ()):
        seen = "; ".join(f"{t['arch']}: {t['sees'] or 'unknown'}"
                         + ("" if t["decides"] is None else f" -> {'true' if t['decides'] else 'false'}")
                         for t in c["targets"])
        groups.setdefault((c["rule"], c["check"], seen), []).append(c)
    lines = []
    for (rule, check, seen), checks in groups.items():
        first = checks[0]
        more = f" and {len(checks) - 1} more like it ({_places(checks[1:])})" if len(checks) > 1 else ""
        lines.append(f"capability check {rule} {check} ({first['path']}:{first['line']}) `{first['code']}`{more}: "
                     f"{seen}")
    return lines


def _places(checks: list[dict[str, Any]], shown: int = 4) -> str:
    """`CMakeLists.txt:86, 87, setup.py:9 ...`: the places of the further checks, the path said once per run."""
    parts: list[str] = []
    path = None
    for c in checks[:shown]:
        parts.append(str(c["line"]) if c["path"] == path else f"{c['path']}:{c['line']}")
        path = c["path"]
    return ", ".join(parts) + (" ..." if len(checks) > shown else "")


def binary_lines(stack: dict[str, Any]) -> list[str]:
    """One line per pinned prebuilt GPU binary: the fleet's targets it lacks, or that it is not known."""
    lines = []
    for b in stack.get("binaries", ()):
        if b["status"] == "missing":
            lines.append(f"binary: {b['binary']} ({b['path']}:{b['line']}) lacks {', '.join(b['missing'])}; "
                         f"carries {', '.join(b['carries'])}")
        elif b["status"] == "covered":
            lines.append(f"binary: {b['binary']} ({b['path']}:{b['line']}) carries every fleet target")
        else:
            lines.append(f"binary: {b['binary']} ({b['path']}:{b['line']}): its gfx targets are not in the data read")
    return lines


def compact(stack: dict[str, Any]) -> list[str]:
    """A few lines for the scan summary: the stack, then one line per target."""
    lines = [summary_line(stack)]
    for t in stack["targets"]:
        changes = [f"{f['package']} {f['pinned']} → {f['nearest']}" for f in t["frameworks"] if f["status"] == "bump"]
        gpu = "" if t["gpu"]["status"] == "supported" else f"; GPU {t['gpu']['status']}"
        lines.append(f"  ROCm {t['rocm']} ({t['release'] or 'not in matrix'}) on {t['arch']}: {t['class']}{gpu}"
                     + (f"; {', '.join(changes)}" if changes else ""))
    return lines


def _facts(stack: dict[str, Any]) -> list[str]:
    lines = [f"python: {p['requires']} ({p['path']}:{p['line']})" for p in stack["python"]]
    for image in stack["images"]:
        said = ", ".join(f"{k} {image[k]}" for k in ("rocm", "cuda", "os", "python", "framework", "version")
                         if image[k])
        lines.append(f"image: {image['image']} ({image['path']}:{image['line']})" + (f": {said}" if said else ""))
    lines += [f"no ROCm build: {p['package']} ({p['path']}:{p['line']}) -> {p['instead'] or 'none'}"
              for p in stack["no_rocm_build"]]
    lines += [f"not pinned: {p['package']} ({p['spec']}, {p['path']}:{p['line']})" for p in stack["floating"]]
    return lines


def _what_if(stack: dict[str, Any]) -> Table:
    archs = list(dict.fromkeys(t["arch"] for t in stack["targets"]))
    table = Table(title="What-if: class per ROCm release and GPU", title_justify="left")
    table.add_column("ROCm")
    for arch in archs:
        table.add_column(arch)
    for rocm in dict.fromkeys(t["rocm"] for t in stack["targets"]):
        cells = {t["arch"]: t for t in stack["targets"] if t["rocm"] == rocm}
        table.add_row(rocm, *(_cell(cells[a]) if a in cells else "-" for a in archs))
    return table


def _cell(target: dict[str, Any]) -> str:
    if target["release"] is None:
        return "not in matrix"
    name = target["class"]
    bumps = [f"{f['package']}→{f['nearest']}" for f in target["frameworks"] if f["status"] == "bump"]
    gpu = "" if target["gpu"]["status"] == "supported" else f" (GPU: {target['gpu']['status']})"
    gpu += "".join(f" ({i['os']} not supported)" for i in target["images_os"] if not i["supported"])
    return f"[{STYLES[name]}]{name}[/]{gpu}" + (f" {escape(', '.join(bumps))}" if bumps else "")


def _target(target: dict[str, Any]) -> Table | str:
    """The target's line, with its table of pinned frameworks when there are any."""
    gpu = target["gpu"]
    where = "; ".join(gpu["os"]) if gpu["os"] else "-"
    title = (f"ROCm {target['rocm']} ({target['release'] or 'not in matrix'}) on {target['arch']}: "
             f"[{STYLES[target['class']]}]{target['class']}[/] · GPU {gpu['status']}"
             + (f" (newest release with it: {gpu['newest_release']})" if gpu["status"] != "supported" else "")
             + f" · OS: {escape(where)}" + (f" · {escape(gpu['limits'])}" if gpu["limits"] else "")
             + (f" · base image: {target['base_image']}" if target["base_image"] else "")
             + "".join(f" · {escape(i['image'])}: {i['os']} {'supported' if i['supported'] else 'NOT supported'}"
                       for i in target["images_os"]))
    if not target["frameworks"]:
        return title
    table = Table(title=title, title_justify="left")
    for column in ("framework", "pinned", "status", "use", "install / image"):
        table.add_column(column, overflow="fold")
    for f in target["frameworks"]:
        use = f["nearest"] or "-"
        how = "\n".join(x for x in (f["install"], f["image"] and f"image: {f['image']}", f["note"]) if x) or "-"
        table.add_row(escape(f"{f['package']} ({f['path']}:{f['line']})"), escape(str(f["pinned"])),
                      STATUS.get(f["status"], f["status"]), escape(use), escape(how))
    return table


def markdown(stack: dict[str, Any]) -> str:
    """A Markdown section: the stack, the what-if table and one table per target."""
    out = [f"## Stack\n\n{md(summary_line(stack))}\n"]
    out += [f"- {md(line)}" for line in _facts(stack)]
    archs = list(dict.fromkeys(t["arch"] for t in stack["targets"]))
    if stack["targets"]:
        out += ["", "| ROCm | " + " | ".join(archs) + " |", "|---|" + "---|" * len(archs)]
        for rocm in dict.fromkeys(t["rocm"] for t in stack["targets"]):
            cells = {t["arch"]: t for t in stack["targets"] if t["rocm"] == rocm}
            out.append(f"| {rocm} | " + " | ".join(_md_cell(cells.get(a)) for a in archs) + " |")
    for target in stack["targets"]:
        if not target["frameworks"]:
            continue
        heading = (f"**ROCm {target['rocm']} ({target['release'] or 'not in matrix'}) on {target['arch']}** "
                   f"(GPU {target['gpu']['status']})")
        out += ["", heading, "",
                "| framework | pinned | status | use | install | image |", "|---|---|---|---|---|---|"]
        out += [f"| {md(f['package'])} | {md(str(f['pinned']))} | {STATUS.get(f['status'], f['status'])} | "
                f"{md(f['nearest'] or '-')} | {md(f['install'] or '-')} | {md(f['image'] or '-')} |"
                for f in target["frameworks"]]
    out += [f"\n- {md(line)}" for line in binary_lines(stack) + capability_lines(stack)]
    out += [f"\n_{md(note)}_" for note in stack["notes"]]
    return "\n".join(out) + "\n"


def _md_cell(target: dict[str, Any] | None) -> str:
    if target is None:
        return "-"
    if target["release"] is None:
        return "not in matrix"
    bumps = ", ".join(f"{f['package']} → {f['nearest']}" for f in target["frameworks"] if f["status"] == "bump")
    return md(target["class"] + (f" ({bumps})" if bumps else ""))
